"""SVG snapshot of the editor's find / replace bar (regex on, a match selected) at 80x24."""

from __future__ import annotations

import pytest
from textual.widgets import Static

from test_editor_snapshots import ERRORS, SnapHost, _at

from tests.waiting import quiet, until


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_editor_find_replace_bar(snap_compare, in_tmp):
    async def run_before(pilot) -> None:
        await _at(0, 0)(pilot)
        await pilot.press("ctrl+h")
        await quiet(pilot)  # the bar laid out first: the editor's height is final before a match scrolls it
        bar = pilot.app.screen.findbar

        def status() -> str:
            return str(bar.query_one("#find-status", Static).content)

        bar.regex = True
        bar.query_one("#find-text").value = r"\w+_size"
        bar.query_one("#find-replace").value = "size"
        for field in ("#find-text", "#find-replace"):
            bar.query_one(field).cursor_blink = False  # a blinking cursor would make the snapshot depend on timing
        # the typed pattern's own search first (it reaches the editor a hop after the key below would)
        await until(pilot, lambda: "1 of 2" in status(), "the typed pattern's search to select its first match")
        await pilot.press("f3")
        await until(pilot, lambda: "2 of 2" in status(), "F3 to select the second match")
        await quiet(pilot)  # painted

    assert snap_compare(SnapHost(ERRORS, in_tmp), terminal_size=(80, 24), run_before=run_before)
