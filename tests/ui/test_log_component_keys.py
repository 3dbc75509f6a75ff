"""Switching a run's log components from the keyboard (issue 41, finding 11): it took shift+tab to the tab
strip, which nothing said. ``>`` and ``<`` move between the components' logs from inside a log, and F1 lists
them under the Logs tab."""

from __future__ import annotations

from textual.widgets import TabbedContent

from primetui.ui.monitor import LogsPane
from primetui.ui.screens.help import HelpScreen
from tests.ui.monitor_helpers import PaneApp
from tests.runs import wire_run
from tests.waiting import until

EVAL_RUN = wire_run(id="run-eval", status="RUNNING", runConfig={"eval": {"source": [{"name": "reverse-text"}]}})


async def test_greater_and_less_than_switch_components_from_inside_a_log():
    app = PaneApp(lambda: LogsPane(None, EVAL_RUN, follow=False))
    async with app.run_test(size=(120, 30)) as pilot:
        pane = app.query_one(LogsPane)
        tabs = pane.query_one(TabbedContent)
        pane.tabs["trainer"].view.focus()
        await until(pilot, lambda: pane.tabs["trainer"].view.has_focus, "the trainer's log has the keys")
        sections = HelpScreen(app.screen).focused_sections()
        assert ("Logs tab", LogsPane) in sections
        await pilot.press("greater_than_sign")
        await until(
            pilot,
            lambda: tabs.active == "log-orchestrator" and pane.tabs["orchestrator"].view.has_focus,
            "the orchestrator's log, taking the keys",
        )
        await pilot.press("less_than_sign", "less_than_sign")
        await until(
            pilot,
            lambda: tabs.active == "log-all" and pane.tabs["all"].view.has_focus,
            "back past the first component to the merged log",
        )
