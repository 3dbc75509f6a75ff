"""The official `prime` CLI (PyPI prime==0.18.0), unchanged, on a real local RL run.

`prime train rl.toml` dispatches prime-rl's own reverse-text example as written (research §1.4 a);
every monitoring command then reads the finished run. A second, long run (dispatched over HTTP) takes
`restart` and `stop`.
"""

from __future__ import annotations

import json
import re
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import httpx
import pytest

from primetui.local.testing import LocalPlatform
from primetui.sft.templates import RL_REVERSE_TEXT
from tests.local.conftest import http, wait_status
from tests.local.test_prime_cli import prime_env, run_all


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
    """The CLI in the data dir, where the demo left prime-rl's example as rl.toml (as a new user finds it)."""
    assert (local_platform.data_dir / "rl.toml").read_text() == RL_REVERSE_TEXT
    return Cli(local_platform, tmp_path_factory.mktemp("prime-rl") / "home", local_platform.data_dir)


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


READS = {
    "get": ["train", "get", "{id}"],
    "list": ["train", "list"],
    "components": ["train", "components", "{id}"],
    "logs": ["train", "logs", "{id}", "--search", "Step", "--since", "24h"],
    "trainer": ["train", "logs", "{id}", "-c", "trainer", "--search", "Step", "--since", "24h"],
    "env": ["train", "logs", "{id}", "--env", "reverse-text"],
    "metrics": ["train", "metrics", "{id}"],
    "rollouts": ["train", "rollouts", "{id}", "--step", "20", "-n", "32", "-p", "2"],
    "progress": ["train", "progress", "{id}"],
    "distributions": ["train", "distributions", "{id}", "--type", "rewards", "--step", "10"],
    "checkpoints": ["train", "checkpoints", "{id}", "-o", "json"],
}
"""Every read command, run side by side once for the module (each is a Python start of the CLI)."""


@pytest.fixture(scope="module")
def out(cli: Cli, run_id: str) -> dict[str, str]:
    names = list(READS)
    done = cli(*[[a.replace("{id}", run_id) for a in READS[n]] for n in names])
    for name, result in zip(names, done):
        assert result.returncode == 0, f"{name}: {result.stdout}{result.stderr}"
    return {name: result.stdout for name, result in zip(names, done)}


def as_json(text: str) -> Any:
    return json.loads(text)


def test_get_list_and_components_show_the_rl_run(out: dict[str, str], run_id: str) -> None:
    for line in (
        "Status: COMPLETED",
        "Model: PrimeIntellect/Qwen3-0.6B-Reverse-Text-SFT",
        "Max Steps: 20",
        "Batch Size: 128",
        "Rollouts per Example: 16",
        "Max Tokens: 128",
        "GPUs: 2",
    ):
        assert line in out["get"], out["get"]
    assert "reverse-text" in out["get"]
    assert run_id in out["list"], out["list"]
    assert re.search(r"orchestrator\s+-\s+COMPLETED", out["components"]), out["components"]
    assert re.search(r"env-server\s+reverse-text\s", out["components"]), out["components"]


def test_logs_of_the_orchestrator_the_trainer_and_the_env_server(out: dict[str, str]) -> None:
    assert re.search(r"Step 20 \|.*Reward", out["logs"]), out["logs"][-2000:]
    assert re.search(r"Step 20 \|.*Loss.*Entropy", out["trainer"]), out["trainer"][-2000:]
    assert "EnvServer up: taskset=reverse-text" in out["env"], out["env"]


def test_metrics_rollouts_progress_and_distributions_print_the_runs_data(out: dict[str, str], run_id: str) -> None:
    rows = as_json(out["metrics"])["metrics"]
    assert [r["step"] for r in rows] == list(range(1, 21))
    first = sum(r["train/agg/effective/agent/reward/mean"] for r in rows[:3]) / 3
    last = sum(r["train/agg/effective/agent/reward/mean"] for r in rows[-3:]) / 3
    assert last >= first + 0.15, (first, last)  # the example's own settings make the reward climb
    page = as_json(out["rollouts"])
    assert (page["run_id"], page["total"], page["page"], page["limit"], page["total_pages"]) == (run_id, 128, 2, 32, 4)
    assert [s["sample_id"] for s in page["samples"]] == list(range(32, 64))
    assert page["samples"][0]["completion"][-1]["role"] == "assistant"
    progress = as_json(out["progress"])
    assert (progress["latest_step"], progress["steps_with_samples"], progress["steps_with_distributions"]) == (
        20,
        [10, 20],
        list(range(1, 21)),
    )
    assert progress["last_updated_at"]
    rewards = as_json(out["distributions"])
    assert rewards["step"] == 10 and len(rewards["bins"]) == 10 and sum(b["count"] for b in rewards["bins"]) == 128


def test_checkpoints_list_the_final_one(out: dict[str, str]) -> None:
    assert [c["step"] for c in as_json(out["checkpoints"])["checkpoints"]] == [20]


def test_restart_then_stop_a_running_rl_run(cli: Cli, c: httpx.Client) -> None:
    long = tomllib.loads(RL_REVERSE_TEXT)
    long["max_steps"], long["ckpt"] = 100000, {"interval": 2}
    reply = c.post("/training/runs", json={"config": long})
    assert reply.status_code == 200, reply.text
    rid = reply.json()["runId"]
    wait_status(c, rid, {"RUNNING"}, step=3)
    restarted = " ".join(cli.ok("train", "restart", rid, "-f").split())
    assert f"Run {rid} restarting from checkpoint" in restarted, restarted
    wait_status(c, rid, {"RUNNING"})
    stopped = " ".join(cli.ok("train", "stop", rid, "-f").split())
    assert f"Run {rid} stopped successfully" in stopped, stopped
