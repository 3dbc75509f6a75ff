"""The official `prime` CLI (PyPI prime==0.18.0), unchanged, on a real local RL run.

`prime train rl.toml` dispatches prime-rl's own reverse-text example as written (research §1.4 a);
every monitoring command then reads the finished run. A second, long run takes `restart` and `stop`.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest

from primetui.local.testing import LocalPlatform
from tests.local.conftest import http, wait_status
from tests.local.test_prime_cli import prime_env, run_all

REVERSE_TEXT = """max_steps = 20
seq_len = 2048

[model]
name = "PrimeIntellect/Qwen3-0.6B-Reverse-Text-SFT"

[monitors.wandb]
project = "reverse-text"
name = "reverse-text"

[orchestrator]
batch_size = 128
group_size = 16

[orchestrator.train.sampling]
max_completion_tokens = 128

[[orchestrator.train.source]]
name = "reverse-text"

[orchestrator.train.source.env.taskset]
id = "reverse-text"

[orchestrator.train.source.env.agent.harness]
id = "null"

[orchestrator.train.source.env.agent.runtime]
type = "subprocess"

[trainer.optim]
lr = 3e-6

[ckpt] # Checkpoint at the end of training

[inference]

# PrimeIntellect Qwen3 fine-tune - select its renderer explicitly (the -SFT
# suffix misses the MODEL_RENDERER_MAP exact match).
[orchestrator.renderer]
name = "prime-qwen3"
"""


class Cli:
    def __init__(self, lp: LocalPlatform, home: Path, cwd: Path) -> None:
        self.env, self.cwd = prime_env(lp, home), cwd

    def __call__(self, *commands: list[str]) -> list[subprocess.CompletedProcess[str]]:
        return run_all(self.env, self.cwd, *commands)

    def ok(self, *args: str) -> str:
        (done,) = self(list(args))
        assert done.returncode == 0, f"prime {' '.join(args)}: {done.stdout}{done.stderr}"
        return done.stdout


def dispatched_id(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 0, done.stdout + done.stderr
    return re.search(r"Dispatched hosted run ([a-z0-9]{24})", done.stdout).group(1)


@pytest.fixture(scope="module")
def cli(local_platform: LocalPlatform, tmp_path_factory: pytest.TempPathFactory) -> Cli:
    cwd = tmp_path_factory.mktemp("prime-rl")
    (cwd / "rl.toml").write_text(REVERSE_TEXT)
    return Cli(local_platform, cwd / "home", cwd)


@pytest.fixture(scope="module")
def c(local_platform: LocalPlatform) -> httpx.Client:
    with http(local_platform) as client:
        yield client


@pytest.fixture(scope="module")
def run_id(cli: Cli, c: httpx.Client) -> str:
    """The module's one finished run of the example, dispatched by `prime train rl.toml`."""
    (done,) = cli(["train", "rl.toml", "-y"])
    rid = dispatched_id(done)
    finished = wait_status(c, rid, timeout=240)
    assert finished["status"] == "COMPLETED", finished.get("errorMessage")
    return rid


def as_json(text: str) -> Any:
    return json.loads(text)


def test_get_list_and_components_show_the_rl_run(cli: Cli, run_id: str) -> None:
    get, listed, components = cli(["train", "get", run_id], ["train", "list"], ["train", "components", run_id])
    assert get.returncode == 0, get.stdout + get.stderr
    for line in ("Status: COMPLETED", "Model: PrimeIntellect/Qwen3-0.6B-Reverse-Text-SFT", "Max Steps: 20",
                 "Batch Size: 128", "Rollouts per Example: 16", "Max Tokens: 128", "GPUs: 2"):
        assert line in get.stdout, get.stdout
    assert "reverse-text" in get.stdout
    assert listed.returncode == 0 and run_id in listed.stdout, listed.stdout + listed.stderr
    assert components.returncode == 0, components.stdout + components.stderr
    assert re.search(r"orchestrator\s+-\s+COMPLETED", components.stdout), components.stdout
    assert re.search(r"env-server\s+reverse-text\s", components.stdout), components.stdout


