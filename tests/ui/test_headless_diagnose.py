"""`primetui run ID --once [--json]` on the local platform: anomalies and the plain-text loss chart."""

from __future__ import annotations

import json

import pytest
from dash_helpers import dispatch_walkthrough, wait_status
from test_dashboard_headless import run_cli

pytestmark = pytest.mark.timeout(300)

SMALL = {"data": {"name": "datasets/reverse-text", "type": "sft", "seq_len": 256, "batch_size": 4}}


async def test_healthy_runs_raise_no_anomaly_and_print_a_loss_chart(local_platform, tmp_path):
    env = {"PRIME_BASE_URL": local_platform.base_url, "PRIME_API_KEY": local_platform.token}
    walkthrough = await dispatch_walkthrough(local_platform)
    lr3e3 = await dispatch_walkthrough(local_platform, max_steps=30, optim={"lr": 3e-3}, ckpt={"interval": 30}, **SMALL)
    for run_id in (walkthrough, lr3e3):
        await wait_status(local_platform, run_id, {"COMPLETED"}, limit=240)
        detail = run_cli(["run", run_id, "--once", "--json"], env, tmp_path)
        assert detail.returncode == 0, detail.stderr
        d = json.loads(detail.stdout)
        assert d["anomalies"] == [], d["anomalies"]
        assert len(d["series"]["loss/mean"]["values"]) == d["step"]
    plain = run_cli(["run", lr3e3, "--once"], env, tmp_path)
    assert "Anomalies:  none" in plain.stdout
    lines = plain.stdout.splitlines()
    title = next(i for i, line in enumerate(lines) if line.strip() == "loss/mean")
    chart = lines[title : title + 16]
    assert any("┤" in line for line in chart) and any("step" == line.strip() for line in chart)
    assert "\x1b" not in plain.stdout  # plain text: no colour codes in a CI log


async def test_an_exploding_loss_raises_one_anomaly_at_the_step_it_starts(local_platform, tmp_path):
    env = {"PRIME_BASE_URL": local_platform.base_url, "PRIME_API_KEY": local_platform.token}
    run_id = await dispatch_walkthrough(local_platform, max_steps=12, optim={"lr": 1e3}, ckpt={"interval": 12}, **SMALL)
    await wait_status(local_platform, run_id, {"COMPLETED", "FAILED"}, limit=240)
    detail = run_cli(["run", run_id, "--once", "--json"], env, tmp_path)
    assert detail.returncode == 0, detail.stderr
    anomalies = json.loads(detail.stdout)["anomalies"]
    assert [(a["kind"], a["step"]) for a in anomalies] == [("loss_spike", 2)]
    assert set(anomalies[0]) == {"kind", "step", "component", "message", "line"}
    assert anomalies[0]["component"] == "trainer" and "rolling median" in anomalies[0]["message"]

    plain = run_cli(["run", run_id, "--once"], env, tmp_path)
    assert "Anomalies:  1" in plain.stdout
    assert "! step 2" in plain.stdout and "loss_spike" in plain.stdout
    assert "loss/mean  (log Y)" in plain.stdout
