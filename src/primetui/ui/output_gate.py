"""Frames wait while the terminal is behind: on a slow link the screen is drawn as it is now, not as it was.

Textual draws a frame whenever something changed and hands it to a writer thread; nothing tells it
that the terminal is minutes behind (a pty, sshd and TCP buffer hundreds of kilobytes), and its
``TEXTUAL_FPS`` is a fixed cap, not flow control. So every frame of a busy screen was queued, and a
key's answer waited behind all of them.

The gate measures the drain from the write side: it counts the bytes the app writes
(``MeteredWriter``), and after a frame it asks the terminal where its cursor is (``CSI 6n``, which
every terminal answers once it has drawn all that came before). The answer confirms every byte
written before the question; the time it took gives the rate the link drains at. While more than
the link drains in ``HOLD_SECONDS`` (``HOLD_BYTES`` at most) are unconfirmed, the current screen's
updates wait (``Screen._on_timer_update``):
Textual keeps collecting what changed, so when the answer comes one frame carries the latest state
of every region, however many frames were skipped. The header says ``⏸ slow link`` while answers
take longer than ``SLOW_AFTER``.

What is written is already cut to the cells that changed (``ui/frame_diff.py``), so the merged frame
is small as well.

A terminal that never answers is asked once (4 bytes) and frames are never held for it: frames wait
only once an answer has come. A question unanswered for ``LOST_AFTER`` (a lost answer) stops holding
frames, and the next frame asks again.
"""

from __future__ import annotations

import os
import re
import time
from typing import Any

from textual.drivers._writer_thread import WriterThread

from primetui.ui.frame_diff import FrameDiff, erases_in_background

PROBE = "\x1b[6n"
"""Device status report: the terminal answers with the cursor position once it has drawn what came before."""
PROBE_BYTES = 256
"""Unconfirmed bytes after which a frame is followed by a question (a blinking cursor is not)."""
HOLD_BYTES = 1024
"""Unconfirmed bytes above which the next frame waits for the answer (its changes are merged into one)."""
HOLD_SECONDS = 0.25
"""On a link measured slower than ``HOLD_BYTES`` in this time, frames wait above what it drains in this time."""
LOST_AFTER = 30.0
"""Seconds after which an unanswered question is taken as lost: frames flow again and a new question goes."""
SLOW_AFTER = 1.0
"""An answer slower than this, with frames held meanwhile, turns the header's badge on."""
FAST_AFTER = 0.4
"""An answer faster than this turns it off."""
BADGE = "⏸ slow link"


class OutputGate:
    """What the terminal has confirmed drawing, and whether the next frame should wait."""

    def __init__(self, clock: Any = time.monotonic) -> None:
        self.clock = clock
        self.sent = 0
        """Bytes handed to the terminal."""
        self.confirmed = 0
        """Bytes the terminal has answered for (it drew them)."""
        self.question: tuple[int, float] | None = None
        """(bytes sent before it, when) of the question in flight."""
        self.answers = 0
        self.rate: float | None = None
        """Bytes per second the link drained, from the last answer that found a backlog."""
        self.coalesced = 0
        """Frames that waited (their changes went out in a later frame)."""
        self.slow = False
        self._held_since_question = False
        self._waiting: list[Any] = []

    def count(self, text: str) -> None:
        self.sent += len(text.encode("utf-8", "replace"))

    def holding(self) -> bool:
        """True while the next frame should wait for the question's answer."""
        if self.question is None or not self.answers:
            return False
        if self.clock() - self.question[1] > LOST_AFTER:
            self.question = None  # its answer was lost (or eaten): draw, and ask again
            return False
        return self.sent - self.confirmed > self.hold_bytes()

    def hold_bytes(self) -> float:
        """Unconfirmed bytes above which frames wait: what the link drains in ``HOLD_SECONDS`` (at most
        ``HOLD_BYTES``, at least ``PROBE_BYTES``), so on a slow link a key's frame queues behind little."""
        if self.rate is None:
            return HOLD_BYTES
        return min(HOLD_BYTES, max(PROBE_BYTES, self.rate * HOLD_SECONDS))

    def hold(self, screen: Any) -> None:
        """``screen``'s update waits for the answer (``release`` resumes it)."""
        self.coalesced += 1
        self._held_since_question = True
        if screen not in self._waiting:
            self._waiting.append(screen)

    def should_ask(self) -> bool:
        """After a frame: True when a question should follow it."""
        if self.question is not None:
            return False  # one at a time (a terminal that never answers is asked once)
        return self.sent - self.confirmed >= PROBE_BYTES

    def asked(self) -> None:
        """The question was written (after ``count``)."""
        self.question = (self.sent, self.clock())
        self._held_since_question = False

    def answer(self) -> list[Any] | None:
        """The terminal answered: the screens whose frames waited, or None when no question was in flight."""
        if self.question is None:
            return None
        before, asked_at = self.question
        took = max(self.clock() - asked_at, 1e-6)
        if self._held_since_question or self.rate is None:
            backlog = before - self.confirmed
            self.rate = backlog / took
        self.question, self.confirmed = None, max(self.confirmed, before)
        self.answers += 1
        if took > SLOW_AFTER and self._held_since_question:
            self.slow = True
        elif took < FAST_AFTER:
            self.slow = False
        waiting, self._waiting = self._waiting, []
        return waiting

    def describe(self) -> str:
        """The header's badge: empty while the terminal keeps up."""
        return BADGE if self.slow else ""


