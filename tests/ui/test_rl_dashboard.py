"""Issue 40 §1–3 and §5: RL runs in the dashboard, against real reverse-text RL runs on the local platform.

One module-wide pair of finished runs (a healthy lr 3e-6 and a much too large lr 3e-4) and one SFT
run: the run screen follows an RL run's kind (Overview, Logs per component and env server, Charts),
the health flags name their step and jump to the log line behind it (and a healthy run raises none),
the runs list and compare show RL beside SFT, and ``run --once --json`` carries the RL summary.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import httpx
import pytest
from textual.widgets import DataTable, TabbedContent

from primetui.local.testing import LocalPlatform
from primetui.monitor_core import rl_metrics
from primetui.ui.monitor import ChartsPane, LogsPane, RLChartsPane
from primetui.ui.screens.run import RunScreen
from primetui.ui.screens.runs import RunsScreen
from tests.cli_zygote import headless
from tests.local.conftest import dispatch, http, wait_status, walkthrough_config
from tests.ui.dash_helpers import make_app, screen_text
from tests.waiting import input_applied, until


def rl_config(lr: float, max_steps: int = 20, temperature: float | None = None) -> dict[str, Any]:
    """prime-rl's examples/basic/reverse-text/rl.toml as the CLI sends it (research §1.4 a), lr changed."""
    return {
        "max_steps": max_steps,
        "seq_len": 2048,
        "model": {"name": "PrimeIntellect/Qwen3-0.6B-Reverse-Text-SFT"},
        "orchestrator": {
            "batch_size": 128,
            "group_size": 16,
            "renderer": {"name": "prime-qwen3"},
            "train": {
                "sampling": {"max_completion_tokens": 128},
                "source": [
                    {
                        "name": "reverse-text",
                        "env": {
                            "taskset": {"id": "reverse-text"},
                            "agent": {"harness": {"id": "null"}, "runtime": {"type": "subprocess"}},
                        },
                    }
                ],
            },
        },
        "trainer": {"optim": {"lr": lr}},
        "ckpt": {},
        "inference": {},
    } | (
        {}
        if temperature is None
        else {
            "orchestrator": {
                "batch_size": 128,
                "group_size": 16,
                "renderer": {"name": "prime-qwen3"},
                "train": {
                    "sampling": {"max_completion_tokens": 128, "temperature": temperature},
                    "source": [{"name": "reverse-text", "env": {"taskset": {"id": "reverse-text"}}}],
                },
            }
        }
    )


def dispatch_rl(c: httpx.Client, name: str, lr: float, **kw: Any) -> str:
    reply = c.post("/training/runs", json={"config": rl_config(lr, **kw), "name": name})  # the CLI sends no mode for RL
    assert reply.status_code == 200, reply.text
    return reply.json()["runId"]


@pytest.fixture(scope="module")
def runs(local_platform: LocalPlatform) -> Iterator[SimpleNamespace]:
    with http(local_platform) as c:
        healthy = dispatch_rl(c, "rt-rl-healthy", 3e-6)
        hot = dispatch_rl(c, "rt-rl-lr-too-high", 3e-4)
        # Greedy sampling: a group's 16 completions are one text, so no group carries a signal.
        greedy = dispatch_rl(c, "rt-rl-greedy", 3e-6, max_steps=3, temperature=0.0)
        sft = dispatch(c, walkthrough_config(local_platform, max_steps=4, name="rt-sft-beside-rl"))
        for run_id in (healthy, hot, greedy, sft):
            run = wait_status(c, run_id, timeout=180)
            assert run["status"] == "COMPLETED", run.get("errorMessage")
    yield SimpleNamespace(healthy=healthy, hot=hot, greedy=greedy, sft=sft)


async def open_run(pilot: Any, app: Any, run_id: str) -> RunScreen:
    app.open_run(run_id)
    await until(
        pilot, lambda: isinstance(app.screen, RunScreen) and app.screen.run is not None, "the run screen with its run"
    )
    return app.screen


async def charts_of(pilot: Any, screen: RunScreen) -> RLChartsPane:
    """The run's Charts pane, once mounted: an RL run's is the RL one."""
    panes = await until(pilot, lambda: screen.query(ChartsPane).nodes, "the Charts pane mounted")
    assert isinstance(panes[0], RLChartsPane), panes
    return panes[0]


