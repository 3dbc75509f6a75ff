"""Small dialogs of the editor: key help, templates, draft restore, save as."""

from __future__ import annotations

import time
from pathlib import Path
from typing import cast

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from primetui.sft.templates import TEMPLATES
from primetui.ui.editor.keyorder import (
    AnswersEnterNow,
    OrderedInput,
    hand_on_from_screen,
)
from primetui.ui.safe import plain
from primetui.ui.styles import tcss
from primetui.ui.widgets import tone_colour


class KeyHelpModal(ModalScreen[None]):
    """F1: type, default, allowed values and description of the key under the cursor."""

    CSS_PATH = tcss("editor_modals.tcss")
    BINDINGS = [Binding("escape,f1,enter,q", "dismiss_help", "Close", id="editor.help.close")]

    def __init__(self, title: str, lines: list[str]) -> None:
        super().__init__()
        self.title_text = title
        self.lines = lines

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(plain(self.title_text), classes="modal-title")
            yield Static(Text("\n".join(self.lines)), id="help-body")
            yield Static("esc closes", classes="modal-hint")

    def action_dismiss_help(self) -> None:
        self.dismiss(None)


class TemplatePicker(ModalScreen[str | None]):
    """Ctrl+T: pick one of the seed's configs; returns its key."""

    CSS_PATH = tcss("editor_modals.tcss")
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="editor.templates.cancel")]

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Insert a template (replaces the buffer; ctrl+z undoes it)", classes="modal-title")
            options = []
            for t in TEMPLATES:
                label = Text.assemble((t.title, "bold"), "\n  ", (t.description, "dim"))
                options.append(Option(label, id=t.key))
            yield OptionList(*options, id="template-list")
            yield Static("enter inserts · esc cancels", classes="modal-hint")

    @on(OptionList.OptionSelected)
    def _picked(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)


class DraftPrompt(ModalScreen[bool | None]):
    """Offer back a draft that was autosaved but never saved to the file.

    True restores it, False discards it (only ``d``), None keeps it for next time (esc).
    """

    CSS_PATH = tcss("editor_modals.tcss")
    BINDINGS = [
        Binding("r,enter", "choose(True)", "Restore", id="editor.draft.restore"),
        Binding("d", "choose(False)", "Discard", id="editor.draft.discard"),
        Binding("escape", "choose(None)", "Keep for later", id="editor.draft.keep"),
    ]

    def __init__(self, path: Path, saved_at: float, lines_changed: int) -> None:
        super().__init__()
        self.path = path
        self.saved_at = saved_at
        self.lines_changed = lines_changed

    def compose(self) -> ComposeResult:
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(self.saved_at))
        with Vertical():
            yield Static("Unsaved changes found", classes="modal-title")
            yield Static(
                plain(
                    f"{self.path.name} has an autosaved draft from {when} that differs from the file "
                    f"({self.lines_changed} line(s) changed)."
                )
            )
            yield Static(
                "r / enter restores it (ctrl+z goes back to the file) · d discards it · esc keeps it for later",
                classes="modal-hint",
            )

    def action_choose(self, restore: bool | None) -> None:
        self.dismiss(restore)


class TypeAhead(AnswersEnterNow):
    """Mixin for a dialog with one text field, which takes every key of the dialog in typing order.

    Keys reach the dialog itself, not its field: from the App (keyorder.route_to_dialog) and from
    the editor, which hands on the keys typed ahead behind the key that opened the dialog
    (keyorder.hand_on). The dialog feeds each to its field at once, focused first if it was not yet,
    so ``ctrl+g 2 0 enter`` in one read goes to line 20. Enter submits what was typed before it,
    answered at once (keyorder.AnswersEnterNow): the keys behind an enter that closes the dialog go
    on to the editor.
    """

    FIELD = "Input"

    def answer_enter(self, event: Input.Submitted) -> None:
        self._submitted(event)  # type: ignore[attr-defined]

    async def on_key(self, event) -> None:
        if hand_on_from_screen(self, event):  # type: ignore[arg-type]  # closed by an earlier enter
            return
        field = self.query_one(self.FIELD, OrderedInput)  # type: ignore[attr-defined]
        if self.focused is not field:  # type: ignore[attr-defined]
            self.set_focus(field)  # type: ignore[attr-defined]  # at once: its bindings answer this key
        event.stop()
        event.prevent_default()
        await field.take_key(event)  # every key of this dialog comes here (keyorder), in order


