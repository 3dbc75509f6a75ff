"""Runs over real HTTP: dispatch -> COMPLETED with real training, checkpoints, logs, metrics, controls."""

from __future__ import annotations

import math
import re
import time
from typing import Any

import httpx
import pytest

from primetui.local.paths import dir_size_bytes
from primetui.local.testing import LocalPlatform
from tests.local.conftest import dispatch, http, wait_status, walkthrough_config


def small_config(
    lp: LocalPlatform,
    *,
    max_steps: int,
    lr: float = 2e-3,
    ckpt: dict | None = None,
    batch_size: int = 4,
    seq_len: int = 256,
    **extra: Any,
) -> dict[str, Any]:
    """The walkthrough config shrunk so a step takes tens of milliseconds on 2 cores."""
    config = walkthrough_config(
        lp, max_steps=max_steps, optim={"lr": lr}, data={"batch_size": batch_size, "seq_len": seq_len}, **extra
    )
    if ckpt is None:
        config.pop("ckpt", None)
    else:
        config["ckpt"] = ckpt
    return config


def test_walkthrough_run_completes_with_a_finite_loss_and_a_checkpoint_of_the_reported_size(
    local_platform: LocalPlatform, api: httpx.Client
) -> None:
    run_id = dispatch(api, walkthrough_config(local_platform))
    seen: list[str] = []
    deadline = time.monotonic() + 120
    while not seen or seen[-1] not in {"COMPLETED", "FAILED", "STOPPED"}:
        assert time.monotonic() < deadline, seen
        status = api.get(f"/rft/runs/{run_id}").json()["run"]["status"]
        if not seen or seen[-1] != status:
            seen.append(status)
        time.sleep(0.05)
    order = ["PENDING", "CREATING", "RUNNING", "COMPLETED"]
    assert seen == sorted(seen, key=order.index), seen  # never goes backwards
    # Which intermediate states a 50 ms poll catches depends on the machine's load (CREATING can
    # pass between two polls): the order is checked, and the final state, not the sightings.
    run = api.get(f"/rft/runs/{run_id}").json()["run"]
    assert run["status"] == "COMPLETED", run.get("errorMessage")
    assert run["createdAt"] <= run["startedAt"] <= run["completedAt"]
    assert run["baseModel"] == "PrimeIntellect/Qwen3-0.6B-Reverse-Text-SFT" and run["loss"] == "sft"
    assert run["maxSteps"] == 10 and run["volumeName"] == "research"

    rows = api.get(f"/rft/runs/{run_id}/metrics").json()["metrics"]
    assert [r["step"] for r in rows] == list(range(1, 11))
    assert all(math.isfinite(r["loss/mean"]) for r in rows)
    assert all(abs(r["loss/perplexity"] - math.exp(r["loss/mean"])) < 1e-6 * r["loss/perplexity"] for r in rows)

    ckpts = api.get(f"/rft/runs/{run_id}/checkpoints").json()["checkpoints"]
    assert [c["step"] for c in ckpts] == [10]
    on_disk = local_platform.data_dir / "volumes" / "research" / "runs" / run_id / "checkpoints" / "step_10"
    assert on_disk.is_dir()
    assert ckpts[0]["sizeBytes"] == dir_size_bytes(on_disk) > 0
    assert ckpts[0]["status"] == "READY" and ckpts[0]["rftRunId"] == run_id

    logs = api.get(f"/rft/runs/{run_id}/logs").json()["logs"]  # default component: the trainer for SFT
    assert "stand-in" in logs and "real weights do not run" in logs
    assert re.search(r"SUCCESS Step 10 \|.*Loss \d+\.\d{4}", logs)

    progress = api.get(f"/rft/runs/{run_id}/progress").json()
    assert progress["latestStep"] == 10 and progress["lastUpdatedAt"]
    usage = api.get(f"/billing/runs/{run_id}/usage").json()
    assert usage["training"]["tokens"] == usage["total_tokens"] == 0  # the seed: 0 tokens / $0.00 for SFT
    assert usage["total_cost_usd"] == 0 and usage["run_id"] == run_id and rows[-1]["progress/num_tokens"] > 0
    assert api.get(f"/rft/runs/{run_id}/env-servers").json() == {"env_servers": []}
    samples = api.get(f"/rft/runs/{run_id}/samples", params={"step": 10}).json()
    assert samples["samples"] == [] and samples["total"] == 0  # SFT has no rollouts
    assert api.get(f"/rft/runs/{run_id}/distributions").json()["chartData"]["histogramData"] == []
    assert (progress["stepsWithSamples"], progress["stepsWithDistributions"]) == ([], [])


