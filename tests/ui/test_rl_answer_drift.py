"""Reward hacking: the reward rises while the completions come no closer to the answer (issue 40 §2).

A hosted RL run whose reward is not the answer's diff (a judge, a format bonus) can climb while the
completions stay as far from the answer as at the start. The local reverse-text run cannot show it
(its reward is the diff's own ratio), so a platform over real HTTP serves exactly such a run: the
mean reward 0.2 → 0.5 → 0.8 at the sample steps 10, 20 and 30, the completions the same wrong text.
The run screen measures the sample steps, flags ``answer_drift`` at step 20 and jumps to its
rollouts; ``run --once --json`` carries the flag.
"""

from __future__ import annotations

import json

import pytest
from textual.widgets import DataTable, TabbedContent

from primetui.api.client import PrimeClient
from primetui.ui.app import PrimeApp
from primetui.ui.monitor.rollouts_pane import RolloutsPane
from primetui.ui.screens.run import RunScreen
from tests.cli_zygote import headless
from tests.ui.dash_helpers import screen_text
from tests.waiting import input_applied, until
from tests.wire_platform import RUN_ID, Reply, WirePlatform, baseline, baseline_run

pytestmark = pytest.mark.timeout(120)

PROMPT = "The choir sang three songs at the wedding on Sunday."
REWARD = {10: 0.2, 20: 0.5, 30: 0.8}
RL_CONFIG = {
    "max_steps": 30,
    "orchestrator": {
        "batch_size": 8,
        "group_size": 4,
        "train": {"source": [{"name": "judge-env", "env": {"taskset": {"id": "judge-env"}}}]},
    },
    "trainer": {"optim": {"lr": 3e-6}},
}


def _samples(step: int) -> list[dict]:
    return [
        {
            "run_id": RUN_ID,
            "step": step,
            "problem_id": p,
            "sample_id": p * 4 + k,
            "reward": REWARD[step] + 0.01 * k,
            "advantage": 0.01 * k - 0.015,
            "env_name": "judge-env",
            "task": {"idx": p, "prompt": PROMPT, "answer": PROMPT[::-1]},
            "completion": [
                {"role": "user", "content": PROMPT},
                {"role": "assistant", "content": "<reversed_text>I am sure this is right.</reversed_text>"},
            ],
        }
        for p in range(2)
        for k in range(4)
    ]


def reply(method: str, path: str, query: dict[str, str]) -> Reply:
    tail = path.removeprefix(f"/api/v1/rft/runs/{RUN_ID}")
    if path == "/api/v1/rft/runs":
        return Reply.json(
            {
                "runs": [baseline_run(RUN_ID, runConfig=RL_CONFIG, loss="rl")],
                "total": 1,
                "page": 1,
                "limit": 20,
                "total_pages": 1,
            }
        )
    if tail == "":
        return Reply.json({"run": baseline_run(RUN_ID, runConfig=RL_CONFIG, loss="rl", maxSteps=30)})
    if tail == "/metrics":
        return Reply.json(
            {
                "metrics": [
                    {"step": s, "time": 1.767e9 + s, "train/agg/effective/agent/reward/mean": 0.2 + 0.02 * s}
                    for s in range(1, 31)
                ]
            }
        )
    if tail == "/progress":
        return Reply.json({"latestStep": 30, "stepsWithSamples": [10, 20, 30], "stepsWithDistributions": []})
    if tail == "/samples":
        rows = _samples(int(query["step"]))
        return Reply.json(
            {"run_id": RUN_ID, "samples": rows, "total": len(rows), "page": 1, "limit": 100, "total_pages": 1}
        )
    data = baseline(method, path, query)
    return Reply.json(data) if data is not None else Reply.json({"detail": "Not Found"}, 404)


async def test_the_run_screen_flags_the_reward_without_the_answer_and_jumps_to_its_rollouts():
    with WirePlatform(reply) as wp:
        app = PrimeApp(PrimeClient(wp.base_url, "k"), None, None, poll_scale=0.1, platform_label="wire")
        async with app.run_test(size=(160, 48)) as pilot:
            await until(pilot, lambda: app.state.runs_loaded, "the runs list")
            app.open_run(RUN_ID)
            await until(
                pilot, lambda: isinstance(app.screen, RunScreen) and app.screen.links is not None, "the run screen"
            )
            screen = app.screen
            await until(
                pilot, lambda: any(a.kind == "answer_drift" for a in screen.links.anomalies), "the answer_drift flag"
            )
            flag = next(a for a in screen.links.anomalies if a.kind == "answer_drift")
            assert flag.step == 20 and "reward rose 0.215 → 0.515 from step 10 to step 20" in flag.message
            table = screen.query_one("#run-anomalies", DataTable)
            await until(
                pilot,
                lambda: table.row_count >= 1 and "reward without the answer" in screen_text(app),
                "the anomaly row on the Overview",
            )
            table.focus()
            await pilot.press("enter")
            await input_applied(pilot)
            tabs = screen.query_one("#run-tabs", TabbedContent)
            pane = screen.query_one(RolloutsPane)
            await until(
                pilot,
                lambda: tabs.active == "tab-rollouts" and pane.step == 20 and pane.current.complete,
                "the Rollouts tab at step 20",
            )
            await until(pilot, lambda: pane.steps == [10, 20, 30], "the steps with samples")  # and it stays on step 20
            assert str(pane.query_one("#rollouts-status").render()).startswith("Step 20 (2/3) · f: latest · 8 samples")


def test_run_once_json_carries_the_answer_drift_flag(tmp_path):
    with WirePlatform(reply) as wp:
        out = headless(["run", RUN_ID, "--once", "--json"], tmp_path, 60, PRIME_BASE_URL=wp.base_url, PRIME_API_KEY="k")
        asked = [r for r in wp.requests if "/samples" in r]
    assert out.returncode == 0, out.stderr
    flags = [(a["kind"], a["step"]) for a in json.loads(out.stdout)["anomalies"]]
    assert flags == [("answer_drift", 20)], flags
    assert len(asked) == 3  # each sample step read once
