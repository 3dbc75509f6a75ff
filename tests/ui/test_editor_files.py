"""The editor's saves never lose work: symlinks, read-only files, CRLF, changes made by another program."""

from __future__ import annotations

import os

from editor_helpers import EditorHost, host, settle

from primetui.viewmodel.drafts import DraftStore
from tests.waiting import quiet, until


def _title(ed) -> str:
    return str(ed.query_one("#editor-title").render())


async def test_saving_a_symlinked_file_writes_its_target_and_keeps_the_link(tmp_path):
    real = tmp_path / "configs" / "real.toml"
    real.parent.mkdir()
    real.write_text("max_steps = 1\n")
    link = tmp_path / "sft.toml"
    link.symlink_to(real)
    app = EditorHost(link, drafts_root=tmp_path / "drafts")
    async with app.run_test(size=(100, 24)) as pilot:
        ed = await settle(pilot)
        ed.area.cursor_location = (0, 13)
        await pilot.press("0", "ctrl+s")
        await until(pilot, lambda: not ed.modified, "the save")
    assert link.is_symlink() and real.read_text() == "max_steps = 10\n"


async def test_a_read_only_file_says_so_and_save_offers_save_as(tmp_path):
    path = tmp_path / "sft.toml"
    path.write_text("max_steps = 1\n")
    os.chmod(path, 0o444)
    app = host(tmp_path, None)
    async with app.run_test(size=(120, 24)) as pilot:
        ed = await settle(pilot)
        assert "read-only" in _title(ed)
        await pilot.press("x", "ctrl+s")
        await until(pilot, lambda: type(app.screen).__name__ == "SaveAsPrompt", "the save-as prompt")
        assert "read-only, so it was not changed" in ed.note
    assert path.read_text() == "max_steps = 1\n" and not list(tmp_path.glob(".sft.toml.*"))


async def test_crlf_and_no_final_newline_are_kept_on_save(tmp_path):
    path = tmp_path / "sft.toml"
    path.write_bytes(b"max_steps = 1\r\n[ckpt]\r\ninterval = 5")
    app = host(tmp_path, None)
    async with app.run_test(size=(120, 24)) as pilot:
        ed = await settle(pilot)
        assert "CRLF" in _title(ed) and not [d for d in ed.diagnostics if d.level == "error"]
        ed.area.cursor_location = (0, 13)
        await pilot.press("0", "ctrl+s")
        await until(pilot, lambda: not ed.modified, "the save")
    assert path.read_bytes() == b"max_steps = 10\r\n[ckpt]\r\ninterval = 5"


async def test_a_change_on_disk_is_offered_as_reload_diff_or_overwrite(tmp_path):
    path = tmp_path / "sft.toml"
    app = host(tmp_path, "max_steps = 1\n")
    async with app.run_test(size=(120, 30)) as pilot:
        ed = await settle(pilot)
        ed.area.cursor_location = (0, 13)
        await pilot.press("0")
        path.write_text("max_steps = 1\n# a teammate's line\n")
        await pilot.press("ctrl+s")
        await until(pilot, lambda: type(app.screen).__name__ == "ConflictPrompt", "the conflict prompt")
        assert path.read_text() == "max_steps = 1\n# a teammate's line\n"  # nothing written yet
        await pilot.press("d")
        diff = str(app.screen.query_one("#conflict-diff-body").render())
        await quiet(pilot)
        assert "-# a teammate's line" in diff and "+max_steps = 10" in diff
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is ed, "the editor back")
        assert ed.modified and path.read_text() == "max_steps = 1\n# a teammate's line\n"
        await pilot.press("ctrl+s")
        await until(pilot, lambda: type(app.screen).__name__ == "ConflictPrompt", "the conflict prompt again")
        await pilot.press("r")
        await until(pilot, lambda: ed.text == "max_steps = 1\n# a teammate's line\n", "the reload")
        assert not ed.modified
        await pilot.press("ctrl+z")
        await until(pilot, lambda: ed.text == "max_steps = 10\n", "undo of the reload")
        path.write_text("max_steps = 3\n")
        await pilot.press("ctrl+s")
        await until(pilot, lambda: type(app.screen).__name__ == "ConflictPrompt", "the third conflict prompt")
        await pilot.press("o")
        await until(pilot, lambda: path.read_text() == "max_steps = 10\n", "the overwrite")


async def test_an_unmodified_buffer_reloads_by_itself(tmp_path):
    path = tmp_path / "sft.toml"
    app = host(tmp_path, "max_steps = 1\n")
    async with app.run_test(size=(120, 24)) as pilot:
        ed = await settle(pilot)
        path.write_text("max_steps = 2\n# added elsewhere\n")
        await until(pilot, lambda: ed.text == "max_steps = 2\n# added elsewhere\n", "the automatic reload")
        assert not ed.modified and "changed on disk" in ed.note
        await pilot.press("x")  # now modified: another change is reported, not loaded over the edit
        path.write_text("max_steps = 3\n")
        await until(pilot, lambda: "ctrl+s will offer" in ed.note, "the changed-on-disk warning")
        assert ed.text.startswith("x")


async def test_save_as_asks_before_creating_a_directory(tmp_path):
    app = host(tmp_path, "max_steps = 1\n")
    target = tmp_path / "new" / "dir" / "sft.toml"
    async with app.run_test(size=(120, 24)) as pilot:
        ed = await settle(pilot)
        await pilot.press("f12")
        await until(pilot, lambda: type(app.screen).__name__ == "SaveAsPrompt", "the save-as prompt")
        app.screen.query_one("#save-as-path").value = str(target)
        await pilot.press("enter")
        await until(
            pilot,
            lambda: "does not exist: create it?" in str(app.screen.query_one("#save-as-hint").render()),
            "the question",
        )
        assert not target.parent.exists()
        await pilot.press("enter")
        await until(pilot, lambda: target.exists(), "the save into the new directory")
        assert app.screen is ed and ed.path == target


async def test_esc_on_the_draft_prompt_keeps_the_draft(tmp_path):
    path = tmp_path / "sft.toml"
    path.write_text("max_steps = 1\n")
    DraftStore(path, tmp_path / "drafts").write("max_steps = 1\n[ckpt]\n")
    app = host(tmp_path, None)
    async with app.run_test(size=(100, 24)) as pilot:
        await until(pilot, lambda: type(app.screen).__name__ == "DraftPrompt", "the draft prompt")
        await pilot.press("escape")
        ed = await settle(pilot)
        assert "Draft kept" in ed.note
        await pilot.press("escape")  # the unmodified editor closes
        await until(pilot, lambda: app.result is None, "the editor closed")
    assert DraftStore(path, tmp_path / "drafts").read().text == "max_steps = 1\n[ckpt]\n"
