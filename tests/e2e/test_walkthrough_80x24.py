"""The seed walkthrough at 80x24, the default size of most SSH clients (issue 18 #29), in a real
terminal: volume, shell, editor, dispatch, logs and their search, charts. Keys only, asserted on capture-pane:
each step is on screen, no header is cut to a stub, no traceback. (The chart grid: see
tests/ui/test_charts_at_80.py and the 80x24 monitor snapshots.)"""

from __future__ import annotations


import pytest

from tests.e2e.test_dashboard_tmux import ROOT, new_user  # noqa: F401 - the fixture
from tests.waiting import wait_for_sync

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(420)]


def _clean(screen: str) -> str:
    assert "Traceback" not in screen, screen
    return screen


def test_seed_walkthrough_is_usable_at_80x24(new_user):  # noqa: F811
    tmux, env, data = new_user
    command = " ".join(f"{k}={v!s}" for k, v in env.items()) + " uv run primetui --local"
    tmux.run("new-session", "-d", "-s", tmux.target, "-x", "80", "-y", "24", "-c", str(ROOT), f"env -i {command}")
    tmux.wait("● live", limit=120)
    screen = _clean(tmux.wait("Runs"))

    # Volume: the demo volume, its state in the same word everywhere.
    tmux.keys("v")
    _clean(tmux.wait("CREATED", "research", "Status"))  # the state, not only the name: the row may be filled in parts

    # Shell: a read-write session, its shell, a command, then stop and sync.
    tmux.keys("o")
    _clean(tmux.wait(" ready ", limit=120))
    tmux.keys("Tab")
    tmux.keys("Enter")
    _clean(tmux.wait("read-write", limit=60))
    tmux.wait("Leave shell", limit=30)
    wait_for_sync(
        lambda: any(line.rstrip().endswith(("#", "$")) for line in tmux.screen().splitlines()),
        "the shell's prompt (then the keys go to it)",
    )
    tmux.type("echo at-80-$((8*10))")
    tmux.keys("Enter")
    _clean(tmux.wait("at-80-80", limit=30))
    tmux.keys("C-]")
    tmux.wait("Stop session and sync", limit=30)
    tmux.keys("s")
    tmux.wait("saved on research", limit=120)
    wait_for_sync(lambda: "Stopping session" not in tmux.screen(), "the stop dialog to close by itself")

    # Editor and dispatch: the walkthrough config to the demo volume.
    tmux.keys("r")
    tmux.wait("│ Runs │", limit=30)
    tmux.keys("e")
    _clean(tmux.wait("max_steps", limit=30))
    tmux.keys("F5")
    tmux.wait("Pick the volume", limit=30)
    tmux.wait("enter runs the pre-flight", limit=60)  # the volumes listed and the list focused: enter reaches it
    tmux.keys("Enter")
    tmux.wait("dispatches to research", limit=60)
    tmux.keys("d")
    _clean(tmux.wait("Lifecycle", limit=90))

    # Logs: the tab takes its keys at once (its own footer: / Search, n Next match, ...).
    tmux.keys("3")
    screen = _clean(tmux.wait("Step ", limit=120))
    tmux.wait("Next match", limit=20)
    assert "sft.toml editor" not in screen

    # The log takes its own keys: `/` opens its search (not a global letter), esc closes it.
    tmux.keys("/")
    tmux.wait("search (text", limit=20)
    tmux.keys("Escape")
    # ESC then a key at once is Alt+key to any terminal: the next key goes once the ESC is handled.
    wait_for_sync(lambda: "search (text" not in tmux.screen(), "the log search to close on escape")
    # Charts: key 4 reaches the tab from inside the log (the grid at 80 columns is covered by
    # tests/ui/test_charts_at_80.py and the 80x24 monitor snapshots).
    tmux.keys("4")
    screen = _clean(tmux.wait("loss/", limit=30))
    assert "search (text" not in screen
    tmux.keys("C-q")
