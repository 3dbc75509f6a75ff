"""``primetui rollouts`` and ``primetui distributions`` against a real finished reverse-text RL run (one
for the module): the samples and histograms the platform serves, grouped and counted as the tabs show
them, ``--json`` exact, a step without data refused with the steps that have it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from primetui.monitor_core.escapes import is_safe
from tests.local.conftest import http
from tests.local.rl_run import demo_rl_run
from tests.ops.cli_run import primetui_main

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def rl_run(local_platform) -> dict[str, Any]:
    return demo_rl_run(local_platform)


def test_rollouts_json_groups_every_sample_of_the_latest_step(
    local_platform, rl_run, tmp_path: Path, monkeypatch, capsys
):
    code, out, err = primetui_main(local_platform, tmp_path, monkeypatch, capsys, "rollouts", rl_run["id"], "--json")
    assert code == 0, err
    data = json.loads(out)
    with http(local_platform) as c:
        rows = c.get(f"/rft/runs/{rl_run['id']}/samples", params={"step": 20, "limit": 1000}).json()["samples"]
    assert (
        data["step"] == 20 and data["steps_with_samples"] == [10, 20] and data["summary"]["samples"] == len(rows) == 128
    )
    assert len(data["groups"]) == len({r["problem_id"] for r in rows}) == 8
    by_id = {r["sample_id"]: r for r in rows}
    for group in data["groups"]:
        rewards = [s["reward"] for s in group["samples"]]
        assert rewards == sorted(rewards, reverse=True)
        assert group["mean_reward"] == pytest.approx(sum(rewards) / len(rewards))
        assert group["reward_spread"] == pytest.approx(max(rewards) - min(rewards))
        assert group["no_signal"] == (max(rewards) == min(rewards))
        for s in group["samples"]:
            row = by_id[s["sample_id"]]
            assert s["completion"] == row["completion"][-1]["content"] and s["rubric"] == {"lcs": row["reward"]}
            assert row["task"]["answer"] == group["answer"] and row["problem_id"] == group["problem_id"]
    means = [g["mean_reward"] for g in data["groups"]]
    assert means == sorted(means, reverse=True)


def test_rollouts_text_names_each_group_and_refuses_a_step_without_samples(
    local_platform, rl_run, tmp_path, monkeypatch, capsys
):
    code, out, err = primetui_main(
        local_platform, tmp_path, monkeypatch, capsys, "rollouts", rl_run["id"], "--step", "10", "--sort", "spread"
    )
    assert code == 0, err
    assert out.startswith(f"Run {rl_run['id']} · step 10 (steps with samples: 10, 20) · 128 samples in 8 groups")
    assert out.count("\nProblem ") == 8 and "  Answer: " in out and " reward " in out and is_safe(out.replace("\n", ""))
    code, out, err = primetui_main(
        local_platform, tmp_path, monkeypatch, capsys, "rollouts", rl_run["id"], "--step", "15"
    )
    assert code == 1 and out == ""
    assert err.strip() == f"primetui: Step 15 of run {rl_run['id']} has no samples; steps with samples: 10, 20."


def test_distributions_json_and_text(local_platform, rl_run, tmp_path, monkeypatch, capsys):
    code, out, err = primetui_main(
        local_platform, tmp_path, monkeypatch, capsys, "distributions", rl_run["id"], "--json"
    )
    assert code == 0, err
    data = json.loads(out)
    assert data["step"] == 20 and data["steps_with_distributions"] == list(range(1, 21))
    rewards, advantages = data["distributions"]
    assert (rewards["type"], advantages["type"]) == ("rewards", "advantages")
    assert sum(b["count"] for b in rewards["bins"]) == rewards["stats"]["count"] == 128
    assert (
        not rewards["stats"]["estimated"]
        and 0 <= rewards["stats"]["min"] <= rewards["stats"]["mean"] <= rewards["stats"]["max"] <= 1
    )
    code, out, err = primetui_main(
        local_platform,
        tmp_path,
        monkeypatch,
        capsys,
        "distributions",
        rl_run["id"],
        "--type",
        "advantages",
        "--step",
        "1",
    )
    assert code == 0, err
    assert "\nAdvantages\n  Step 1  n 128 · mean " in out and "Rewards" not in out
    code, out, err = primetui_main(
        local_platform, tmp_path, monkeypatch, capsys, "distributions", rl_run["id"], "--type", "bogus"
    )
    assert code == 64 and "invalid choice: 'bogus'" in err
