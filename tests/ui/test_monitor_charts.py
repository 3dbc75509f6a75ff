"""Pilot tests for the chart grid: every key, live appends, reflow, NaN and staleness."""

from __future__ import annotations

import math

from tests.runs import wire_run
from primetui.ui.monitor import ChartsPane
from tests.ui.monitor_helpers import PaneApp, screen_text
from tests.waiting import input_applied, quiet

RUN = wire_run(id="run-charts", status="RUNNING", runConfig={})


def rows(n: int, start: int = 1) -> list[dict]:
    return [
        {
            "step": i,
            "time": 1_700_000_000 + 5 * i,
            "loss/mean": 1.2 * math.exp(-i / 40) + 0.05 * math.sin(i),
            "loss/perplexity": math.exp(1.2 * math.exp(-i / 40)),
            "optim/lr": 2e-5,
            "optim/grad_norm": 10 / (1 + i),
        }
        for i in range(start, start + n)
    ]


def pane_app(**kw) -> PaneApp:
    return PaneApp(lambda: ChartsPane(None, RUN, follow=False, **kw))


async def test_defaults_are_loss_and_perplexity_and_live_points_appear():
    app = pane_app()
    async with app.run_test(size=(130, 30)) as pilot:
        pane = app.query_one(ChartsPane)
        pane.add_metrics(rows(50))
        await quiet(pilot)
        assert list(pane.charts) == ["loss/mean", "loss/perplexity"]
        assert "loss/mean" in screen_text(app) and "@ 50" in screen_text(app)
        pane.add_metrics(rows(10, start=51))
        await quiet(pilot)
        assert "@ 60" in screen_text(app)
        assert "no points yet" not in screen_text(app)


async def test_cursor_reads_the_same_step_in_every_chart():
    app = pane_app()
    async with app.run_test(size=(130, 30)) as pilot:
        pane = app.query_one(ChartsPane)
        pane.add_metrics(rows(100))
        pane.focus()
        await pilot.press("c")
        await input_applied(pilot)
        step = int(pane.view.cursor)
        text = screen_text(app)
        assert text.count(f"@ step {step}:") == 2
        await pilot.press("right", "right")
        await input_applied(pilot)
        assert pane.view.cursor > step
        await pilot.press("shift+left")
        await input_applied(pilot)
        assert f"cursor step {int(pane.view.cursor)}" in screen_text(app)


async def test_smoothing_log_y_wall_time_and_mode_keys():
    app = pane_app()
    async with app.run_test(size=(130, 30)) as pilot:
        pane = app.query_one(ChartsPane)
        pane.add_metrics(rows(100))
        pane.focus()
        await pilot.press("s", "s")
        await input_applied(pilot)
        assert pane.view.smoothing == 0.8 and "smoothing 0.8" in screen_text(app) and "ema " in screen_text(app)
        await pilot.press("S")
        await input_applied(pilot)
        assert pane.view.smoothing == 0.6
        await pilot.press("o")
        await input_applied(pilot)
        assert pane.view.log_y and "log-Y" in screen_text(app)
        await pilot.press("t")
        await input_applied(pilot)
        assert pane.view.x_mode == "time" and "wall time" in screen_text(app)
        await pilot.press("b")
        await input_applied(pilot)
        assert pane.view.mode == "block"
        await pilot.press("b")
        await input_applied(pilot)
        assert pane.view.mode == "ascii" and "•" in screen_text(app)


async def test_zoom_to_a_marked_range_and_back():
    app = pane_app()
    async with app.run_test(size=(130, 30)) as pilot:
        pane = app.query_one(ChartsPane)
        pane.add_metrics(rows(200))
        pane.focus()
        await pilot.press("c")  # cursor in the middle
        await pilot.press("m", *["right"] * 10, "z")
        await input_applied(pilot)
        lo, hi = pane.view.zoom
        assert 90 <= lo < hi <= 200 and hi - lo < 60
        assert "zoom" in screen_text(app)
        axis = screen_text(app)
        assert f"└{int(lo)}" in axis.replace(",", "")
        await pilot.press("0")
        await input_applied(pilot)
        assert pane.view.zoom is None
        await pilot.press("plus")
        await input_applied(pilot)
        assert pane.view.zoom is not None
        await pilot.press("minus", "minus", "minus")
        await input_applied(pilot)
        assert pane.view.zoom is None


