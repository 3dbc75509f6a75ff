"""Helpers for the shell pane's Pilot tests."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Static

from primetui.ui.terminal import open_spec
from primetui.ui.terminal.screen import ShellSpec


class ShellSpecApp(App):
    """A one-line dashboard that opens a shell tab for ``spec`` as it starts."""

    def __init__(self, spec: ShellSpec) -> None:
        super().__init__()
        self.spec = spec

    def compose(self) -> ComposeResult:
        yield Static("dashboard")

    def on_mount(self) -> None:
        open_spec(self, self.spec)
