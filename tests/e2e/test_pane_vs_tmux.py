"""The shell pane against a plain tmux pane of the same size (issue 29 item 6).

Each test runs the same program twice: in a plain tmux pane, and in primetui's shell pane inside
tmux, sized so the inner pane has exactly the plain pane's size. Then it compares what
``capture-pane`` shows of each (text, and with ``-e`` the colours and underlines), through
resizes, copies, colours, underline styles and a stray escape sequence.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("tmux") is None or shutil.which("bash") is None, reason="tmux and bash are needed"),
]

ROOT = Path(__file__).resolve().parents[2]
BASH = "bash --norc --noprofile -i"
ENV = "env PS1='$ ' HISTFILE=/dev/null COLORTERM=truecolor LANG=C.UTF-8"


class Tmux:
    """One tmux server with one window running ``command``."""

    def __init__(self, tmp: Path, cols: int, rows: int, command: str) -> None:
        self.socket = f"primetui-diff-{os.getpid()}-{time.monotonic_ns()}"
        self.env = dict(os.environ, HOME=str(tmp), TERM="xterm-256color")
        self.run("-f", "/dev/null", "new-session", "-d", "-x", str(cols), "-y", str(rows), "-s", "t", command)
        self.run("set", "-s", "set-clipboard", "on")  # OSC 52 from the pane lands in a tmux buffer
        self.run("set", "-g", "status", "off")

    def run(self, *args: str) -> str:
        return subprocess.run(
            ["tmux", "-L", self.socket, *args], capture_output=True, text=True, env=self.env, timeout=20
        ).stdout

    def type(self, text: str) -> None:
        self.run("send-keys", "-t", "t", "-l", text)

    def enter(self) -> None:
        self.run("send-keys", "-t", "t", "Enter")

    def screen(self, escapes: bool = False) -> list[str]:
        return self.run("capture-pane", "-p", *(["-e"] if escapes else []), "-t", "t").split("\n")

    def resize(self, cols: int) -> None:
        self.run("resize-window", "-t", "t", "-x", str(cols))

    def wait(self, predicate, what: str, timeout: float = 40.0) -> list[str]:
        deadline = time.monotonic() + timeout
        lines: list[str] = []
        while time.monotonic() < deadline:
            lines = self.screen()
            if predicate("\n".join(lines)):
                return lines
            time.sleep(0.1)
        raise AssertionError(f"waited {timeout:.0f}s for {what}; the terminal shows:\n" + "\n".join(lines))

    def close(self) -> None:
        self.run("kill-server")


class Pair:
    """A plain tmux pane (``plain``) and primetui's pane in tmux (``ours``), both cols x rows inside."""

    def __init__(self, tmp: Path, cols: int = 80, rows: int = 24) -> None:
        self.ours = Tmux(tmp, cols, rows, f"cd {ROOT} && {ENV} {sys.executable} -m primetui.ui.terminal -- {BASH}")
        self.ours.wait(lambda s: "$" in s and "Leave shell" in s, "the shell tab")
        self.ours.type("stty size")
        self.ours.enter()
        shown = self.ours.wait(lambda s: re.search(r"^\d+ \d+$", s, re.M), "the pane's size")
        size = next(line for line in shown if re.fullmatch(r"\d+ \d+", line))
        self.rows, self.cols = map(int, size.split())
        self.top = next(i for i, line in enumerate(shown) if line.startswith("$ stty size"))
        self.plain = Tmux(tmp, self.cols, self.rows, f"{ENV} {BASH}")
        self.plain.wait(lambda s: "$" in s, "the plain shell")

    def both(self, command: str) -> None:
        for t in (self.plain, self.ours):
            t.type(command)
            t.enter()

    def pane(self, t: Tmux, escapes: bool = False) -> list[str]:
        lines = t.screen(escapes)
        return lines[self.top : self.top + self.rows] if t is self.ours else lines[: self.rows]

    def settle(self, marker: str, what: str) -> tuple[list[str], list[str]]:
        """Both panes once each shows ``marker`` and has stopped changing."""
        out = []
        for t in (self.plain, self.ours):
            t.wait(lambda s: marker in s, f"{what} in the {'plain' if t is self.plain else 'primetui'} pane")
            last: list[str] = []
            for _ in range(50):
                now = self.pane(t)
                if now == last:
                    break
                last = now
                time.sleep(0.1)
            out.append([line.rstrip() for line in last])
        return out[0], out[1]

    def resize(self, cols: int) -> None:
        self.plain.resize(cols)
        self.ours.resize(cols)

    def agree(self, marker: str, what: str, same, timeout: float = 40.0) -> tuple[list[str], list[str]]:
        """Both panes, settled, once ``same(plain, ours)`` holds (a resize reflows asynchronously)."""
        deadline = time.monotonic() + timeout
        while True:
            plain, ours = self.settle(marker, what)
            if same(plain, ours):
                return plain, ours
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"waited {timeout:.0f}s for {what}; plain tmux shows:\n"
                    + "\n".join(plain)
                    + "\nprimetui's pane shows:\n"
                    + "\n".join(ours)
                )

    def close(self) -> None:
        self.plain.close()
        self.ours.close()


