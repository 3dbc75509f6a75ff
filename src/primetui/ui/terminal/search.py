"""The one-line prompt that asks what to find in a terminal's scrollback."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static
from primetui.ui.styles import tcss


class SearchPrompt(ModalScreen[str | None]):
    """Returns the text to find, or None when cancelled."""

    CSS_PATH = tcss("shell_dialogs.tcss")
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="terminal.search_cancel")]

    def __init__(self, previous: str = "") -> None:
        super().__init__()
        self.previous = previous

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Find in scrollback (case-insensitive); enter searches up, then n / N for more.")
            yield Input(value=self.previous, placeholder="text to find", id="terminal-search")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip() or None)

    def action_cancel(self) -> None:
        self.dismiss(None)
