"""Deterministic scenes of the RL tabs (Rollouts, Distributions): the SVG snapshot tests and the docs' pictures.

The data is a recording of a real finished reverse-text RL run on the local platform
(``rl_data.json``: R11 rows of steps 10 and 20, three groups each, without the trajectory and timing
columns; R13 replies of every step), replayed through the same wire boundary as the client's.

    uv run python -m tests.snapshots.rl_scenes docs/img             # rewrites docs/img/rl-*.svg
    uv run python -m tests.snapshots.rl_scenes --record URL KEY RUN  # records rl_data.json again
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from textual.app import App, ComposeResult

from primetui.api.rl import distribution_of, sample_rows
from primetui.ui.monitor.distributions_pane import DistributionsPane
from primetui.ui.monitor.rollouts_pane import RolloutsPane
from primetui.ui.themes import load_themes, shipped_theme_dir
from tests.waiting import quiet

DATA = Path(__file__).resolve().parent / "rl_data.json"
RUN = {"id": "cds0tohnjaulzvbew6311kkw", "status": "COMPLETED"}


class RLHost(App):
    """One RL tab on the product's dark theme."""

    def __init__(self, scene: str) -> None:
        super().__init__()
        self.scene = scene

    def compose(self) -> ComposeResult:
        if self.scene.startswith("rollouts"):
            yield RolloutsPane(None, RUN, follow=False)
        else:
            yield DistributionsPane(None, RUN, follow=False)

    def on_mount(self) -> None:
        themes, _ = load_themes(shipped_theme_dir())
        for theme in themes:
            self.register_theme(theme)
        if "primetui-dark" in self.available_themes:
            self.theme = "primetui-dark"


async def prepare(pilot, scene: str) -> None:
    """Feed the recorded replies and press the scene's keys."""
    app, data = pilot.app, json.loads(DATA.read_text(encoding="utf-8"))
    if scene.startswith("rollouts"):
        pane = app.query_one(RolloutsPane)
        pane.set_steps([10, 20])
        for step in (10, 20):
            rows, _ = sample_rows(data["samples"][str(step)], step)
            pane.add_page(step, rows, len(rows), True)
        pane.focus()
        await pilot.pause()
        await pilot.press("tab")
        if scene == "rollouts-diff":
            await pilot.press("down", "v")
        if scene == "rollouts-compare":  # step 20's best problem, and the same problem at step 10
            await pilot.press("c")
    else:
        pane = app.query_one(DistributionsPane)
        for kind in ("rewards", "advantages"):
            pane.add_distributions(
                kind, [distribution_of(reply, kind, int(step)) for step, reply in data[kind].items()]
            )
        pane.focus()
        await pilot.pause()
        await pilot.press("left", "left", "left", "left", "left", "o", "end")
    await quiet(pilot)


SCENES = {"rollouts": (160, 48), "rollouts-diff": (160, 48), "rollouts-compare": (160, 48), "distributions": (160, 48)}


async def export(dest: Path) -> None:
    dest.mkdir(parents=True, exist_ok=True)
    shots = [(f"rl-{scene}", scene, size) for scene, size in SCENES.items()]
    shots += [("rl-rollouts-80x24", "rollouts", (80, 24)), ("rl-distributions-80x24", "distributions", (80, 24))]
    for name, scene, size in shots:
        app = RLHost(scene)
        async with app.run_test(size=size) as pilot:
            await prepare(pilot, scene)
            app.save_screenshot(f"{name}.svg", path=str(dest))


def record(base_url: str, key: str, run_id: str) -> None:
    """Read a finished reverse-text run's steps 10 and 20 (three groups each) and every histogram."""
    import httpx

    out: dict = {"samples": {}, "rewards": {}, "advantages": {}}
    with httpx.Client(base_url=base_url + "/api/v1", headers={"Authorization": f"Bearer {key}"}) as c:
        for step in (10, 20):
            rows = c.get(f"/rft/runs/{run_id}/samples", params={"step": step, "page": 1, "limit": 48}).json()["samples"]
            out["samples"][str(step)] = [_trimmed(r) for r in rows]
        steps = c.get(f"/rft/runs/{run_id}/progress").json()["stepsWithDistributions"]
        for kind in ("rewards", "advantages"):
            for step in steps:
                reply = c.get(f"/rft/runs/{run_id}/distributions", params={"type": kind, "step": step}).json()
                for item in reply["chartData"]["histogramData"]:  # the edges and the count are what is read
                    item.pop("range", None), item.pop("type", None)
                out[kind][str(step)] = reply
    DATA.write_text(json.dumps(out, ensure_ascii=False, separators=(",", ":")) + "\n", encoding="utf-8")


def _trimmed(row: dict) -> dict:
    """A row without what the tabs never read (the trajectory, timings, the system prompt, the episode's copies of the
    task)."""
    out = {k: v for k, v in row.items() if k not in ("trajectory", "timing")}
    out["completion"] = [m for m in row["completion"] if m.get("role") != "system"]
    out["task"] = {k: v for k, v in row["task"].items() if k != "system_prompt"}
    info = row.get("info") or {}
    wrapper = info.get("native_wrapper") or {}
    traces = [{k: t.get(k) for k in ("rewards", "stop_condition", "is_truncated")} for t in wrapper.get("traces") or []]
    out["info"] = {
        "native_trace_index": info.get("native_trace_index", 0),
        "native_wrapper": {"env": wrapper.get("env"), "traces": traces},
    }
    return out


if __name__ == "__main__":
    if sys.argv[1:2] == ["--record"]:
        record(*sys.argv[2:5])
    else:
        asyncio.run(export(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/img")))
