"""The Logs pane showing the lines of a file, as the tmux test drives it in a real terminal.

python -m tests.e2e.monitor_app FILE
"""

from __future__ import annotations

import sys
from pathlib import Path

from textual.app import App, ComposeResult

from tests.runs import wire_run
from primetui.ui.monitor import LogsPane


class MonitorFileApp(App):
    """One LogsPane with the file's lines in its trainer tab."""

    def __init__(self, path: str) -> None:
        super().__init__()
        self.path = Path(path)

    def compose(self) -> ComposeResult:
        yield LogsPane(None, wire_run(id="e2e", status="COMPLETED", runConfig={}), follow=False)

    def on_mount(self) -> None:
        pane = self.query_one(LogsPane)
        pane.ingest("trainer", self.path.read_text(encoding="utf-8", errors="replace").split("\n"))
        pane.tabs["trainer"].view.focus()


if __name__ == "__main__":
    MonitorFileApp(sys.argv[1]).run()
