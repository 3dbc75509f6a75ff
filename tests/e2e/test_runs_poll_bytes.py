"""A poll of the runs list writes the cells that changed, not the whole table: the real app on a pty, bytes counted.

One run is RUNNING among finished ones, at 80x24 (a slow SSH hop's usual terminal). Each poll changes
that run's Steps, Loss and Elapsed cells; the other rows are the same and must not be written again.
The output is cut into bursts (a poll and what follows it) at gaps of ``GAP`` seconds, and the
bytes of a burst are asserted, not a rate: bytes do not depend on the machine's load.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
from pathlib import Path

import pytest

from primetui.api.client import PrimeClient
from tests.ui.dash_helpers import PACED_DATA, dispatch_paced_run, dispatch_walkthrough, wait_status

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))

from first_frame import BIN, env_for  # noqa: E402
from ptyapp import PtyApp  # noqa: E402

FINISHED = 2
WINDOW = 10.0
GAP = 0.2
MAX_BURST = 700
"""Bytes a poll may write: one run's changed cells (about 250 bytes); the 4-row table alone is over 1,500."""

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a pty")


def bursts(reads: list[tuple[float, int]]) -> list[int]:
    """Bytes of each run of reads with less than ``GAP`` seconds between two of them."""
    out: list[int] = []
    last = float("-inf")
    for at, n in reads:
        if at - last >= GAP or not out:
            out.append(0)
        out[-1] += n
        last = at
    return out


def every_row_loaded(screen: str) -> bool:
    """The running run is past step 10 and every run's last column has its number (the metrics' first load is drawn).

    Past step 10 the Steps column keeps its width for a while (a wider cell redraws the table once).
    """
    # this test's own runs: other tests on the shared platform may list runs that never logged a loss
    rows = [
        line.rstrip()
        for line in screen.splitlines()
        if ("RUNNING" in line or "COMPLETED" in line) and "poll-bytes" in line
    ]
    live = next((r for r in rows if "poll-bytes-live" in r), "")
    two_digits = any(w.split("/")[0].isdigit() and int(w.split("/")[0]) >= 10 for w in live.split() if "/" in w)
    return two_digits and len(rows) > FINISHED and all(r[-1:].isdigit() for r in rows)


async def runs(lp) -> tuple[list[str], str]:
    finished = [  # 4 x 256 tokens a step: rows with a loss, without the walkthrough's 8 x 2,048 to compute
        await dispatch_walkthrough(lp, max_steps=3, name=f"poll-bytes-{i}", data=dict(PACED_DATA))
        for i in range(FINISHED)
    ]
    for run_id in finished:
        await wait_status(lp, run_id, {"COMPLETED"}, limit=180)
    running = await dispatch_paced_run(lp, "poll-bytes-live")  # a step a poll, at almost no CPU
    await wait_status(lp, running, {"RUNNING"}, limit=120)
    return finished, running


async def stop(lp, run_id: str) -> None:
    async with PrimeClient(lp.base_url, lp.token) as c:
        await c.stop_run(run_id)


def test_a_poll_writes_only_the_running_runs_cells(local_platform, tmp_path):
    _finished, running = asyncio.run(runs(local_platform))
    try:
        env = env_for(local_platform, str(tmp_path))
        config = Path(env["PRIMETUI_CONFIG_DIR"])
        config.mkdir(parents=True, exist_ok=True)
        (config / "config.toml").write_text("[refresh]\nruns_list = 1.0\nrun_detail = 1.0\n")
        with PtyApp([str(BIN / "primetui"), "runs"], env, cols=80, rows=24) as app:
            app.wait_for(every_row_loaded, label="every run's loss or reward in the list")
            window = app.measure(WINDOW)
            sizes = bursts(window.reads)
            assert "poll-bytes-live" in app.text()
        assert len(sizes) >= 2, f"the running run changed the screen fewer than twice in {WINDOW} s: {sizes}"
        assert statistics.median(sizes) <= MAX_BURST, f"a poll wrote {sorted(sizes)} bytes: the whole table again"
    finally:
        asyncio.run(stop(local_platform, running))
