"""Deterministic monitor scenes: used by the SVG snapshot tests and to export docs/img screenshots.

uv run python -m tests.snapshots.monitor_scenes docs/img    # rewrites docs/img/monitor-*.svg
"""

from __future__ import annotations

import asyncio
import math
import sys
from pathlib import Path

from textual.app import App, ComposeResult
from textual.containers import Vertical

from primetui.api.models import EnvServer
from tests.runs import wire_run
from primetui.ui.monitor import ChartsPane, ComponentsPane, LogsPane
from primetui.ui.themes import load_themes, shipped_theme_dir
from tests.waiting import quiet

EVAL_RUN = wire_run(
    {
        "id": "kqeggj5dl7k85bc0mk1i4y5i",
        "status": "FAILED",
        "errorMessage": "env server 'reverse-text' exited with code -9",
        "runConfig": {"eval": {"interval": 10, "source": [{"name": "reverse-text"}]}},
    }
)


POD_RUN_ID = "r8podsglm53xk2v0c7m1q9ta"
POD_RUN = wire_run(
    {
        "id": POD_RUN_ID,
        "status": "RUNNING",
        "runConfig": {"deployment": {"type": "multi_node", "num_train_nodes": 8, "gpus_per_node": 8}},
    }
)
POD_FAILED_RUN = POD_RUN.model_copy(
    update={
        "status": "FAILED",
        "error_message": f"Pod {POD_RUN_ID}-trainer-2 (node 2 of 8) failed at step 2: simulated node failure "
        "(PRIMETUI_LOCAL_FAIL_POD=2, PRIMETUI_LOCAL_FAIL_STEP=2); read its log with pod_index=2.",
    }
)


def pod_lines(node: int, *, steps: int = 4, fail_at: int | None = None) -> list[str]:
    """One node's log of the seed's 8-node example, in the local trainer's format (node 5 is slow)."""
    out = [
        f"11:20:0{node}    INFO Starting SFT trainer in World(world_size=64, rank={node * 8}, local_rank=0, "
        f"local_world_size=8, num_nodes=8) on CPU",
        f"11:20:0{node}    INFO Data shard: micro-batches i with i % 8 == {node} of each step (1 of 8; dp_size=8, "
        f"cp=8)",
    ]
    for step in range(1, steps + 1):
        if fail_at is not None and step >= fail_at:
            if node == fail_at:
                out.append(f"11:20:{20 + step}   ERROR RuntimeError: simulated node failure")
            out.append(
                f"11:20:{20 + step}   ERROR Lost contact with node {fail_at} at step {step}: collective timed out; "
                f"stopping"
                if node != fail_at
                else f"11:20:{20 + step}   ERROR Node {node} exited at step {step}"
            )
            break
        secs = 0.41 + 0.013 * node + 0.02 * step + (0.9 if node == 5 else 0.0)
        loss = 1.9 - 0.11 * step + 0.017 * node
        out.append(
            f"11:20:{20 + step} SUCCESS Step {step} |   {secs:.1f}s | Node {node} | Local Loss {loss:.4f} | "
            f"Micro-batches 1 | Tokens 4096"
        )
    return out


def trainer_lines() -> list[str]:
    out = [
        "20:35:30    INFO Starting SFT trainer in world_size=1",
        "20:35:31    INFO Initializing model (name='PrimeIntellect/Qwen3-0.6B-Reverse-Text-SFT')",
        "20:35:38    INFO Setting up constant scheduler with 40 steps (ConstantSchedulerConfig())",
        "Generating train split: 40%|████      | 400/1000 [00:00<00:00, 23213.48 examples/s]",
        "Generating train split: 100%|██████████| 1000/1000 [00:00<00:00, 23213.48 examples/s]",
    ]
    for i in range(1, 13):
        loss = 1.2 * math.exp(-i / 20) + 0.03 * math.sin(i)
        out.append(
            f"\x1b[2m20:35:{38 + i:02d}\x1b[0m \x1b[32mSUCCESS\x1b[0m Step {i} |    2.4s | Loss {loss:.4f} | Grad. "
            f"Norm {12 / i:.4f} | "
            f"LR 2.00e-05 | Throughput {6704 if i > 1 else 0} tokens/s | MFU 2.9% | Peak Mem. 10.7/139.8 GiB (7.7%)"
        )
        if i == 10:
            out.append("20:35:48    INFO Saving checkpoint at step 10")
            out.append("20:35:48    INFO Broadcasting weights at step 10")
    out.append("20:35:51 WARNING Local loss is nan, excluding this micro step from backward")
    return out


def failure_lines() -> list[str]:
    return [
        "20:36:02   ERROR Trainer failed with exit code 1",
        "Traceback (most recent call last):",
        '  File "prime_rl/trainer/sft/train.py", line 607, in train',
        "RuntimeError: env server 'reverse-text' went away \x1b]0;not-a-title\x07",
        "20:36:03    INFO Writing final checkpoint",
    ]


