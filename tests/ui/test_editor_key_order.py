"""Keys that arrive in one burst are applied in the order typed (issue 43 findings 2 and 3).

The keys are posted to the app in one go, as the driver posts the keys of one read of the
terminal, with nothing awaited between them (Pilot's ``press`` waits after each key, which hides
the bug). Before the carried fix of Textual #6605 a typed character ran before the bound keys in
front of it. The real-terminal versions are in tests/e2e/test_editor_keys_tmux.py.
"""

from __future__ import annotations

import pytest
from editor_helpers import host, settle
from textual import events
from textual.widgets import Input
from textual.widgets.text_area import Selection

from primetui.ui.editor.keyorder import hand_on
from primetui.ui.editor.modals import GoToLinePrompt
from tests.waiting import until

TEXT = "max_steps = 10\n[optim]\nlr = 1e-5\nweight_decay = 0.01\n[ckpt]\n"


def burst(app, *keys: str) -> None:
    """Post keys as one read of the terminal delivers them: all at once."""
    for key in keys:
        character = {"enter": "\r", "backspace": "\x7f"}.get(key, key if len(key) == 1 else None)
        if key.startswith("alt+") and len(key) == 5:
            character = key[-1]  # a terminal's alt+r is ESC r: Textual gives it the character r
        app.post_message(events.Key(key, character))


async def test_end_backspace_and_a_digit_in_one_burst(tmp_path):
    app = host(tmp_path, TEXT)
    async with app.run_test(size=(100, 30)) as pilot:
        ed = await settle(pilot)
        burst(app, "end", "backspace", "4")
        await until(pilot, lambda: ed.area.document.get_line(0) != "max_steps = 10", "the burst to be applied")
        await settle(pilot)
        assert ed.area.document.get_line(0) == "max_steps = 14"


async def test_end_enter_on_a_two_line_selection_keeps_the_lines(tmp_path):
    app = host(tmp_path, TEXT)
    async with app.run_test(size=(100, 30)) as pilot:
        ed = await settle(pilot)
        ed.area.selection = Selection((0, 0), (1, 3))
        burst(app, "end", "enter")
        await until(pilot, lambda: ed.area.document.line_count != TEXT.count("\n") + 1, "the burst to be applied")
        await settle(pilot)
        assert ed.text.startswith("max_steps = 10\n[optim]\n\n")  # end dropped the selection, enter split


async def test_go_to_line_typed_ahead_in_one_burst(tmp_path):
    app = host(tmp_path, TEXT)
    async with app.run_test(size=(100, 30)) as pilot:
        ed = await settle(pilot)
        burst(app, "ctrl+g", "4", "enter")
        await until(pilot, lambda: ed.area.cursor_location == (3, 0), "the jump to line 4")
        assert ed.text == TEXT and not isinstance(app.screen, GoToLinePrompt)


async def test_keys_typed_after_the_go_to_line_dialog_closes_go_to_the_file(tmp_path):
    """Issue 43 finding 2: `ctrl+g 1 enter end backspace 4` in one read. Enter closes the dialog; the keys
    behind it had been queued to the closing dialog and were lost (line 1 stayed `max_steps = 10`)."""
    app = host(tmp_path, TEXT)
    async with app.run_test(size=(100, 30)) as pilot:
        ed = await settle(pilot)
        ed.area.move_cursor((3, 2))
        burst(app, "ctrl+g", "1", "enter", "end", "backspace", "4")
        await until(pilot, lambda: ed.area.document.get_line(0) == "max_steps = 14", "line 1 edited as typed")
        await settle(pilot)
        assert ed.text == TEXT.replace("max_steps = 10", "max_steps = 14", 1)
        assert ed.area.cursor_location == (0, len("max_steps = 14"))
        assert not isinstance(app.screen, GoToLinePrompt) and app.focused is ed.area


async def test_go_to_line_typed_ahead_while_nothing_has_focus(tmp_path):
    """Issue 43 finding 2 through tmux: a burst that reaches the editor screen itself (as in the moment
    after it opens, before its text area has focus) lost the keys behind ctrl+g. Its binding ran only
    when the key had bubbled to the app, after the screen had already passed on `4` and enter."""
    app = host(tmp_path, TEXT)
    async with app.run_test(size=(100, 30)) as pilot:
        ed = await settle(pilot)
        ed.set_focus(None)
        await until(pilot, lambda: app.focused is None, "nothing focused")
        burst(app, "ctrl+g", "4", "enter")
        await until(pilot, lambda: ed.area.cursor_location == (3, 0), "the jump to line 4")
        assert ed.text == TEXT and not isinstance(app.screen, GoToLinePrompt)


@pytest.mark.parametrize("route", ["from the terminal", "handed on by the editor"])
async def test_go_to_line_keys_routed_while_the_dialog_takes_focus_keep_their_order(tmp_path, route):
    """Full CI runs: ``ctrl+g 4 enter`` in one read answered "`` is not a line number". The terminal's
    keys reach the App one by one (the driver's thread posts each), and the editor hands on keys queued
    behind ctrl+g, so ``4`` could be routed while the dialog's field had no focus yet and ``enter`` once
    it had. The dialog then saw a focused field and left ``4`` alone. Both now go to the dialog, which
    feeds its field in order (Pilot's burst queues every key at once: the interleaving is made here)."""
    app = host(tmp_path, TEXT)
    async with app.run_test(size=(100, 30)) as pilot:
        ed = await settle(pilot)
        await pilot.press("ctrl+g")
        await until(pilot, lambda: isinstance(app.focused, Input), "the dialog's field focused")
        dialog, field = app.screen, app.focused

        async def route_key(key: events.Key) -> None:
            if route == "from the terminal":
                await app.on_event(key)  # as the App routes a key from the terminal
            else:
                hand_on(ed.area, key)  # a key queued at the editor behind ctrl+g

        dialog.set_focus(None)
        await route_key(events.Key("4", "4"))  # no focus yet
        dialog.set_focus(field)
        await route_key(events.Key("enter", "\r"))  # the field has focus by now
        await until(pilot, lambda: ed.area.cursor_location == (3, 0), "the jump to line 4")
        assert ed.text == TEXT and not isinstance(app.screen, GoToLinePrompt)


async def test_find_bar_toggles_from_a_terminal_do_not_type_their_letter(tmp_path):
    app = host(tmp_path, TEXT)
    async with app.run_test(size=(100, 30)) as pilot:
        ed = await settle(pilot)
        burst(app, "ctrl+h", "l", "r", "alt+r", "alt+c")
        bar = ed.findbar
        await until(pilot, lambda: bar.regex and bar.case, "regex and case on")
        assert bar.pattern == "lr"
        bar.query_one("#find-replace").value = "LR"
        bar.query_one("#find-replace").focus()
        burst(app, "alt+a")
        await until(pilot, lambda: "LR = 1e-5" in ed.text, "replace all")
        assert bar.query_one("#find-replace").value == "LR"
