"""Issue 18 #4 over real HTTP: following a live eval run loses no eval row (the eval of a step
finishes after the trainer has moved past it, and the platform merges it into that step's row)."""

from __future__ import annotations

import asyncio

import pytest

from primetui.api import followers as f
from primetui.api.client import PrimeClient
from primetui.local.testing import LocalPlatform
from tests.local.test_evals_http import eval_config

pytestmark = pytest.mark.timeout(240)
EVAL_KEY = "eval/reverse-text/reward/mean"


async def test_live_metrics_of_an_eval_run_hold_every_eval_row(local_platform: LocalPlatform) -> None:
    async with PrimeClient(local_platform.base_url, local_platform.token) as client:
        created = await client.create_run(
            eval_config(local_platform, max_steps=40), volume="research", name="evals-live"
        )
        run_id = created.run_id
        watcher = f.RunWatcher(client, run_id, interval=0.1)
        # a fast cursor: each poll asks only for steps after the newest one it has
        metrics = f.MetricsFollower(client, run_id, interval=0.1, watcher=watcher, late_every=4)
        live: dict[int, float] = {}

        async def follow() -> None:
            async for ev in metrics:
                if isinstance(ev, f.MetricRows):
                    for row in ev.rows:
                        if EVAL_KEY in row:
                            assert int(row["step"]) not in live, "an eval point was handed out twice"
                            live[int(row["step"])] = row[EVAL_KEY]

        async def watch() -> None:
            async for _ in watcher:
                pass

        await asyncio.wait_for(asyncio.gather(follow(), watch()), timeout=200)
        assert watcher.latest is not None and watcher.latest.status == "COMPLETED"
        stored = {int(r["step"]): r[EVAL_KEY] for r in (await client.get_metrics(run_id)).metrics if EVAL_KEY in r}
    assert len(stored) >= 8
    assert live == stored
