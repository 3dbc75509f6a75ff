"""A screen switch and an open run screen write what changed on the terminal, not whole repaints.

The real app on an 80x24 pty (a slow SSH hop's usual terminal), one RUNNING run. Textual repaints
every line when a screen opens and a widget's whole region when it refreshes; through a 1,200 B/s
link a 12 kB repaint is 10 s. ``ui/frame_diff.py`` sends only the cells that differ from what the
terminal shows. Bytes are asserted, not rates: a key's bytes are those written from the key until the
screen shows its answer and nothing more comes for ``QUIET`` seconds; the open run screen's polls are
cut into bursts at ``GAP`` gaps (as in test_runs_poll_bytes.py).

The test has a platform of its own: on the shared one, other tests' runs fill the runs list, and a
switch to a full list writes more new cells (a CI run saw 5,221 bytes for ``r`` with the list full).
"""

from __future__ import annotations

import asyncio
import statistics
import sys
from pathlib import Path

import pytest

from primetui.api.client import PrimeClient
from tests.ui.dash_helpers import dispatch_paced_run, wait_status

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))

from first_frame import BIN, env_for  # noqa: E402
from ptyapp import PtyApp  # noqa: E402
from tests.e2e.test_runs_poll_bytes import bursts  # noqa: E402

QUIET = 1.0
WINDOW = 8.0
MAX_SWITCH = 5_000
"""Bytes a screen switch may write at 80x24: whole repaints were 11,900 (volumes) to 14,000 (runs again)."""
MAX_POLL = 1_000
"""Bytes a poll of the open run screen may write: whole charts and panels were 4,800 to 6,800 a poll."""

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a pty")


async def stop(lp, run_id: str) -> None:
    async with PrimeClient(lp.base_url, lp.token) as c:
        await c.stop_run(run_id)


def key_bytes(app: PtyApp, key: str, shown, label: str) -> int:
    """Bytes written from ``key`` until ``shown`` is on screen and the app has been quiet for ``QUIET`` s."""
    start = len(app.reads)
    app.send(key)
    app.wait_for(shown, label=label)
    app.wait_quiet(QUIET)
    return sum(n for _, n in app.reads[start:])


def test_screen_switches_and_the_run_screens_polls_write_only_what_changed(own_demo_platform, tmp_path):
    # a step every half second at almost no CPU: each poll of the open run screen has something new to draw
    run_id = asyncio.run(dispatch_paced_run(own_demo_platform, "screen-bytes-live"))
    try:
        asyncio.run(wait_status(own_demo_platform, run_id, {"RUNNING"}, limit=120))
        env = env_for(own_demo_platform, str(tmp_path))
        config = Path(env["PRIMETUI_CONFIG_DIR"])
        config.mkdir(parents=True, exist_ok=True)
        (config / "config.toml").write_text("[refresh]\nrun_detail = 1.0\n")
        with PtyApp([str(BIN / "primetui"), "runs"], env, cols=80, rows=24) as app:
            listed = lambda s: "screen-bytes-live" in s and "page" in s  # noqa: E731
            app.wait_for(listed, label="the runs list with the running run")
            app.wait_quiet(QUIET)
            switches = {
                "v": key_bytes(app, "v", lambda s: "Sessions of" in s, "the volumes screen"),
                "r": key_bytes(app, "r", listed, "the runs list"),
            }
            # the newest run is the list's first row, where the cursor is
            opened = lambda s: "Lifecycle" in s and "screen-bytes-live" in s  # noqa: E731
            switches["enter"] = key_bytes(app, "\r", opened, "the running run's screen")
            polls = bursts(app.measure(WINDOW).reads)
            switches["escape"] = key_bytes(app, "\x1b", listed, "the runs list again")
        assert max(switches.values()) <= MAX_SWITCH, f"a screen switch repainted the screen: {switches}"
        assert len(polls) >= 2, f"the running run's screen changed fewer than twice in {WINDOW} s: {polls}"
        assert statistics.median(polls) <= MAX_POLL, f"the run screen's polls wrote {sorted(polls)} bytes"
    finally:
        asyncio.run(stop(own_demo_platform, run_id))
