"""Deterministic programs and hosts for the terminal pane's snapshots (no shell prompt, no clock)."""

from __future__ import annotations

import sys

from textual.app import App

from primetui.shell.term.transport import PtyTransport
from primetui.ui.terminal import ShellSpec, open_spec

# A full-screen editor as vim draws one: alternate screen, scroll region, colours, tildes,
# a status line and the cursor parked in the text. Then it waits (until the pty closes).
EDITOR = r"""
import signal, sys
w = sys.stdout.write
lines = [
    ("\x1b[38;5;141m[model]\x1b[0m", ""),
    ("\x1b[38;5;81mname\x1b[0m = \x1b[38;5;186m\"PrimeIntellect/Qwen3-0.6B-Reverse-Text-SFT\"\x1b[0m", ""),
    ("", ""),
    ("\x1b[38;5;141m[data]\x1b[0m", ""),
    ("\x1b[38;5;81mseq_len\x1b[0m = \x1b[38;5;208m1024\x1b[0m  \x1b[38;5;244m# tokens per sample\x1b[0m", ""),
    ("\x1b[38;5;81mbatch_size\x1b[0m = \x1b[38;5;208m32\x1b[0m", ""),
]


def draw(*_):
    # Like vim, draw the whole screen again when the terminal's size changes (SIGWINCH): the
    # pane may get its final size only after the first frame.
    w("\x1b[H\x1b[2J\x1b[?25h")
    for i, (text, _) in enumerate(lines):
        w(f"\x1b[{i + 1};1H\x1b[33m{i + 1:3d} \x1b[0m{text}")
    for row in range(len(lines) + 1, 15):
        w(f"\x1b[{row};1H\x1b[1;34m~\x1b[0m")
    w("\x1b[15;1H\x1b[7m sft.toml [+]                                   5,16  All \x1b[0m")
    w("\x1b[16;1H\x1b[1m-- INSERT --\x1b[0m")
    w("\x1b[5;20H")
    sys.stdout.flush()


w("\x1b[?1049h")
signal.signal(signal.SIGWINCH, draw)
draw()
sys.stdin.read()
"""

# A coloured, wrapped shell-like transcript on the main screen.
TRANSCRIPT = r"""
import sys
w = sys.stdout.write
w("\x1b[1;32mroot@vol\x1b[0m:\x1b[1;34m/volume\x1b[0m$ ls\r\n")
w("\x1b[1;34mdatasets\x1b[0m  \x1b[1;34mruns\x1b[0m  \x1b[1;32mprepare.sh\x1b[0m  "
  "notes.md  \x1b[30;43mshared\x1b[0m\r\n")
w("\x1b[1;32mroot@vol\x1b[0m:\x1b[1;34m/volume\x1b[0m$ python check.py\r\n")
for i in range(6):
    w(f"step {i:2d}  loss \x1b[38;2;255;135;0m{2.5 / (i + 1):.4f}\x1b[0m  \x1b[2mlr 3e-4\x1b[0m  "
      "\x1b[4munderlined\x1b[0m \x1b[3mitalic\x1b[0m\r\n")
w("日本語 wide text and a long line that wraps around the edge of this narrow pane, " * 1 + "\r\n")
w("\x1b[1;32mroot@vol\x1b[0m:\x1b[1;34m/volume\x1b[0m$ ")
sys.stdout.flush()
sys.stdin.read()
"""


class ShellHost(App):
    """The shell screen with one tab running ``program`` (a Python snippet) on a pty."""

    def __init__(self, program: str, *, read_only: bool = False) -> None:
        super().__init__()
        self.program = program
        self.read_only = read_only

    def on_mount(self) -> None:
        program = self.program
        open_spec(
            self,
            ShellSpec(
                label=f"research · vs_7f3a · {'RO' if self.read_only else 'RW'}",
                make_transport=lambda: PtyTransport([sys.executable, "-c", program]),
                read_only=self.read_only,
                volume="research",
                session_id="vs_7f3a",
            ),
        )


# Enough numbered output to scroll back through, then an idle prompt.
LONG_OUTPUT = r"""
import sys
w = sys.stdout.write
for i in range(200):
    saved = "  \x1b[33mcheckpoint saved\x1b[0m" if i % 50 == 49 else ""
    w(f"epoch {i // 50}  step {i:3d}  loss {3.0 / (i + 1):.4f}" + saved + "\r\n")
w("$ ")
sys.stdout.flush()
sys.stdin.read()
"""
