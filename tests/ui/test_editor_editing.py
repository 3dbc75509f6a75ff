"""Editing as in any editor: find/replace, go to line, comments, block indent, file ends, completion."""

from __future__ import annotations

from dash_helpers import screen_text
from editor_helpers import host, settle
from textual.widgets.text_area import Selection

from primetui.viewmodel import editing
from tests.waiting import quiet, until

TEXT = "max_steps = 10\n[optim]\nlr = 1e-5\nweight_decay = 0.01\n[ckpt]\n"


def test_comment_toggle_and_block_indent_are_pure_line_edits():
    assert editing.toggle_comment(["a = 1", "  b = 2", ""]) == ["# a = 1", "#   b = 2", ""]
    assert editing.toggle_comment(["# a = 1", "#   b = 2", ""]) == ["a = 1", "  b = 2", ""]
    assert editing.indent(["a", "", "b"]) == ["  a", "", "  b"]
    assert editing.dedent(["  a", "\tb", " c", "d"]) == ["a", "b", "c", "d"]
    ms = editing.find_matches("lr = 1\nLR = 2", r"(l)r", regex=True, case=False, replace=r"\1x")
    assert [(m.start, m.end, m.replacement) for m in ms] == [(0, 2, "lx"), (7, 9, "Lx")]


async def test_tab_on_a_selection_indents_and_shift_tab_dedents(tmp_path):
    app = host(tmp_path, TEXT)
    async with app.run_test(size=(100, 24)) as pilot:
        ed = await settle(pilot)
        ed.area.selection = Selection((2, 0), (4, 0))
        await pilot.press("tab")
        await quiet(pilot)
        assert ed.text == "max_steps = 10\n[optim]\n    lr = 1e-5\n    weight_decay = 0.01\n[ckpt]\n"
        await pilot.press("shift+tab")
        await quiet(pilot)
        assert ed.text == TEXT
        ed.area.selection = Selection((0, 0), (0, 0))
        await pilot.press("tab")
        await quiet(pilot)
        assert ed.text.startswith("    max_steps")  # no selection: tab inserts indentation


async def test_toggle_comment_on_line_and_selection(tmp_path):
    app = host(tmp_path, TEXT)
    async with app.run_test(size=(100, 24)) as pilot:
        ed = await settle(pilot)
        ed.area.cursor_location = (2, 3)
        await pilot.press("ctrl+underscore")
        await quiet(pilot)
        assert ed.text.split("\n")[2] == "# lr = 1e-5"
        ed.area.selection = Selection((2, 0), (3, 4))
        await pilot.press("ctrl+underscore")  # mixed: comments both
        await quiet(pilot)
        assert ed.text.split("\n")[2:4] == ["# # lr = 1e-5", "# weight_decay = 0.01"]
        await pilot.press("ctrl+z", "ctrl+z")
        await quiet(pilot)
        assert ed.text == TEXT


async def test_find_replace_with_regex_and_go_to_line_and_file_ends(tmp_path):
    app = host(tmp_path, TEXT)
    async with app.run_test(size=(100, 30)) as pilot:
        ed = await settle(pilot)
        await pilot.press("ctrl+f", "l", "r")  # typed straight after the key that opens the bar
        bar = ed.findbar
        await quiet(pilot)
        assert bar.pattern == "lr"
        await until(pilot, lambda: ed.area.selected_text == "lr", "the first match selected")
        await pilot.press("escape")
        await quiet(pilot)
        assert not bar.has_class("visible") and ed.area.has_focus and app.result == "open"
        await pilot.press("ctrl+h")
        bar.query_one("#find-text").value = r"(\d+)e-5"
        bar.regex = True
        bar.query_one("#find-replace").value = r"\1e-4"
        await pilot.press("alt+a")
        await until(pilot, lambda: "lr = 1e-4" in ed.text, "replace all")
        assert "Replaced 1 match" in str(bar.query_one("#find-status").render())
        await pilot.press("escape")
        await pilot.press("ctrl+g", "4", "enter")  # typed while the dialog opens
        await until(pilot, lambda: ed.area.cursor_location == (3, 0), "the jump to line 4")
        await pilot.press("ctrl+end")
        await quiet(pilot)
        assert ed.area.cursor_location == ed.area.document.end
        await pilot.press("ctrl+home")
        await quiet(pilot)
        assert ed.area.cursor_location == (0, 0)


async def test_completion_offers_keys_of_the_variant_with_type_and_default(tmp_path):
    app = host(tmp_path, 'max_steps = 10\n[scheduler]\ntype = "cosine"\nmi\n[optim]\n\n[ckpt]\n')
    async with app.run_test(size=(100, 30)) as pilot:
        ed = await settle(pilot)
        ed.area.cursor_location = (3, 2)
        await pilot.press("ctrl+space")  # one candidate in the cosine variant: inserted at once
        await until(pilot, lambda: ed.text.split("\n")[3] == "min_lr", "the single completion inserted")
        ed.area.cursor_location = (5, 0)
        await pilot.press("ctrl+space")
        await until(pilot, lambda: type(app.screen).__name__ == "CompletionPicker", "the completion list")
        options = app.screen.query_one("#completion-list")
        first = str(options.get_option_at_index(0).prompt)
        assert first.startswith("lr") and "type: float" in first and "default:" in first
        await pilot.press("enter")
        await until(pilot, lambda: ed.text.split("\n")[5] == "lr", "the chosen key inserted")


async def test_f10_hands_the_file_to_editor_and_rechecks_on_return(tmp_path, monkeypatch):
    import contextlib
    import sys

    script = tmp_path / "fake_editor.py"
    script.write_text("import sys\nopen(sys.argv[1], 'a').write('[ckpt]\\n')\n")
    monkeypatch.setenv("EDITOR", f"{sys.executable} {script}")
    monkeypatch.delenv("VISUAL", raising=False)
    app = host(tmp_path, "max_steps = 10\n")
    async with app.run_test(size=(100, 24)) as pilot:
        monkeypatch.setattr(app, "suspend", contextlib.nullcontext)  # headless: nothing to hand the screen to
        ed = await settle(pilot)
        await pilot.press("x")
        await pilot.press("f10")
        await quiet(pilot)
        assert "Save first" in ed.note and ed.text.startswith("x")
        await pilot.press("ctrl+z")
        await until(pilot, lambda: not ed.modified, "the undo")
        await pilot.press("f10")
        await until(pilot, lambda: ed.text == "max_steps = 10\n[ckpt]\n", "the file edited outside, reloaded")
        assert "reloaded and checked" in ed.note and not ed.modified


async def test_keys_are_listed_in_help_and_remappable_by_id(tmp_path):
    app = host(tmp_path, TEXT)
    async with app.run_test(size=(120, 40)) as pilot:
        ed = await settle(pilot)
        app.set_keymap({"editor.goto_line": "ctrl+l"})
        await pilot.press("shift+f1")
        await until(pilot, lambda: type(app.screen).__name__ == "HelpScreen", "the key list")
        body = screen_text(app)
        for binding_id in (
            "editor.find",
            "editor.replace",
            "editor.goto_line",
            "editor.comment",
            "editor.indent",
            "editor.dedent",
            "editor.file_start",
            "editor.file_end",
            "editor.complete",
        ):
            assert binding_id in body
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is ed, "back in the editor")
        await pilot.press("ctrl+l")
        await until(pilot, lambda: type(app.screen).__name__ == "GoToLinePrompt", "go to line on the remapped key")