def metric_rows() -> list[dict]:
    rows = []
    for i in range(1, 121):
        loss = 1.15 * math.exp(-i / 45) + 0.06 * math.sin(i / 2.0) + 0.35
        rows.append(
            {
                "step": i,
                "time": 1_790_000_000 + 4 * i,
                "loss/mean": loss,
                "loss/perplexity": math.exp(loss),
                "optim/grad_norm": 14 / (1 + i / 8) + 0.4 * math.cos(i),
                "perf/throughput": 6000 + 700 * math.sin(i / 9),
            }
        )
    rows[70]["loss/mean"] = float("nan")
    for s in (0, 20, 40, 60, 80, 100, 120):
        rows.append(
            {
                "step": s,
                "eval/reverse-text/reward/mean": 0.18 + 0.5 * (1 - math.exp(-s / 50)),
                "eval/reverse-text/count": 32,
            }
        )
    return rows


class MonitorHost(App):
    """One scene on the product's dark theme."""

    CSS = "Screen { layout: vertical; } .half { height: 1fr; } ComponentsPane { height: 8; }"

    def __init__(self, scene: str) -> None:
        super().__init__()
        self.scene = scene

    def compose(self) -> ComposeResult:
        if self.scene.startswith("pods"):
            run = POD_FAILED_RUN if self.scene == "pods-failed" else POD_RUN
            with Vertical(classes="half"):
                yield LogsPane(None, run, follow=False)
            yield ComponentsPane(None, run, follow=False)
        elif self.scene.startswith("logs"):
            yield LogsPane(None, EVAL_RUN, follow=False)
        elif self.scene == "charts":
            yield ChartsPane(
                None, EVAL_RUN, follow=False, keys=["loss/mean", "loss/perplexity", "optim/grad_norm"], auto_eval=False
            )
        elif self.scene == "evals":
            with Vertical(classes="half"):
                yield LogsPane(None, EVAL_RUN, follow=False)
            with Vertical(classes="half"):
                yield ChartsPane(None, EVAL_RUN, follow=False)
            yield ComponentsPane(None, EVAL_RUN, follow=False)

    def on_mount(self) -> None:
        themes, _ = load_themes(shipped_theme_dir())
        for theme in themes:
            self.register_theme(theme)
        if "primetui-dark" in self.available_themes:
            self.theme = "primetui-dark"


async def prepare(pilot, scene: str) -> None:
    """Feed the scene's data and press its keys."""
    app = pilot.app
    if scene.startswith("pods"):
        pane = app.query_one(LogsPane)
        for node in range(8):
            pane.ingest(f"trainer-{node}", pod_lines(node, fail_at=2 if scene == "pods-failed" else None))
        tabs = pane.query_one("TabbedContent")
        tabs.active = "log-trainer-2" if scene == "pods-failed" else "log-all"
        await pilot.pause()
    if scene.startswith("logs") or scene == "evals":
        pane = app.query_one(LogsPane)
        pane.ingest("trainer", trainer_lines())
        pane.ingest_gap(
            "trainer", "Some lines are missing here: more arrived between two fetches than one fetch returns."
        )
        pane.ingest("trainer", failure_lines())
        pane.ingest("orchestrator", ["20:35:48    INFO Eval reverse-text | Step 10 | Reward 0.4213 | 32 samples"])
        pane.ingest("inference", ["20:35:48    INFO Loaded weights from broadcast step 10"])
        pane.ingest("env-reverse-text", ["20:35:49    INFO Scored 32 rollouts (mean reward 0.4213)"])
        view = pane.tabs["trainer"].view
        view.focus()
        await pilot.pause()
        if scene == "logs-search":
            view.set_search("loss")
            view.action_follow()
            view.action_first_error()
        elif scene == "logs-filter":
            view.set_filter("", 5)  # ≥ WARNING
        elif scene == "logs-merged":
            pane.query_one("TabbedContent").active = "log-all"
    if scene == "evals":
        app.query_one(ComponentsPane).set_env_servers(
            [
                EnvServer(
                    env_name="reverse-text",
                    env_index=0,
                    pod_name="kqeggj5dl7k85bc0mk1i4y5i-env-reverse-text-0",
                    status="FAILED",
                )
            ]
        )
    if scene in ("charts", "evals"):
        charts = app.query_one(ChartsPane)
        charts.add_metrics(metric_rows())
        charts.focus()
        await pilot.pause()
        await pilot.press("s", "s")  # EMA 0.8
        charts.view.cursor = 90.0
        charts._refresh_all()
        charts.update_status()
    await quiet(pilot)  # every key applied and the screen repainted


SCENES = {
    "logs-search": (120, 34),
    "logs-filter": (120, 24),
    "logs-merged": (120, 24),
    "charts": (160, 42),
    "evals": (160, 56),
    "pods": (140, 30),
    "pods-failed": (140, 30),
}


async def export(dest: Path) -> None:
    dest.mkdir(parents=True, exist_ok=True)
    for scene, size in SCENES.items():
        app = MonitorHost(scene)
        async with app.run_test(size=size) as pilot:
            await prepare(pilot, scene)
            app.save_screenshot(f"monitor-{scene}.svg", path=str(dest))


if __name__ == "__main__":
    asyncio.run(export(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/img")))
