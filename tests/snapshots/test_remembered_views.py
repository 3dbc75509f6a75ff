"""Chart choices are remembered per project: reopen a run (or compare) and they are as you left them."""

from __future__ import annotations

import json

from sweep_data import IDS
from test_screens import COMPLETED, make_app, settle
from test_sweep_compare_snapshot import SweepCompare

from primetui.ui.monitor.charts_pane import ChartsPane
from tests.waiting import quiet


async def _charts(app, pilot) -> ChartsPane:
    app.open_run(COMPLETED)
    await settle(
        pilot, lambda: type(app.screen).__name__ == "RunScreen" and app.screen.query(ChartsPane), "the run's charts tab"
    )
    return [p for p in app.screen.query(ChartsPane) if not p.eval_only][0]


async def test_charts_and_compare_choices_come_back(tmp_path):
    prefs_file = tmp_path / "prefs.toml"
    app = make_app(prefs_file=prefs_file)
    async with app.run_test(size=(160, 48)) as pilot:
        pane = await _charts(app, pilot)
        assert not pane.view.log_y and pane.view.smoothing == 0
        pane.action_toggle_log()
        pane.action_smooth_more()
        pane.action_toggle_x()
        pane.chosen = ["loss/mean", "optim/grad_norm"]
        pane._remember()
        smoothing = pane.view.smoothing
        await app.push_screen(SweepCompare(IDS))
        await settle(pilot, lambda: bool(app.screen.charts), "the compare charts")
        await pilot.press("y")
        await pilot.press("m")
        metric = app.screen.metric
        await quiet(pilot)
        assert metric != "loss/mean"
    saved = json.loads((tmp_path / "views.json").read_text())
    (project,) = saved
    assert saved[project]["charts"]["log_y"] is True and saved[project]["compare"]["metric"] == metric

    again = make_app(prefs_file=prefs_file)
    async with again.run_test(size=(160, 48)) as pilot:
        pane = await _charts(again, pilot)
        assert pane.view.log_y and pane.view.smoothing == smoothing and pane.view.x_mode == "time"
        assert pane.chosen == ["loss/mean", "optim/grad_norm"]
        await again.push_screen(SweepCompare(IDS))
        await settle(pilot, lambda: bool(again.screen.charts), "the compare charts, reopened")
        assert again.screen.view.log_y and again.screen.metric == metric


async def test_without_a_preferences_file_nothing_is_written(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    app = make_app()
    async with app.run_test(size=(160, 48)) as pilot:
        pane = await _charts(app, pilot)
        pane.action_toggle_log()
    assert not list(tmp_path.rglob("views.json"))