def test_higher_lr_run_shows_the_loss_falling(local_platform: LocalPlatform, api: httpx.Client) -> None:
    run_id = dispatch(api, small_config(local_platform, max_steps=40, lr=5e-3))
    assert wait_status(api, run_id)["status"] == "COMPLETED"
    losses = [r["loss/mean"] for r in api.get(f"/rft/runs/{run_id}/metrics").json()["metrics"]]
    assert len(losses) == 40
    assert sum(losses[-5:]) / 5 < 0.8 * sum(losses[:5]) / 5


def test_keep_last_prunes_old_checkpoints_on_disk_and_in_the_list(
    local_platform: LocalPlatform, api: httpx.Client
) -> None:
    run_id = dispatch(api, small_config(local_platform, max_steps=8, ckpt={"interval": 2, "keep_last": 2}))
    assert wait_status(api, run_id)["status"] == "COMPLETED"
    ckpts = api.get(f"/rft/runs/{run_id}/checkpoints").json()["checkpoints"]
    assert [c["step"] for c in ckpts] == [6, 8]
    ckpt_dir = local_platform.data_dir / "volumes" / "research" / "runs" / run_id / "checkpoints"
    assert sorted(p.name for p in ckpt_dir.iterdir()) == ["step_6", "step_8"]
    for c in ckpts:
        assert c["sizeBytes"] == dir_size_bytes(ckpt_dir / f"step_{c['step']}")


@pytest.fixture(scope="module")
def six_steps(local_platform: LocalPlatform) -> str:
    """One finished 6-step run for the module's read filters (metrics and logs read it, neither changes it)."""
    with http(local_platform) as c:
        run_id = dispatch(c, small_config(local_platform, max_steps=6))
        assert wait_status(c, run_id)["status"] == "COMPLETED"
    return run_id


def test_metrics_filters(six_steps: str, api: httpx.Client) -> None:
    run_id = six_steps
    got = api.get(f"/rft/runs/{run_id}/metrics", params={"min_step": 2, "max_step": 5, "limit": 3}).json()["metrics"]
    assert [r["step"] for r in got] == [2, 3, 4]
    assert api.get(f"/rft/runs/{run_id}/metrics", params={"limit": 0}).status_code == 422


def test_log_filters(six_steps: str, api: httpx.Client) -> None:
    url = f"/rft/runs/{six_steps}/logs"
    success = api.get(url, params={"level": "SUCCESS", "component": "trainer"}).json()["logs"].splitlines()
    assert success and all(" SUCCESS " in ln for ln in success)
    assert len(api.get(url, params={"tail_lines": 2}).json()["logs"].splitlines()) == 2
    found = api.get(url, params={"search": "Step 3 |"}).json()["logs"].splitlines()
    assert len(found) == 1 and "Step 3 |" in found[0]
    found = api.get(url, params={"search": r"Step [24] \|", "regex": "true"}).json()["logs"].splitlines()
    assert len(found) == 2
    assert api.get(url, params={"since_seconds": 3600}).json()["logs"]
    assert api.get(url, params={"tail_lines": 0}).status_code == 422
    assert api.get(url, params={"tail_lines": 5001}).status_code == 422
    assert api.get(url, params={"level": "LOUD"}).status_code == 422
    bad = api.get(url, params={"search": "(", "regex": "true"})
    assert bad.status_code == 400 and "regular expression" in bad.json()["detail"]
    no_infer = api.get(url, params={"component": "inference"})
    assert no_infer.status_code == 404 and "trainer-only" in no_infer.json()["detail"]


