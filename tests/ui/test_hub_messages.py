"""Hub events reach a screen as Textual messages: an exception in the screen's handler reaches the
crash guard (a report file, a non-zero exit), where before the hub swallowed it and the screen
stayed stale with nothing said (issue 38, deliverable 1)."""

from __future__ import annotations

import pytest
from dash_helpers import make_app

from primetui.config import crash
from primetui.ui.crashguard import exit_code
from primetui.ui.screens.runs import RunsScreen
from tests.waiting import until

pytestmark = pytest.mark.timeout(120)


async def test_a_screen_whose_hub_handler_raises_writes_a_crash_report(local_platform, tmp_path, monkeypatch):
    monkeypatch.setenv("PRIMETUI_CRASH_DIR", str(tmp_path))

    def on_runs_page(self, result):  # a bug in the runs list's handler of the shared runs page
        raise KeyError("a field the page does not have")

    monkeypatch.setattr(RunsScreen, "on_runs_page", on_runs_page)
    app = make_app(local_platform)
    with pytest.raises(KeyError):
        async with app.run_test(size=(120, 30)) as pilot:
            await until(pilot, lambda: app.crash_report is not None, "the crash report")
    assert app.crash_report and app.crash_report.parent == tmp_path
    text = app.crash_report.read_text()
    assert "in on_runs_page" in text and "KeyError: 'a field the page does not have'" in text
    assert exit_code(app) == crash.EXIT_CRASH
