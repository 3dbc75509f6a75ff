"""The log view in a real terminal (tmux): log text full of escape sequences cannot change the
terminal's title, clear the screen or colour anything; it shows as harmless text, and the
search keys work through the real key path."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = [pytest.mark.e2e, pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is needed")]

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = [
    "20:00:00    INFO first line stays visible",
    "20:00:01    INFO title \x1b]0;owned-title\x07 and \x1b]2;owned-title\x1b\\ clipboard \x1b]52;c;ZXZpbA==\x07",
    "20:00:02    INFO clear \x1b[2J\x1b[H cursor \x1b[10;10H alt-screen \x1b[?1049h bell \x07 end-of-line-marker",
    "20:00:03   ERROR \x1b[31mred text\x1b[0m after",
]


def tmux(socket: str, *args: str) -> str:
    return subprocess.run(["tmux", "-L", socket, *args], capture_output=True, text=True, timeout=20).stdout


def wait(socket: str, predicate, what: str, timeout: float = 60.0) -> str:
    deadline = time.monotonic() + timeout
    text = ""
    while time.monotonic() < deadline:
        text = tmux(socket, "capture-pane", "-p", "-t", "t")
        if predicate(text):
            return text
        time.sleep(0.1)
    raise AssertionError(f"waited {timeout:.0f}s for {what}; the terminal shows:\n{text}")


def test_escape_sequences_in_logs_never_reach_the_real_terminal(tmp_path: Path) -> None:
    log = tmp_path / "hostile.log"
    log.write_text("\n".join(HOSTILE), encoding="utf-8")
    socket = f"primetui-monitor-e2e-{os.getpid()}-{time.monotonic_ns()}"
    env = dict(os.environ, TERM="xterm-256color")
    command = f"cd {ROOT} && {sys.executable} -m tests.e2e.monitor_app {log}"
    subprocess.run(
        ["tmux", "-L", socket, "new-session", "-d", "-x", "140", "-y", "20", "-s", "t", command],
        env=env,
        check=True,
        timeout=20,
    )
    try:
        tmux(socket, "select-pane", "-t", "t", "-T", "before")
        shown = ("end-of-line-marker", "4 lines", "␛]0;owned-title␇", "␛]52;c;ZXZpbA==␇", "␛[2J␛[H", "red text")
        # "first line stays visible": \x1b[2J did not clear the screen
        screen = wait(socket, lambda s: all(t in s for t in (*shown, "first line stays visible")), "the log lines")
        assert "[31m" not in screen
        assert tmux(socket, "display", "-p", "-t", "t", "#{pane_title}").strip() != "owned-title"
        assert tmux(socket, "display", "-p", "-t", "t", "#{alternate_on}").strip() == "1"  # Textual's own, unchanged
        tmux(socket, "send-keys", "-t", "t", "/")
        wait(socket, lambda s: "search (text" in s, "the search prompt")
        tmux(socket, "send-keys", "-t", "t", "-l", "owned")
        tmux(socket, "send-keys", "-t", "t", "Enter")
        wait(socket, lambda s: "search 'owned' 1/1" in s, "one search hit")
        assert tmux(socket, "display", "-p", "-t", "t", "#{pane_title}").strip() != "owned-title"
    finally:
        tmux(socket, "kill-server")