@pytest.fixture
def pair(tmp_path):
    p = Pair(tmp_path)
    try:
        yield p
    finally:
        p.close()


def _without_prompt_rows(lines: list[str]) -> list[str]:
    # bash redraws its prompt on SIGWINCH at a moment of its choosing: compare the output only.
    return [line for line in lines if not line.startswith("$")]


def test_rewrap_on_resize_matches_tmux_both_ways(pair: Pair) -> None:
    long1 = "".join(chr(ord("a") + i % 26) for i in range(150))
    long2 = "".join(str(i % 10) for i in range(100))
    pair.both(f"clear; printf '%s\\n' {long1} short {long2}; echo DONE-$((1+1))")
    plain, ours = pair.settle("DONE-2", "the long lines")
    assert ours == plain
    for cols in (50, 33, 120, 80):
        pair.resize(cols)
        plain, ours = pair.agree(
            "DONE-2",
            f"the lines rewrapped as tmux does at {cols} columns",
            lambda p, o: _without_prompt_rows(o) == _without_prompt_rows(p),
        )
    assert long2 in "".join(_without_prompt_rows(ours))  # nothing was cut for good


def test_scrollback_rewraps_like_tmux(pair: Pair) -> None:
    pair.both(
        "clear; for i in $(seq 1 60); do printf 'row %02d %s\\n' $i $(printf 'x%.0s' $(seq 1 70)); done; echo "
        "DONE-$((2+2))"
    )
    pair.settle("DONE-4", "sixty rows")
    pair.resize(40)
    pair.settle("DONE-4", "the rows at 40 columns")
    pair.resize(100)
    plain, ours = pair.settle("DONE-4", "the rows back at 100 columns")
    assert _without_prompt_rows(ours) == _without_prompt_rows(plain)
    assert any(line.startswith("row 50 x") and line.endswith("x" * 70) for line in ours)  # came back whole


def test_copy_of_a_wrapped_line_is_joined_like_tmux(pair: Pair) -> None:
    words = " ".join(f"word{i:02d}" for i in range(25))  # 174 cells: wraps twice at 80
    pair.both(f"clear; echo {words}; echo DONE-$((3+3))")
    plain, ours = pair.settle("DONE-6", "the wrapped words")
    assert ours == plain
    # tmux's own copy of those rows: -J joins soft-wrapped rows.
    start = next(i for i, line in enumerate(plain) if line.startswith("word00"))
    tmux_copy = pair.plain.run("capture-pane", "-p", "-J", "-t", "t", "-S", str(start), "-E", str(start + 2)).rstrip(
        "\n"
    )
    # primetui's copy: drag over the same rows with the mouse (SGR mouse reports into the app).
    y0 = pair.top + start + 1
    x1, y1 = len(ours[start + 2]), y0 + 2
    pair.ours.type(f"\x1b[<0;1;{y0}M\x1b[<32;{x1};{y1}M\x1b[<0;{x1};{y1}m")
    deadline = time.monotonic() + 20
    copied = ""
    while time.monotonic() < deadline and not copied:
        copied = pair.ours.run("show-buffer")
        time.sleep(0.1)
    assert copied == tmux_copy == words


