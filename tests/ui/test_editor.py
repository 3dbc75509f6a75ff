"""Pilot tests of the sft.toml editor: what a user sees after each action."""

from __future__ import annotations

import json

from textual import events

from primetui.sft.templates import ONLINE_EVAL, WALKTHROUGH
from primetui.ui.editor import EditorScreen
from primetui.viewmodel.drafts import DraftStore
from primetui.ui.editor.screen import AUTOSAVE_EVERY

from editor_helpers import EditorHost, host, settle
from tests.waiting import input_applied, quiet, until


async def test_typing_shows_a_problem_on_its_line_and_in_the_message(tmp_path):
    app = host(tmp_path, None)
    async with app.run_test(size=(100, 24)) as pilot:
        await settle(pilot)
        for line in ("[deployment]", "num_gpus = 2"):
            await pilot.press(*line)
            await pilot.press("enter")
        await pilot.press("up")
        ed = await settle(pilot)
        errors = [d for d in ed.diagnostics if d.level == "error"]
        assert [(d.span.line, d.span.col, d.code) for d in errors] == [(1, 0, "renamed-key")]
        assert ed.area.diagnostics_at_line(1) == errors
        message = str(ed.query_one("#editor-message").render())
        assert "Ln 2, Col 1" in message and "renamed to `num_train_gpus`" in message and "F4" in message
        assert "1 error(s)" in str(ed.query_one("#editor-title").render())


async def test_quick_fix_adds_the_missing_type(tmp_path):
    app = host(tmp_path, "max_steps = 100\n[scheduler]\nwarmup_steps = 5\n[ckpt]\n")
    async with app.run_test(size=(100, 24)) as pilot:
        ed = await settle(pilot)
        assert [d.code for d in ed.diagnostics] == ["missing-type"]
        ed.area.cursor_location = (2, 3)
        await pilot.press("f4")  # two variants fit (linear, cosine): F4 offers both, linear first
        await quiet(pilot)
        assert type(app.screen).__name__ == "CompletionPicker"
        await pilot.press("enter")
        ed = await settle(pilot)
        assert ed.text == 'max_steps = 100\n[scheduler]\ntype = "linear"\nwarmup_steps = 5\n[ckpt]\n'
        assert ed.diagnostics == []
        await pilot.press("ctrl+z")
        ed = await settle(pilot)
        assert "type" not in ed.text and [d.code for d in ed.diagnostics] == ["missing-type"]


async def test_problems_list_and_f8_jump_to_each_problem(tmp_path):
    text = 'max_steps = "ten"\n[data]\nbatch_size = 0\n[ckpt]\ninterval = 20\n'
    app = host(tmp_path, text)
    async with app.run_test(size=(100, 30)) as pilot:
        ed = await settle(pilot)
        assert [(d.span.line, d.span.col) for d in ed.diagnostics] == [(0, 12), (2, 13)]
        await pilot.press("f8")
        await input_applied(pilot)
        assert ed.area.cursor_location == (0, 12)
        await pilot.press("f8")
        await input_applied(pilot)
        assert ed.area.cursor_location == (2, 13)
        await pilot.press("f8")  # wraps around
        await input_applied(pilot)
        assert ed.area.cursor_location == (0, 12)
        await pilot.press("shift+f8")
        await input_applied(pilot)
        assert ed.area.cursor_location == (2, 13)
        await pilot.press("f2")
        await input_applied(pilot)
        problems = ed.query_one("#editor-problems")
        assert problems.has_class("visible") and problems.has_focus
        await pilot.press("down", "enter")
        await input_applied(pilot)
        assert ed.area.cursor_location == (2, 13) and ed.area.has_focus


async def test_save_writes_the_file_and_drops_the_draft(tmp_path):
    app = host(tmp_path, "max_steps = 1\n[ckpt]\n")
    async with app.run_test(size=(100, 24)) as pilot:
        ed = await settle(pilot)
        ed.area.cursor_location = (0, 13)
        await pilot.press("0")

        def drafted() -> list[str]:
            return [json.loads(d.read_text())["text"] for d in (tmp_path / "drafts").glob("*.json")]

        await until(
            pilot,
            lambda: drafted() == ["max_steps = 10\n[ckpt]\n"],
            f"the autosave (every {AUTOSAVE_EVERY} s) to write one draft with the edit",
            timeout=AUTOSAVE_EVERY + 60,
        )
        await pilot.press("ctrl+s")
        await quiet(pilot)
        assert (tmp_path / "sft.toml").read_text() == "max_steps = 10\n[ckpt]\n"
        assert not ed.modified and list((tmp_path / "drafts").glob("*.json")) == []


async def test_draft_is_offered_back_and_restored(tmp_path):
    path = tmp_path / "sft.toml"
    path.write_text("max_steps = 1\n")
    DraftStore(path, tmp_path / "drafts").write("max_steps = 1\n[ckpt]\ninterval = 1\n")
    app = host(tmp_path, None)
    async with app.run_test(size=(100, 24)) as pilot:
        await quiet(pilot)
        assert type(app.screen).__name__ == "DraftPrompt"
        await pilot.press("r")
        ed = await settle(pilot)
        assert isinstance(ed, EditorScreen)
        assert ed.text == "max_steps = 1\n[ckpt]\ninterval = 1\n" and ed.modified
        assert path.read_text() == "max_steps = 1\n"  # restoring does not write the file


