"""Files at the edges (issue 43 finding 8): a deleted file, a file that is not UTF-8, save-as onto a
file that cannot be written; and the dialogs at 80x24 and 60x20 (finding 9)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from editor_helpers import host, settle

from tests.ui.dash_helpers import notifications
from tests.ui.monitor_helpers import screen_text
from tests.waiting import until


def _title(ed) -> str:
    return str(ed.query_one("#editor-title").render())


def _texts(screen) -> str:
    return "\n".join(str(w.render()) for w in screen.query("Static"))


async def test_a_deleted_file_is_noticed_and_save_offers_save_as_not_reload(tmp_path):
    app = host(tmp_path, "max_steps = 10\n[ckpt]\n")
    async with app.run_test(size=(120, 30)) as pilot:
        ed = await settle(pilot)
        (tmp_path / "sft.toml").unlink()
        await until(pilot, lambda: "was deleted or moved" in ed.note, "the editor to notice the file is gone")
        await pilot.press("ctrl+s")
        prompt = await until(
            pilot, lambda: type(app.screen).__name__ == "ConflictPrompt" and app.screen, "the conflict dialog"
        )
        hint = _texts(prompt)
        assert "a saves it elsewhere" in hint and "r reloads" not in hint
        await pilot.press("r")  # nothing to reload: the dialog stays
        await pilot.press("a")
        await until(pilot, lambda: type(app.screen).__name__ == "SaveAsPrompt", "the save-as dialog")


async def test_a_file_that_is_not_utf8_opens_as_an_error_naming_its_encoding(tmp_path):
    (tmp_path / "latin.toml").write_bytes("max_steps = 10\n# café\n".encode("latin-1"))
    (tmp_path / "wide.toml").write_bytes("max_steps = 10\n".encode("utf-16"))
    for name, said in (("latin.toml", "byte 0xe9 at offset 20"), ("wide.toml", "UTF-16 (LE) text")):
        app = host(tmp_path, None)
        app.path = tmp_path / name
        async with app.run_test(size=(160, 30)) as pilot:
            ed = await settle(pilot)
            assert "not loaded" in _title(ed) and said in ed.note and "not UTF-8" in ed.note
            assert ed.diagnostics == [] and "0 error(s) · 0 warning(s) · 0 hint(s)" in _title(ed)


async def test_save_as_onto_a_read_only_file_says_so_inside_the_dialog(tmp_path):
    target = tmp_path / "locked.toml"
    target.write_text("max_steps = 1\n")
    os.chmod(target, 0o444)
    app = host(tmp_path, "max_steps = 10\n[ckpt]\n")
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        await pilot.press("f12")
        prompt = await until(
            pilot, lambda: type(app.screen).__name__ == "SaveAsPrompt" and app.screen, "the save-as dialog"
        )
        prompt.query_one("#save-as-path").value = str(target)
        await pilot.press("enter")
        await until(
            pilot,
            lambda: "locked.toml is read-only: pick another path" in _texts(prompt),
            "the refusal inside the dialog",
        )
        assert app.screen is prompt
    assert target.read_text() == "max_steps = 1\n"


async def test_a_writable_file_in_a_directory_that_cannot_be_written_is_said_up_front(tmp_path):
    """Issue 43 finding 8: a writable file in a read-only directory failed only at ctrl+s, with "Operation
    not permitted". The tests run as root, who may write any directory by its mode, so the file here is
    one root cannot save either: /proc/<pid>/comm (writable, 0644) in /proc/<pid>, where no file can be
    created. The editor says so on opening, and ctrl+s opens Save as without touching the file."""
    comm = Path(f"/proc/{os.getpid()}/comm")
    before = comm.read_text()
    app = host(tmp_path, None)
    app.path = comm
    async with app.run_test(size=(160, 30)) as pilot:
        ed = await settle(pilot)
        assert "read-only directory (F12 saves elsewhere)" in _title(ed)
        assert f"/proc/{os.getpid()} cannot be written to" in ed.note and "F12 saves your text elsewhere" in ed.note
        await pilot.press("end", "x")
        await pilot.press("ctrl+s")
        await until(pilot, lambda: type(app.screen).__name__ == "SaveAsPrompt", "the save-as dialog")
        assert ed.note.startswith("Not saved:") and ed.modified
    assert comm.read_text() == before


async def test_at_80_columns_the_title_keeps_its_counts_in_plain_text_mode(tmp_path):
    """Issue 43 finding 9: at 80x24 the title of a file too big to highlight cut its error counts off
    after the path and "plain text: no highlighting above 200,000 characters"."""
    text = "max_steps = 'ten'\n" + "# a comment line to make the file too big to highlight\n" * 4000
    app = host(tmp_path, text)
    async with app.run_test(size=(80, 24)) as pilot:
        ed = await settle(pilot)
        assert not ed.area.highlighting
        title = _title(ed)
        assert title.startswith(" sft.toml editor  sft.toml  1 error(s) · 0 warning(s) · 1 hint(s)")
        assert title.endswith("plain text") and len(title) <= 80
        await pilot.resize_terminal(250, 24)
        await until(pilot, lambda: "plain text: no highlighting above" in _title(ed), "the long title at 250 columns")
        assert str(tmp_path) in _title(ed)


@pytest.mark.parametrize("width", [80, 160])
async def test_the_save_note_is_toasted_only_where_it_does_not_cover_the_message_line(tmp_path, width):
    """Issue 43 finding 9: at 80x24 the toast of "Saved sft.toml …" sat over the message line saying the
    same, beside a cut copy and the toast's border block. Now at 80 columns the message line says it
    alone, whole; at 160 the toast is still shown."""
    app = host(tmp_path, "max_steps = 10\n[ckpt]\n")
    async with app.run_test(size=(width, 24)) as pilot:
        ed = await settle(pilot)
        await pilot.press("end", "0", "ctrl+s")
        await until(pilot, lambda: ed.note.startswith("Saved sft.toml"), "the save")
        await settle(pilot)
        assert notifications(app) == ([] if width == 80 else [ed.note])
        assert "Saved sft.toml." in str(ed.query_one("#editor-message").render())


@pytest.mark.parametrize("size", [(80, 24), (60, 20)])
async def test_the_conflict_and_go_to_line_dialogs_show_every_choice_and_wrap_errors(tmp_path, size):
    app = host(tmp_path, "max_steps = 10\n[ckpt]\n")
    async with app.run_test(size=size) as pilot:
        ed = await settle(pilot)
        await pilot.press("x")
        await until(pilot, lambda: ed.modified, "the buffer modified (so a change on disk is not reloaded by itself)")
        (tmp_path / "sft.toml").write_text("max_steps = 20\n[ckpt]\n")
        await pilot.press("ctrl+s")
        prompt = await until(
            pilot, lambda: type(app.screen).__name__ == "ConflictPrompt" and app.screen, "the conflict dialog"
        )
        await pilot.press("d")  # the diff shown too
        await until(pilot, lambda: prompt.query_one("#conflict-diff").has_class("shown"), "the diff shown")
        shown = _screen(app)
        for choice in ("r reloads", "d shows the diff", "o overwrites", "a saves elsewhere", "esc cancels"):
            assert choice.replace(" ", "") in shown, choice
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is ed, "the conflict dialog closed")
        assert prompt is not app.screen
        await pilot.press("ctrl+g", "x", "y", "z", "enter")
        await until(pilot, lambda: "isnotalinenumber" in _screen(app), "the go-to-line error")
        assert "esccancels" in _screen(app)


def _screen(app) -> str:
    """Every character on the screen, spaces, line ends and the dialog's side borders dropped (a wrapped
    hint reads whole)."""
    return screen_text(app).replace("\n", "").replace(" ", "").replace("│", "")
