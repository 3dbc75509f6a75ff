"""Issue 40: SVG snapshots of an RL run's Overview and Charts at 80x24 and 160x48.

From replies recorded off real reverse-text RL runs on the local platform (tests/snapshots/rl_data):
the healthy run's Charts (reward with its p10–p90 band, per function, length, truncation, solved
none/some/all, off-policy, times, the trainer log's numbers), and the Overview of the run whose lr is
much too large (its entropy-collapse flag at step 3). Update with ``--snapshot-update``.
"""

from __future__ import annotations

import pytest
from rl_data import replay
from textual.widgets import TabbedContent

from primetui.config.prefs import Prefs
from primetui.ui.app import PrimeApp
from primetui.ui.monitor import RLChartsPane
from primetui.ui.themes import shipped_theme_dir
from tests.waiting import quiet, until

SIZES = [(80, 24), (160, 48)]


def make_app(run_id: str) -> PrimeApp:
    data = replay.load()
    return PrimeApp(
        replay.client(data),
        None,
        Prefs(theme="primetui-dark"),
        clock=replay.fixed_clock(data),
        platform_label="local platform 127.0.0.1:8765",
        poll_scale=0,
        theme_dirs=[shipped_theme_dir()],
        run_id=run_id,
    )


def charts(app: PrimeApp) -> RLChartsPane | None:
    found = app.screen.query(RLChartsPane)
    return found.first() if found else None


async def loaded(pilot, app: PrimeApp) -> RLChartsPane:
    """The run, its metrics, its orchestrator's last step line and its trainer log's charts are in."""

    def ready() -> bool:
        pane = charts(app)
        return bool(
            getattr(app.screen, "terminal_polls", 0) >= 1
            and pane is not None
            and pane.logs.last_step_line is not None
            and pane.logs.last_step_line.step == 20
            and "log-entropy" in pane.charts
        )

    await until(pilot, ready, "the RL run, its metrics and its logs")
    return charts(app)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_rl_overview_with_its_entropy_collapse_flag(snap_compare, size):
    app = make_app(replay.HOT)

    async def ready(pilot):
        await loaded(pilot, app)
        await until(pilot, lambda: app.screen.links.anomalies, "the entropy-collapse flag")
        await quiet(pilot, workers=True)

    assert snap_compare(app, terminal_size=size, run_before=ready)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_rl_charts(snap_compare, size):
    app = make_app(replay.HEALTHY)

    async def ready(pilot):
        pane = await loaded(pilot, app)
        app.screen.query_one("#run-tabs", TabbedContent).active = "tab-charts"
        await until(pilot, lambda: pane.charts["reward"].content_size.width > 0, "the charts laid out")
        await quiet(pilot, workers=True)

    assert snap_compare(app, terminal_size=size, run_before=ready)
