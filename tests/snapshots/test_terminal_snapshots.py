"""SVG snapshots of the shell screen: an editor in the alternate screen, a coloured transcript,
and a read-only tab."""

from __future__ import annotations

import asyncio

import pytest

from primetui.ui.terminal import ShellScreen
from tests.snapshots.terminal_scenes import EDITOR, TRANSCRIPT, ShellHost


def wait_for_text(text: str):
    async def run_before(pilot) -> None:
        for _ in range(500):
            await asyncio.sleep(0.02)
            screen = pilot.app.screen
            if isinstance(screen, ShellScreen) and screen.panes:
                view = screen.panes[0].view
                if any(text in line for line in view.term.text_lines()):
                    await pilot.pause(0.1)  # one frame after the last byte
                    await pilot.pause()
                    return
        raise AssertionError(f"{text!r} never appeared")

    return run_before


@pytest.mark.parametrize("read_only", [False, True], ids=["rw", "ro"])
def test_editor_in_alternate_screen(snap_compare, read_only: bool) -> None:
    assert snap_compare(ShellHost(EDITOR, read_only=read_only), terminal_size=(80, 22), run_before=wait_for_text("INSERT"))


def test_coloured_transcript(snap_compare) -> None:
    assert snap_compare(ShellHost(TRANSCRIPT), terminal_size=(72, 22), run_before=wait_for_text("日本語"))
