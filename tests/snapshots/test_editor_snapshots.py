"""SVG snapshots of the editor: errors, a warning, the problems list, a quick fix (80x24 and 120x40)."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.app import App

from primetui.sft.templates import MULTI_NODE
from primetui.ui.editor import EditorScreen
from primetui.ui.editor.modals import CompletionPicker
from primetui.ui.themes import load_themes, shipped_theme_dir
from tests.ui.editor_helpers import settle
from tests.waiting import quiet, until

ERRORS = """max_steps = 100

[model]
name = "PrimeIntellect/Qwen3-0.6B-Reverse-Text-SFT"

[scheduler]
warmup_steps = 5

[data]
name = "datasets/reverse-text"
batch_size = 6
micro_batch_size = 4
seq_len = "long"

[deployment]
num_gpus = 2

[renderer]
name = "prime-qwen3"
"""

SIZES = [(80, 24), (120, 40)]


class SnapHost(App):
    """The editor on the product's dark theme, at a fixed relative path (deterministic title)."""

    def __init__(self, text: str, tmp: Path) -> None:
        super().__init__()
        (tmp / "sft.toml").write_text(text)
        self.tmp = tmp

    def on_mount(self) -> None:
        themes, _warnings = load_themes(shipped_theme_dir())
        for theme in themes:
            self.register_theme(theme)
        if "primetui-dark" in self.available_themes:
            self.theme = "primetui-dark"
        self.push_screen(EditorScreen(Path("sft.toml"), drafts_root=self.tmp / "drafts"))


async def _settle(pilot) -> None:
    await settle(pilot)


def _at(line: int, col: int):
    async def run_before(pilot) -> None:
        await _settle(pilot)
        area = pilot.app.screen.query_one("#editor-area")
        area.cursor_blink = False  # a blinking cursor would make the snapshot depend on timing
        area.cursor_location = (line, col)
        await quiet(pilot)  # the cursor's move painted

    return run_before


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_editor_errors(snap_compare, in_tmp, size):
    assert snap_compare(SnapHost(ERRORS, in_tmp), terminal_size=size, run_before=_at(6, 0))


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_editor_warning(snap_compare, in_tmp, size):
    assert snap_compare(SnapHost(MULTI_NODE, in_tmp), terminal_size=size, run_before=_at(38, 0))


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_editor_problems_list(snap_compare, in_tmp, size):
    async def run_before(pilot) -> None:
        await _at(0, 0)(pilot)
        await pilot.press("f2")
        await quiet(pilot)  # the key handled and the problems list painted

    assert snap_compare(SnapHost(ERRORS, in_tmp), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_editor_quick_fix(snap_compare, in_tmp, size):
    async def run_before(pilot) -> None:
        await _at(6, 0)(pilot)
        editor = pilot.app.screen
        await pilot.press("f4")  # linear and cosine both fit: the first (linear) is picked
        await until(pilot, lambda: isinstance(pilot.app.screen, CompletionPicker), "the quick-fix picker to open")
        await pilot.press("enter")
        await until(
            pilot,
            lambda: pilot.app.screen is editor and editor.note.startswith("Applied:"),
            "the picked fix to be applied",
        )
        await _settle(pilot)

    assert snap_compare(SnapHost(ERRORS, in_tmp), terminal_size=size, run_before=run_before)
