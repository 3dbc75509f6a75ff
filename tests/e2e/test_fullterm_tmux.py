"""Full-terminal mode in a real terminal (tmux), as a new user meets it: a shell tab, f12 hands
the whole terminal to the shell, ctrl+] brings the dashboard back with the shell still alive."""

from __future__ import annotations

import os
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


class Tmux:
    def __init__(self, tmp: Path, cols: int, rows: int, command: str) -> None:
        self.socket = f"primetui-e2e-{os.getpid()}-{time.monotonic_ns()}"
        env = dict(os.environ, HOME=str(tmp), PS1="$ ", TERM="xterm-256color", HISTFILE="/dev/null")
        self.run("new-session", "-d", "-x", str(cols), "-y", str(rows), "-s", "t", command, env=env)

    def run(self, *args: str, env: dict[str, str] | None = None) -> str:
        out = subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True, env=env, timeout=20)
        return out.stdout

    def keys(self, *keys: str) -> None:
        self.run("send-keys", "-t", "t", *keys)

    def type(self, text: str) -> None:
        self.run("send-keys", "-t", "t", "-l", text)

    def screen(self) -> str:
        return self.run("capture-pane", "-p", "-t", "t")

    def wait(self, predicate, what: str, timeout: float = 40.0) -> str:
        deadline = time.monotonic() + timeout
        text = ""
        while time.monotonic() < deadline:
            text = self.screen()
            if predicate(text):
                return text
            time.sleep(0.1)
        raise AssertionError(f"waited {timeout:.0f}s for {what}; the terminal shows:\n{text}")

    def close(self) -> None:
        self.run("kill-server")


@pytest.fixture
def tmux(tmp_path):
    command = (
        f"cd {ROOT} && env PS1='$ ' HISTFILE=/dev/null {sys.executable} -m primetui.ui.terminal -- bash --norc "
        f"--noprofile -i"
    )
    t = Tmux(tmp_path, 100, 30, command)
    try:
        yield t
    finally:
        t.close()


def test_full_terminal_mode_round_trip(tmux: Tmux) -> None:
    tmux.wait(lambda s: "$" in s and "Full terminal" in s, "the shell tab and its keys")
    tmux.type("echo pane-$((2+3)); stty size")
    tmux.keys("Enter")
    pane = tmux.wait(lambda s: "pane-5" in s, "the command's output in the pane")
    assert "30 100" not in pane  # the pane is smaller than the terminal (tab bar, header, footer)

    tmux.keys("F12")
    tmux.wait(lambda s: "Full terminal" not in s and "ctrl+] returns" in s, "the real terminal handed to the shell")
    tmux.type("clear; stty size; echo full-$((3*3))")
    tmux.keys("Enter")
    # the shell now has the whole terminal
    tmux.wait(lambda s: "full-9" in s and "30 100" in s, "output and the whole terminal's size")

    tmux.keys("C-]")
    # what happened meanwhile is in the pane too
    tmux.wait(lambda s: "Full terminal" in s and "full-9" in s, "the dashboard back, with the output")
    tmux.type("echo still-alive; stty size")
    tmux.keys("Enter")
    again = tmux.wait(lambda s: "still-alive" in s.split("full-9")[-1], "the same shell, back in the pane")
    assert "30 100" not in again.split("still-alive")[-1]  # and back at the pane's size

    tmux.keys("C-]")
    tmux.wait(lambda s: "Leave" in s and "Close shell" in s, "the leave dialog")
    tmux.keys("c")
    tmux.wait(lambda s: "No shell on screen" in s, "the home screen after closing the shell")
    tmux.keys("q")


def _kill_leftovers(marker: str) -> None:
    """Stop processes this test started (found by its private data dir), by pid."""
    import signal

    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if marker in cmdline:
            try:
                os.kill(int(entry.name), signal.SIGTERM)
            except OSError:
                pass


