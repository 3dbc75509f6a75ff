"""A closed editor takes its validation helper with it (issue 43 finding 7).

A big file is checked in a helper process (``python -m primetui.sft.worker``); on a 5 MB file that
process holds ~218 MB. It stayed alive after the editor closed, until the app quit. Here the helper
is found by its pid among this process's children, the editor is closed, and the test waits for that
pid to be gone (reaped, not a zombie); a second editor then gets a helper of its own, which ends
with it too.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from editor_helpers import host, settle

from primetui.sft.templates import ONLINE_EVAL
from primetui.ui.editor import EditorScreen
from tests.waiting import input_applied, until

pytestmark = pytest.mark.timeout(180)

BIG = ONLINE_EVAL + "".join(
    f'\n[[eval.source]]\nname = "env-{i}"\nenv = {{ taskset = {{ id = "org/task-{i}" }} }}\nnum_examples = 32\n'
    for i in range(400)
)  # ~40,000 characters: over the size checked in the helper


def helper_pids() -> set[int]:
    """The pids of this process's children that run the validation helper."""
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            command = (entry / "cmdline").read_bytes()
        except (OSError, ValueError, IndexError):
            continue
        if ppid == os.getpid() and b"primetui.sft.worker" in command:
            found.add(int(entry.name))
    return found


def gone(pid: int) -> bool:
    return not Path(f"/proc/{pid}").exists()  # a zombie still has its entry: this waits for the reap


async def test_closing_the_editor_ends_its_helper_process(tmp_path):
    before = helper_pids()
    app = host(tmp_path, BIG)
    async with app.run_test(size=(100, 30)) as pilot:
        editor = await settle(pilot)
        (pid,) = await until(pilot, lambda: helper_pids() - before, "the editor's helper process to start")
        await pilot.press("escape")  # unmodified: closes
        await until(pilot, lambda: app.result is None, "the editor to close")
        await until(pilot, lambda: gone(pid), f"the helper (pid {pid}) to end with its editor", timeout=20)

        # another editor on a big file: a helper of its own, which checks, and ends with it
        second = tmp_path / "second.toml"
        second.write_text(BIG + "\nbogus_key = 1\n")
        app.push_screen(EditorScreen(second, drafts_root=tmp_path / "drafts"))
        await until(pilot, lambda: isinstance(app.screen, EditorScreen), "the second editor")
        editor = await settle(pilot)
        assert any(d.code == "unknown-key" for d in editor.diagnostics)
        (pid2,) = await until(pilot, lambda: helper_pids() - before, "the second editor's helper process")
        assert pid2 != pid
        await pilot.press("escape")
        await input_applied(pilot)
        await until(pilot, lambda: gone(pid2), f"the second helper (pid {pid2}) to end with its editor", timeout=20)
        assert app.return_code is None  # the app itself goes on
