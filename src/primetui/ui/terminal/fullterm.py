"""Full-terminal mode: suspend the dashboard and give the real terminal to the shell.

The same remote shell keeps running: its current screen is painted on the real terminal, the
program is told the real terminal's size, keys go straight to it and its output goes both to
the real terminal and to the pane's screen model (so the pane is current when you come back).
``ctrl+]`` (or the shell exiting) returns to the dashboard, where the program gets the pane's
size again.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import termios
import tty
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from primetui.monitor_core.escapes import clean
from primetui.ui import output_gate
from primetui.shell.term.ansi import mode_sequences, render_ansi

if TYPE_CHECKING:
    from textual.app import App

    from primetui.ui.terminal.view import TerminalView

DETACH = b"\x1d"  # ctrl+]


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        try:
            view = view[os.write(fd, view) :]
        except BlockingIOError:
            import select

            select.select([], [fd], [], 1.0)
        except OSError:
            return


def _insert_banner(view: "TerminalView", banner: str) -> None:
    """Put a one-line hint above the shell's current line (main screen only: a full-screen
    program redraws everything on the size change anyway)."""
    term = view.term
    if term.alt_screen or (term.top, term.bottom) != (0, term.rows - 1) or term.rows < 3:
        return
    text = banner[: max(0, term.cols - 2)]
    seq = "\x1b[S\x1b[A" if term.y == term.rows - 1 else ""  # make room when at the bottom
    term.feed_text(seq + f"\x1b7\x1b[L\x1b[0;7m {text} \x1b8\x1b[B")


@contextmanager
def _no_output(app: "App") -> Iterator[None]:
    """While suspended the app must not write: its writer thread is stopped, so the 31st write
    (a repaint of the pane, a timer's refresh, a bell) would block the event loop for good.
    Repaints are batched off, and anything else written meanwhile is dropped (the dashboard is
    repainted whole when it comes back)."""
    driver = app._driver
    with app.batch_update():
        if driver is None:
            yield
            return
        driver.write = lambda _data: None  # type: ignore[method-assign,assignment]  # shadows the class's write
        try:
            yield
        finally:
            del driver.write  # the class's write again, before resume starts a new writer


async def run_full_terminal(view: "TerminalView", *, banner: str = "") -> str:
    """Run the view's program on the real terminal until ctrl+] or its end; return why it ended.

    Raises ``textual.app.SuspendNotSupported`` where the app cannot suspend (tests, the web).
    """
    app = view.app
    transport = view.transport
    if transport is None or not view.running:
        return "The shell is not running."
    loop = asyncio.get_running_loop()
    with app.suspend(), _no_output(app):
        assert sys.__stdin__ is not None and sys.__stdout__ is not None  # suspend() needs a real terminal
        fd_in, fd_out = sys.__stdin__.fileno(), sys.__stdout__.fileno()
        saved = termios.tcgetattr(fd_in)
        done: asyncio.Future[str] = loop.create_future()

        def finish(reason: str) -> None:
            if not done.done():
                done.set_result(reason)

        def on_input() -> None:
            try:
                data = os.read(fd_in, 65536)
            except OSError:
                data = b""
            if not data:
                finish("The terminal closed its input.")
                return
            data = output_gate.take_answer(app, data)  # the dashboard's question answered late: not the shell's input
            cut = data.find(DETACH)
            if cut >= 0:
                if cut:
                    transport.write(data[:cut])
                finish("Back to the dashboard (ctrl+]).")
                return
            transport.write(data)

        def on_winch() -> None:
            cols, rows = os.get_terminal_size(fd_out)
            view.term.resize(cols, rows)
            transport.resize(cols, rows)

        async def watch_end() -> None:
            await view.ended.wait()
            finish(view.ended_reason or "The shell ended.")

        try:
            tty.setraw(fd_in)
            cols, rows = os.get_terminal_size(fd_out)
            view.term.resize(cols, rows)
            if banner:
                banner = clean(banner)  # a volume or session name reaches the window title: no controls
                _insert_banner(view, banner)
                _write_all(fd_out, f"\x1b]2;{banner}\x07".encode())  # also in the window title
            _write_all(fd_out, render_ansi(view.term).encode())
            view.tee = lambda data: _write_all(fd_out, data)
            transport.resize(cols, rows)
            loop.add_reader(fd_in, on_input)
            loop.add_signal_handler(signal.SIGWINCH, on_winch)
            watcher = loop.create_task(watch_end())
            try:
                reason = await done
            finally:
                watcher.cancel()
        finally:
            view.tee = None
            loop.remove_reader(fd_in)
            loop.remove_signal_handler(signal.SIGWINCH)
            # Leave the real terminal as we found it: the program's modes off, main screen back.
            _write_all(fd_out, (mode_sequences(view.term, on=False) + "\x1b[0m\x1b[r\x1b[?1049l\x1b[?25h\r\n").encode())
            termios.tcsetattr(fd_in, termios.TCSADRAIN, saved)
    view.sync_size()
    view.focus()
    return reason
