"""The log view draws only what changed: new lines render once, and scrolled back they repaint nothing."""

from __future__ import annotations

from tests.runs import wire_run
from primetui.ui.monitor import LogsPane
from primetui.ui.monitor.logview import LogView
from tests.ui.monitor_helpers import PaneApp, screen_text
from tests.waiting import quiet, until

RUN = wire_run(id="run-plain", status="RUNNING", runConfig={})
LINES = [f"20:35:{i % 60:02d}    INFO row {i:04d} loss 0.5 step {i}" for i in range(100)]


def counting(view: LogView) -> dict[str, int]:
    """Count the lines the view renders from text, and the repaints new data asks for."""
    counts = {"lines": 0, "refresh": 0}
    line_text, refresh, data_changed = view._line_text, view.refresh, view.data_changed
    inside = [False]

    def counted_line_text(g: int):  # type: ignore[no-untyped-def]
        counts["lines"] += 1
        return line_text(g)

    def counted_refresh(*args, **kwargs):  # type: ignore[no-untyped-def]
        counts["refresh"] += inside[0]
        return refresh(*args, **kwargs)

    def counted_data_changed() -> None:
        inside[0] = True
        try:
            data_changed()
        finally:
            inside[0] = False

    view._line_text = counted_line_text  # type: ignore[method-assign]
    view.refresh = counted_refresh  # type: ignore[method-assign]
    view.data_changed = counted_data_changed  # type: ignore[method-assign]
    return counts


async def test_following_renders_only_the_new_lines():
    app = PaneApp(lambda: LogsPane(None, RUN, follow=False))
    async with app.run_test(size=(100, 20)) as pilot:
        pane = app.query_one(LogsPane)
        view = pane.tabs["trainer"].view
        pane.ingest("trainer", LINES)
        await until(pilot, lambda: "row 0099" in screen_text(app), timeout=20, what="the tail drawn")
        counts = counting(view)
        pane.ingest("trainer", ["20:40:00    INFO one new line", "20:40:01    INFO and another"])
        await until(pilot, lambda: "and another" in screen_text(app), timeout=20, what="the new lines drawn")
        assert view.following
        assert counts["lines"] == 2  # the rows that moved up are reused, not rendered again


async def test_scrolled_back_new_lines_change_only_the_count():
    app = PaneApp(lambda: LogsPane(None, RUN, follow=False))
    async with app.run_test(size=(100, 20)) as pilot:
        pane = app.query_one(LogsPane)
        view = pane.tabs["trainer"].view
        view.focus()
        pane.ingest("trainer", LINES)
        await until(pilot, lambda: "row 0099" in screen_text(app), timeout=20, what="the tail drawn")
        await pilot.press("up", "pageup", "pageup")
        await until(pilot, lambda: not view.following, timeout=20, what="scrolled back")
        shown = screen_text(app)
        counts = counting(view)
        pane.ingest("trainer", ["20:40:00    INFO one new line"])
        await until(pilot, lambda: "↓ 1 new line" in screen_text(app), timeout=20, what="the count of new lines")
        assert counts["refresh"] == 0  # new data asked for no repaint of the log rows
        changed = [(a, b) for a, b in zip(shown.splitlines(), screen_text(app).splitlines()) if a != b]
        status = [b for _, b in changed if "1 new line" in b]
        rows = [(a, b) for a, b in changed if "1 new line" not in b]
        assert len(status) == 1
        assert all(a.rstrip(" ▁▂▃▄▅▆▇█") == b.rstrip(" ▁▂▃▄▅▆▇█") for a, b in rows), rows  # at most the scrollbar moved
        await pilot.press("end")
        await until(pilot, lambda: "one new line" in screen_text(app), timeout=20, what="end shows the new line")
        assert view.following


def counting_layouts(app) -> list[bool]:  # type: ignore[no-untyped-def]
    """Every layout pass of the screen from now on (each reflows every widget on it)."""
    calls: list[bool] = []
    real = app.screen._refresh_layout

    def counted(size=None, scroll=False):  # type: ignore[no-untyped-def]
        calls.append(scroll)
        return real(size, scroll)

    app.screen._refresh_layout = counted
    return calls


async def test_following_new_lines_lay_nothing_out():
    # Issue 30: setting the view's virtual size laid the whole screen out again on every batch.
    app = PaneApp(lambda: LogsPane(None, RUN, follow=False))
    async with app.run_test(size=(100, 20)) as pilot:
        pane = app.query_one(LogsPane)
        view = pane.tabs["trainer"].view
        pane.ingest("trainer", LINES)
        await until(pilot, lambda: "row 0099" in screen_text(app), timeout=20, what="the tail drawn")
        await quiet(pilot)  # every queued message handled, the repaint they asked for done
        layouts = counting_layouts(app)
        counts = counting(view)
        for i in range(5):
            pane.ingest("trainer", [f"20:40:0{i}    INFO batch {i}"])
            await until(pilot, lambda i=i: f"batch {i}" in screen_text(app), timeout=20, what=f"batch {i} drawn")
        await quiet(pilot)  # every queued message handled, the repaint they asked for done
        assert view.following and view.virtual_size.height == len(LINES) + 5
        assert layouts == []  # not one layout pass for five batches
        assert counts["refresh"] <= 10  # the new data and the scroll to the end ask; Textual paints the view once
        assert counts["lines"] == 5


async def test_a_log_tab_not_shown_does_no_drawing_and_catches_up_when_shown():
    app = PaneApp(lambda: LogsPane(None, RUN, follow=False))
    async with app.run_test(size=(100, 20)) as pilot:
        pane = app.query_one(LogsPane)
        merged = pane.tabs["all"].view  # the "all" tab: not the one shown
        pane.ingest("trainer", LINES[:50])
        await until(pilot, lambda: "row 0049" in screen_text(app), timeout=20, what="the trainer tab drawn")
        await quiet(pilot)  # every queued message handled, the repaint they asked for done
        layouts = counting_layouts(app)
        counts = counting(merged)
        for i in range(3):
            pane.ingest("trainer", LINES[50 + 10 * i : 60 + 10 * i])
            await until(
                pilot, lambda i=i: f"row {59 + 10 * i:04d}" in screen_text(app), timeout=20, what="the batch drawn"
            )
        await quiet(pilot)  # every queued message handled, the repaint they asked for done
        assert counts == {"lines": 0, "refresh": 0}  # the hidden view rendered and asked for nothing
        assert layouts == []
        pane.query_one("TabbedContent").active = "log-all"
        await until(pilot, lambda: "row 0079" in screen_text(app), timeout=20, what="the all tab shows every line")
        await until(
            pilot,
            lambda: merged.virtual_size.height == 80 and "80 lines" in screen_text(app),
            timeout=20,
            what="its scroll range and its status line counting them",
        )
        assert merged.following
