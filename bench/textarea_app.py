"""The baseline of ``bench/validate.py --typing``: a plain Textual ``TextArea.code_editor`` (toml) on one file."""

from __future__ import annotations

import sys
from pathlib import Path

from textual.app import App, ComposeResult
from textual.widgets import TextArea


class Plain(App):
    def __init__(self, path: str) -> None:
        super().__init__()
        self.text = Path(path).read_text()

    def compose(self) -> ComposeResult:
        yield TextArea.code_editor(self.text, language="toml", soft_wrap=False)


if __name__ == "__main__":
    Plain(sys.argv[1]).run()
