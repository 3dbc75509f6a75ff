"""The editor's file: reading it, noticing changes on disk, drafts, save and save as. A mixin of ``EditorScreen``."""

from __future__ import annotations

from typing import TYPE_CHECKING

import difflib
import os
from pathlib import Path

from primetui.config.fileio import (
    ReadOnlyFileError,
    atomic_write,
    directory_read_only,
    file_digest,
    is_read_only,
    read_text_file,
)
from primetui.viewmodel.drafts import DraftStore

from primetui.ui.editor.mixin_base import EditorMixinBase


TOAST_MIN_WIDTH = 120  # columns; narrower, a note is said on the message line alone


class EditorFiles(EditorMixinBase):
    """Needs the screen's ``path``, ``drafts``, ``area``/``text``/``modified``, ``note`` and ``_refresh_chrome``."""

    if TYPE_CHECKING:  # what the screen provides (declared here for the type checker; no attributes at run time)
        drafts: DraftStore | None
        _drafts_root: Path | None
        saved_text: str
        newline: str
        disk_digest: str | None
        read_only: bool
        dir_read_only: bool
        _disk_stat: tuple | None
        _disk_note_for: str | None
        _draft_dirty: bool
        _draft_kept: bool

    def _read_file(self) -> str:
        if self.path is None or not self.path.exists():
            return ""
        try:
            loaded = read_text_file(self.path)
        except UnicodeDecodeError as exc:
            self.load_error = (
                f"{self.path.name} is {_encoding_named(self.path, exc)}: it was not loaded "
                "and nothing is checked. Convert it to UTF-8 (iconv) and open it again."
            )
            return ""
        except OSError as exc:
            self.load_error = f"Could not read {self.path} ({exc.strerror or exc}); check the path and permissions."
            return ""
        self.saved_text, self.newline, self.disk_digest = loaded.text, loaded.newline, loaded.digest
        self._check_writable(self.path)
        self._disk_stat = _stat_key(self.path)
        return loaded.text

    def _toast_note(self, **kwargs) -> None:
        """Also show the message line's note as a toast, where there is room for both: below
        ``TOAST_MIN_WIDTH`` columns the toast covered the message line, repeating it beside a cut copy."""
        if self.app.size.width >= TOAST_MIN_WIDTH:
            self.notify(self.note, **kwargs)

    def _check_writable(self, path: Path) -> None:
        self.read_only = is_read_only(path)
        self.dir_read_only = not self.read_only and directory_read_only(path)

    def dir_note(self) -> str:
        """Why ctrl+s cannot save here when the file's directory may not be written to."""
        assert self.path is not None
        return (
            f"{self.path.parent} cannot be written to, so {self.path.name} cannot be saved there "
            "(a save writes a new file beside it); F12 saves your text elsewhere."
        )

    def _watch_disk(self) -> None:
        """Notice another program's change: reload an unmodified buffer, warn about a modified one."""
        if self.path is None or self.load_error:
            return
        now = _stat_key(self.path)
        if now == self._disk_stat:
            return
        self._disk_stat = now
        self._check_writable(self.path)
        if now is None and self.disk_digest is not None:  # it was there when loaded or saved
            self.note = (
                f"{self.path.name} was deleted or moved on disk; ctrl+s writes your text there again, "
                "F12 saves it elsewhere."
            )
            self._toast_note(severity="warning", timeout=4)
            self._refresh_chrome()
            return
        digest = file_digest(self.path)
        if digest is None or digest == self.disk_digest:
            self._refresh_chrome()
            return
        if not self.modified:
            self.reload_from_disk(f"Reloaded {self.path.name}: it changed on disk (ctrl+z returns to the old text).")
        elif digest != self._disk_note_for:
            self._disk_note_for = digest
            self.note = (
                f"{self.path.name} changed on disk since you opened it; ctrl+s will offer reload, diff or overwrite."
            )
            self._refresh_chrome()

    def reload_from_disk(self, note: str) -> bool:
        """Replace the buffer with the file as it is on disk now (one undoable edit)."""
        assert self.path is not None
        try:
            loaded = read_text_file(self.path)
        except (OSError, UnicodeDecodeError) as exc:
            self.note = (
                f"Could not reload {self.path.name} ({getattr(exc, 'strerror', None) or exc}); the buffer is unchanged."
            )
            self._refresh_chrome()
            return False
        self.newline, self.disk_digest = loaded.newline, loaded.digest
        self.saved_text = loaded.text
        self._check_writable(self.path)
        self._disk_stat = _stat_key(self.path)
        self._disk_note_for = None
        if self.text != loaded.text:
            self.replace_all(loaded.text)
        self.note = note
        self._refresh_chrome()
        return True

    def _offer_draft(self) -> None:
        if self.drafts is None:
            return
        draft = self.drafts.read()
        if draft is None or draft.text == self.text:
            if draft is not None:
                self.drafts.drop()
            return
        from primetui.ui.editor.modals import DraftPrompt

        changed = sum(1 for line in difflib.ndiff(self.text.splitlines(), draft.text.splitlines()) if line[:1] in "+-")

        def _chosen(restore: bool | None) -> None:
            if restore:
                self.replace_all(draft.text)
                self.note = "Draft restored — ctrl+z returns to the file as saved."
            elif restore is None:
                self._draft_kept = True
                self.note = "Draft kept: it is offered again when you next open this file."
            else:
                assert self.drafts is not None  # checked above; a draft store, once made, is never taken away
                self.drafts.drop()
                self.note = "Draft discarded."
            self._refresh_chrome()

        assert self.path is not None  # a draft store is made only for a file with a path
        self.app.push_screen(DraftPrompt(self.path, draft.saved_at, changed), _chosen)

    def _autosave(self) -> None:
        if not self._draft_dirty or self.drafts is None:
            return
        self._draft_dirty = False
        try:
            if self.modified:
                self.drafts.write(self.text)
                self._draft_kept = False  # newer typing supersedes the kept draft
            elif not self._draft_kept:
                self.drafts.drop()
        except OSError as exc:
            self.note = f"Could not autosave a draft ({exc.strerror or exc}); save with ctrl+s to keep your work."
            self._refresh_chrome()

    def _autosave_now(self) -> None:
        self._draft_dirty = True
        self._autosave()

    def action_save(self) -> None:
        if self.path is None or self.load_error:
            self.action_save_as()
            return
        if self.read_only:
            self._offer_save_as(f"{self.path.name} is read-only, so it was not changed; save your text elsewhere.")
            return
        if self.dir_read_only:
            self._offer_save_as(f"Not saved: {self.dir_note()}")
            return
        on_disk = file_digest(self.path)
        if self.disk_digest is not None and on_disk != self.disk_digest:
            self._resolve_conflict(on_disk)
            return
        self._write(self.path)

    def _resolve_conflict(self, on_disk: str | None) -> None:
        """The file changed on disk since it was loaded: reload, see the diff, or overwrite."""
        from primetui.ui.editor.modals import ConflictPrompt

        assert self.path is not None
        try:
            disk_text = read_text_file(self.path).text if on_disk is not None else ""
        except (OSError, UnicodeDecodeError):
            disk_text = ""
        diff = list(
            difflib.unified_diff(disk_text.splitlines(), self.text.splitlines(), "on disk", "your buffer", lineterm="")
        )

        def _chosen(choice: str | None) -> None:
            assert self.path is not None  # checked above; save as replaces it, never with None
            if choice == "overwrite":
                self._write(self.path)
            elif choice == "save_as":
                self.action_save_as()
            elif choice == "reload":
                self.reload_from_disk(f"Reloaded {self.path.name} from disk (ctrl+z brings your edits back).")
            else:
                self.note = "Not saved: the file on disk changed; ctrl+s asks again."
                self._refresh_chrome()

        self.app.push_screen(ConflictPrompt(self.path, gone=on_disk is None, diff=diff), _chosen)

    def _offer_save_as(self, why: str) -> None:
        self.note = why
        self._refresh_chrome()
        self.action_save_as()

    def _write(self, path: Path, *, make_dirs: bool = False) -> bool:
        text = self.text
        try:
            if make_dirs:
                path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(path, text, newline=self.newline)
        except ReadOnlyFileError:
            if path == self.path:
                self.read_only = True
            self._offer_save_as(f"{path.name} is read-only, so it was not changed; save your text elsewhere.")
            return False
        except OSError as exc:
            self.note = (
                f"Could not save {path} ({exc.strerror or exc}); your text is kept — pick another place with F12."
            )
            self._toast_note(severity="error")
            self._refresh_chrome()
            return False
        if path != self.path:
            if self.drafts is not None:
                self.drafts.drop()
            self.path = path
            self.drafts = DraftStore(path, self._drafts_root)
            self.load_error = None
        self.saved_text = text
        self.disk_digest = file_digest(path)
        self._check_writable(path)
        self._disk_stat = _stat_key(path)
        self._disk_note_for = None
        if self.drafts is not None:
            self.drafts.drop()
        self._draft_dirty = False
        errors = sum(1 for d in self.diagnostics if d.level == "error")
        self.note = f"Saved {path.name}" + (f" ({errors} error(s) remain: F8 jumps to them)." if errors else ".")
        self._toast_note(timeout=3)
        self._refresh_chrome()
        return True

    def action_save_as(self) -> None:
        from primetui.ui.editor.modals import SaveAsPrompt

        def _chosen(path: Path | None) -> None:
            if path is not None:
                self._write(path, make_dirs=True)  # the prompt asked before a directory is created

        self.app.push_screen(SaveAsPrompt(self.path), _chosen)


def _encoding_named(path: Path, exc: UnicodeDecodeError) -> str:
    """What a file that is not UTF-8 most likely is: UTF-16/32 by its byte-order mark, else where it broke."""
    try:
        with open(path, "rb") as f:
            head = f.read(4)
    except OSError:
        head = b""
    for bom, name in (
        (b"\xff\xfe\x00\x00", "UTF-32 (LE)"),
        (b"\x00\x00\xfe\xff", "UTF-32 (BE)"),
        (b"\xff\xfe", "UTF-16 (LE)"),
        (b"\xfe\xff", "UTF-16 (BE)"),
    ):
        if head.startswith(bom):
            return f"{name} text, not UTF-8"
    return f"not UTF-8 (byte 0x{exc.object[exc.start]:02x} at offset {exc.start}; Latin-1 or another 8-bit encoding?)"


def _stat_key(path: Path) -> tuple | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_mode)
