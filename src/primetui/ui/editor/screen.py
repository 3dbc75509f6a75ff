"""The sft.toml editor: TOML editing with diagnostics as you type, help, quick fixes, templates,
autosaved drafts, save / save as, and dispatch to a volume with a pre-flight.

Validation runs in a thread worker after a short pause in typing, on a snapshot of the text, so a
keystroke never waits for it; a result for an older version of the text is dropped.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.reactive import var
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Static, TextArea

from primetui.sft.check import Report
from primetui.sft.context import CheckContext
from primetui.sft.diagnostics import LEVELS, Diagnostic, sort_key
from primetui.sft.schema import PRIME_RL_COMMIT, PRIME_RL_VERSION
from primetui.viewmodel import validator
from primetui.ui.editor.area import HIGHLIGHT_LIMIT, DiagnosticTextArea
from primetui.ui.editor.actions import EditingActions
from primetui.ui.editor.files import EditorFiles
from primetui.ui.editor.fixes import ProblemActions
from primetui.ui.editor.launching import LaunchActions
from primetui.ui.widgets import SteadyFooter
from primetui.viewmodel.drafts import DraftStore
from primetui.ui.editor.findbar import FindBar
from primetui.ui.editor.keyorder import screen_key
from primetui.ui.editor.problems import ProblemsList
from primetui.ui.safe import plain
from primetui.ui.styles import tcss

VALIDATE_DELAY = 0.15  # seconds of quiet typing before a validation starts
AUTOSAVE_EVERY = 1.0  # a crash loses at most this much typing (plus one write)
WATCH_EVERY = 1.0  # seconds between looks at the file on disk (another program may change it)
CLOSE_ARMED_NOTE = "Unsaved changes: ctrl+s saves, esc again closes (or q outside the text); a draft is kept."


class EditorScreen(EditorFiles, ProblemActions, LaunchActions, EditingActions, Screen):
    """Edit one sft.toml. ``client`` (a PrimeClient) enables the model-cache check and dispatch.

    Dismisses with the new run id after a successful dispatch (``PrimeApp`` then opens the run's
    screen) and posts ``EditorScreen.Dispatched`` as well; dismisses with None when closed.
    """

    BINDINGS = [
        Binding("ctrl+s", "save", "Save", id="editor.save"),
        Binding("f12", "save_as", "Save as", show=False, id="editor.save_as"),
        Binding("f1", "key_help", "Help", id="editor.help"),
        Binding("f4,ctrl+full_stop", "quick_fix", "Fix", id="editor.quick_fix"),
        Binding("f8", "next_problem", "Next", id="editor.next_problem"),
        Binding("shift+f8", "prev_problem", "Prev problem", show=False, id="editor.prev_problem"),
        Binding("f2", "toggle_problems", "Problems", id="editor.problems"),
        Binding("ctrl+t", "templates", "Templates", id="editor.templates"),
        Binding("f5", "dispatch", "Dispatch", id="editor.dispatch"),
        Binding("ctrl+f", "find", "Find", show=False, id="editor.find"),
        Binding("ctrl+h,ctrl+r", "replace", "Replace", show=False, id="editor.replace"),
        Binding("f3", "find_step(1)", "Find next", show=False, id="editor.find_next"),
        Binding("shift+f3", "find_step(-1)", "Find previous", show=False, id="editor.find_prev"),
        Binding("ctrl+g", "goto_line", "Go to line", show=False, id="editor.goto_line"),
        Binding("ctrl+slash,ctrl+underscore", "toggle_comment", "Comment", show=False, id="editor.comment"),
        Binding("tab", "indent", "Indent", show=False, priority=True, id="editor.indent"),
        Binding("shift+tab", "dedent", "Dedent", show=False, priority=True, id="editor.dedent"),
        Binding("ctrl+home", "file_start", "Start of file", show=False, id="editor.file_start"),
        Binding("ctrl+end", "file_end", "End of file", show=False, id="editor.file_end"),
        Binding("ctrl+space,ctrl+@", "complete", "Complete", show=False, id="editor.complete"),
        Binding("shift+f1", "keys", "Keys", show=False, id="editor.keys"),
        Binding("f10", "external_editor", "$EDITOR", show=False, id="editor.external"),
        Binding("f9", "sweep", "Sweep", show=False, id="editor.sweep"),
        Binding("escape", "close", "Close", priority=True, id="editor.close"),
        Binding("q", "close_editor", "Close", show=False, id="editor.quit"),
    ]
    OWNS_LETTERS = True
    """The dashboard's letter keys (r v m e t q) stay off here: letters belong to the editor."""
    CSS_PATH = tcss("editor.tcss")

    close_armed: var[str | None] = var(None, init=False)
    """The text a close with unsaved changes was refused on (the first esc), None while not armed.
    A second close on that same text closes, whatever order the edits' Changed events arrive in;
    an edit that changes the text disarms it. Its watcher shows the warning and takes it away."""

    class Dispatched(Message):
        """A run was dispatched from the editor."""

        def __init__(self, run_id: str, volume: str | None) -> None:
            super().__init__()
            self.run_id = run_id
            self.volume = volume

    def __init__(
        self, path: str | Path | None, client: Any = None, *, drafts_root: Path | None = None, offer_drafts: bool = True
    ) -> None:
        super().__init__()
        self.path: Path | None = Path(path).expanduser() if path else None
        self.client = client
        self._drafts_root = drafts_root
        self._offer_drafts = offer_drafts
        self.drafts = DraftStore(self.path, drafts_root) if self.path else None
        self.saved_text = ""
        self.load_error: str | None = None
        self.newline = "\n"  # "\r\n" when the file was CRLF: saved back the same way
        self.disk_digest: str | None = None  # sha256 of the file as loaded or last saved
        self.read_only = False
        self.dir_read_only = False  # the file's directory may not be written to (a save writes beside the file)
        self._disk_stat: tuple | None = None
        self._disk_note_for: str | None = None  # the on-disk digest already reported as a conflict
        self.report: Report | None = None
        self.diagnostics: list[Diagnostic] = []
        self.server_diagnostics: list[Diagnostic] = []
        self.cached_models: frozenset[str] | None = None
        self.cache_note = ""
        self.volume_size: int | None = None
        self.version = 0
        self._validated_version = -1
        self._validated_text: str | None = None
        self._draft_dirty = False
        self._draft_kept = False  # the draft prompt was left with esc: the old draft must survive
        self._timer: Timer | None = None
        self._note = ""
        self._note_text: str | None = None
        """The text the note was set on: a note set by an edit (fix, template, draft) outlives that edit's
        own Changed event, however late it comes, and goes with the next change."""
        self._in_flight = False
        self._rerun = False
        self._hover_key: tuple | None = None
        self.validator = validator.Validator()  # this editor's own: closing the editor ends its helper
        self._initial_text = self._read_file()

    @property
    def note(self) -> str:
        """The last thing the editor did or could not do (second row of the message line)."""
        return self._note

    @note.setter
    def note(self, value: str) -> None:
        self._note = value
        found = self.query("#editor-area") if self.is_mounted else None
        self._note_text = found.first(DiagnosticTextArea).text if found else None

    @property
    def area(self) -> DiagnosticTextArea:
        return self.query_one("#editor-area", DiagnosticTextArea)

    @property
    def text(self) -> str:
        return self.area.text

    @property
    def modified(self) -> bool:
        return self.text != self.saved_text

    def compose(self) -> ComposeResult:
        yield Static("", id="editor-title")
        yield DiagnosticTextArea(
            self._initial_text, highlight=len(self._initial_text) <= HIGHLIGHT_LIMIT, id="editor-area"
        )
        yield ProblemsList(id="editor-problems")
        yield FindBar(id="editor-find")
        yield Static("", id="editor-message")
        yield SteadyFooter()  # Textual's rebuilt its keys on every refresh of the bindings

    def on_unmount(self) -> None:
        self.validator.close()  # its helper process (a few hundred MB on a big file) ends with the editor

    def on_mount(self) -> None:
        self.area.focus()
        self.set_interval(AUTOSAVE_EVERY, self._autosave)
        self.set_interval(WATCH_EVERY, self._watch_disk)
        if self.load_error:
            self.note = self.load_error
        elif self.dir_read_only:
            self.note = self.dir_note()
        elif self.path is not None and not self.path.exists():
            self.note = f"New file {self.path.name}: ctrl+t inserts a template from the hosted-SFT walkthrough."
        if len(self._initial_text) >= validator.BIG_TEXT:
            self.validator.warm()
        self._validate_now()
        if self.client is not None:
            self.load_model_cache()
        if self._offer_drafts:
            self._offer_draft()
        self._refresh_chrome()

    def on_resize(self) -> None:
        self._refresh_chrome()  # the title's long or short form follows the width

    async def _on_key(self, event: events.Key) -> None:
        if not await screen_key(self, event):  # keys of one burst in the order typed (keyorder.py)
            await super()._on_key(event)

    # -- validation ------------------------------------------------------------------------------
    @on(TextArea.Changed, "#editor-area")
    def _changed(self, event: TextArea.Changed) -> None:
        self.version += 1
        self._draft_dirty = True
        if self.text != self._note_text:
            self.note = ""  # a note outlives only the edit it describes
        self.server_diagnostics = []
        if self.close_armed is not None and self.close_armed != self.text:
            self.close_armed = None  # the text changed since the warning: a close asks again
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_timer(VALIDATE_DELAY, self._validate_now)
        self._refresh_title()

    def context(self) -> CheckContext:
        return CheckContext(hosted=True, cached_models=self.cached_models, volume_size_bytes=self.volume_size)

    def _validate_now(self) -> None:
        if self.load_error and not self.text:
            # the file was not loaded: its empty stand-in is not checked (no hint about an empty config)
            self._validated_version, self._validated_text = self.version, self.text
            self.call_after_refresh(self._refresh_chrome)
            return
        if self._in_flight:
            self._rerun = True  # one at a time: the latest text is checked when this one ends
            return
        self._in_flight = True
        self._rerun = False
        text = self.text
        if self.area.highlighting != (len(text) <= HIGHLIGHT_LIMIT):
            self.area.set_highlighting(len(text) <= HIGHLIGHT_LIMIT)  # the title bar says so
        self._validate(text, self.version, self.context())

    @work(group="validate")
    async def _validate(self, text: str, version: int, ctx: CheckContext) -> None:
        # asyncio.to_thread runs the check in a copy of this context. Textual's thread workers set
        # their Worker in the executor thread's own context instead, where it stays after the work
        # is done: each idle pool thread then kept the last editor it validated (and its documents).
        try:
            report = await asyncio.to_thread(self.validator.validate, text, ctx)
        except validator.ValidatorClosed:
            self._in_flight = False
            return  # the editor closed meanwhile: no one is waiting for this check
        except Exception as exc:  # noqa: BLE001 - a validator bug must not stop the editor
            self._validation_failed(f"Validation failed ({type(exc).__name__}: {exc}); please report it.")
            return
        self._apply_report(report, version, text)

    def _validation_failed(self, note: str) -> None:
        self._in_flight = False
        self.note = note
        self._refresh_chrome()

    def _apply_report(self, report: Report, version: int, text: str) -> None:
        self._in_flight = False
        if self._rerun or version != self.version:
            self._rerun = False
            if self.is_mounted:
                self._validate_now()  # the text changed meanwhile: check the latest one
            return
        if not self.is_mounted:
            return
        self.report = report
        if report.config is not None:  # a half-typed line keeps the kind the file had
            from primetui.sft.kind import schema_kind

            self._kind = schema_kind(report.config)
        self._validated_version = version
        self._validated_text = text
        self._show_diagnostics()

    def _show_diagnostics(self) -> None:
        problems = self.query("#editor-problems").results(ProblemsList)
        found = next(problems, None)
        if found is None:
            return  # a report that lands while the editor is closing (its widgets already gone)
        diags = sorted([*(self.report.diagnostics if self.report else []), *self.server_diagnostics], key=sort_key)
        self.diagnostics = diags
        self.area.set_diagnostics(diags)
        found.show(diags)
        self._refresh_chrome()

    @property
    def validated(self) -> bool:
        """True when the diagnostics on screen belong to the current text (also before its Changed
        event is handled, which is when ``version`` still names the previous text)."""
        return self._validated_version == self.version and self._validated_text == self.text

    @work(exclusive=True, group="models")
    async def load_model_cache(self) -> None:
        try:
            reply = await self.client.list_models()
        except Exception as exc:  # noqa: BLE001 - the rule is skipped, and we say so
            self.cache_note = f"model cache unavailable ({exc}); the model-cache rule is skipped"
            self._refresh_chrome()
            return
        self.cached_models = frozenset(m.name for m in reply.models)
        self.cache_note = f"model cache: {len(self.cached_models)} models"
        self._validate_now()

    # -- chrome ------------------------------------------------------------------------------------
    @property
    def config_kind(self) -> str:
        """``sft`` or ``rl``: the schema the last parsed text was checked with (``primetui.sft.kind.schema_kind``)."""
        return getattr(self, "_kind", "sft")

    def _refresh_title(self) -> None:
        title = self._title(short=False)
        if title.cell_len > self.app.size.width:  # the counts would be cut: the file name, counts first
            title = self._title(short=True)
            if title.cell_len > self.app.size.width:  # still too long (80 columns): short flags
                title = self._title(short=True, short_flags=True)
        else:
            title.append(f"   {PRIME_RL_VERSION.split(' (')[0]} @{PRIME_RL_COMMIT[:7]}", style="dim")
            if self.report is not None and self.report.note:
                title.append(" + installed prime_rl.configs", style="dim")
        self._update_line(self.query_one("#editor-title", Static), plain(title))

    def _title(self, short: bool, short_flags: bool = False) -> Text:
        name = str(self.path) if self.path else "untitled"
        home = str(Path.home())
        if name.startswith(home + os.sep):
            name = "~" + name[len(home) :]
        title = Text()
        title.append(f" {self.config_kind}.toml editor ", style="bold reverse")
        title.append(f" {self.path.name if short and self.path else name}", style="bold")
        counts = {lvl: sum(1 for d in self.diagnostics if d.level == lvl) for lvl in LEVELS}
        said = f"{counts['error']} error(s) · {counts['warning']} warning(s) · {counts['hint']} hint(s)"
        if short:
            title.append(f"  {said}")
        if self.is_mounted and self.modified:
            title.append("  ● modified")
        flags = [
            (self.load_error, "not loaded (see below)", "not loaded"),
            (self.read_only, "read-only (F12 saves elsewhere)", "read-only"),
            (not self.read_only and self.dir_read_only, "read-only directory (F12 saves elsewhere)", "read-only dir"),
        ]
        for shown, long_text, short_text in flags:
            if shown:
                title.append(f"  {short_text if short_flags else long_text}", style="bold")
        if self.newline == "\r\n":
            title.append("  CRLF", style="dim")
        if self.is_mounted and not self.area.highlighting:
            plain_text = f"plain text: no highlighting above {HIGHLIGHT_LIMIT:,} characters"
            title.append(f"  {'plain text' if short_flags else plain_text}", style="bold")
        if short:
            return title
        title.append(f"   {said}")
        return title

    def _refresh_chrome(self) -> None:
        if not self.is_mounted:
            return
        self._refresh_title()
        self._refresh_message()

    def _refresh_message(self) -> None:
        line, col = self.area.cursor_location
        here = self.area.diagnostics_at_line(line)
        msg = Text()
        msg.append(f"Ln {line + 1}, Col {col + 1}", style="bold")
        if here:
            d = self._best_at(line, col) or here[0]
            msg.append(f"  {d.level}: ", style="bold")
            msg.append(d.message)
            if d.fix is not None:
                more = f" or {len(d.alternatives)} other fix(es)" if d.alternatives else ""
                msg.append(f"  (F4: {d.fix.title}{more})", style="dim")
            if len(here) > 1:
                msg.append(f"  [+{len(here) - 1} more on this line: F2]", style="dim")
        elif self.cache_note and not self.note:
            msg.append("  " + self.cache_note, style="dim")
        box = self.query_one("#editor-message", Static)
        if self.note:
            # the box has 3 rows: the problem may use 2, the note always gets the last one
            width = max(20, (box.content_size.width or self.size.width - 2))
            if msg.cell_len > 2 * width:
                msg.truncate(2 * width - 1)
                msg.append("…")
            room = (3 - min(2, -(-msg.cell_len // width))) * width
            note = self.note if len(self.note) <= room else self.note[: room - 1] + "…"
            msg.append("\n" + note)
        self._update_line(box, plain(msg))

    @staticmethod
    def _update_line(box: Static, text: Text) -> None:
        """Show ``text`` in the title or message line, only if it changed. Both have a fixed size
        (CSS), so no layout pass: that took ~20 ms per key press on a big file."""
        shown = box.content if isinstance(box.content, Text) else None
        if shown is not None and shown.plain == text.plain and shown.spans == text.spans:
            return
        box.update(text, layout=False)

    def on_mouse_move(self, event: events.MouseMove) -> None:
        """Hover: the key under the mouse gets its F1 help as a tooltip."""
        area = self.area
        if event.widget is not area:
            return
        try:
            line, col = area.get_target_document_location(event)
        except Exception:  # noqa: BLE001 - outside the text (gutter, scrollbar)
            return
        from primetui.sft.help import describe
        from primetui.sft.spans import SpanMap

        spans = self.report.spans if self.report is not None and self.validated and self.report.spans else None
        if spans is None:
            if len(self.text) >= validator.BIG_TEXT:
                return  # not worth a parse per mouse move; F1 still works
            spans = SpanMap(self.text)
        hit = spans.at(line, col)
        key = hit[0] if hit and hit[1].key.contains_line(line) and hit[1].key.col <= col <= hit[1].key.end_col else None
        if key == self._hover_key:
            return
        self._hover_key = key
        raw = self.report.config if self.report is not None else None
        help_ = describe(key, raw) if key else None
        area.tooltip = help_.text() if help_ else None

    @on(TextArea.SelectionChanged, "#editor-area")
    def _moved(self, event: TextArea.SelectionChanged) -> None:
        self._refresh_message()
        # the message area may have grown and covered the cursor's row
        self.call_after_refresh(self.area.scroll_cursor_visible)

    # -- editing helpers -----------------------------------------------------------------------------
    def replace_all(self, text: str) -> None:
        """Replace the whole buffer as one undoable edit."""
        self.area.replace(text, (0, 0), self.area.document.end)

    # -- actions ----------------------------------------------------------------------------------------
    def action_key_help(self) -> None:
        from primetui.sft.assist import help_at
        from primetui.ui.editor.modals import KeyHelpModal

        line, col = self.area.cursor_location
        text = self.text
        spans = self.report.spans if self.report is not None and self.validated and self.report.spans else None
        raw = self.report.config if self.report is not None and self.report.config is not None else None
        path, help_ = help_at(text, line, col, spans, raw)
        if help_ is None:
            where = ".".join(map(str, path)) if path else ""
            self.note = (
                f"`{where}` is not a prime-rl {self.config_kind.upper()} key."
                if where
                else "Put the cursor on a key or a [table] header, then press F1."
            )
            self._refresh_chrome()
            return
        self.app.push_screen(KeyHelpModal(help_.title, list(help_.lines)))

    @on(ProblemsList.Jump)
    def _jump(self, event: ProblemsList.Jump) -> None:
        self.jump_to(event.diagnostic)

    def action_close(self) -> None:
        # Esc is a priority binding, so the app handles it before the focused widget has applied the
        # keys typed just before it (they wait in that widget's queue). Queue the close behind them:
        # the editor then decides on the text those keys produced, never on an older one.
        (self.app.focused or self).call_later(self._close_after_earlier_keys)

    def _close_after_earlier_keys(self) -> None:
        if not self.is_current:
            return  # an earlier key in the same batch already closed or covered the editor
        find = self.query_one(FindBar)
        if find.has_class("visible") and find.has_focus_within:
            find.close()
            self.area.focus()
            return
        problems = self.query_one("#editor-problems", ProblemsList)
        if problems.has_focus:
            problems.remove_class("visible")
            self.area.focus()
            return
        self.action_close_editor()

    def action_close_editor(self) -> None:
        """Close the editor; with unsaved changes, the first press only says so (a draft is kept)."""
        if self.modified and self.close_armed != self.text:
            self._autosave_now()
            self.close_armed = self.text  # the watcher shows the warning
            return
        self._autosave_now()
        self.dismiss(None)

    def watch_close_armed(self, armed: str | None) -> None:
        if armed is not None:
            self.note = CLOSE_ARMED_NOTE
        elif self.note == CLOSE_ARMED_NOTE:
            self.note = ""  # disarmed: the warning no longer holds
        else:
            return  # another note replaced the warning already: it stays
        self._refresh_chrome()
