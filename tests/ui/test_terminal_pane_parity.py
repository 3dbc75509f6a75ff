"""The shell pane against what tmux does (issue 29 item 6): copying wrapped lines, colours,
underline styles, the watchdog. tests/e2e/test_pane_vs_tmux.py runs the same programs in both."""

from __future__ import annotations

import sys

from textual import events
from textual.app import App, ComposeResult

from primetui.shell.term.transport import PtyTransport
from primetui.ui.terminal.view import TerminalView


class TermApp(App):
    def __init__(self, transport) -> None:
        super().__init__()
        self.transport = transport

    def compose(self) -> ComposeResult:
        yield TerminalView(self.transport, id="term")


async def wait_for(pilot, predicate, what: str, tries: int = 300) -> None:
    for _ in range(tries):
        await pilot.pause(0.02)
        if predicate():
            return
    raise AssertionError(f"never reached: {what}")


def _printer(text: str) -> PtyTransport:
    program = f"import sys,time;sys.stdout.write({text!r});sys.stdout.flush();time.sleep(30)"
    return PtyTransport([sys.executable, "-c", program])


def _drag(view: TerminalView, start: tuple[int, int], end: tuple[int, int]) -> None:
    def mouse(cls, x: int, y: int):
        return cls(view, x, y, 0, 0, 1, False, False, False, screen_x=x, screen_y=y)

    view.post_message(mouse(events.MouseDown, *start))
    view.post_message(mouse(events.MouseMove, *end))
    view.post_message(mouse(events.MouseUp, *end))


async def test_copying_a_soft_wrapped_line_joins_its_rows() -> None:
    command = "echo " + " ".join(f"word{i:02d}" for i in range(20))  # 124 cells: wraps twice at 50
    app = TermApp(_printer(command + "\r\nnext line\r\n"))
    async with app.run_test(size=(50, 10)) as pilot:
        view = app.query_one(TerminalView)
        await wait_for(pilot, lambda: "next line" in view.term.text_lines(), "the output")
        assert view.term.text_lines()[:3] == [command[:50], command[50:100], command[100:]]
        _drag(view, (0, 0), (8, 3))
        await wait_for(pilot, lambda: app.clipboard, "a copy")
        assert app.clipboard == command + "\nnext line"  # no newline where the screen wrapped


async def test_copy_after_a_narrowing_resize_still_gives_the_whole_line() -> None:
    line = "x" * 30 + " " + "y" * 30
    app = TermApp(_printer(line + "\r\n"))
    async with app.run_test(size=(80, 10)) as pilot:
        view = app.query_one(TerminalView)
        await wait_for(pilot, lambda: line in view.term.text_lines(), "the line")
        await pilot.resize_terminal(25, 10)
        await wait_for(pilot, lambda: view.term.cols == 25, "the pane at 25 columns")
        assert view.term.text_lines()[:3] == [line[:25], line[25:50], line[50:]]
        _drag(view, (0, 0), (24, 2))
        await wait_for(pilot, lambda: app.clipboard, "a copy")
        assert app.clipboard == line  # the space at a wrap point is kept too