def test_list_is_newest_first_and_paged(local_platform: LocalPlatform, api: httpx.Client) -> None:
    ids = []
    for _ in range(3):  # stopped at once (no trainer needs to start): the list's order and pages are what is tested
        ids.append(dispatch(api, small_config(local_platform, max_steps=1)))
        assert api.put(f"/rft/runs/{ids[-1]}/stop").status_code == 200
    page = api.get("/rft/runs", params={"page": 1, "limit": 2}).json()
    assert [r["id"] for r in page["runs"]] == ids[::-1][:2]
    assert page["total"] >= 3 and page["page"] == 1 and page["limit"] == 2
    assert page["total_pages"] == math.ceil(page["total"] / 2)
    second = api.get("/rft/runs", params={"page": 2, "limit": 2}).json()
    assert second["runs"][0]["id"] == ids[0]
    assert api.get("/rft/runs", params={"page": 0}).status_code == 422
    for run_id in ids:
        wait_status(api, run_id)


def test_stop_a_running_run(local_platform: LocalPlatform, api: httpx.Client) -> None:
    run_id = dispatch(api, small_config(local_platform, max_steps=100000))
    wait_status(api, run_id, step=2)
    reply = api.put(f"/rft/runs/{run_id}/stop")
    assert reply.status_code == 200 and reply.json()["run"]["id"] == run_id
    run = wait_status(api, run_id)
    assert run["status"] == "STOPPED" and run["completedAt"]
    assert api.put(f"/rft/runs/{run_id}/stop").json()["run"]["status"] == "STOPPED"  # idempotent
    paused = api.post(f"/training/runs/{run_id}/pause")
    assert paused.status_code == 409 and "only RUNNING" in paused.json()["detail"]
    restarted = api.put(f"/rft/runs/{run_id}/restart")
    assert restarted.status_code == 409


def test_pause_then_resume_continues_from_the_checkpoint_as_a_new_run(
    local_platform: LocalPlatform, api: httpx.Client
) -> None:
    config = small_config(local_platform, max_steps=100000, ckpt={"interval": 1000})
    run_id = dispatch(api, config)
    wait_status(api, run_id, step=3)
    reply = api.post(f"/training/runs/{run_id}/pause")
    assert reply.status_code == 200 and reply.json()["status"] in {"PAUSING", "PAUSED"}
    paused = wait_status(api, run_id, {"PAUSED"})
    ckpts = api.get(f"/rft/runs/{run_id}/checkpoints").json()["checkpoints"]
    assert ckpts, "a pause writes a checkpoint"
    step = ckpts[-1]["step"]
    last_metric = api.get(f"/rft/runs/{run_id}/metrics").json()["metrics"][-1]["step"]
    assert step == last_metric
    assert paused["completedAt"]

    reply = api.post(f"/training/runs/{run_id}/resume", json={})
    assert reply.status_code == 200, reply.text
    new_id = reply.json()["runId"]
    assert new_id != run_id
    assert api.get(f"/rft/runs/{run_id}").json()["run"]["notice"] == f"Resumed as run {new_id}."
    again = api.post(f"/training/runs/{run_id}/resume", json={})
    assert again.status_code == 409 and new_id in again.json()["detail"]

    wait_status(api, new_id, step=step + 2)
    new_run = api.get(f"/rft/runs/{new_id}").json()["run"]
    assert run_id in new_run["notice"] and new_run["status"] == "RUNNING"
    rows = api.get(f"/rft/runs/{new_id}/metrics").json()["metrics"]
    assert rows[0]["step"] == step + 1
    assert api.put(f"/rft/runs/{new_id}/stop").status_code == 200
    wait_status(api, new_id, {"STOPPED"})


