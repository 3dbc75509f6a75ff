"""The Logs tab under its memory budget: the status line says what is held, scrolling to the top
and searching page the older lines back in (the budget comes from ``log_memory_lines``)."""

from __future__ import annotations

from primetui.config.prefs import Prefs
from primetui.ui.monitor import LogsPane
from tests.ui.monitor_helpers import PaneApp, screen_text
from tests.runs import wire_run
from tests.waiting import input_applied, until

RUN = wire_run(id="run-budget", status="RUNNING", runConfig={})
LINES = 20_000


def _lines(start: int, n: int) -> list[str]:
    return [f"10:{i // 60 % 60:02d}:{i % 60:02d}    INFO line {i:06d}" for i in range(start, start + n)]


async def test_a_long_log_holds_its_budget_shows_it_and_still_reads_and_searches_back_to_line_one():
    app = PaneApp(lambda: LogsPane(None, RUN, follow=False))
    app.prefs = Prefs(log_memory_lines=1_000)  # the pane reads the budget from the app's preferences
    async with app.run_test(size=(140, 30)) as pilot:
        pane = app.query_one(LogsPane)
        for start in range(0, LINES, 500):  # polls of 500 lines, as a follower delivers them
            pane.ingest("trainer", _lines(start, 500))
        store = pane.stores["trainer"]
        assert store.held < 2_500 and len(store) == LINES
        await until(
            pilot,
            lambda: all(text in screen_text(app) for text in ("holding", "of 20k lines", "MiB")),
            "the status line saying what is held",
        )
        view = pane.tabs["trainer"].view
        view.focus()
        await pilot.press("home")
        await until(pilot, lambda: "line 000000" in screen_text(app), "the first line, paged back in")
        await pilot.press("slash")
        app.query_one("LogTab Input.-open").value = "line 000042"
        await pilot.press("enter")
        await input_applied(pilot)
        await until(
            pilot,
            lambda: "search 'line 000042' 1/1" in screen_text(app) and "holding" in screen_text(app),
            "the search finding a spilled line",
        )
        assert store.held < 2_500  # a search reads the spilled lines without keeping them
