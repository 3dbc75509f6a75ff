"""SVG snapshot of the editor's find / replace bar (regex on, a match selected) at 80x24."""

from __future__ import annotations

import pytest

from test_editor_snapshots import ERRORS, SnapHost, _at

from tests.waiting import quiet


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
        bar.regex = True
        bar.query_one("#find-text").value = r"\w+_size"
        bar.query_one("#find-replace").value = "size"
        for field in ("#find-text", "#find-replace"):
            bar.query_one(field).cursor_blink = False  # a blinking cursor would make the snapshot depend on timing
        await pilot.press("f3")
        await quiet(pilot)  # the key handled (the next match selected) and painted

    assert snap_compare(SnapHost(ERRORS, in_tmp), terminal_size=(80, 24), run_before=run_before)