def test_restart_a_running_run_from_its_latest_checkpoint(local_platform: LocalPlatform, api: httpx.Client) -> None:
    run_id = dispatch(api, small_config(local_platform, max_steps=100000, ckpt={"interval": 2}))
    deadline = time.monotonic() + 60
    while not api.get(f"/rft/runs/{run_id}/checkpoints").json()["checkpoints"]:
        assert time.monotonic() < deadline
        time.sleep(0.1)
    reply = api.put(f"/rft/runs/{run_id}/restart")
    assert reply.status_code == 200, reply.text
    assert reply.json()["run"]["status"] in {"CREATING", "RUNNING"}
    logs = api.get(f"/rft/runs/{run_id}/logs", params={"search": "restart requested"}).json()["logs"]
    match = re.search(r"continuing from checkpoint step (\d+)", logs)
    assert match, logs
    wait_status(api, run_id, {"RUNNING"})
    api.put(f"/rft/runs/{run_id}/stop")
    assert wait_status(api, run_id)["status"] == "STOPPED"


def test_delete_forgets_the_run_but_keeps_its_outputs(local_platform: LocalPlatform, api: httpx.Client) -> None:
    run_id = dispatch(api, small_config(local_platform, max_steps=2, ckpt={"interval": 2}))
    wait_status(api, run_id)
    assert api.delete(f"/rft/runs/{run_id}").status_code == 204
    gone = api.get(f"/rft/runs/{run_id}")
    assert gone.status_code == 404 and "prime train list" in gone.json()["detail"]
    assert (local_platform.data_dir / "volumes" / "research" / "runs" / run_id / "checkpoints" / "step_2").is_dir()
    assert not (local_platform.data_dir / "runs" / run_id).exists()


def test_deleting_an_active_run_stops_its_process(local_platform: LocalPlatform, api: httpx.Client) -> None:
    run_id = dispatch(api, small_config(local_platform, max_steps=100000))
    wait_status(api, run_id, step=1)
    reply = api.delete(f"/training/runs/{run_id}")  # T7, the admin route: same effect as R4
    assert reply.status_code == 200 and reply.json() == {"runId": run_id, "deleted": True}
    assert api.get(f"/rft/runs/{run_id}").status_code == 404


def test_fake_data_runs_without_a_volume(local_platform: LocalPlatform, api: httpx.Client) -> None:
    config = small_config(local_platform, max_steps=3)
    config["data"] = {"type": "fake", "batch_size": 2, "seq_len": 64}
    run_id = dispatch(api, config, volume=None)
    run = wait_status(api, run_id)
    assert run["status"] == "COMPLETED", run.get("errorMessage")
    assert "volumeName" not in run


def test_a_missing_dataset_fails_the_run_with_a_reason(local_platform: LocalPlatform, api: httpx.Client) -> None:
    config = small_config(local_platform, max_steps=3)
    config["data"]["name"] = "datasets/not-there"
    run_id = dispatch(api, config)
    run = wait_status(api, run_id, {"FAILED"})
    assert "not-there" in run["errorMessage"]


def test_a_run_that_fills_its_volume_fails_with_a_way_out(local_platform: LocalPlatform, api: httpx.Client) -> None:
    assert api.post("/training/volumes", json={"name": "tiny", "size": "1Mi"}).status_code == 200
    config = small_config(local_platform, max_steps=100000, ckpt={"interval": 1})
    config["data"] = {"type": "fake", "batch_size": 2, "seq_len": 64}
    run_id = dispatch(api, config, volume="tiny")
    run = wait_status(api, run_id, {"FAILED"})
    assert "Volume 'tiny' is full" in run["errorMessage"]
    assert "prime volumes expand tiny" in run["errorMessage"]
    assert api.delete("/training/volumes/tiny").status_code == 204
