"""Simulated multi-node runs: the seed's glm53-sft.toml as written, per-pod logs, a pod failing on purpose."""

from __future__ import annotations

import json
import re
import tomllib

import httpx

from primetui.local.testing import LocalPlatform
from tests.local.conftest import dispatch, wait_status


def glm53(lp: LocalPlatform) -> dict:
    return tomllib.loads((lp.data_dir / "glm53-sft.toml").read_text())


def test_the_seed_multi_node_example_runs_as_eight_pods(local_platform: LocalPlatform, api: httpx.Client) -> None:
    config = glm53(local_platform)
    assert config["deployment"] == {"type": "multi_node", "num_train_nodes": 8, "gpus_per_node": 8}
    assert config["model"]["name"] == "zai-org/GLM-5.3-BF16" and config["data"]["splits"] == ["math"]
    run_id = dispatch(api, config)  # unchanged, onto the demo volume
    run = wait_status(api, run_id, timeout=240)
    assert run["status"] == "COMPLETED", run.get("errorMessage")
    assert [r["step"] for r in api.get(f"/rft/runs/{run_id}/metrics").json()["metrics"]] == [1, 2, 3, 4]

    merged = api.get(f"/rft/runs/{run_id}/logs", params={"component": "trainer"}).json()["logs"]
    assert "| Node 0 |" in merged and "| Node 7 |" in merged  # no pod named: one line per node, merged
    primary = api.get(f"/rft/runs/{run_id}/logs", params={"component": "trainer", "pod_index": 0}).json()["logs"]
    assert "world_size=64, rank=0" in primary and "num_nodes=8" in primary
    assert "Reading split 'math' from /volume/datasets/intellect-3-sft-10k/data/math-00000-of-00001.parquet" in primary
    assert re.search(r"Step 4 node times: 0=[\d.]+s, .*7=[\d.]+s \(slowest: node \d\)", primary)
    for node in range(8):
        text = api.get(f"/rft/runs/{run_id}/logs", params={"component": "trainer", "pod_index": node}).json()["logs"]
        assert f"rank={node * 8}," in text, node
        assert f"i % 8 == {node} of each step (1 of 8" in text  # batch 8 / micro 1 over 8 nodes
        steps = re.findall(rf"Step (\d) \|\s+\S+ \| Node {node} \| Local Loss (\d+\.\d+)", text)
        assert [s for s, _ in steps] == ["1", "2", "3", "4"], text
        others = {n for n in range(8) if n != node}
        assert not any(f"| Node {n} |" in text for n in others)  # each pod's stream is its own
    assert api.get(f"/rft/runs/{run_id}/logs", params={"component": "trainer", "pod_index": 8}).status_code == 404
    comps = json.loads((local_platform.data_dir / "runs" / run_id / "components.json").read_text())
    trainers = [c for c in comps if c["component"] == "trainer"]
    assert [c["pod_name"] for c in trainers] == [f"{run_id}-trainer-{n}" for n in range(8)]
    assert {c["status"] for c in trainers} == {"completed"}


def test_a_pod_failing_fails_the_run_naming_it(local_platform: LocalPlatform, api: httpx.Client) -> None:
    config = glm53(local_platform)
    config["max_steps"] = 3
    config["data"].update(seq_len=512)
    config["deployment"]["num_train_nodes"] = 4
    config["env_vars"]["PRIMETUI_LOCAL_FAIL_POD"] = "2"
    config["env_vars"]["PRIMETUI_LOCAL_FAIL_STEP"] = "2"
    run_id = dispatch(api, config)
    run = wait_status(api, run_id, {"FAILED"}, timeout=120)
    assert f"Pod {run_id}-trainer-2 (node 2 of 4) failed at step 2" in run["errorMessage"]
    failed = api.get(f"/rft/runs/{run_id}/logs", params={"component": "trainer", "pod_index": 2}).json()["logs"]
    assert "ERROR RuntimeError: simulated node failure" in failed
    other = api.get(f"/rft/runs/{run_id}/logs", params={"component": "trainer", "pod_index": 1}).json()["logs"]
    assert "Lost contact with node 2" in other and "Step 1 |" in other and "Step 2 |" not in other
    comps = json.loads((local_platform.data_dir / "runs" / run_id / "components.json").read_text())
    assert [c["status"] for c in comps if c["component"] == "trainer"] == ["stopped", "stopped", "failed", "stopped"]


