"""`primetui runs --once` / `primetui run ID --once`: what the screens show, for scripts and agents."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from dash_helpers import PACED_DATA, dispatch_walkthrough, wait_status

from tests.cli_zygote import headless

pytestmark = pytest.mark.timeout(300)


def run_cli(args: list[str], env_extra: dict[str, str], tmp_path) -> subprocess.CompletedProcess[str]:
    return headless(args, tmp_path, **env_extra)


def test_headless_never_imports_the_ui_toolkit():
    code = "import sys, primetui.commands.headless\nprint(','.join(m for m in ('textual', 'rich') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


async def test_runs_and_run_once_print_what_the_screens_show(local_platform, tmp_path):
    run_id = await dispatch_walkthrough(local_platform, data=dict(PACED_DATA))  # 10 steps of short rows
    await wait_status(local_platform, run_id, {"COMPLETED"})
    env = {"PRIME_BASE_URL": local_platform.base_url, "PRIME_API_KEY": local_platform.token}

    listing = run_cli(["runs", "--once", "--json"], env, tmp_path)
    assert listing.returncode == 0, listing.stderr
    data = json.loads(listing.stdout)
    row = next(r for r in data["runs"] if r["id"] == run_id)
    assert row["status"] == "COMPLETED"
    assert row["step"] == 10 and row["max_steps"] == 10
    assert row["model"] == "PrimeIntellect/Qwen3-0.6B-Reverse-Text-SFT"
    assert isinstance(row["loss"], float)
    assert data["page"] == 1 and data["total"] >= 1

    table = run_cli(["runs", "--once"], env, tmp_path)
    assert table.returncode == 0
    header, *lines = table.stdout.splitlines()
    assert header.split()[:5] == ["STATUS", "ID", "NAME", "MODEL", "STEPS"]
    assert any(run_id in line and "COMPLETED" in line and "10/10" in line for line in lines)

    detail = run_cli(["run", run_id, "--once", "--json"], env, tmp_path)
    assert detail.returncode == 0, detail.stderr
    d = json.loads(detail.stdout)
    assert d["status"] == "COMPLETED" and d["terminal"] is True
    assert d["lifecycle"]["completed"] != "-"
    assert d["actions"] == ["delete"]
    assert d["checkpoints"][0]["command"] == f"prime volumes get research runs/{run_id}/checkpoints/step_10/ ./step_10"
    assert d["checkpoints"][0]["size_bytes"] > 0
    assert len(d["losses"]) == 10
    assert d["config"]["model"]["name"] == "PrimeIntellect/Qwen3-0.6B-Reverse-Text-SFT"
    assert local_platform.token not in detail.stdout

    plain = run_cli(["run", run_id, "--once"], env, tmp_path)
    assert "Status:     COMPLETED" in plain.stdout
    assert "Checkpoints:" in plain.stdout and "step 10" in plain.stdout


def test_errors_are_one_sentence_and_exit_codes_say_what_failed(local_platform, tmp_path):
    no_key = run_cli(["runs", "--once"], {"PRIME_BASE_URL": local_platform.base_url}, tmp_path)
    assert no_key.returncode == 78
    assert "No API key configured" in no_key.stderr and "Traceback" not in no_key.stderr

    bad_key = run_cli(
        ["runs", "--once"], {"PRIME_BASE_URL": local_platform.base_url, "PRIME_API_KEY": "wrong"}, tmp_path
    )
    assert bad_key.returncode == 1
    assert "401" in bad_key.stderr and len(bad_key.stderr.strip().splitlines()) == 1

    missing = run_cli(
        ["run", "no-such-run", "--once"],
        {"PRIME_BASE_URL": local_platform.base_url, "PRIME_API_KEY": local_platform.token},
        tmp_path,
    )
    assert missing.returncode == 1 and "Traceback" not in missing.stderr

    dead = run_cli(["runs", "--once"], {"PRIME_BASE_URL": "http://127.0.0.1:9", "PRIME_API_KEY": "x"}, tmp_path)
    assert dead.returncode == 1
    assert "Traceback" not in dead.stderr and dead.stderr.startswith("primetui: ")