def test_new_user_opens_a_volume_shell_from_the_dashboard(tmp_path) -> None:
    """primetui --local → volumes → open a read-write session → its shell → full terminal and back
    → leave with stop-and-sync → the file written in the shell is on the volume."""
    data = tmp_path / "data"
    command = (
        f"cd {ROOT} && env PRIMETUI_LOCAL_DATA_DIR={data} PRIMETUI_CONFIG_DIR={tmp_path / 'cfg'} "
        f"PRIMETUI_LOCAL_SPEED=50 {sys.executable} -m primetui --local"
    )
    t = Tmux(tmp_path, 110, 34, command)
    try:
        t.wait(lambda s: "Quit" in s, "the dashboard", timeout=90)
        t.keys("v")
        t.wait(lambda s: "research" in s, "the volumes screen")
        t.keys("o")
        screen = t.wait(lambda s: " ready " in s, "the read-write session to be ready", timeout=90)
        row = next(i for i, line in enumerate(screen.splitlines(), 1) if "vs_" in line and " ready " in line)
        # Click the session row (SGR mouse report, as the terminal sends it).
        t.type(f"\x1b[<0;5;{row}M")
        t.type(f"\x1b[<0;5;{row}m")
        t.wait(lambda s: "Full terminal" in s and "read-write" in s, "the shell tab", timeout=60)
        t.wait(lambda s: "#" in s.split("stops")[-1] or "$" in s.split("stops")[-1], "the prompt")
        t.type("echo from-the-pane > hello.txt; echo written-$((6*7))")
        t.keys("Enter")
        t.wait(lambda s: "written-42" in s, "the command's output")

        t.keys("F12")
        t.wait(lambda s: "ctrl+] returns" in s and "Full terminal" not in s, "full-terminal mode")
        t.type("stty size")
        t.keys("Enter")
        t.wait(lambda s: "34 110" in s, "the shell at the terminal's full size")
        t.keys("C-]")
        t.wait(lambda s: "Full terminal" in s, "back in the dashboard")

        t.keys("C-]")
        t.wait(lambda s: "Stop session and sync" in s, "the leave dialog")
        t.keys("s")
        t.wait(
            lambda s: "saved on research" in s or "Volumes" in s and "stopped" in s,
            "the final sync to finish",
            timeout=90,
        )
        assert (data / "volumes" / "research" / "hello.txt").read_text() == "from-the-pane\n"
        t.keys("q")
    finally:
        t.close()
        _kill_leftovers(str(data))


@pytest.mark.skipif(shutil.which("top") is None, reason="top is needed")
def test_resizes_during_full_terminal_mode_do_not_freeze(tmux: Tmux) -> None:
    """A busy full-screen program in full-terminal mode, the terminal resized several times: the
    suspended dashboard must not render (a render then blocks on its stopped writer for good)."""
    tmux.wait(lambda s: "$" in s and "Full terminal" in s, "the shell tab and its keys")
    tmux.keys("F12")
    tmux.wait(lambda s: "Full terminal" not in s and "ctrl+] returns" in s, "the real terminal handed to the shell")
    tmux.type("top -d 0.2")
    tmux.keys("Enter")
    tmux.wait(lambda s: "load average" in s, "top on the real terminal")
    # Before the fix the queue of the stopped writer (30 slots) filled within a few seconds of this.
    for cols, rows in ((80, 24), (120, 40), (90, 26), (130, 44), (100, 30), (84, 25), (110, 36)) * 3:
        tmux.run("resize-window", "-t", "t", "-x", str(cols), "-y", str(rows))
        time.sleep(0.4)
    tmux.run("resize-window", "-t", "t", "-x", "100", "-y", "30")
    tmux.wait(lambda s: "load average" in s, "top still drawing after the resizes")
    tmux.type("q")
    # top restores the terminal with TCSAFLUSH, which drops what was typed before it quit: wait for the prompt.
    tmux.wait(lambda s: s.rstrip().splitlines()[-1:] == ["$"], "the prompt back after top quit")
    tmux.type("echo after-$((4*5))")
    tmux.keys("Enter")
    tmux.wait(lambda s: "after-20" in s, "the shell answering after top")
    tmux.keys("C-]")
    tmux.wait(lambda s: "Full terminal" in s and "after-20" in s, "the dashboard back (it did not freeze)", timeout=20)
    tmux.type("echo pane-$((5*5))")
    tmux.keys("Enter")
    tmux.wait(lambda s: "pane-25" in s, "the pane taking keys again")
