"""PRIMETUI_LOCAL_MAX_RUNS: runs beyond the limit wait QUEUED (with runsAhead), first in first out."""

from __future__ import annotations

import time
from pathlib import Path

from primetui.local.testing import IDLE_PACE, LocalPlatform
from tests.local.conftest import http, wait_status


def fake(steps: int) -> dict:
    return {
        "max_steps": steps,
        "model": {"name": "Qwen/Qwen3-0.6B"},
        "data": {"type": "fake", "batch_size": 2, "seq_len": 64},
    }


def test_runs_over_the_limit_queue_in_order(tmp_path: Path) -> None:
    with LocalPlatform.start(tmp_path, env={"PRIMETUI_LOCAL_MAX_RUNS": "1"}) as lp, http(lp) as api:
        holder = {**fake(100000), "env_vars": dict(IDLE_PACE)}  # holds the one slot without taking a core
        ids = [
            api.post("/training/runs", json={"config": c, "mode": "sft"}).json()["runId"]
            for c in (holder, fake(3), fake(3))
        ]
        first, second, third = ids
        deadline = time.monotonic() + 60
        while True:
            runs = [api.get(f"/rft/runs/{i}").json()["run"] for i in ids]  # three reads: may straddle a tick
            if (
                runs[1]["status"] == "QUEUED"
                and runs[2]["status"] == "QUEUED"
                and runs[2].get("runsAhead") == 1
                and runs[0]["status"] in {"CREATING", "RUNNING"}
            ):
                break
            assert time.monotonic() < deadline, runs
            time.sleep(0.05)
        assert runs[1]["runsAhead"] == 0 and "PRIMETUI_LOCAL_MAX_RUNS" in runs[1]["queueReason"]
        logs = api.get(f"/rft/runs/{second}/logs")
        assert logs.status_code == 404 and "run is QUEUED" in logs.json()["detail"]

        assert api.put(f"/rft/runs/{third}/stop").json()["run"]["status"] == "STOPPED"  # leaves the queue at once
        api.put(f"/rft/runs/{first}/stop")
        assert wait_status(api, first)["status"] == "STOPPED"
        run = wait_status(api, second)
        assert run["status"] == "COMPLETED" and "runsAhead" not in run and "queueReason" not in run
        assert api.get(f"/rft/runs/{third}").json()["run"]["status"] == "STOPPED"
