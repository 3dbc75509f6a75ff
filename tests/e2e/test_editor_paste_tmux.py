"""Undo after a big bracketed paste, through the real terminal (issue 43 finding 1).

`primetui edit` runs in a tmux pane tall enough that a 26-line file needs no scrollbar. The
paste reaches the app as a terminal delivers it: ``ESC [200~``, the lines, ``ESC [201~``, in one
paste of one tmux buffer. Then ctrl+z: the app must still be running and show the file as it was
(the title no longer says modified: the buffer equals the file on disk). Before the carried fix of
Textual #6686 the undo ended the app with ``ValueError: The document line index .. is out of bounds``.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from pathlib import Path

import pytest

from tests.e2e.test_dashboard_tmux import ROOT, Tmux
from tests.waiting import wait_for_sync

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180)]

FILE = "".join(f"# line {i}\n" for i in range(26))


@pytest.fixture
def editor_in_tmux(tmp_path: Path):
    yield from start_editor(tmp_path, FILE)


def start_editor(tmp_path: Path, text: str):
    """``primetui edit`` on a file holding ``text`` in a private tmux server; yields (tmux, path)."""
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    (tmp_path / "home").mkdir()
    path = tmp_path / "sft.toml"
    path.write_text(text)
    env = {
        "HOME": str(tmp_path / "home"),
        "PRIMETUI_CONFIG_DIR": str(tmp_path / "config"),
        "TERM": "xterm-256color",
        "PATH": os.environ["PATH"],
    }
    if os.environ.get("PYTHONPATH"):
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]  # the same sources as this test run
    command = " ".join(f"{k}={v}" for k, v in env.items()) + f" {sys.executable} -m primetui edit {path}"
    tmux = Tmux(f"primetui-e2e-paste-{os.getpid()}-{time.monotonic_ns()}")
    tmux.run("new-session", "-d", "-s", tmux.target, "-x", "160", "-y", "40", "-c", str(ROOT), f"env -i {command}")
    yield tmux, path
    tmux.run("kill-server")


def alive(tmux: Tmux) -> bool:
    return tmux.run("list-panes", "-t", tmux.target, "-F", "#{pane_dead}").strip() == "0"


@pytest.mark.parametrize("count", [40, 2_000])
def test_undo_of_a_bracketed_paste_leaves_the_app_up_with_the_file_as_it_was(editor_in_tmux, tmp_path, count):
    tmux, path = editor_in_tmux
    tmux.wait("# line 25", limit=90)
    tmux.wait("No [ckpt] table")  # the first check is in: the editor is up
    tmux.keys("C-End")
    tmux.wait("Ln 27, Col 1")

    lines = "".join(f"key_{i} = {i}\n" for i in range(count))
    chunk = tmp_path / "paste.bin"
    chunk.write_bytes(b"\x1b[200~" + lines.encode() + b"\x1b[201~")
    tmux.run("load-buffer", "-b", "paste", str(chunk))
    tmux.run("paste-buffer", "-d", "-r", "-b", "paste", "-t", tmux.target)  # -r: bytes as they are, LF kept
    tmux.wait(f"Ln {27 + count}, Col 1")
    tmux.wait("● modified")

    tmux.keys("C-z")
    screen = wait_for_sync(
        lambda: (
            (not alive(tmux) and "the app ended")
            or (
                "Ln 27, Col 1" in (s := tmux.screen())
                and " 0 error(s)" in s
                and "# line 0" in s
                and "# line 25" in s
                and "modified" not in s
                and s
            )
        ),
        "the undo to show the file as it was and its check to come back clean, or the app to end",
    )
    assert alive(tmux), "the app ended on ctrl+z"
    assert "key_" not in screen
    assert path.read_text() == FILE
