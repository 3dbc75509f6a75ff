"""The real terminal path: a new user runs `uv run primetui --local` inside tmux.

HOME, the local platform's data dir and primetui's config dir are fresh temp dirs (a new user).
Through keys only: create a volume, open the walkthrough sft.toml in the editor, dispatch it to
the demo volume, and see the run reach COMPLETED on screen. Asserted on `tmux capture-pane`.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(240)]

ROOT = Path(__file__).resolve().parents[2]


class Tmux:
    """One private tmux server (its own socket), so nothing else on the machine is touched."""

    def __init__(self, name: str) -> None:
        self.sock = name
        self.target = name

    def run(self, *args: str) -> str:
        return subprocess.run(["tmux", "-L", self.sock, *args], capture_output=True, text=True, check=False).stdout

    def screen(self) -> str:
        return self.run("capture-pane", "-p", "-t", self.target)

    def keys(self, *keys: str) -> None:
        self.run("send-keys", "-t", self.target, *keys)

    def type(self, text: str) -> None:
        self.run("send-keys", "-t", self.target, "-l", text)

    def wait(self, *what: str, limit: float = 60.0) -> str:
        """Wait until every text of ``what`` is on one screen (a wait, not a timing assertion)."""
        end = time.monotonic() + limit
        while True:
            screen = self.screen()
            if all(text in screen for text in what):
                return screen
            if time.monotonic() > end:
                panes = self.run(
                    "list-panes", "-a", "-F", "#{session_name} dead=#{pane_dead} status=#{pane_dead_status}"
                )
                missing = ", ".join(repr(text) for text in what if text not in screen)
                raise AssertionError(
                    f"{missing} never appeared; tmux panes: {panes.strip() or 'none'}; the screen was:\n{screen}"
                )
            time.sleep(0.2)


@pytest.fixture
def new_user(tmp_path: Path):
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    home = tmp_path / "home"
    home.mkdir()
    data = tmp_path / "platform"
    env = {
        "HOME": str(home),
        "PRIMETUI_LOCAL_DATA_DIR": str(data),
        "PRIMETUI_CONFIG_DIR": str(tmp_path / "config"),
        "PRIMETUI_LOCAL_SPEED": "10",
        "UV_CACHE_DIR": os.environ.get("UV_CACHE_DIR") or str(Path.home() / ".cache" / "uv"),
        "TERM": "xterm-256color",
        "PATH": os.environ["PATH"],
    }
    # a socket of this test's own: a server killed after the test before may still be exiting
    tmux = Tmux(f"primetui-e2e-{os.getpid()}-{time.monotonic_ns()}")
    yield tmux, env, data
    tmux.run("kill-server")
    try:  # the dashboard leaves the local platform running on purpose; this test stops it by pid
        pid = int(json.loads((data / "server.json").read_text())["pid"])
        os.kill(pid, signal.SIGTERM)
    except (OSError, ValueError, KeyError):
        pass


def test_new_user_local_walkthrough_reaches_completed(new_user):
    tmux, env, data = new_user
    command = " ".join(f"{k}={v!s}" for k, v in env.items()) + " uv run primetui --local"
    tmux.run("new-session", "-d", "-s", tmux.target, "-x", "120", "-y", "36", "-c", str(ROOT), f"env -i {command}")
    tmux.wait("Runs", limit=90)
    tmux.wait("● live", limit=30)

    # Create a volume through the form.
    tmux.keys("v")
    tmux.wait("research")
    tmux.keys("c")
    tmux.wait("Create a volume")
    tmux.type("e2e-vol")
    tmux.keys("Enter")
    tmux.wait("Volume e2e-vol created")
    assert "e2e-vol" in tmux.screen()

    # The walkthrough config, from the editor, dispatched to the demo volume (it holds the dataset).
    tmux.keys("e")
    tmux.wait("max_steps")
    tmux.keys("F5")
    tmux.wait("Pick the volume")
    tmux.wait("enter runs the pre-flight")
    tmux.keys("Enter")
    tmux.wait("dispatches to research", limit=30)
    tmux.keys("d")
    tmux.wait("Lifecycle", limit=60)
    tmux.wait("✓ COMPLETED", limit=120)
    tmux.wait("prime volumes get research runs/", limit=30)  # the step-10 checkpoint
    screen = tmux.wait("10/10", limit=30)  # the progress line, from its own follower
    assert "Traceback" not in screen


def test_seed_step_2_typed_in_the_shell_pane_on_a_fresh_volume(new_user):
    """The walkthrough's own commands on a volume with no dataset: download, exit, stop, sync, dispatch."""
    from primetui.local.sessions import mountns

    if not mountns.probe().namespaces:
        pytest.skip("/volume needs root and mount namespaces: " + mountns.probe().why)
    tmux, env, data = new_user
    command = " ".join(f"{k}={v!s}" for k, v in env.items()) + " uv run primetui --local"
    tmux.run("new-session", "-d", "-s", tmux.target, "-x", "120", "-y", "36", "-c", str(ROOT), f"env -i {command}")
    tmux.wait("Runs", limit=90)
    tmux.wait("● live", limit=30)
    tmux.keys("v")
    tmux.wait("research")
    tmux.keys("c")
    tmux.wait("Create a volume")
    tmux.type("fresh")
    tmux.keys("Enter")
    tmux.wait("Volume fresh created")
    tmux.keys("Down")  # volumes are listed oldest first: research, fresh
    tmux.wait("Sessions of fresh")
    tmux.keys("o")
    tmux.wait("RUNNING", limit=60)  # the new session's status column: ready
    tmux.keys("Tab")
    tmux.keys("Enter")
    tmux.wait("mounted at /volume", limit=60)
    assert not (data / "volumes" / "fresh" / "datasets").exists()
    for line in (
        "hf download willcb/R1-reverse-wikipedia-paragraphs-v1-1000 \\",
        "  --repo-type dataset \\",
        "  --local-dir /volume/datasets/reverse-text",
    ):
        tmux.type(line)
        tmux.keys("Enter")
    tmux.wait("path: /volume/datasets/reverse-text", limit=120)
    tmux.type("exit")
    tmux.keys("Enter")
    tmux.wait("Stop session and sync", limit=30)  # a read-write shell that exits asks, as a reminder
    tmux.keys("s")
    # The dialog's line, or the toast's (a toast can cover the dialog's line and wraps the volume
    # name onto its next line); the file check below says it was fresh's sync.
    tmux.wait("stopped; your changes are saved", limit=120)
    assert (data / "volumes" / "fresh" / "datasets/reverse-text/data/train-00000-of-00001.parquet").is_file()
    tmux.wait("STOPPED", limit=30)  # back on the volumes screen, the session row says so
    tmux.keys("r")
    tmux.wait("Runs")
    time.sleep(1)
    tmux.keys("e")
    tmux.wait("max_steps")
    tmux.keys("F5")
    tmux.wait("enter runs the pre-flight")
    tmux.keys("Down")
    tmux.keys("Enter")
    tmux.wait("dispatches to fresh", limit=30)
    tmux.keys("d")
    tmux.wait("Lifecycle", limit=60)
    screen = tmux.wait("✓ COMPLETED", limit=180)
    assert "Traceback" not in screen
