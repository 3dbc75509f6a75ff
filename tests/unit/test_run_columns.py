"""Issue 38 #4 and issue 40 §3: one column registry for the runs screen and ``runs --once``; RL runs beside SFT."""

from __future__ import annotations

from datetime import datetime, timezone

import numpy as np

from tests.runs import wire_run
from primetui.commands import headless
from primetui.monitor_core import rl_metrics
from primetui.monitor_core.rl_charts import rl_chart_specs, stacked_rows
from primetui.viewmodel import run_columns
from primetui.viewmodel.progress import RunProgress
from primetui.viewmodel.run_rows import run_row
from primetui.viewmodel.rl_summary import RLLogState, rl_summary, summary_lines

NOW = datetime(2026, 12, 6, 9, 0, tzinfo=timezone.utc)
SFT = wire_run(
    {
        "id": "s1",
        "name": "sft-run",
        "status": "COMPLETED",
        "loss": "sft",
        "maxSteps": 4,
        "runConfig": {"data": {"batch_size": 32, "seq_len": 512}, "optim": {"lr": 1e-5}},
    }
)
RL = wire_run(
    {
        "id": "r1",
        "name": "rl-run",
        "status": "RUNNING",
        "loss": "rl",
        "maxSteps": 20,
        "runConfig": {
            "orchestrator": {
                "batch_size": 128,
                "group_size": 16,
                "train": {"source": [{"name": "reverse-text", "env": {"taskset": {"id": "reverse-text"}}}]},
            },
            "trainer": {"optim": {"lr": 3e-6}},
        },
    }
)


def rl_progress() -> RunProgress:
    return RunProgress.from_metric_rows(
        [
            {
                "step": s,
                rl_metrics.REWARD: 0.2 + 0.05 * s,
                rl_metrics.OFF_POLICY_MEAN: 1.0,
                rl_metrics.OFF_POLICY_MAX: 1,
            }
            for s in range(1, 11)
        ]
    )


def test_the_screen_and_headless_read_one_registry():
    assert [k for k, _ in headless.RUN_COLUMNS] == [
        "status",
        "id",
        "name",
        "model",
        "steps",
        "loss",
        "started",
        "elapsed",
        "eta",
        "gpus",
        "kind",
    ]
    assert headless.COLUMN_CAPS == {c.key: c.cap for c in run_columns.HEADLESS}
    assert run_columns.screen_defaults() == {
        "status",
        "name",
        "kind",
        "steps",
        "loss",
        "elapsed",
        "eta",
        "model",
        "started",
        "gpus",
        "volume",
    }
    assert (
        set(run_columns.CONFIG_KEYS)
        == set(run_columns.SETTING_OF)
        == {"lr", "batch", "seq_len", "max_steps", "group", "environment"}
    )
    keys = [c.key for c in run_columns.COLUMNS]
    assert len(keys) == len(set(keys)) and len({c.priority for c in run_columns.COLUMNS}) == len(keys)


def test_rl_rows_carry_kind_and_reward_and_config_cells_read_either_shape():
    row = run_row(RL, rl_progress(), NOW)
    assert row.kind == "rl" and row.reward == 0.7 and row.reward_step == 10 and row.reward_start == 0.25
    assert row.headline()[1] == "0.7000" and row.to_json()["kind"] == "rl" and "reward_spark" not in row.to_json()
    cells = {c.key: c.cell(row, RL) for c in run_columns.COLUMNS}
    assert (cells["kind"], cells["group"], cells["environment"], cells["lr"], cells["batch"]) == (
        "RL",
        "16",
        "reverse-text",
        "3e-06",
        "128",
    )
    sft = {c.key: c.cell(run_row(SFT, None, NOW), SFT) for c in run_columns.COLUMNS}
    assert (sft["kind"], sft["group"], sft["environment"], sft["lr"], sft["batch"]) == ("SFT", "-", "-", "1e-05", "32")


