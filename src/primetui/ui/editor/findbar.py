"""The editor's find / replace bar (ctrl+f, ctrl+h): plain text or a regular expression.

Enter in the find field goes to the next match, enter in the replace field replaces the current
match and goes on; F3 / shift+F3 step through matches from the text too.
"""

from __future__ import annotations

import re

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Input, Static

from primetui.ui.editor.keyorder import OrderedInput
from primetui.ui.safe import plain


class FindBar(Vertical):
    """Two fields and a status line; the screen does the searching (it owns the text)."""

    DEFAULT_CSS = """
    FindBar { height: auto; display: none; background: $panel; padding: 0 1; }
    FindBar.visible { display: block; }
    FindBar Horizontal { height: 1; }
    FindBar Input, FindBar Input:focus { height: 1; border: none; padding: 0; width: 1fr; }
    FindBar .find-label { width: 9; }
    FindBar #find-replace-row { display: none; }
    FindBar.replacing #find-replace-row { display: block; }
    FindBar #find-status { height: 1; color: $text-muted; }
    """
    BINDINGS = [
        Binding("alt+r", "toggle_regex", "Regex", id="editor.find.regex"),
        Binding("alt+c", "toggle_case", "Match case", id="editor.find.case"),
        Binding("alt+a", "replace_all", "Replace all", id="editor.find.replace_all"),
    ]

    class Search(Message):
        """Find again: ``step`` +1 next, -1 previous, 0 refresh from the cursor; ``replace`` the current first."""

        def __init__(self, step: int, replace: bool = False, replace_all: bool = False) -> None:
            super().__init__()
            self.step = step
            self.replace = replace
            self.replace_all = replace_all

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.regex = False
        self.case = False

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield Static("Find", classes="find-label")
            yield OrderedInput(placeholder="text to find", id="find-text")
        with Horizontal(id="find-replace-row"):
            yield Static("Replace", classes="find-label")
            yield OrderedInput(placeholder="replacement (\\1 for a regex group)", id="find-replace")
        yield Static("", id="find-status")

    @property
    def pattern(self) -> str:
        return self.query_one("#find-text", Input).value

    @property
    def replacement(self) -> str:
        return self.query_one("#find-replace", Input).value

    def open(self, replace: bool, seed: str = "") -> None:
        self.add_class("visible")
        self.set_class(replace, "replacing")
        field = self.query_one("#find-text", Input)
        if seed and "\n" not in seed:
            field.value = seed
        target = self.query_one("#find-replace", Input) if replace and field.value else field
        self.screen.set_focus(target)  # now, not after a refresh: the next key typed must land here
        self.post_message(self.Search(0))

    def close(self) -> None:
        self.remove_class("visible", "replacing")

    def status(self, text: str) -> None:
        flags = f"regex {'on' if self.regex else 'off'} (alt+r) · case {'on' if self.case else 'off'} (alt+c)"
        extra = " · enter replaces · alt+a all" if self.has_class("replacing") else ""
        self.query_one("#find-status", Static).update(plain(f"{text}   {flags}{extra} · F3 next · esc closes"))

    @on(Input.Changed, "#find-text")
    def _typed(self) -> None:
        self.post_message(self.Search(0))

    @on(Input.Submitted, "#find-text")
    def _next(self) -> None:
        self.post_message(self.Search(1))

    @on(Input.Submitted, "#find-replace")
    def _replace(self) -> None:
        self.post_message(self.Search(1, replace=True))

    def action_toggle_regex(self) -> None:
        self.regex = not self.regex
        self.post_message(self.Search(0))

    def action_toggle_case(self) -> None:
        self.case = not self.case
        self.post_message(self.Search(0))

    def action_replace_all(self) -> None:
        self.post_message(self.Search(0, replace_all=True))


def regex_error(exc: re.error) -> str:
    return (
        f"Not a valid regular expression: {exc.msg}" + (f" at position {exc.pos}" if exc.pos is not None else "") + "."
    )
