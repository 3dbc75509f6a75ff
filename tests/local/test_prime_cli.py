"""The official `prime` CLI (PyPI prime==0.18.0) pointed at the local server, as a new user would use it.

Each command is a real run of the CLI's code (a fresh process, or a fork of one that has imported the CLI:
tests/local/prime_zygote.py); independent ones run side by side to keep the suite quick.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

from primetui.local.testing import LocalPlatform
from tests.local.conftest import wait_status
from tests.local.prime_zygote import PRIME, prime, write_config

__all__ = ["PRIME", "prime_env", "run_all"]


def prime_env(lp: LocalPlatform, home: Path) -> dict[str, str]:
    home.mkdir(parents=True, exist_ok=True)
    env = dict(
        os.environ,
        HOME=str(home),
        PRIME_BASE_URL=lp.base_url,
        PRIME_API_KEY=lp.token,
        PRIME_DISABLE_VERSION_CHECK="1",
        COLUMNS="200",
        NO_COLOR="1",
    )
    # The CLI writes ~/.prime/config.json on its first run, in place: two first runs at once can
    # read it half written. Its own Config writes it once here, before any command runs.
    write_config(env)
    return env


def run_all(env: dict[str, str], cwd: Path, *commands: list[str]) -> list[subprocess.CompletedProcess[str]]:
    """Run each ``prime --plain <command>`` side by side, as fresh processes would (tests/local/prime_zygote.py)."""
    with ThreadPoolExecutor(max_workers=len(commands)) as pool:
        return list(pool.map(lambda args: prime(args, env, cwd), commands))


def test_prime_cli_walkthrough(local_platform: LocalPlatform, api: httpx.Client, tmp_path: Path) -> None:
    env = prime_env(local_platform, tmp_path / "home")
    cwd = local_platform.data_dir  # holds the walkthrough's sft.toml

    volumes, models = run_all(env, cwd, ["volumes", "list"], ["train", "models"])
    assert volumes.returncode == 0, volumes.stderr
    assert re.search(r"research\s+100Gi\s+CREATED", volumes.stdout)
    assert models.returncode == 0, models.stderr
    assert re.search(r"PrimeIntellect/Qwen3-0\.6B-Reverse-Text-SFT\s+local-cpu", models.stdout)

    (dispatched,) = run_all(env, cwd, ["train", "sft.toml", "--volume", "research", "-y"])
    assert dispatched.returncode == 0, dispatched.stdout + dispatched.stderr
    run_id = re.search(r"Dispatched hosted run ([a-z0-9]{24})", dispatched.stdout).group(1)
    assert wait_status(api, run_id)["status"] == "COMPLETED"

    get, metrics, logs = run_all(
        env, cwd, ["train", "get", run_id], ["train", "metrics", run_id], ["train", "logs", run_id]
    )
    assert get.returncode == 0, get.stderr
    assert "Status: COMPLETED" in get.stdout
    assert "Model: PrimeIntellect/Qwen3-0.6B-Reverse-Text-SFT" in get.stdout and "Volume: research" in get.stdout
    assert metrics.returncode == 0, metrics.stderr
    rows = json.loads(metrics.stdout)["metrics"]
    assert [r["step"] for r in rows] == list(range(1, 11)) and all("loss/mean" in r for r in rows)
    assert logs.returncode == 0, logs.stderr
    assert "SUCCESS Step 10 |" in logs.stdout and "stand-in" in logs.stdout


def test_prime_cli_shows_the_seed_error_for_an_uncached_model(local_platform: LocalPlatform, tmp_path: Path) -> None:
    env = prime_env(local_platform, tmp_path / "home")
    text = (local_platform.data_dir / "sft.toml").read_text()
    (tmp_path / "bad.toml").write_text(text.replace("Qwen3-0.6B-Reverse-Text-SFT", "Qwen3-0.6B"))
    (reply,) = run_all(env, tmp_path, ["train", "bad.toml", "--volume", "research", "-y"])
    assert reply.returncode != 0
    out = " ".join((reply.stdout + reply.stderr).split())
    assert (
        "Error: Model 'PrimeIntellect/Qwen3-0.6B' is not available on this cluster. "
        "Reach out to Prime support to get it added."
    ) in out
