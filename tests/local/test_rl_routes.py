"""A real RL run over real HTTP: every RL read answers in the hosted shape, from what the run computed.

One run for the module: research example (c), prime-rl's multi-env debug config (two reverse-text
train sources and an eval source every 5 steps), with its eval source named like the first train
source so that two env servers share a name (``name/N``), as train and eval sources may, and its
second source unnamed with a hub id, so its name is ``primeintellect/reverse-text`` (a slash that is
not an index).
"""

from __future__ import annotations

import math
import re
import tomllib
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from primetui.local.testing import LocalPlatform
from tests.local.conftest import http, wait_status

MULTI_ENV = """
max_steps = 10
seq_len = 2048

[model]
name = "PrimeIntellect/Qwen3-0.6B-Reverse-Text-SFT"

[orchestrator]
batch_size = 128
group_size = 16

[orchestrator.renderer]
name = "prime-qwen3"

[orchestrator.train.sampling]
max_completion_tokens = 128

[[orchestrator.train.source]]
name = "reverse-text-a"

[orchestrator.train.source.env.taskset]
id = "reverse-text"

[orchestrator.train.source.env.agent.harness]
id = "null"

[orchestrator.train.source.env.agent.runtime]
type = "subprocess"

[[orchestrator.train.source]]

[orchestrator.train.source.env.taskset]
id = "primeintellect/reverse-text"

[orchestrator.train.source.env.agent.harness]
id = "null"

[orchestrator.train.source.env.agent.runtime]
type = "subprocess"

[orchestrator.eval]
interval = 5
num_examples = 64

[orchestrator.eval.sampling]
max_completion_tokens = 128

[[orchestrator.eval.source]]
name = "reverse-text-a"

[orchestrator.eval.source.env.taskset]
id = "reverse-text"

[orchestrator.eval.source.env.agent.harness]
id = "null"

[orchestrator.eval.source.env.agent.runtime]
type = "subprocess"

[trainer.optim]
lr = 3e-6

[inference]

[inference.vllm]
gpu_memory_utilization = 0.5
"""

ROW_KEYS = {
    "run_id",
    "step",
    "tag",
    "problem_id",
    "sample_id",
    "prompt",
    "completion",
    "trajectory",
    "answer",
    "env_name",
    "task",
    "info",
    "reward",
    "advantage",
    "metrics",
    "timing",
    "num_input_tokens",
    "num_output_tokens",
    "created_at",
}


@pytest.fixture(scope="module")
def c(local_platform: LocalPlatform) -> Iterator[httpx.Client]:
    with http(local_platform) as client:
        yield client


@pytest.fixture(scope="module")
def run(c: httpx.Client) -> dict[str, Any]:
    """The module's one finished RL run (its R2 object)."""
    reply = c.post("/training/runs", json={"config": tomllib.loads(MULTI_ENV), "name": "multi-env"})
    assert reply.status_code == 200, reply.text
    finished = wait_status(c, reply.json()["runId"], timeout=240)
    assert finished["status"] == "COMPLETED", finished.get("errorMessage")
    return finished


def all_samples(c: httpx.Client, run_id: str, step: int) -> list[dict[str, Any]]:
    reply = c.get(f"/rft/runs/{run_id}/samples", params={"step": step, "page": 1, "limit": 1000})
    assert reply.status_code == 200, reply.text
    return reply.json()["samples"]


def test_the_run_object_carries_the_rl_fields_of_its_config(run: dict[str, Any]) -> None:
    assert run["loss"] == "rl" and run["kind"] == "DEDICATED_FULL_FT"
    assert (run["rolloutsPerExample"], run["maxTokens"], run["batchSize"], run["maxSteps"], run["seqLen"]) == (
        16,
        128,
        128,
        10,
        2048,
    )
    assert run["learningRate"] == 3e-6 and run["gpuCount"] == 2
    assert run["environments"] == [
        {"id": "reverse-text", "name": "reverse-text-a"},
        {"id": "primeintellect/reverse-text", "name": "primeintellect/reverse-text"},
    ]
    assert run["evalConfig"]["interval"] == 5
    assert run["evalConfig"]["environments"] == [{"id": "reverse-text", "name": "reverse-text-a"}]


