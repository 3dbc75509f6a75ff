"""Through a 300 B/s pty relay (bench/slow_link.py's ``SlowTerminal``) the dashboard stays usable.

The real app runs on a pty read at 300 bytes a second (2,400 baud) by a terminal that answers cursor
position requests, as a real one does. The first screen is more than the link carries in a second
(at 1,200 B/s it no longer is: frames carry only the cells that changed), so frames must wait and be
merged: the header says ``⏸ slow link`` while a key's answer goes out. The
waits are for what the screen shows (generous limits; timing belongs in bench/slow_link.py).
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from primetui.api.client import PrimeClient
from primetui.local.testing import IDLE_PACE
from tests.ui.dash_helpers import dispatch_walkthrough, wait_status

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))

from first_frame import BIN, env_for  # noqa: E402
from slow_link import SlowTerminal  # noqa: E402

RATE = 300

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a pty")


async def live(lp) -> str:
    """A RUNNING run at almost no CPU: the list only has to show it, not its steps moving."""
    run_id = await dispatch_walkthrough(lp, max_steps=100_000, name="slow-live", env_vars=dict(IDLE_PACE))
    await wait_status(lp, run_id, {"RUNNING"}, limit=120)
    return run_id


async def stop(lp, run_id: str) -> None:
    async with PrimeClient(lp.base_url, lp.token) as c:
        await c.stop_run(run_id)


def test_slow_link_badge_and_a_key_answered(own_demo_platform, tmp_path):
    # a platform of its own: at 300 B/s each row costs time, and the shared one lists other tests' runs
    run_id = asyncio.run(live(own_demo_platform))
    try:
        env = env_for(own_demo_platform, str(tmp_path))
        config = Path(env["PRIMETUI_CONFIG_DIR"])
        config.mkdir(parents=True, exist_ok=True)
        (config / "config.toml").write_text("[refresh]\nruns_list = 1.0\n")
        with SlowTerminal([str(BIN / "primetui"), "runs"], env, rate=RATE) as app:
            app.wait_for(
                lambda s: "slow-live" in s and "RUNNING" in s, timeout=90, label="the runs list through the relay"
            )
            app.send("v")  # a screen switch: more than the link carries in a second
            app.wait_for(
                lambda s: "Sessions of research" in s and "Live sessions" in s,
                timeout=60,
                label="the volumes screen, through the relay",
            )
            app.wait_for(lambda _s: app.badge_seen, timeout=60, label="the header's ⏸ slow link")
    finally:
        asyncio.run(stop(own_demo_platform, run_id))
