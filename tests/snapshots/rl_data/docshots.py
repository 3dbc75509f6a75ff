"""The RL screenshots of docs/dashboard.md and docs/run-monitor.md, made from the app (its own SVG export).

    uv run python tests/snapshots/rl_data/docshots.py        # rewrite docs/img/rl-*.svg

From the reply set recorded off real reverse-text RL runs (tests/snapshots/rl_data/replies.json) and
its fixed clock; tests/snapshots/test_docshots.py fails when a picture differs from what the app draws.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from rl_data import replay  # noqa: E402
from screens_data.docshots import OUT, Shot, render  # noqa: E402
from textual.widgets import TabbedContent  # noqa: E402

from primetui.config.prefs import Prefs  # noqa: E402
from primetui.ui.app import PrimeApp  # noqa: E402
from primetui.ui.monitor import RLChartsPane  # noqa: E402
from primetui.ui.themes import shipped_theme_dir  # noqa: E402
from tests.waiting import until  # noqa: E402


def make_app(**kw: Any) -> PrimeApp:
    data = replay.load()
    return PrimeApp(
        replay.client(data),
        None,
        Prefs(theme="primetui-dark"),
        clock=replay.fixed_clock(data),
        platform_label="local platform 127.0.0.1:8765",
        poll_scale=0,
        theme_dirs=[shipped_theme_dir()],
        **kw,
    )


def _run_read(app: PrimeApp) -> bool:
    panes = app.screen.query(RLChartsPane)
    pane = panes.first() if panes else None
    return bool(
        getattr(app.screen, "terminal_polls", 0) >= 1
        and pane is not None
        and pane.logs.last_step_line is not None
        and "log-entropy" in pane.charts
        and (app.screen.run_id != replay.HOT or app.screen.links.anomalies)
    )


async def _charts_tab(app: PrimeApp, pilot: Any) -> None:
    app.screen.query_one(TabbedContent).active = "tab-charts"
    pane = app.screen.query_one(RLChartsPane)
    await until(pilot, lambda: pane.charts["reward"].content_size.width > 0, "the charts laid out")


SHOTS = [
    Shot(
        "rl-runs",
        make_app,
        lambda a: a.state.runs_loaded and len(a.state.progress) >= 2,
        "the RL runs and their rewards",
    ),
    Shot("rl-run", lambda: make_app(run_id=replay.HOT), _run_read, "the RL run, its logs and its flag"),
    Shot("rl-charts", lambda: make_app(run_id=replay.HEALTHY), _run_read, "the RL run and its logs", _charts_tab),
]


async def main() -> None:
    for shot in SHOTS:
        path = OUT / f"{shot.name}.svg"
        path.write_text(await render(shot), encoding="utf-8")
        print("wrote", path)


if __name__ == "__main__":
    asyncio.run(main())
