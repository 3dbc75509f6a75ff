"""`prime train get` shows the GPU count, and `prime train usage` reads as the seed says hosted does for SFT."""

from __future__ import annotations

from pathlib import Path

import httpx

from primetui.local.runs_wire import gpu_count
from primetui.local.testing import LocalPlatform
from tests.local.conftest import dispatch, wait_status, walkthrough_config
from tests.local.test_prime_cli import prime_env, run_all


def test_get_shows_gpus_and_usage_shows_zero_for_sft(
    local_platform: LocalPlatform, api: httpx.Client, tmp_path: Path
) -> None:
    run_id = dispatch(api, walkthrough_config(local_platform, max_steps=2))
    assert wait_status(api, run_id)["status"] == "COMPLETED"
    get, usage = run_all(
        prime_env(local_platform, tmp_path / "home"), tmp_path, ["train", "get", run_id], ["train", "usage", run_id]
    )
    assert get.returncode == 0 and "GPUs: 1" in get.stdout, get.stdout + get.stderr
    assert usage.returncode == 0, usage.stdout + usage.stderr
    text = " ".join(usage.stdout.split())
    assert "Training 0 $0.00" in text and "Total 0 $0.00" in text, text


def test_gpu_count_follows_the_deployment() -> None:
    assert gpu_count({}) == 1
    assert gpu_count({"deployment": {"num_train_gpus": 4, "num_infer_gpus": 4, "gpus_per_node": 8}, "eval": {}}) == 8
    assert gpu_count({"deployment": {"type": "multi_node", "num_train_nodes": 8, "gpus_per_node": 8}}) == 64
    assert (
        gpu_count({"deployment": {"type": "multi_node", "num_train_nodes": 2, "num_infer_nodes": 1}, "eval": {}}) == 24
    )
