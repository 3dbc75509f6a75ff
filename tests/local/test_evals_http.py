"""Issue 9 over real HTTP: the online-eval template dispatched on the local platform."""

from __future__ import annotations

import json
import os
import signal
import time

import httpx

from primetui.local.testing import LocalPlatform
from primetui.local.trainer.testing import online_eval_block
from tests.local.conftest import dispatch, wait_status, walkthrough_config


def eval_config(lp: LocalPlatform, *, max_steps: int) -> dict:
    """The walkthrough plus the seed's "Online evals" block, shrunk so a step is quick."""
    block = online_eval_block(interval=5)
    return walkthrough_config(
        lp,
        max_steps=max_steps,
        data={"batch_size": 4, "seq_len": 256},
        optim={"lr": 3e-3},
        eval=block["eval"],
        inference=block["inference"],
        deployment=block["deployment"],
    )


def test_online_eval_template_runs_with_eval_metrics_component_logs_and_env_servers(
    local_platform: LocalPlatform, api: httpx.Client
) -> None:
    run_id = dispatch(api, eval_config(local_platform, max_steps=10))
    run = wait_status(api, run_id)
    assert run["status"] == "COMPLETED", run.get("errorMessage")

    rows = api.get(f"/rft/runs/{run_id}/metrics").json()["metrics"]
    evals = {r["step"]: r for r in rows if "eval/reverse-text/reward/mean" in r}
    assert {5, 10} <= set(evals)  # every eval.interval, and the final checkpoint's eval landed before COMPLETED
    assert all(
        0.0 <= r["eval/reverse-text/reward/mean"] <= 1.0 and r["eval/reverse-text/count"] == 32 for r in evals.values()
    )
    assert any("loss/mean" in r for r in rows)

    logs = {
        c: api.get(f"/rft/runs/{run_id}/logs", params={"component": c, "tail_lines": 1000}).json()["logs"]
        for c in ("trainer", "inference")
    }
    logs["orchestrator"] = api.get(f"/rft/runs/{run_id}/logs", params={"tail_lines": 1000}).json()["logs"]
    logs["env-server"] = api.get(
        f"/rft/runs/{run_id}/logs", params={"component": "env-server", "env_name": "reverse-text", "tail_lines": 1000}
    ).json()["logs"]
    assert "Broadcasting weights at step 10" in logs["trainer"]
    assert "Loaded weights from broadcast step 10" in logs["inference"]
    assert "Eval reverse-text | Step 10 | Reward" in logs["orchestrator"]
    assert "Scored 32 rollouts" in logs["env-server"]

    servers = api.get(f"/rft/runs/{run_id}/env-servers").json()["env_servers"]
    assert [(s["env_name"], s["pod_name"]) for s in servers] == [("reverse-text", f"{run_id}-env-reverse-text-0")]
    assert servers[0]["status"]


def test_killing_the_env_server_fails_the_run_naming_it(local_platform: LocalPlatform, api: httpx.Client) -> None:
    run_id = dispatch(api, eval_config(local_platform, max_steps=100000))
    components = local_platform.data_dir / "runs" / run_id / "components.json"
    deadline = time.monotonic() + 90
    pid = None
    while pid is None and time.monotonic() < deadline:
        try:
            comps = json.loads(components.read_text())
        except (OSError, ValueError):
            comps = []
        if any(c["component"] == "orchestrator" for c in comps):
            pid = next(c["pid"] for c in comps if c["component"] == "env-server")
        time.sleep(0.1)
    assert pid is not None, "the env server never started"
    os.kill(pid, signal.SIGKILL)
    run = wait_status(api, run_id, {"FAILED"}, timeout=60)
    assert "env server 'reverse-text' exited with code -9" in run["errorMessage"]
    comps = {c["component"]: c for c in json.loads(components.read_text())}
    assert comps["env-server"]["status"] == "failed" and comps["trainer"]["status"] == "failed"
    assert comps["inference"]["status"] == "stopped"
    for name in ("inference", "orchestrator", "trainer"):  # nothing is left running
        assert not _alive(comps[name]["pid"]), name
    trainer_log = api.get(f"/rft/runs/{run_id}/logs", params={"component": "trainer", "tail_lines": 50}).json()["logs"]
    assert "ERROR env server 'reverse-text' exited with code -9" in trainer_log


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(")")[-1].split()[0] != "Z"  # a zombie is gone for our purposes
    except OSError:
        return False