def test_the_16_colours_are_distinct_and_follow_the_palette(pair: Pair) -> None:
    from primetui.shell.term.palette import XTERM

    cells = "".join(f"\\e[{30 + i if i < 8 else 82 + i}mC{i:02d}" for i in range(16))
    pair.both(f"clear; printf '{cells}\\e[0m\\n'; echo DONE-$((4+4))")
    pair.settle("DONE-8", "the colour cells")
    plain = "\n".join(pair.pane(pair.plain, escapes=True))
    ours = "\n".join(pair.pane(pair.ours, escapes=True))
    plain_codes = [int(c) for c in re.findall(r"\x1b\[(\d+)mC\d\d", plain)]
    assert plain_codes == [30 + i if i < 8 else 82 + i for i in range(16)]  # tmux keeps the indexes
    ours_rgb = [tuple(map(int, m)) for m in re.findall(r"38;2;(\d+);(\d+);(\d+)m(?:\x1b\[[0-9;]*m)*C\d\d", ours)]
    assert len(ours_rgb) == 16, ours
    assert len(set(ours_rgb)) == 16  # red != magenta, bright != normal
    assert ours_rgb == list(XTERM)  # each index drawn with the palette's colour for it


UNDERLINES = {
    # what a program sends: (what tmux keeps, what primetui draws); None = the same as tmux
    "4": ({"4"}, None),
    "4:2": ({"4:2"}, None),
    "21": ({"4:2"}, None),
    "4:3": ({"4:3"}, {"4"}),  # curly: Rich has no curly underline, so it is drawn single
    "4:4": ({"4:4"}, {"4"}),  # dotted: the same
    "4:5": ({"4:5"}, {"4"}),  # dashed: the same
    "53": (None, None),  # overline: as tmux keeps it, whatever its capture prints for it
    "4;58:5:196": ({"4", "58"}, {"4"}),  # an underline colour: Rich cannot draw one
}


def _attributes(captured: str) -> dict[str, set[str]]:
    """The SGR attributes (colours left out) of each ``U<n>`` cell in a ``capture-pane -e`` row."""
    out: dict[str, set[str]] = {}
    current: set[str] = set()
    for token in re.split(r"(\x1b\[[0-9;:]*m)", captured):
        if not token.startswith("\x1b["):
            for label in re.findall(r"U\d+", token):
                out[label] = set(current)
            continue
        params = token[2:-1].split(";")
        if params[0] in ("0", ""):
            current.clear()
            params = params[1:]
        i = 0
        while i < len(params):
            p = params[i]
            if p in ("38", "48", "58"):
                i += 3 if params[i + 1 : i + 2] == ["5"] else 5 if params[i + 1 : i + 2] == ["2"] else 1
                if p == "58":
                    current.add("58")
                continue
            if p.startswith("58:"):
                current.add("58")
            elif p not in ("39", "49"):
                current.add(p)
            i += 1
    return out


def test_underline_styles_and_overline_as_tmux_keeps_them_or_degraded(pair: Pair) -> None:
    cells = "".join(f"\\e[0;{code}mU{i}" for i, code in enumerate(UNDERLINES))
    pair.both(f"clear; printf '{cells}\\e[0m\\n'; echo DONE-$((5+5))")
    pair.settle("DONE-10", "the underlined cells")
    plain = _attributes(pair.pane(pair.plain, escapes=True)[0])
    ours = _attributes(pair.pane(pair.ours, escapes=True)[0])
    for i, (code, (tmux_keeps, we_draw)) in enumerate(UNDERLINES.items()):
        label = f"U{i}"
        assert plain[label] == (tmux_keeps if tmux_keeps is not None else plain[label]) and plain[label], code
        assert ours[label] == (we_draw if we_draw is not None else plain[label]), code


def test_a_stray_dcs_does_not_freeze_the_pane(pair: Pair) -> None:
    # A program emits an unterminated DCS, then keeps redrawing like top: tmux gives the string up
    # (after its 5 s timer at the latest); the pane must show the frames again too.
    pair.both(
        "clear; printf '\\eP'; for i in $(seq 1 8); do printf '\\e[H\\e[2Kframe %d' $i; sleep 1; done; echo; echo "
        "DONE-$((6+6))"
    )
    plain, ours = pair.settle("DONE-12", "the last frame")
    assert "frame 8" in plain[0] and "frame 8" in ours[0]