async def test_add_any_reported_metric_with_the_picker():
    app = pane_app()
    async with app.run_test(size=(130, 40)) as pilot:
        pane = app.query_one(ChartsPane)
        pane.add_metrics(rows(20))
        pane.focus()
        await pilot.press("a")
        picker = app.screen
        sel = picker.query_one("SelectionList")
        sel.select("optim/grad_norm")
        await pilot.press("enter")
        await quiet(pilot)
        assert list(pane.charts) == ["loss/mean", "loss/perplexity", "optim/grad_norm"]
        assert "optim/grad_norm" in screen_text(app)


async def test_grid_reflows_with_the_terminal_size():
    app = pane_app(keys=["loss/mean", "loss/perplexity", "optim/lr", "optim/grad_norm"])
    async with app.run_test(size=(240, 50)) as pilot:
        pane = app.query_one(ChartsPane)
        pane.add_metrics(rows(30))
        await quiet(pilot)
        assert pane.grid.styles.grid_size_columns == 4
        await pilot.resize_terminal(120, 50)
        await quiet(pilot)
        assert pane.grid.styles.grid_size_columns == 2
        await pilot.resize_terminal(60, 60)
        await quiet(pilot)
        assert pane.grid.styles.grid_size_columns == 1


async def test_nan_and_staleness_are_shown():
    app = pane_app()
    async with app.run_test(size=(130, 30)) as pilot:
        pane = app.query_one(ChartsPane)
        data = rows(30)
        data[10]["loss/mean"] = float("nan")
        data[12]["loss/mean"] = float("inf")
        pane.add_metrics(data)
        pane.view.now = 1_700_000_000 + 5 * 30 + 600  # ten minutes after the last point
        pane.set_live(True)
        await quiet(pilot)
        text = screen_text(app)
        assert "⚠ 2 NaN/Inf" in text and "×" in text
        assert "stale 10m" in text
        pane.set_live(False)  # a finished run is not stale
        await quiet(pilot)
        assert "stale" not in screen_text(app)


async def test_eval_metrics_get_their_own_chart_and_marks_on_the_loss_chart():
    app = pane_app()
    async with app.run_test(size=(130, 40)) as pilot:
        pane = app.query_one(ChartsPane)
        pane.add_metrics(rows(40))
        pane.add_metrics(
            [
                {"step": s, "eval/reverse-text/reward/mean": 0.2 + s / 100, "eval/reverse-text/count": 32}
                for s in (10, 20, 30, 40)
            ]
        )
        await quiet(pilot)
        assert "eval/reverse-text/reward/mean" in pane.charts
        assert "eval/reverse-text/count" not in pane.charts
        loss_rows = pane.charts["loss/mean"].frame_rows()
        assert sum(1 for row in loss_rows[1:-1] for text, key in row if key == "marker" and "┊" in text) > 0
        assert "▲ 4 evals" in screen_text(app)


async def test_the_ansi_theme_uses_the_block_fallback_and_b_overrides_it():
    app = pane_app()
    async with app.run_test(size=(130, 30)) as pilot:
        pane = app.query_one(ChartsPane)
        pane.add_metrics(rows(30))
        assert pane.view.mode == "braille"
        app.theme = "ansi-dark"
        await quiet(pilot)
        assert pane.view.mode == "block" and "block" in screen_text(app)
        assert not any(0x2800 < ord(ch) <= 0x28FF for ch in screen_text(app))  # no braille cells
        pane.focus()
        await pilot.press("b")
        app.theme = "textual-dark"
        await quiet(pilot)
        assert pane.view.mode == "ascii"  # the user's choice sticks across theme changes


async def test_the_picker_filters_as_you_type_and_marks_by_glyph():
    from textual.widgets import Input

    app = pane_app()
    async with app.run_test(size=(130, 40)) as pilot:
        pane = app.query_one(ChartsPane)
        pane.add_metrics(rows(20))
        pane.focus()
        await pilot.press("a")
        picker = app.screen
        await quiet(pilot)
        assert picker.query_one("#picker-filter", Input).has_focus
        await pilot.press("g", "r", "a", "d")
        sel = picker.query_one("SelectionList")
        shown = [str(sel.get_option_at_index(i).value) for i in range(sel.option_count)]
        await quiet(pilot)
        assert shown == ["optim/grad_norm"]
        assert str(sel.get_option_at_index(0).prompt).startswith("· ")  # not shown: a dot
        await pilot.press("down", "space")
        await quiet(pilot)
        assert sel.selected == ["optim/grad_norm"], (sel.selected, picker.selected, app.focused)
        assert str(sel.get_option_at_index(0).prompt).startswith("✓ ")  # chosen: a tick, in any colour
        await pilot.press("enter")
        await quiet(pilot)
        assert list(pane.charts) == ["loss/mean", "loss/perplexity", "optim/grad_norm"]  # hidden ones kept