async def test_f1_shows_the_key_help(tmp_path):
    app = host(tmp_path, WALKTHROUGH)
    async with app.run_test(size=(100, 30)) as pilot:
        ed = await settle(pilot)
        ed.area.cursor_location = (20, 2)  # num_train_gpus
        await pilot.press("f1")
        await quiet(pilot)
        body = str(app.screen.query_one("#help-body").render())
        assert "GPUs allocated to the trainer." in body and "default: 1" in body
        await pilot.press("escape")
        await input_applied(pilot)
        assert app.screen is ed


async def test_template_replaces_the_buffer_and_validates_clean(tmp_path):
    app = host(tmp_path, None)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+t")
        await pilot.pause()
        await pilot.press("enter")
        ed = await settle(pilot)
        assert ed.text == WALKTHROUGH and ed.diagnostics == []


async def test_unreadable_file_and_failed_save_keep_the_text(tmp_path):
    bad = tmp_path / "sft.toml"
    bad.write_bytes(b"\xff\xfe not utf-8")
    app = EditorHost(bad, drafts_root=tmp_path / "drafts")
    async with app.run_test(size=(100, 24)) as pilot:
        ed = await settle(pilot)
        assert "not UTF-8" in str(ed.query_one("#editor-message").render())
        await pilot.press("ctrl+s")  # a file that failed to load is never overwritten: save-as opens
        await quiet(pilot)
        assert type(app.screen).__name__ == "SaveAsPrompt"
        field = app.screen.query_one("#save-as-path")
        field.value = str(tmp_path / "missing-dir-is-a-file" / "x.toml")
        (tmp_path / "missing-dir-is-a-file").write_text("a file, not a dir")
        await pilot.press("enter")
        await quiet(pilot)
        assert app.screen is ed and "Could not save" in ed.note and bad.read_bytes() == b"\xff\xfe not utf-8"


async def test_close_with_unsaved_changes_needs_a_second_escape(tmp_path):
    app = host(tmp_path, "max_steps = 1\n")
    async with app.run_test(size=(100, 24)) as pilot:
        await settle(pilot)
        await pilot.press("x")
        await pilot.press("escape")
        await until(pilot, lambda: "esc again closes" in app.screen.note, "the unsaved-changes warning")
        assert app.result == "open"
        await pilot.press("escape")
        await until(pilot, lambda: app.result is None, "the editor to close on the second escape")
        assert len(list((tmp_path / "drafts").glob("*.json"))) == 1


def send_batch(app, *keys: str) -> None:
    """Queue keys as a terminal delivers a burst of input: all at once, with no wait between them."""
    for key in keys:
        app.post_message(events.Key(key, key if len(key) == 1 else None))


async def test_escape_in_a_batch_after_typing_waits_for_the_text_and_keeps_a_draft(tmp_path):
    app = host(tmp_path, "max_steps = 1\n")
    async with app.run_test(size=(100, 24)) as pilot:
        ed = await settle(pilot)
        send_batch(app, "x", "y", "escape")
        await until(
            pilot, lambda: "esc again closes" in ed.note or app.result != "open", "the editor to answer the escape"
        )
        assert app.result == "open", "escape closed the editor before the keys typed before it were applied"
        assert ed.text.startswith("xy") and "esc again closes" in ed.note
        assert len(list((tmp_path / "drafts").glob("*.json"))) == 1
        # A second escape in a batch with no typing closes on the text the warning was shown for.
        send_batch(app, "escape")
        await until(pilot, lambda: app.result is None, "the editor to close on the second escape")


async def test_typing_after_the_warning_asks_again(tmp_path):
    app = host(tmp_path, "max_steps = 1\n")
    async with app.run_test(size=(100, 24)) as pilot:
        ed = await settle(pilot)
        send_batch(app, "x", "escape", "z", "escape")
        await until(pilot, lambda: ed.text.startswith("xz"), "both typed keys applied")
        await input_applied(pilot)
        assert app.result == "open", "an escape closed the editor on text the warning was not shown for"
        assert "esc again closes" in ed.note


def test_big_files_are_checked_in_the_helper_process_with_the_same_result():
    from primetui.sft.check import check_text
    from primetui.sft.context import CheckContext
    from primetui.viewmodel import validator

    blocks = []
    for i in range(300):
        examples = "32" if i else '"many"'
        blocks.append(
            f'\n[[eval.source]]\nname = "env-{i}"\nenv = {{ taskset = {{ id = "org/t-{i}" }} }}\n'
            f"num_examples = {examples}\n"
        )
    sources = "".join(blocks)
    text = ONLINE_EVAL + sources
    assert len(text) >= validator.BIG_TEXT
    checker = validator.Validator()
    try:
        remote = checker.validate(text, CheckContext())
        assert checker.pid is not None  # the helper answered
    finally:
        checker.close()
    local = check_text(text, CheckContext())
    assert remote.spans is None and remote.diagnostics == local.diagnostics
    assert [d.code for d in remote.errors] == ["bad-type"]


async def test_hovering_a_key_shows_its_help_as_a_tooltip(tmp_path):
    app = host(tmp_path, WALKTHROUGH)
    async with app.run_test(size=(100, 30)) as pilot:
        ed = await settle(pilot)
        gutter = ed.area.gutter_width
        await pilot.hover("#editor-area", offset=(gutter + 2, 20))  # row 20: `num_train_gpus = 1`
        await quiet(pilot)
        assert ed.area.tooltip is not None and ed.area.tooltip.startswith("deployment.num_train_gpus\nGPUs allocated")
        await pilot.hover("#editor-area", offset=(gutter + 2, 21))  # `gpus_per_node = 1`
        await quiet(pilot)
        assert ed.area.tooltip.startswith("deployment.gpus_per_node\nGPUs per node.")