def test_headless_table_names_the_kind_only_when_both_are_listed():
    rl_row, sft_row = run_row(RL, rl_progress(), NOW), run_row(SFT, None, NOW)
    mixed = headless.format_table([rl_row, sft_row]).splitlines()
    assert mixed[0].split() == [
        "STATUS",
        "ID",
        "NAME",
        "MODEL",
        "STEPS",
        "LOSS/REWARD",
        "STARTED",
        "ELAPSED",
        "ETA",
        "GPUS",
        "KIND",
    ]
    assert "0.7000" in mixed[1] and mixed[1].rstrip().endswith("RL") and mixed[2].rstrip().endswith("SFT")
    only_rl = headless.format_table([rl_row]).splitlines()[0].split()
    assert "KIND" not in only_rl and "REWARD" in only_rl
    assert run_columns.headline_label(["sft"]) == "Loss" and run_columns.headline_label([]) == "Loss"


def test_rl_summary_and_its_lines():
    logs = RLLogState()
    logs.add(
        "orchestrator",
        [
            "12:00:01 SUCCESS Step 10 |    1.0s | Reward 0.7000 | Trainable 120/128 (93.8%) | Turns 1.0 | "
            "Branches 1.0 | Max Off-Policy 1 | Error 0.0% | Cancelled 0.0% | Truncation 0.0%"
        ],
    )
    rows = logs.add(
        "trainer",
        [
            "12:00:02 SUCCESS Step 10 |    3.9s | Loss 0.0012 | Entropy 0.2143 | Mismatch KL 0.0009 | "
            "Grad. Norm 0.1837 | LR 3.00e-06 | Throughput 21873 tokens/s | MFU 6.4% | Peak Mem. 21.7 GiB"
        ],
    )
    assert rows == [
        {
            "step": 10,
            "trainer log/entropy": 0.2143,
            "trainer log/mismatch KL": 0.0009,
            "trainer log/grad norm": 0.1837,
            "trainer log/LR": 3e-06,
            "trainer log/throughput": 21873.0,
            "trainer log/loss": 0.0012,
        }
    ]
    summary = rl_summary(RL, rl_progress(), logs)
    assert (summary["trainable"], summary["trainable_of"], summary["trainable_step"]) == (120, 128, 10)
    assert (
        summary["off_policy_max"] == 1
        and summary["max_off_policy_steps"] == 8
        and summary["environments"] == ["reverse-text"]
    )
    lines = dict(summary_lines(summary))
    assert (
        lines["Trainable"] == "120/128 (93.8%) @ step 10" and lines["Group / batch"] == "16 per prompt / 128 rollouts"
    )
    assert lines["Reward"] == "0.7000 @ 10   start 0.2500 @ 1"


def test_rl_chart_specs_and_the_stacked_bar():
    keys = {
        rl_metrics.REWARD,
        rl_metrics.REWARD_MIN,
        rl_metrics.REWARD_MAX,
        rl_metrics.SOLVED_NONE,
        rl_metrics.SOLVED_SOME,
        rl_metrics.SOLVED_ALL,
        "train/a/effective/agent/reward/mean",
        "train/b/effective/agent/reward/mean",
        "trainer log/entropy",
    }
    specs = {s.id: s for s in rl_chart_specs(keys)}
    assert specs["reward"].title == "reward (mean, min–max)" and specs["reward"].keys[1:] == (
        rl_metrics.REWARD_MIN,
        rl_metrics.REWARD_MAX,
    )
    assert specs["envs"].title == "reward per env: a, b" and specs["solved"].kind == "stacked"
    assert specs["log-entropy"].title == "entropy · trainer log" and "length" not in specs
    rows = stacked_rows(
        "solved", np.array([1.0, 2.0]), [np.array([1.0, 0.0]), np.array([0.0, 0.5]), np.array([0.0, 0.5])], 12, 6
    )
    plot = ["".join(t for t, _ in row[1:]) for row in rows[1:-1]]
    assert plot == [
        "░░░░░▓▓▓▓▓",
        "░░░░░▓▓▓▓▓",
        "░░░░░█████",
        "░░░░░█████",
    ]  # step 1 all none; step 2 half some, half all
    assert "".join(t for t, _ in rows[-1]).strip().startswith("└1") and rows[-1][0][0].endswith("2")


def test_chart_titles_from_metric_keys_are_neutralised():
    keys = {rl_metrics.REWARD, "train/agg/effective/agent/rewards/\x1b]0;owned\x07/mean"}
    titles = [s.title for s in rl_chart_specs(keys)]
    assert len(titles) == 2 and all("\x1b" not in t and "\x07" not in t for t in titles), titles
