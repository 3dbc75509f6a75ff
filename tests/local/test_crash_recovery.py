"""A server killed or stopped mid-run loses nothing recorded, and its runs finish after a restart.

Policy (see primetui.local.supervisor): a trainer that outlived the server is adopted by pid; one
that is gone is resumed in place from its latest checkpoint; a clean shutdown pauses trainers at a
checkpoint and the restart resumes them.
"""

from __future__ import annotations

import os
import re
import signal
from pathlib import Path

import httpx

from primetui.local.procs import trainer_in
from primetui.local.testing import LocalPlatform
from tests.local.conftest import http, wait_status
from tests.local.test_runs import small_config


def trainer_pid(lp: LocalPlatform, run_id: str) -> int:
    """The pid of the run's trainer, found as the platform finds it (a fresh interpreter or a fork)."""
    run_dir = lp.data_dir / "runs" / run_id
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and trainer_in(int(entry.name), run_dir, exact=True):
            return int(entry.name)
    raise AssertionError(f"no trainer process for {run_id}")


def seed_dataset(lp: LocalPlatform, api: httpx.Client) -> None:
    """A fresh platform has no demo data: write the walkthrough config and dataset the same way."""
    from primetui.local.demo import WALKTHROUGH_TOML, reverse_text_rows, write_dataset

    assert api.post("/training/volumes", json={"name": "research", "size": "1Gi"}).status_code == 200
    write_dataset(lp.data_dir / "volumes" / "research" / "datasets" / "reverse-text", reverse_text_rows(200))
    (lp.data_dir / "sft.toml").write_text(WALKTHROUGH_TOML)


def assert_complete_history(api: httpx.Client, run_id: str, steps: int) -> None:
    run = wait_status(api, run_id)
    assert run["status"] == "COMPLETED", run.get("errorMessage")
    metrics = api.get(f"/rft/runs/{run_id}/metrics").json()["metrics"]
    assert [m["step"] for m in metrics] == list(range(1, steps + 1))
    logs = api.get(f"/rft/runs/{run_id}/logs", params={"tail_lines": 5000}).json()["logs"]
    assert f"Step {steps} |" in logs


def test_kill_mid_run_then_restart_and_a_clean_shutdown_then_restart(fresh_platform: LocalPlatform) -> None:
    lp = fresh_platform
    steps = 20
    with http(lp) as api:
        seed_dataset(lp, api)
        orphan = api.post(
            "/training/runs",
            json={
                "config": small_config(lp, max_steps=100000, ckpt={"interval": 5}),
                "mode": "sft",
                "volume": "research",
            },
        ).json()["runId"]
        wait_status(api, orphan, step=6)
        # the survivor starts last, so it is still mid-run when the server is killed (a short run
        # started first could finish while the orphan reached its checkpoint)
        survivor = api.post(
            "/training/runs",
            json={"config": small_config(lp, max_steps=3 * steps), "mode": "sft", "volume": "research"},
        ).json()["runId"]
        wait_status(api, survivor, step=2)
        before = {m["step"] for m in api.get(f"/rft/runs/{survivor}/metrics").json()["metrics"]}
        assert api.get(f"/rft/runs/{survivor}").json()["run"]["status"] == "RUNNING"
    dead_trainer = trainer_pid(lp, orphan)
    lp.kill()  # SIGKILL: no cleanup at all
    os.kill(dead_trainer, signal.SIGKILL)  # and the machine lost this run's trainer too
    lp.restart()
    with http(lp) as api:
        after = {m["step"] for m in api.get(f"/rft/runs/{survivor}/metrics").json()["metrics"]}
        assert before <= after  # nothing recorded before the kill was lost
        assert_complete_history(api, survivor, 3 * steps)
        logs = api.get(f"/rft/runs/{orphan}/logs", params={"search": "restarted"}).json()["logs"]
        resumed_at = int(re.search(r"continuing from checkpoint step (\d+)", logs).group(1))
        assert resumed_at >= 5
        wait_status(api, orphan, step=resumed_at + 2)
        steps_seen = [m["step"] for m in api.get(f"/rft/runs/{orphan}/metrics").json()["metrics"]]
        assert steps_seen[: resumed_at + 2] == list(range(1, resumed_at + 3))  # no gap across the crash
        api.put(f"/rft/runs/{orphan}/stop")
        assert wait_status(api, orphan)["status"] == "STOPPED"
        once = api.get(f"/rft/runs/{survivor}/logs", params={"search": "Step 2 |"}).json()["logs"]
        assert len(once.splitlines()) == 1  # ingested exactly once across the crash

        # A clean shutdown (SIGTERM) pauses the trainer at a checkpoint; the restart resumes it.
        run_id = api.post(
            "/training/runs", json={"config": small_config(lp, max_steps=100000), "mode": "sft", "volume": "research"}
        ).json()["runId"]
        wait_status(api, run_id, step=3)
    assert lp.stop() == 0
    lp.restart()
    with http(lp) as api:
        ckpts = api.get(f"/rft/runs/{run_id}/checkpoints").json()["checkpoints"]
        assert ckpts, "the shutdown paused the trainer at a checkpoint"
        paused_at = ckpts[-1]["step"]
        wait_status(api, run_id, step=paused_at + 2)  # training goes on after the restart
        logs = api.get(f"/rft/runs/{run_id}/logs", params={"search": "Local platform"}).json()["logs"]
        assert f"local server restarted while this run was active; continuing from checkpoint step {paused_at}" in logs
        steps_seen = [m["step"] for m in api.get(f"/rft/runs/{run_id}/metrics").json()["metrics"]]
        assert steps_seen[: paused_at + 2] == list(range(1, paused_at + 3))  # no gap across the restart
        api.put(f"/rft/runs/{run_id}/stop")
        assert wait_status(api, run_id)["status"] == "STOPPED"