async def test_rl_overview_logs_and_charts_follow_the_runs_kind(local_platform, runs):
    app = make_app(local_platform)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await open_run(pilot, app, runs.healthy)
        charts = await charts_of(pilot, screen)
        await until(
            pilot,
            lambda: charts.logs.last_step_line is not None and charts.logs.last_step_line.step == 20,
            "the orchestrator's last step line",
        )
        await until(
            pilot,
            lambda: "Trainable" in screen_text(app) and "128/128" in screen_text(app),
            "Trainable k/n on the Overview",
        )
        text = screen_text(app)
        for want in (
            "Environments",
            "reverse-text",
            "16 per prompt / 128 rollouts",
            "start 0.",
            "Off-policy",
            "max_off_policy_steps=8",
            "20/20",
        ):
            assert want in text, want
        assert "Loss" not in text.split("Environments")[0]  # the headline is the reward, not a loss
        logs = screen.query_one(LogsPane)
        assert [s.title for s in logs.specs] == ["orchestrator", "trainer", "inference", "env:reverse-text"]
        await until(
            pilot,
            lambda: any("EnvServer up: taskset=reverse-text" in t for t in logs.stores["env-reverse-text"].all_text()),
            "the env server's own log in its tab",
        )
        # Charts: the reward with its band, per function, length, truncation, solved, pipeline, and the trainer
        # log's numbers.
        await until(pilot, lambda: "log-entropy" in charts.charts, "the trainer log's entropy chart")
        assert {
            "reward",
            "fn-lcs",
            "length",
            "truncation",
            "solved",
            "off-policy",
            "time",
            "log-mismatch_kl",
            "log-grad_norm",
            "log-lr",
            "log-throughput",
        } <= set(charts.charts)
        assert "envs" not in charts.charts  # one environment: the aggregate is its curve
        screen.query_one("#run-tabs", TabbedContent).active = "tab-charts"
        reward = charts.charts["reward"]
        await until(
            pilot,
            lambda: reward.content_size.width > 0 and charts.charts["solved"].content_size.height > 2,
            "the charts laid out",
        )
        assert [s.name for s in reward.series] == [rl_metrics.REWARD, rl_metrics.REWARD_P10, rl_metrics.REWARD_P90]
        assert reward.plain_text().startswith("reward (mean, p10–p90)")
        assert charts.charts["log-entropy"].plain_text().startswith("entropy · trainer log")
        assert "hosted /metrics does not carry them" in charts.status_text
        rewards = reward.series[0].values
        assert len(rewards) == 20, (reward.series[0].steps, rewards)
        assert rewards[-1] > rewards[0] + 0.3  # reverse-text learns: the reward rises
        solved = charts.charts["solved"].plain_text()
        assert "░ none" in solved and "▓ all" in solved
        # Its sample steps measured too (reward against the completions' similarity to the answer)...
        await until(pilot, lambda: screen.links.detector.sample_steps == [10, 20], "both sample steps measured")
        assert screen.links.anomalies == []  # ...and a healthy run raises no flag


async def test_a_much_too_large_lr_raises_entropy_collapse_on_its_step_and_jumps_to_the_trainer_line(
    local_platform, runs
):
    app = make_app(local_platform)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await open_run(pilot, app, runs.hot)
        await until(
            pilot,
            lambda: any(a.kind == "entropy_collapse" for a in screen.links.anomalies),
            "the entropy-collapse flag",
        )
        flag = next(a for a in screen.links.anomalies if a.kind == "entropy_collapse")
        assert flag.step == 3 and flag.component == "trainer" and "Step 3 |" in flag.line
        table = screen.query_one("#run-anomalies", DataTable)
        await until(pilot, lambda: table.row_count >= 1, "the anomaly row on the Overview")
        table.focus()
        await pilot.press("enter")
        await input_applied(pilot)
        tabs = screen.query_one("#run-tabs", TabbedContent)
        await until(pilot, lambda: tabs.active == "tab-logs", "the Logs tab shown")
        logs = screen.query_one(LogsPane)
        view = logs.tabs["trainer"].view
        await until(
            pilot,
            lambda: "Step 3 |" in view.row_text(view.pointer),
            "the trainer's step 3 line under the cursor",
        )
        assert (await charts_of(pilot, screen)).view.cursor == 3.0
        cursor = str(screen.query_one("#run-cursor").render())
        assert cursor.startswith("step 3") and rl_metrics.REWARD in cursor and "trainer log/entropy 0.3" in cursor


async def test_runs_list_shows_rl_beside_sft_with_kind_and_reward(local_platform, runs):
    app = make_app(local_platform)
    async with app.run_test(size=(200, 40)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, RunsScreen) and app.state.runs_loaded, "the runs list")
        screen = app.screen
        table = screen.query_one("#runs-table", DataTable)
        await until(
            pilot,
            lambda: runs.healthy in app.state.progress and len(app.state.progress[runs.healthy].rows) == 20,
            "the healthy run's metrics",
        )
        screen.chosen_columns = screen.chosen_columns | {"group", "environment", "lr"}
        await input_applied(pilot)
        heads = [str(c.label) for c in table.columns.values()]
        assert "Kind" in heads and "Loss/Reward" in heads and "Group" in heads and "Env" in heads
        row = dict(zip([c.key.value for c in table.columns.values()], (str(c) for c in table.get_row(runs.healthy))))
        assert (
            row["kind"] == "RL"
            and row["group"] == "16"
            and row["environment"] == "reverse-text"
            and row["lr"] == "3e-06"
        )
        assert float(row["loss"].split()[-1]) > 0.6  # the latest mean reward
        sft = dict(zip([c.key.value for c in table.columns.values()], (str(c) for c in table.get_row(runs.sft))))
        assert sft["kind"] == "SFT" and sft["group"] == "-"


