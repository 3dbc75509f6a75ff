"""The shell pane against what tmux does (issue 29 item 6): copying wrapped lines, colours,
underline styles, the watchdog. tests/e2e/test_pane_vs_tmux.py runs the same programs in both."""

from __future__ import annotations

import sys

from textual import events
from textual.app import App, ComposeResult

from primetui.shell.term.transport import PtyTransport
from primetui.ui.terminal.view import TerminalView
from tests.waiting import until


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
    app = TermApp(_printer(line + "\x1b[H"))  # the cursor on it keeps it on screen when it grows
    async with app.run_test(size=(80, 10)) as pilot:
        view = app.query_one(TerminalView)
        await wait_for(pilot, lambda: line in view.term.text_lines(), "the line")
        await pilot.resize_terminal(25, 10)
        await wait_for(pilot, lambda: view.term.cols == 25, "the pane at 25 columns")
        assert view.term.text_lines()[:3] == [line[:25], line[25:50], line[50:]]
        _drag(view, (0, 0), (24, 2))
        await wait_for(pilot, lambda: app.clipboard, "a copy")
        assert app.clipboard == line  # the space at a wrap point is kept too


def test_the_16_colours_are_distinct_after_textual_converts_them() -> None:
    """What the user sees: Textual turns ANSI colours into its theme's RGB (red = magenta in
    MONOKAI), so the pane must hand it RGB of its own."""
    from textual._ansi_theme import MONOKAI
    from textual.filter import ANSIToTruecolor
    from textual.color import Color

    from primetui.shell.term.attrs import attr
    from primetui.ui.terminal.render import attr_style

    to_rgb = ANSIToTruecolor(MONOKAI)
    seen = {to_rgb.truecolor_style(attr_style(attr(fg=i)), Color(0, 0, 0).rich_color).color.triplet for i in range(16)}
    assert len(seen) == 16


def test_a_palette_preference_sets_the_16_colours_and_terminal_keeps_ansi_codes() -> None:
    from primetui.shell.term.attrs import attr
    from primetui.ui.terminal.render import attr_style

    mine = tuple((i, i, i) for i in range(16))
    assert attr_style(attr(fg=1), mine).color.triplet == (1, 1, 1)
    assert attr_style(attr(fg=1), None).color.number == 1  # native: the terminal's own red
    assert attr_style(attr(fg=196), mine).color.number == 196  # the 256-colour cube is fixed


def test_underline_styles_degrade_to_what_rich_draws() -> None:
    from rich.color import ColorSystem

    from primetui.shell.term import Terminal
    from primetui.ui.terminal.render import attr_style

    term = Terminal(40, 2)
    term.feed_text("\x1b[4:2mD\x1b[4:3mC\x1b[4:4mT\x1b[4:5mS\x1b[21mW\x1b[0;53mO\x1b[0;4;58:5:196mU")
    styles = [attr_style(a) for a in term.lines[0].attrs[:7]]
    assert styles[0].underline2 and not styles[0].underline  # double stays double
    assert all(s.underline and not s.underline2 for s in styles[1:4])  # curly, dotted, dashed: single
    assert styles[4].underline2 and styles[5].overline and styles[6].underline
    assert "53" in styles[5]._make_ansi_codes(ColorSystem.TRUECOLOR).split(";")  # overline reaches the terminal


class _LostTimer:
    """A frame timer that will never fire (what a lost timer looks like to the pane)."""

    stopped = False

    def stop(self) -> None:
        self.stopped = True


async def test_watchdog_notices_a_pane_that_stopped_drawing_and_repaints(tmp_path, monkeypatch) -> None:
    from primetui.ui.terminal import pane_watchdog as watchdog

    monkeypatch.setenv("PRIMETUI_LOG_DIR", str(tmp_path))
    monkeypatch.setattr(watchdog, "CHECK_EVERY", 0.05)
    monkeypatch.setattr(watchdog, "STALL_SECONDS", 0.3)
    # output that keeps arriving until the test ends, however late the lost timer goes in
    program = "import sys,time\ni = 0\nwhile True:\n print(f'tick {i}', flush=True); i += 1; time.sleep(0.02)"
    app = TermApp(PtyTransport([sys.executable, "-c", program]))
    notes: list[str] = []
    async with app.run_test(size=(60, 10)) as pilot:
        app.notify = lambda message, **kw: notes.append(message)  # type: ignore[method-assign]
        view = app.query_one(TerminalView)
        await wait_for(pilot, lambda: view.frames > 0 and "tick 1" in "".join(view.term.text_lines()), "first frames")
        lost = _LostTimer()
        seen = {"frames": view.frames}

        def stalled() -> bool:
            """The timer is lost (again, if a frame already queued when it was swapped ran after it)."""
            if lost.stopped:
                return True
            handle = view._frame_handle
            if handle is not lost:  # every later schedule_frame now thinks a frame is on its way
                if handle is not None:
                    handle.stop()
                view._frame_handle = lost
                seen["frames"] = view.frames
            return False

        await until(pilot, stalled, "the watchdog giving up the lost timer")
        assert "stopped drawing" in notes[-1] and "no frame" in notes[-1]
        frames = seen["frames"]
        await until(pilot, lambda: view.frames > frames, "a frame drawn after the watchdog gave up the lost timer")
        await until(pilot, lambda: view.frames > frames + 3, "frames keep coming after the repaint")
        log = (tmp_path / "shell-pane.log").read_text()
        assert "frame_pending=True" in log and "bytes_in=" in log


async def test_watchdog_stays_quiet_while_the_pane_draws(tmp_path, monkeypatch) -> None:
    from primetui.ui.terminal import pane_watchdog as watchdog

    monkeypatch.setenv("PRIMETUI_LOG_DIR", str(tmp_path))
    monkeypatch.setattr(watchdog, "CHECK_EVERY", 0.05)
    monkeypatch.setattr(watchdog, "STALL_SECONDS", 2.0)  # the real threshold
    program = "import sys,time\nfor i in range(60):\n print(f'tick {i}', flush=True); time.sleep(0.02)\ntime.sleep(30)"
    app = TermApp(PtyTransport([sys.executable, "-c", program]))
    async with app.run_test(size=(60, 10)) as pilot:
        view = app.query_one(TerminalView)
        await wait_for(pilot, lambda: "tick 59" in "".join(view.term.text_lines()), "all ticks")
        assert view.watchdog.fired == 0
        assert not (tmp_path / "shell-pane.log").exists()


async def test_the_shell_palette_preference_reaches_the_pane() -> None:
    from primetui.config.prefs import Prefs
    from primetui.shell.term.palette import XTERM

    mine = [f"#{i:02x}{i:02x}{i:02x}" for i in range(16)]
    for wanted, native, expected in (
        (mine, False, tuple((i, i, i) for i in range(16))),
        ("xterm", False, XTERM),
        ("terminal", True, None),  # ANSI codes, for the terminal's own palette
        ("terminal", False, XTERM),  # the toolkit would turn them into its theme's RGB
    ):
        app = TermApp(_printer("x\r\n"))
        app.prefs = Prefs(shell_palette=wanted)
        async with app.run_test(size=(20, 4)) as pilot:
            app.ansi_color = native
            view = app.query_one(TerminalView)
            await wait_for(pilot, lambda view=view: "x" in view.term.text_lines(), "the output")
            view.notify_style_update()
            view._prepare_painter()
            assert view.painter.palette == expected, wanted
