"""SVG snapshots of the shell screen: an editor in the alternate screen, a coloured transcript,
a read-only tab, and the scrollback with a search hit."""

from __future__ import annotations


import pytest

from primetui.ui.terminal import ShellScreen
from tests.snapshots.terminal_scenes import EDITOR, LONG_OUTPUT, TRANSCRIPT, ShellHost
from tests.waiting import input_applied, quiet, until


def wait_for_text(text: str, cursor: tuple[int, int] | None = None):
    """Until ``text`` is on the pane (and the cursor at ``cursor``: the program's last write)."""

    async def run_before(pilot) -> None:
        def shown() -> bool:
            screen = pilot.app.screen
            if not (isinstance(screen, ShellScreen) and screen.panes):
                return False
            view = screen.panes[0].view
            return any(text in line for line in view.term.text_lines()) and cursor in (None, view.term.cursor)

        await until(pilot, shown, f"{text!r} on the pane" + (f" with the cursor at {cursor}" if cursor else ""))
        await quiet(pilot)  # the frame the last byte asked for

    return run_before


@pytest.mark.parametrize("read_only", [False, True], ids=["rw", "ro"])
def test_editor_in_alternate_screen(snap_compare, read_only: bool) -> None:
    assert snap_compare(
        ShellHost(EDITOR, read_only=read_only),
        terminal_size=(80, 22),
        run_before=wait_for_text("INSERT", cursor=(19, 4)),
    )


def test_coloured_transcript(snap_compare) -> None:
    assert snap_compare(ShellHost(TRANSCRIPT), terminal_size=(72, 22), run_before=wait_for_text("日本語"))


def test_scrollback_with_a_search_hit(snap_compare) -> None:
    wait = wait_for_text("$")

    async def run_before(pilot) -> None:
        await wait(pilot)
        view = pilot.app.screen.panes[0].view
        await pilot.press("shift+pageup")
        await input_applied(pilot)
        assert view.search("step  62")
        await quiet(pilot)  # the search hit painted

    assert snap_compare(ShellHost(LONG_OUTPUT), terminal_size=(72, 20), run_before=run_before)
