"""An idle dashboard writes nothing to its terminal: the real app on a pty, bytes counted (bench/idle.py in short).

The app polls the platform every 0.5 s here (``[refresh]``), so several polls bring the same data
inside each window: none of them, nor the header's one-second tick, may repaint anything. The
window is a measurement (bytes written while nothing changes), not a wait for something to happen;
bytes do not depend on the machine's load.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest

from tests.ui.dash_helpers import PACED_DATA, dispatch_walkthrough, wait_status

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))

from first_frame import BIN, env_for  # noqa: E402
from ptyapp import PtyApp  # noqa: E402

WINDOW = 2.5
"""Five polls and two of the header's ticks: one repaint by either is caught."""
QUIET = 2.0
MAX_BYTES = 390
"""Less than one repaint of the header line (about 395 bytes at 120 columns)."""

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc and a pty")


def idle_bytes(app: PtyApp) -> tuple[int, list[bytes]]:
    app.wait_quiet(QUIET, timeout=60)
    n = len(app.raw)
    window = app.measure(WINDOW)
    return window.bytes, app.raw[n:]


def test_idle_screens_write_nothing(local_platform, tmp_path):
    # a finished run to show: 4 x 256 tokens a step (the walkthrough's 8 x 2,048 only cost CPU)
    run_id = asyncio.run(dispatch_walkthrough(local_platform, max_steps=3, data=dict(PACED_DATA)))
    asyncio.run(wait_status(local_platform, run_id, {"COMPLETED"}, limit=120))
    env = env_for(local_platform, str(tmp_path))
    env["PRIMETUI_CACHE_DIR"] = str(tmp_path / "cache")
    config = Path(env["PRIMETUI_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.toml").write_text("[refresh]\nruns_list = 0.5\nrun_detail = 0.5\n")
    with PtyApp([str(BIN / "primetui"), "run", run_id], env) as app:
        app.wait_for(lambda s: "COMPLETED" in s and "Lifecycle" in s, label="the run's overview")
        written, what = idle_bytes(app)
        assert written <= MAX_BYTES, (
            f"a finished run's overview (the runs list under it) repainted {written} bytes, starting "
            f"{b''.join(what)[:200]!r}"
        )
        app.send("\x1b")
        app.wait_for(lambda s: "Filter" in s and run_id[:8] in s, label="the runs list")
        written, what = idle_bytes(app)
        assert written <= MAX_BYTES, f"the idle runs list repainted {written} bytes, starting {b''.join(what)[:200]!r}"
        app.send("v")
        app.wait_for(lambda s: "GiB free" in s, label="the volumes screen")
        written, what = idle_bytes(app)
        assert written <= MAX_BYTES, (
            f"the idle volumes screen repainted {written} bytes, starting {b''.join(what)[:200]!r}"
        )
    cache = list((tmp_path / "cache").glob("runs-*.json"))
    assert len(cache) == 1
    mtime = os.stat(cache[0]).st_mtime_ns
    with PtyApp([str(BIN / "primetui"), "runs"], env) as app:
        app.wait_for(lambda s: run_id[:8] in s and "live" in s, label="the live runs list")
        app.wait_quiet(QUIET, timeout=60)
    assert os.stat(cache[0]).st_mtime_ns == mtime, "the runs cache was rewritten with the same runs"