def test_logs_of_each_component(cli: Cli, run_id: str) -> None:
    orch, trainer, inference, env = cli(["train", "logs", run_id, "--search", "Step", "--since", "24h"],
                                        ["train", "logs", run_id, "-c", "trainer", "--search", "Step", "--since", "24h"],
                                        ["train", "logs", run_id, "-c", "inference"],
                                        ["train", "logs", run_id, "--env", "reverse-text"])
    for done in (orch, trainer, inference, env):
        assert done.returncode == 0 and done.stdout.strip(), done.stdout + done.stderr
    assert re.search(r"Step 20 \|.*Reward", orch.stdout), orch.stdout[-2000:]
    assert re.search(r"Step 20 \|.*Loss.*Entropy", trainer.stdout), trainer.stdout[-2000:]
    assert "EnvServer" in env.stdout, env.stdout


def test_metrics_rollouts_progress_and_distributions_print_the_runs_data(cli: Cli, run_id: str) -> None:
    metrics, rollouts, progress, dists, all_types = cli(
        ["train", "metrics", run_id], ["train", "rollouts", run_id, "--step", "20", "-n", "32", "-p", "2"],
        ["train", "progress", run_id], ["train", "distributions", run_id, "--type", "rewards", "--step", "10"],
        ["train", "distributions", run_id])
    rows = as_json(metrics.stdout)["metrics"]
    assert [r["step"] for r in rows] == list(range(1, 21))
    first = sum(r["train/agg/effective/agent/reward/mean"] for r in rows[:3]) / 3
    last = sum(r["train/agg/effective/agent/reward/mean"] for r in rows[-3:]) / 3
    assert last >= first + 0.15, (first, last)  # the example's own settings make the reward climb
    page = as_json(rollouts.stdout)
    assert (page["run_id"], page["total"], page["page"], page["limit"], page["total_pages"]) == (run_id, 128, 2, 32, 4)
    assert [s["sample_id"] for s in page["samples"]] == list(range(32, 64))
    assert page["samples"][0]["completion"][-1]["role"] == "assistant"
    assert as_json(progress.stdout) == {"latest_step": 20, "steps_with_samples": [10, 20],
                                        "steps_with_distributions": list(range(1, 21)),
                                        "last_updated_at": as_json(progress.stdout)["last_updated_at"]}
    rewards = as_json(dists.stdout)
    assert rewards["step"] == 10 and len(rewards["bins"]) == 10 and sum(b["count"] for b in rewards["bins"]) == 128
    every = as_json(all_types.stdout)
    assert every["step"] == 20 and {b["type"] for b in every["bins"]} == {"rewards", "advantages"}


def test_checkpoints_list_the_final_one(cli: Cli, run_id: str) -> None:
    out = cli.ok("train", "checkpoints", run_id, "-o", "json")
    assert [c["step"] for c in as_json(out)["checkpoints"]] == [20]


def test_restart_then_stop_a_running_rl_run(cli: Cli, c: httpx.Client) -> None:
    long = REVERSE_TEXT.replace("max_steps = 20", "max_steps = 100000").replace(
        "[ckpt] # Checkpoint at the end of training", "[ckpt]\ninterval = 2")
    (cli.cwd / "long.toml").write_text(long)
    (done,) = cli(["train", "long.toml", "-y"])
    rid = dispatched_id(done)
    wait_status(c, rid, {"RUNNING"}, step=3)
    restarted = " ".join(cli.ok("train", "restart", rid, "-f").split())
    assert f"Run {rid} restarting from checkpoint" in restarted, restarted
    wait_status(c, rid, {"RUNNING"})
    stopped = " ".join(cli.ok("train", "stop", rid, "-f").split())
    assert f"Run {rid} stopped successfully" in stopped, stopped