def test_a_bad_debug_knob_is_one_sentence(local_platform: LocalPlatform, api: httpx.Client) -> None:
    config = glm53(local_platform)
    config["deployment"]["num_train_nodes"] = 2
    config["env_vars"]["PRIMETUI_LOCAL_FAIL_POD"] = "5"
    run = wait_status(api, dispatch(api, config), {"FAILED"}, timeout=60)
    assert run["errorMessage"] == "[env_vars] PRIMETUI_LOCAL_FAIL_POD = 5 names no pod: this run has pods 0..1."


def test_multi_node_online_evals_simulate_inference_nodes_and_the_router(
    local_platform: LocalPlatform, api: httpx.Client
) -> None:
    from primetui.local.trainer.testing import online_eval_block

    config = glm53(local_platform)
    config["max_steps"] = 4
    config["data"].update(seq_len=512)
    config["deployment"].update(num_train_nodes=2, num_infer_nodes=2)
    block = online_eval_block(interval=2)
    config["eval"] = block["eval"]
    config["inference"] = {**block["inference"], "router": {"type": "vllm-router"}}
    run_id = dispatch(api, config)
    run = wait_status(api, run_id, timeout=240)
    assert run["status"] == "COMPLETED", run.get("errorMessage")

    def logs(**params) -> str:
        reply = api.get(f"/rft/runs/{run_id}/logs", params=params)
        assert reply.status_code == 200, reply.text
        return reply.json()["logs"]

    router = logs(component="router")
    assert "Router up in front of 2 inference node(s)" in router
    routed = re.findall(r"Routed batch \d+ \(\d+ prompts\) to inference node (\d)", router)
    assert set(routed) == {"0", "1"}  # round-robin reached both nodes
    for node in (0, 1):
        text = logs(component="inference", pod_index=node)
        assert f"Inference node {node} of 2" in text and "Loaded weights from broadcast step 4" in text
        assert text.count("Generated ") == routed.count(str(node))  # each node logs the batches routed to it
    comps = json.loads((local_platform.data_dir / "runs" / run_id / "components.json").read_text())
    names = {c["pod_name"] for c in comps}
    assert {f"{run_id}-inference-0", f"{run_id}-inference-1", f"{run_id}-router-0"} <= names
    assert api.get(f"/rft/runs/{run_id}/logs", params={"component": "router"}).status_code == 200


def _single_node(lp: LocalPlatform, **env: str) -> dict:
    config = tomllib.loads((lp.data_dir / "sft.toml").read_text())
    assert config["deployment"]["type"] == "single_node"
    config.update(max_steps=1, env_vars={**config.get("env_vars", {}), **env})
    config.pop("ckpt", None)
    config["data"].update(batch_size=2, micro_batch_size=1)  # two micro-batches, each after the knob's sleep
    return config


def test_the_slow_pod_knob_slows_a_single_node_runs_one_pod(local_platform: LocalPlatform, api: httpx.Client) -> None:
    # primetui.local.testing.IDLE_PACE (the suite's idle runs) is this knob on a single-node run: ignored
    # there, the "idle" trainer trained flat out, at about a quarter of a core.
    from primetui.monitor_core.pods import step_time

    config = _single_node(local_platform, PRIMETUI_LOCAL_SLOW_POD="0", PRIMETUI_LOCAL_SLOW_SECONDS="1.5")
    run_id = dispatch(api, config)
    run = wait_status(api, run_id, timeout=120)
    assert run["status"] == "COMPLETED", run.get("errorMessage")
    text = api.get(f"/rft/runs/{run_id}/logs", params={"component": "trainer"}).json()["logs"]
    steps = [found for line in text.splitlines() if (found := step_time(line))]
    assert [step for step, _ in steps] == [1], text
    assert steps[0][1] >= 3.0, text  # two micro-batches, each after 1.5 s of sleep: not a speed bound


def test_a_slow_pod_a_single_node_run_does_not_have_is_one_sentence(
    local_platform: LocalPlatform, api: httpx.Client
) -> None:
    run = wait_status(api, dispatch(api, _single_node(local_platform, PRIMETUI_LOCAL_SLOW_POD="1")), {"FAILED"})
    assert run["errorMessage"] == "[env_vars] PRIMETUI_LOCAL_SLOW_POD = 1 names no pod: this run has pod 0 only."