async def test_compare_overlays_the_reward_curves_of_rl_runs(local_platform, runs):
    from primetui.ui.screens.compare import CompareScreen

    app = make_app(local_platform)
    async with app.run_test(size=(160, 48)) as pilot:
        app.push_screen(CompareScreen([runs.healthy, runs.hot]))
        await until(
            pilot, lambda: isinstance(app.screen, CompareScreen) and app.screen.data is not None, "the compared runs"
        )
        screen = app.screen
        assert screen.metric == rl_metrics.REWARD
        chart = screen.charts[rl_metrics.REWARD]
        assert [s.name for s in chart.series] == [runs.healthy, runs.hot]
        summary = screen.query_one("#compare-summary", DataTable)
        assert str(summary.columns[next(k for k in summary.columns if k.value == "final")].label) == "Final reward"
        hot = [str(c) for c in summary.get_row(runs.hot)]
        assert any("entropy_collapse" in c for c in hot)


def run_cli(args: list[str], lp: LocalPlatform, tmp_path: Any) -> subprocess.CompletedProcess[str]:
    return headless(args, tmp_path, PRIME_BASE_URL=lp.base_url, PRIME_API_KEY=lp.token)


def test_groups_without_signal_raise_low_trainable_on_the_first_step_and_the_healthy_run_does_not(
    local_platform, runs, tmp_path
):
    """The orchestrator warns at a trainable share of 10 % or less; greedy sampling gives every group one
    reward (0/128 trainable), the healthy run's steps are all trainable (128/128)."""
    done = run_cli(["run", runs.greedy, "--once", "--json"], local_platform, tmp_path)
    assert done.returncode == 0, done.stderr
    flags = json.loads(done.stdout)["anomalies"]
    assert [(a["kind"], a["step"], a["component"]) for a in flags] == [("low_trainable", 1, "orchestrator")], flags
    assert (
        "only 0/128 traces trainable (0.0%) at step 1" in flags[0]["message"] and "Trainable 0/128" in flags[0]["line"]
    )
    healthy = json.loads(run_cli(["run", runs.healthy, "--once", "--json"], local_platform, tmp_path).stdout)
    assert not [a for a in healthy["anomalies"] if a["kind"] == "low_trainable"]


def test_run_once_json_carries_the_rl_summary_and_wait_follows_an_rl_run(local_platform, runs, tmp_path):
    done = run_cli(["run", runs.healthy, "--once", "--json"], local_platform, tmp_path)
    assert done.returncode == 0, done.stderr
    detail = json.loads(done.stdout)
    assert detail["kind"] == "rl" and detail["rl"]["environments"] == ["reverse-text"]
    summary = detail["rl"]
    assert summary["group_size"] == 16 and summary["batch_size"] == 128 and summary["latest_step"] == 20
    assert summary["reward_start_step"] == 1 and summary["reward"] > summary["reward_start"] + 0.3
    assert (summary["trainable"], summary["trainable_of"], summary["trainable_step"]) == (128, 128, 20)
    assert detail["anomalies"] == [] and len(detail["series"][rl_metrics.REWARD]["values"]) == 20
    text = run_cli(["run", runs.hot, "--once"], local_platform, tmp_path)
    assert text.returncode == 0, text.stderr
    assert "Trainable:" in text.stdout and "entropy_collapse" in text.stdout and "Loss:" not in text.stdout
    compared = run_cli(["compare", runs.healthy, runs.hot, "--once"], local_platform, tmp_path)
    assert compared.returncode == 0, compared.stderr
    assert (
        "FINAL REWARD" in compared.stdout
        and "BEST REWARD" in compared.stdout
        and "1 entropy_collapse" in compared.stdout
    )
    waited = run_cli(["wait", runs.healthy, "--json"], local_platform, tmp_path)
    assert waited.returncode == 0, waited.stderr
    assert json.loads(waited.stdout.splitlines()[-1]) == {
        "event": "done",
        "status": "COMPLETED",
        "exit": 0,
        "timed_out": [],
    }
    # --on-event gets the RL flags: a trend, so the wait still ends 0 (COMPLETED)
    events = tmp_path / "events.jsonl"
    hot = run_cli(["wait", runs.hot, "--on-event", f"sh -c 'cat >> {events}'"], local_platform, tmp_path)
    assert hot.returncode == 0, hot.stderr
    told = [json.loads(line) for line in events.read_text().splitlines() if line.strip()]
    flags = [e for e in told if e["kind"] == "anomaly"]
    assert [e["title"] for e in flags] == ["Run rt-rl-lr-too-high: entropy collapse at step 3"], told