GATE = OutputGate()
"""The process's gate: one terminal per process (the writer thread counts into it)."""


def _size(fd: int) -> tuple[int, int]:
    columns, lines = os.get_terminal_size(fd)
    return columns, lines


class MeteredWriter(WriterThread):
    """Textual's writer thread: each write cut to the cells that changed (``FrameDiff``), then counted."""

    def __init__(self, file: Any) -> None:
        super().__init__(file)
        fd = file.fileno()
        self.diff = FrameDiff(lambda: _size(fd), erase=erases_in_background(fd))

    def write(self, text: str) -> None:
        text = self.diff(text)
        GATE.count(text)
        super().write(text)


def _ask(app: Any) -> None:
    driver = getattr(app, "_driver", None)
    if driver is None or app.is_headless or not GATE.should_ask():
        return
    driver.write(PROBE)
    GATE.asked()


def on_answer(app: Any) -> None:
    """A cursor position report came in: confirm, release the waiting screens, update the badge."""
    waiting = GATE.answer()
    if waiting is None:
        return
    for screen in waiting:
        if screen.is_attached:
            screen._update_timer.resume()
    if hasattr(app, "slow_link"):
        app.slow_link = GATE.describe()


_REPORT = re.compile(rb"\x1b\[\d+;\d+R")


def take_answer(app: Any, data: bytes) -> bytes:
    """Input read while the app is suspended (the full terminal): the answer to a question in flight is
    the gate's, not the program's; it is taken out of ``data``."""
    if GATE.question is None:
        return data
    found = _REPORT.search(data)
    if found is None:
        return data
    on_answer(app)
    return data[: found.start()] + data[found.end() :]


def install() -> None:
    """Count Textual's output and hold a screen's frames while the terminal is behind (idempotent)."""
    from textual.app import App
    from textual.drivers import linux_driver
    from textual.screen import Screen

    if getattr(Screen, "_primetui_gate", False):
        return
    Screen._primetui_gate = True  # type: ignore[attr-defined]
    linux_driver.WriterThread = MeteredWriter  # type: ignore[misc]
    update, idle, display = Screen._on_timer_update, Screen._on_idle, App._display

    def _on_timer_update(self: Any) -> None:
        if self.is_current and GATE.holding():
            self._update_timer.pause()
            GATE.hold(self)
            return
        update(self)

    async def _on_idle(self: Any, event: Any) -> None:
        if self.is_current and GATE.holding():
            event.prevent_default()
            GATE.hold(self)  # not resumed at each idle: the answer resumes it
            return
        await idle(self, event)

    def _display(self: Any, screen: Any, renderable: Any) -> None:
        before = GATE.sent
        display(self, screen, renderable)
        if GATE.sent != before:  # every frame, a screen's first one too (drawn on resume, past the timer)
            _ask(self)

    App._display = _display  # type: ignore[method-assign]
    Screen._on_timer_update = _on_timer_update  # type: ignore[method-assign]
    Screen._on_idle = _on_idle  # type: ignore[method-assign]


__all__ = ["GATE", "OutputGate", "install", "on_answer"]