def test_samples_are_the_rollouts_of_a_step_in_the_uploaded_row_shape(c: httpx.Client, run: dict[str, Any]) -> None:
    rows = all_samples(c, run["id"], 10)
    assert len(rows) == 128
    for row in rows:
        assert ROW_KEYS <= row.keys(), ROW_KEYS - row.keys()
        assert row["run_id"] == run["id"] and row["step"] == 10
        assert row["env_name"] in {"reverse-text-a", "primeintellect/reverse-text"}
        reply = row["completion"][-1]
        assert reply["role"] == "assistant" and isinstance(reply["content"], str)
        assert row["task"]["answer"] == row["task"]["prompt"][::-1]
        score = row["info"]["native_wrapper"]["traces"][0]["rewards"]["lcs"]
        assert score["weight"] == 1.0 and math.isclose(score["score"], row["reward"])
        assert row["num_output_tokens"] >= 0 and re.fullmatch(r"\d{4}-\d\d-\d\dT[\d:.]+Z", row["created_at"])
    groups: dict[tuple[str, int], list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        groups[(row["env_name"], row["problem_id"])].append(row)
    assert {len(g) for g in groups.values()} == {16}  # group_size rollouts per prompt
    for group in groups.values():  # GRPO: reward minus the group's mean
        mean = sum(r["reward"] for r in group) / len(group)
        assert all(math.isclose(r["advantage"], r["reward"] - mean, abs_tol=1e-6) for r in group)


def test_samples_page_as_the_cli_asks_and_refuse_bad_pages_with_a_reason(c: httpx.Client, run: dict[str, Any]) -> None:
    url = f"/rft/runs/{run['id']}/samples"
    every = all_samples(c, run["id"], 10)
    pages = [c.get(url, params={"step": 10, "page": p, "limit": 50}).json() for p in (1, 2, 3, 4)]
    assert [(p["total"], p["page"], p["limit"], p["total_pages"]) for p in pages] == [
        (128, p, 50, 3) for p in (1, 2, 3, 4)
    ]
    assert [len(p["samples"]) for p in pages] == [50, 50, 28, 0]
    assert [r for p in pages for r in p["samples"]] == every
    assert pages[0]["run_id"] == run["id"]
    assert c.get(url, params={"step": 3}).json()["total"] == 0  # not a sample step
    assert c.get(url).json()["samples"] == every[:100]  # no step: the latest sample step
    for params, where in (
        ({"step": 10, "page": 0}, "page"),
        ({"step": 10, "limit": 0}, "limit"),
        ({"step": 10, "limit": 1001}, "limit"),
        ({"step": -1}, "step"),
        ({"step": 10**21}, "step"),
        ({"step": 10, "page": "two"}, "page"),
    ):
        reply = c.get(url, params=params)
        assert reply.status_code == 422, (params, reply.text)
        assert reply.json()["detail"][0]["loc"] == ["query", where]


def test_progress_lists_the_steps_with_samples_and_distributions(c: httpx.Client, run: dict[str, Any]) -> None:
    progress = c.get(f"/rft/runs/{run['id']}/progress").json()
    assert progress["latestStep"] == 10
    assert progress["stepsWithSamples"] == [10]  # every 10th step (and the last)
    assert progress["stepsWithDistributions"] == list(range(1, 11))
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT[\d:.]+Z", progress["lastUpdatedAt"])


def test_distributions_bin_the_steps_own_values(c: httpx.Client, run: dict[str, Any]) -> None:
    url = f"/rft/runs/{run['id']}/distributions"
    rewards = c.get(url, params={"type": "rewards", "step": 10}).json()
    bins = rewards["chartData"]["histogramData"]
    assert rewards["step"] == 10 and len(bins) == 10 and (bins[0]["binStart"], bins[-1]["binEnd"]) == (0.0, 1.0)
    assert sum(b["count"] for b in bins) == 128 and bins[0]["range"] == "0.000-0.100"
    values = sorted(r["reward"] for r in all_samples(c, run["id"], 10))
    for b in bins:  # the counts are the sample step's own rewards, binned
        last = b is bins[-1]
        inside = [v for v in values if b["binStart"] <= v and (v <= b["binEnd"] if last else v < b["binEnd"])]
        assert b["count"] == len(inside), b
    stats = rewards["chartData"]["stats"]
    assert stats["totalResults"] == 128 and math.isclose(stats["avgReward"], sum(values) / 128)
    assert (stats["minReward"], stats["maxReward"]) == (values[0], values[-1])

    advantages = c.get(url, params={"type": "advantages", "step": 3}).json()["chartData"]["histogramData"]
    assert advantages[0]["binStart"] == -advantages[-1]["binEnd"] and sum(b["count"] for b in advantages) == 128
    both = c.get(url).json()  # no type: every type, rewards first; no step: the latest
    assert both["step"] == 10
    assert [b["type"] for b in both["chartData"]["histogramData"]] == ["rewards"] * 10 + ["advantages"] * 10
    reply = c.get(url, params={"type": "losses"})
    assert reply.status_code == 400 and "use rewards or advantages" in reply.json()["detail"]
    assert c.get(url, params={"step": 10**21}).status_code == 422


def test_env_servers_are_one_per_source_train_then_eval(c: httpx.Client, run: dict[str, Any]) -> None:
    servers = c.get(f"/rft/runs/{run['id']}/env-servers").json()["env_servers"]
    assert [(s["env_name"], s["env_index"]) for s in servers] == [
        ("reverse-text-a", 0),
        ("primeintellect/reverse-text", 1),
        ("reverse-text-a", 2),
    ]
    assert all(s["pod_name"] and s["status"] for s in servers)


def test_env_server_logs_by_name_and_by_name_slash_index(c: httpx.Client, run: dict[str, Any]) -> None:
    logs = f"/rft/runs/{run['id']}/logs"

    def text(**params: Any) -> str:
        reply = c.get(logs, params={"component": "env-server", "tail_lines": 5000, "since_seconds": 86400, **params})
        assert reply.status_code == 200, reply.text
        return reply.json()["logs"]

    train_a, eval_a = text(env_name="reverse-text-a/0"), text(env_name="reverse-text-a/2")
    both = text(env_name="reverse-text-a")
    # Each server logs its own address, numbered by its env_index as prime-rl's launcher numbers them.
    up = "EnvServer up: taskset=reverse-text address=inproc://env-server-"
    assert f"{up}0" in train_a and "env-server-2" not in train_a
    assert f"{up}2" in eval_a and "env-server-0" not in eval_a
    assert set(both.splitlines()) == set(train_a.splitlines()) | set(eval_a.splitlines())
    assert "address=inproc://env-server-1" in text(env_name="primeintellect/reverse-text")
    r9 = c.get(
        f"/rft/runs/{run['id']}/env-server-logs",
        params={"env_name": "reverse-text-a", "env_index": 2, "tail_lines": 5000, "since_seconds": 86400},
    )
    assert r9.status_code == 200 and r9.json()["logs"] == eval_a
    missing = c.get(logs, params={"component": "env-server", "env_name": "reverse-text-a/7"})
    assert missing.status_code == 404
    assert missing.json()["detail"] == (
        f"Run {run['id']} has no env server reverse-text-a/7; it has reverse-text-a/0, primeintellect/reverse-text/1, "
        f"reverse-text-a/2 (see `prime train components {run['id']}`)."
    )


def test_logs_of_every_component(c: httpx.Client, run: dict[str, Any]) -> None:
    logs = f"/rft/runs/{run['id']}/logs"
    orchestrator = c.get(logs, params={"search": "Step", "since_seconds": 86400}).json()["logs"]
    assert re.search(r"Step 10 \|.*Reward", orchestrator), orchestrator[-2000:]
    trainer = c.get(logs, params={"component": "trainer", "search": "Step", "since_seconds": 86400}).json()["logs"]
    assert re.search(r"Step 10 \|.*Loss.*Entropy.*Mismatch KL", trainer), trainer[-2000:]
    inference = c.get(logs, params={"component": "inference"})
    assert inference.status_code == 200 and inference.json()["logs"]


def test_metrics_are_one_row_per_step_with_the_eval_rows_merged(c: httpx.Client, run: dict[str, Any]) -> None:
    rows = c.get(f"/rft/runs/{run['id']}/metrics").json()["metrics"]
    assert [r["step"] for r in rows] == list(range(1, 11))
    for row in rows:
        assert 0.0 <= row["train/agg/effective/agent/reward/mean"] <= 1.0
        assert "train/reverse-text-a/effective/agent/rewards/lcs/mean" in row
        assert "batch/primeintellect/reverse-text" in row
    evals = [r["step"] for r in rows if any(k.startswith("eval/reverse-text-a/") for k in r)]
    assert evals == [1, 5, 10]  # the base policy first (skip_first_step = false), then every 5th step


def test_the_demo_platform_opens_with_a_finished_rl_run(c: httpx.Client) -> None:
    """`primetui local` seeds prime-rl's reverse-text example as a real run; it trains when the platform starts."""
    runs = c.get("/rft/runs", params={"limit": 1000}).json()["runs"]
    (demo,) = [r for r in runs if r.get("name") == "reverse-text-rl" and r["runConfig"].get("max_steps") == 20]
    assert wait_status(c, demo["id"], timeout=240)["status"] == "COMPLETED"
    progress = c.get(f"/rft/runs/{demo['id']}/progress").json()
    assert (progress["latestStep"], progress["stepsWithSamples"]) == (20, [10, 20])
    assert c.get(f"/rft/runs/{demo['id']}/samples", params={"step": 20}).json()["total"] == 128


def test_bad_rl_queries_get_a_reason_never_a_500(c: httpx.Client, run: dict[str, Any]) -> None:
    base = f"/rft/runs/{run['id']}"
    for path, params, status in (
        ("/env-server-logs", {"env_name": "reverse-text-a", "env_index": -1}, 422),
        ("/env-server-logs", {"env_name": "reverse-text-a", "env_index": 10**21}, 422),
        ("/env-server-logs", {"env_index": 0}, 422),
        ("/env-server-logs", {"env_name": "no-such-env", "env_index": 0}, 404),
        ("/logs", {"component": "env-server", "env_name": "reverse-text-a/" + "9" * 30}, 404),  # not an index: a name
        ("/logs", {"component": "env-server"}, 400),
        ("/distributions", {"step": -1}, 422),
        ("/samples", {"step": 10, "limit": "all"}, 422),
    ):
        reply = c.get(base + path, params=params)
        assert reply.status_code == status, (path, params, reply.text)
        assert reply.json()["detail"], (path, params, reply.text)
    assert c.get("/rft/runs/no-such-run/samples").status_code == 404
