"""Issue 39's done-when: prime-rl's three example configs (research §1.4: reverse-text, the nightly file,
multi-env with eval) dispatch unchanged with the official `prime train` and with `primetui dispatch
--wait`, reach COMPLETED on the local platform, and their reward rises."""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx
import pytest

from primetui.local.testing import LocalPlatform
from primetui.local.trainer.testing import RL_EXAMPLES
from tests.local.conftest import http, wait_status
from tests.local.test_prime_cli import prime_env, run_all
from tests.ops.test_wait_dispatch import primetui

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

REWARD = "train/agg/effective/agent/reward/mean"


@pytest.fixture(scope="module")
def examples(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("rl-examples")
    for name, text in RL_EXAMPLES.items():
        (folder / f"{name}.toml").write_text(text, encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def c(local_platform: LocalPlatform) -> httpx.Client:
    with http(local_platform) as client:
        yield client


def rewards(c: httpx.Client, run_id: str) -> list[float]:
    rows = c.get(f"/rft/runs/{run_id}/metrics").json()["metrics"]
    return [row[REWARD] for row in sorted(rows, key=lambda r: r["step"]) if REWARD in row]


def assert_rose(c: httpx.Client, run_id: str, name: str) -> None:
    got = rewards(c, run_id)
    assert len(got) >= 6, f"{name}: {len(got)} steps with a reward"
    first, last = sum(got[:3]) / 3, sum(got[-3:]) / 3
    assert last > first, f"{name}: reward {first:.3f} over the first 3 steps, {last:.3f} over the last 3"


def test_prime_train_runs_each_example_as_written(local_platform, c, examples, tmp_path):
    env = prime_env(local_platform, tmp_path / "home")
    names = sorted(RL_EXAMPLES)
    done = run_all(env, examples, *[["train", f"{name}.toml", "-y"] for name in names])
    ids = {}
    for name, proc in zip(names, done):
        assert proc.returncode == 0, f"prime train {name}.toml: {proc.stdout}{proc.stderr}"
        ids[name] = re.search(r"Dispatched hosted run ([a-z0-9]{24})", proc.stdout).group(1)
    for name, run_id in ids.items():
        assert wait_status(c, run_id, {"COMPLETED", "FAILED"})["status"] == "COMPLETED", name
        assert_rose(c, run_id, name)


def test_primetui_dispatch_waits_each_example_to_completed(local_platform, c, examples, tmp_path):
    for name in sorted(RL_EXAMPLES):
        out = primetui(
            local_platform, tmp_path, "dispatch", str(examples / f"{name}.toml"), "--wait", "--json", "--interval", "1"
        )
        events = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
        assert out.returncode == 0, f"primetui dispatch {name}.toml: {out.stdout}{out.stderr}"
        assert events[-1]["event"] == "done" and events[-1]["status"] == "COMPLETED", events
        (run_id,) = [e["run_id"] for e in events if e["event"] == "dispatched"]
        assert c.get(f"/rft/runs/{run_id}").json()["run"]["status"] == "COMPLETED", name
        assert_rose(c, run_id, name)