class SaveAsPrompt(TypeAhead, ModalScreen[Path | None]):
    """F12: a path to save the buffer to."""

    CSS_PATH = tcss("editor_modals.tcss")
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="editor.save_as.cancel")]

    def __init__(self, current: Path | None) -> None:
        super().__init__()
        self.current = current
        self._confirmed: Path | None = None  # a path whose question (new directory, overwrite) was answered

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Save as", classes="modal-title")
            yield OrderedInput(value=str(self.current or Path.cwd() / "sft.toml"), id="save-as-path")
            yield Static(
                "enter saves · esc cancels · ~ is your home directory", classes="modal-hint", id="save-as-hint"
            )

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        value = event.value.strip()
        if not value:
            self.notify("Type a file path first.", severity="warning")
            return
        path = Path(value).expanduser()
        if refused := self._refusal(path):
            self.query_one("#save-as-hint", Static).update(plain(refused + " · esc cancels"))
            return
        question = self._question(path)
        if question and self._confirmed != path:
            self._confirmed = path
            self.query_one("#save-as-hint", Static).update(plain(question + " · enter again to confirm · esc cancels"))
            return
        self.dismiss(path)

    def _question(self, path: Path) -> str:
        if not path.parent.exists():
            return f"{path.parent} does not exist: create it?"
        if path.exists() and path != self.current:
            return f"{path.name} exists: overwrite it?"
        return ""

    def action_cancel(self) -> None:
        self.dismiss(None)

    @staticmethod
    def _refusal(path: Path) -> str:
        """Why ``path`` cannot be written, said in the dialog before it closes ("" when it can be tried)."""
        import os

        from primetui.config.fileio import is_read_only

        if path.is_dir():
            return f"{path} is a directory: add a file name."
        if path.exists() and is_read_only(path):
            return f"{path.name} is read-only: pick another path."
        parent = next((p for p in (path.parent, *path.parent.parents) if p.exists()), None)
        if parent is not None and not os.access(parent, os.W_OK):
            return f"{parent} is not writable: pick another directory."
        return ""


class ConflictPrompt(ModalScreen[str | None]):
    """Ctrl+S found the file changed on disk since it was loaded. Returns "reload", "overwrite" or None."""

    CSS_PATH = tcss("editor_modals.tcss")
    BINDINGS = [
        Binding("r", "choose('reload')", "Reload", id="editor.conflict.reload"),
        Binding("d", "diff", "Diff", id="editor.conflict.diff"),
        Binding("o", "choose('overwrite')", "Overwrite", id="editor.conflict.overwrite"),
        Binding("a", "choose('save_as')", "Save as", id="editor.conflict.save_as"),
        Binding("escape", "choose(None)", "Cancel", id="editor.conflict.cancel"),
    ]

    def __init__(self, path: Path, *, gone: bool, diff: list[str]) -> None:
        super().__init__()
        self.path = path
        self.gone = gone
        self.diff = diff

    def compose(self) -> ComposeResult:
        from textual.containers import VerticalScroll

        what = "was deleted or cannot be read" if self.gone else "changed on disk"
        with Vertical():
            yield Static(plain(f"{self.path.name} {what} since you opened it"), classes="modal-title")
            yield Static("Saving now would replace the other program's version with yours.")
            with VerticalScroll(id="conflict-diff"):
                body = Text()
                for line in self.diff or ["(no line differs: only line ends or encoding changed)"]:
                    tone = "success" if line.startswith("+") else "error" if line.startswith("-") else ""
                    body.append(line + "\n", style=tone_colour(self, tone) or "")
                yield Static(plain(body), id="conflict-diff-body")
            if self.gone:
                hint = "o writes your text there again · a saves it elsewhere · d shows the diff · esc cancels"
            else:
                hint = (
                    "r reloads the file (ctrl+z brings your edits back) · d shows the diff · o overwrites it · "
                    "a saves elsewhere · esc cancels"
                )
            yield Static(hint, classes="modal-hint")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return not (self.gone and action == "choose" and parameters == ("reload",))  # nothing to reload

    def action_diff(self) -> None:
        self.query_one("#conflict-diff").toggle_class("shown")

    def action_choose(self, choice: str | None) -> None:
        self.dismiss(choice)


class GoToLinePrompt(TypeAhead, ModalScreen[tuple[int, int] | None]):
    """Ctrl+G: ``line`` or ``line:col`` (1-based); returns the 0-based position."""

    CSS_PATH = tcss("editor_modals.tcss")
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="editor.goto_line.cancel")]

    def __init__(self, line_count: int) -> None:
        super().__init__()
        self.line_count = line_count

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(f"Go to line (1–{self.line_count})", classes="modal-title")
            yield OrderedInput(placeholder="line or line:column", id="goto-line")
            yield Static("enter goes · esc cancels", classes="modal-hint", id="goto-hint")

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        line, _, col = event.value.strip().partition(":")
        try:
            pos = (int(line) - 1, int(col) - 1 if col else 0)
        except ValueError:
            self.query_one("#goto-hint", Static).update(
                plain(f"`{event.value.strip()}` is not a line number: type e.g. 12 or 12:5 · esc cancels")
            )
            return
        self.dismiss((min(max(pos[0], 0), self.line_count - 1), max(pos[1], 0)))

    def action_cancel(self) -> None:
        self.dismiss(None)


class CompletionPicker(ModalScreen[int | None]):
    """Ctrl+space: what may be typed here, each with its type and default; returns the chosen index."""

    CSS_PATH = tcss("editor_modals.tcss")
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="editor.complete.cancel")]

    def __init__(self, title: str, items: list[tuple[str, str]]) -> None:
        super().__init__()
        self.title_text = title
        self.items = items

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(plain(self.title_text), classes="modal-title")
            yield OptionList(
                *[
                    Option(Text.assemble((label, "bold"), "  ", (detail, "dim")), id=str(i))
                    for i, (label, detail) in enumerate(self.items)
                ],
                id="completion-list",
            )
            yield Static("enter inserts · esc cancels", classes="modal-hint")

    @on(OptionList.OptionSelected)
    def _picked(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(int(cast(str, event.option.id)))  # every option is built with its index as id

    def action_cancel(self) -> None:
        self.dismiss(None)
