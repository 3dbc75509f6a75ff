"""``python -m primetui.ui.terminal [-- COMMAND ...]``: the shell screen with local shells.

No platform needed: each tab runs COMMAND (default: your login shell) on a local pty. Useful to
try the pane's keys, full-terminal mode and programs like vim, less or htop.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widgets import Footer, Static

from primetui.shell.term.transport import PtyTransport
from primetui.ui.terminal import ShellSpec, open_spec, show_shells


class LocalShellApp(App):
    """Local shells in the dashboard's shell screen."""

    TITLE = "primetui shells"
    BINDINGS = [
        Binding("n", "new_shell", "New shell", id="local_shells.new"),
        Binding("s", "shells", "Shells", id="local_shells.show"),
        Binding("q", "quit", "Quit", id="local_shells.quit"),
    ]

    def __init__(self, argv: list[str]) -> None:
        from primetui.ui.terminal.altkeys import install as keep_alt_keys

        keep_alt_keys()  # Alt+key reaches the shell as the terminal sent it
        super().__init__()
        self.argv = argv
        self.opened = 0

    def compose(self) -> ComposeResult:
        yield Static("\n  No shell on screen. n opens a local shell, s shows open shells, q quits.", id="home")
        yield Footer()

    def on_mount(self) -> None:
        self.action_new_shell()

    def action_new_shell(self) -> None:
        self.opened += 1
        argv = self.argv
        open_spec(
            self,
            ShellSpec(
                label=f"local {self.opened} · {os.path.basename(argv[0])}", make_transport=lambda: PtyTransport(argv)
            ),
        )

    def action_shells(self) -> None:
        if not show_shells(self):
            self.notify("No shells are open; n opens one.")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m primetui.ui.terminal", description=__doc__.splitlines()[0])
    parser.add_argument("command", nargs=argparse.REMAINDER, help="program to run in each tab (default: $SHELL -l)")
    args = parser.parse_args(argv)
    command = [c for c in args.command if c != "--"] or [os.environ.get("SHELL") or "/bin/bash"]
    if len(command) == 1 and " " in command[0]:
        command = shlex.split(command[0])
    LocalShellApp(command).run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
