"""The pane's watchdog: output keeps arriving but the pane has stopped showing it.

Two ways that can happen, both checked once a second:

- *frames stuck*: bytes came in and no frame has run for ``STALL_SECONDS`` (the frame timer was
  lost, so every later ``schedule_frame`` believed one was pending);
- *parser holding*: the screen model has held an unfinished escape sequence for
  ``HOLD_SECONDS`` while more bytes kept coming (an OSC or DCS string that never ends).

Either way it says so once (a toast, and a line in ``shell-pane.log`` beside ``notify.log`` with
what the pane knew), then repaints: the held bytes are given up and the whole pane redrawn.
"""

from __future__ import annotations

import time
from typing import Any

from primetui.monitor_core.notify import append_failure, failure_log_path

CHECK_EVERY = 1.0
STALL_SECONDS = 2.0
HOLD_SECONDS = 5.0  # tmux gives up an unfinished string after 5 s too


def log_path():
    return failure_log_path().with_name("shell-pane.log")


class Watchdog:
    def __init__(self, view: Any) -> None:  # the TerminalView it watches
        self.view = view
        self.unpainted_since: float | None = None  # first byte not yet followed by a frame
        self._held_since: float | None = None
        self._bytes_seen = 0
        self.fired = 0

    def fed(self) -> None:
        if self.unpainted_since is None:
            self.unpainted_since = time.monotonic()

    def painted(self) -> None:
        self.unpainted_since = None

    def check(self) -> None:
        view = self.view
        now = time.monotonic()
        arrived = view.bytes_in != self._bytes_seen
        self._bytes_seen = view.bytes_in
        held = view.term.pending_length()
        if held and arrived:
            self._held_since = self._held_since or now
        elif not held:
            self._held_since = None
        if self.unpainted_since is not None and now - self.unpainted_since >= STALL_SECONDS:
            self._fire(f"no frame for {now - self.unpainted_since:.1f} s while output arrived", now)
        elif self._held_since is not None and now - self._held_since >= HOLD_SECONDS:
            self._fire(f"an unfinished escape sequence held {held} characters for {now - self._held_since:.0f} s", now)

    def _fire(self, why: str, now: float) -> None:
        view = self.view
        term = view.term
        handle = view._frame_handle
        state = (
            f"shell pane stopped drawing: {why}; bytes_in={view.bytes_in} frames={view.frames} "
            f"frame_pending={handle is not None} synchronized={term.synchronized} alt_screen={term.alt_screen} "
            f"scrolled_back={view._view_top is not None} held={term.pending_length()} size={term.cols}x{term.rows}"
        )
        append_failure(state, log_path())
        self.fired += 1
        self.unpainted_since = None
        self._held_since = None
        if handle is not None and hasattr(handle, "stop"):
            handle.stop()
        view._frame_handle = None
        term.drop_pending()
        view.repaint()
        view._frame()
        view.notify(
            f"The shell pane had stopped drawing ({why}); it is redrawn. Details in {log_path()}.",
            severity="warning",
            timeout=8,
        )
