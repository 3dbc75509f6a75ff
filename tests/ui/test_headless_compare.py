"""`primetui compare A B --once [--json]` on the local platform, and `compare --config` on two files."""

from __future__ import annotations

import json

import pytest
from dash_helpers import dispatch_walkthrough, wait_status
from test_dashboard_headless import run_cli
from test_headless_diagnose import SMALL

pytestmark = pytest.mark.timeout(300)


async def test_compare_two_runs_prints_summary_config_diff_and_series(local_platform, tmp_path):
    env = {"PRIME_BASE_URL": local_platform.base_url, "PRIME_API_KEY": local_platform.token}
    a = await dispatch_walkthrough(local_platform, max_steps=8, optim={"lr": 3e-3}, ckpt={"interval": 8}, **SMALL)
    b = await dispatch_walkthrough(local_platform, max_steps=6, optim={"lr": 1e3}, ckpt={"interval": 6}, **SMALL)
    for run_id in (a, b):
        await wait_status(local_platform, run_id, {"COMPLETED", "FAILED"}, limit=240)

    out = run_cli(["compare", a, b, "--once", "--json"], env, tmp_path)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    ra, rb = data["runs"]
    assert (ra["id"], rb["id"]) == (a, b)
    assert ra["steps"] == 8 and rb["steps"] == 6
    assert ra["anomalies"] == [] and [x["kind"] for x in rb["anomalies"]] == ["loss_spike"]
    assert ra["best_loss"] <= ra["final_loss"] and ra["status"] == "COMPLETED"
    assert len(ra["series"]["loss/mean"]["steps"]) == 8 and "optim/grad_norm" in ra["series"]
    assert data["config_diff"]["optim.lr"] == {a: {"value": 3e-3, "source": "set"}, b: {"value": 1e3, "source": "set"}}
    assert data["config_diff"]["max_steps"][a]["value"] == 8
    assert "model.name" not in data["config_diff"]  # same in both: not listed

    text = run_cli(["compare", a, b, "--once"], env, tmp_path)
    assert text.returncode == 0, text.stderr
    assert "Summary" in text.stdout and "Config diff" in text.stdout
    assert "optim.lr" in text.stdout and "1 loss_spike" in text.stdout
    assert "loss/mean" in text.stdout and "┤" in text.stdout  # overlaid loss chart

    one = run_cli(["compare", a, "--once"], env, tmp_path)
    assert one.returncode == 64 and "at least two" in one.stderr
    missing = run_cli(["compare", a, "no-such-run", "--once"], env, tmp_path)
    assert missing.returncode == 1 and "Traceback" not in missing.stderr


def test_compare_config_files_before_dispatch(tmp_path):
    a = tmp_path / "a.toml"
    b = tmp_path / "b.toml"
    a.write_text("max_steps = 10\n[optim]\nlr = 2e-5\n")
    b.write_text('max_steps = 10\n[optim]\nlr = 3e-3\n[model]\nname = "Qwen/Qwen3-4B"\n')
    out = run_cli(["compare", "--config", str(a), str(b), "--json"], {}, tmp_path)
    assert out.returncode == 0, out.stderr
    diff = json.loads(out.stdout)["config_diff"]
    assert set(diff) == {"optim.lr", "model.name"}
    assert diff["model.name"][str(a)] == {"value": "Qwen/Qwen3-0.6B", "source": "default"}
    text = run_cli(["compare", "--config", str(a), str(b)], {}, tmp_path)
    assert "Qwen/Qwen3-0.6B (default)" in text.stdout
    (tmp_path / "bad.toml").write_text("max_steps = = 3\n")
    bad = run_cli(["compare", "--config", str(a), str(tmp_path / "bad.toml")], {}, tmp_path)
    assert bad.returncode == 3 and "is not valid TOML" in bad.stderr and "Traceback" not in bad.stderr
