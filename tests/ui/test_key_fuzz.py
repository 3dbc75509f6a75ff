"""Random key sequences through Pilot across the editor, the run screen and its tabs, the volumes
screen and their dialogs (issue 18 #3). The explicit examples, then EXAMPLES derandomized generated
ones, the same on every machine: no exception, no file changed that the sequence did not save,
and focus always on a widget of the screen shown. One finished run serves every example.

Keys that confirm a destructive dialog (`y`), quit (`q`, ctrl+q, ctrl+c) or type a path to write
(F12 save-as) are left out; everything else a user can press on these screens is in."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path
from typing import Any

import pytest
from tests.waiting import input_applied, until
from dash_helpers import dispatch_walkthrough, make_app, wait_status
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from textual.widget import Widget

from primetui.local.testing import LocalPlatform
from primetui.ui.editor import EditorScreen
from primetui.viewmodel.drafts import DraftStore
from primetui.ui.screens.run import RunScreen

pytestmark = pytest.mark.timeout(300)

EXAMPLES = 12
"""Generated examples, always this many and always the same ones (derandomized): a loaded machine
takes longer over them, it does not test less."""
KEYS = [
    *"abcdefghijklmnoprstuvwxz",
    *"ADGHLNORSWYZ",
    *"1234567",
    "0",
    "slash",
    "question_mark",
    "plus",
    "minus",
    "left_square_bracket",
    "right_square_bracket",
    "space",
    "tab",
    "shift+tab",
    "escape",
    "enter",
    "up",
    "down",
    "left",
    "right",
    "home",
    "end",
    "pageup",
    "pagedown",
    "backspace",
    "f1",
    "f2",
    "f4",
    "f5",
    "f8",
    "ctrl+z",
    "ctrl+t",
    "ctrl+s",
    "ctrl+l",
    "ctrl+p",
    "ctrl+r",
]
SAVING = {"ctrl+s", "f5"}  # keys that may write the open file (F5 saves before the dispatch dialog)
TEXT = 'max_steps = 10\n\n[model]\nname = "PrimeIntellect/Qwen3-0.6B-Reverse-Text-SFT"\n'


@pytest.fixture(scope="module")
def fuzz_platform(tmp_path_factory: pytest.TempPathFactory):
    work = tmp_path_factory.mktemp("fuzz-work")
    old_cwd, old_drafts = os.getcwd(), os.environ.get("PRIMETUI_DRAFTS_DIR")
    os.chdir(work)  # where the dashboard's `e` opens ./sft.toml
    os.environ["PRIMETUI_DRAFTS_DIR"] = str(work / "drafts")
    try:
        with LocalPlatform.start(tmp_path_factory.mktemp("fuzz-platform"), demo=True) as lp:
            run_id = asyncio.run(_finished_run(lp))
            yield lp, work, run_id
    finally:
        os.chdir(old_cwd)
        if old_drafts is None:
            os.environ.pop("PRIMETUI_DRAFTS_DIR", None)
        else:
            os.environ["PRIMETUI_DRAFTS_DIR"] = old_drafts


def _shown(widget: Widget, screen: Any) -> bool:
    node: Any = widget
    while node is not None and node is not screen:
        if not node.display or not node.is_attached:
            return False
        node = node.parent
    return node is screen


async def _finished_run(lp: LocalPlatform) -> str:
    run_id = await dispatch_walkthrough(lp, max_steps=2)
    await wait_status(lp, run_id, {"COMPLETED"})
    return run_id


async def _drive(lp: LocalPlatform, work: Path, run_id: str, start: str, keys: list[str], draft: bool) -> None:
    path = work / f"fuzz-{time.monotonic_ns()}.toml"
    path.write_text(TEXT)
    if draft:
        DraftStore(path).write(TEXT + "\n[optim]\nlr = 1e-3\n")
    kw: dict[str, Any] = (
        {"edit_path": path} if start == "editor" else {"run_id": run_id} if start == "run" else {"start": "volumes"}
    )
    app = make_app(lp, **kw)
    before = {p: p.read_bytes() for p in work.iterdir() if p.is_file()}
    async with app.run_test(size=(100, 30)) as pilot:
        if start == "editor":
            await until(
                pilot,
                lambda: isinstance(app.screen, EditorScreen) or app.screen.__class__.__name__ == "DraftPrompt",
                "editor",
            )
        elif start == "run":
            await until(pilot, lambda: isinstance(app.screen, RunScreen) and app.screen.run is not None, "run screen")
        for key in keys:
            await pilot.press(key)
            await input_applied(pilot)
            focused = app.focused
            assert focused is None or _shown(focused, app.screen), (
                f"focus on {focused!r}, not shown on {app.screen!r} after {key!r}"
            )
    if not SAVING & set(keys):
        after = {p: p.read_bytes() for p in work.iterdir() if p.is_file()}
        assert after == before, "a file changed though the keys saved nothing"


EXPLICIT = [
    ("editor", ["enter", "f5", "f8", "f1", "escape", "ctrl+z", "escape"], True),  # the crash once seen
    ("run", ["3", "slash", *"checkpoint", "enter", "e"], False),
]


@settings(
    max_examples=EXAMPLES,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    start=st.sampled_from(["editor", "run", "volumes"]),
    keys=st.lists(st.sampled_from(KEYS), min_size=4, max_size=24),
    draft=st.booleans(),
)
@example(start=EXPLICIT[0][0], keys=EXPLICIT[0][1], draft=EXPLICIT[0][2])
@example(start=EXPLICIT[1][0], keys=EXPLICIT[1][1], draft=EXPLICIT[1][2])
def test_random_keys_never_crash_never_write_unsaved_files_and_keep_focus_visible(fuzz_platform, start, keys, draft):
    lp, work, run_id = fuzz_platform
    asyncio.run(_drive(lp, work, run_id, start, keys, draft))
