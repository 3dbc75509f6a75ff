"""How far a shell channel may read ahead of the pane: credit follows what the pane consumed.

An SSH channel's receive window is the output the server may send before the client says "more".
asyncssh grants it back as soon as a packet moves from the channel into its stream buffer, and
counts packets still waiting in the channel as granted too; while the pane falls behind a flood
(``seq 1 2000000`` on a loaded machine), megabytes then queue in the client, and a key's echo, or
the last line of the output, waits behind all of them (measured: 10 MB queued, the end of the
output drawn 11 s after ``seq`` exited).

Here the credit is granted from :meth:`ShellProcess.read <primetui.shell.connect.ShellProcess.read>`
instead, once the pane has taken the bytes, so what the client holds plus what the server may
still send never exceeds the window; and the window follows the pane:

- it is sized to what the pane consumes in :data:`TARGET_SECONDS` while it is busy (bytes taken /
  seconds between handing a chunk over and the next read), so a pane that falls behind sees at
  most that much output queued ahead of an echo: 64 KiB on a loaded machine;
- it only grows (at most doubling per read, up to :data:`MAX_WINDOW`) while the pane keeps up,
  finding nothing held when it asks for more although the server had used half its credit:
  then the link, not the pane, sets the pace (a distant pod), and a bigger window is what helps;
- for :data:`TYPING_SECONDS` after a key or a paste (:meth:`ChannelCredit.typed`) it is held at
  :data:`MIN_WINDOW`: the echo comes behind whatever the server may still send, so that is kept to
  the least while somebody types (the server reads its pty no further than this credit either).
"""

from __future__ import annotations

import time
from typing import Any, Protocol

from asyncssh.constants import MSG_CHANNEL_WINDOW_ADJUST
from asyncssh.packet import UInt32

MIN_WINDOW = 64 * 1024
MAX_WINDOW = 4 * 1024 * 1024
START_WINDOW = MIN_WINDOW
TARGET_SECONDS = 0.05  # the output the pane takes this long to consume is all that may queue ahead of an echo
TYPING_SECONDS = 0.3  # after a key, this long at the smallest window: the echo comes behind the least output
_DECAY = 0.8  # weight of the past in the pane's rate (per read)


class ReadAhead:
    """The window rule alone (no I/O): ``size`` after each read, and the credit to grant."""

    def __init__(self, start: int = START_WINDOW, low: int = MIN_WINDOW, high: int = MAX_WINDOW) -> None:
        self.size = start
        self.low, self.high = low, high
        self._bytes = 0.0
        self._busy = 0.0
        self.typing = False  # the user typed a moment ago: hold the window at ``low``

    @property
    def rate(self) -> float | None:
        """Bytes per second the pane consumes while busy (None until measured)."""
        return self._bytes / self._busy if self._busy > 0 and self._bytes > 0 else None

    def consumed(self, nbytes: int, busy: float) -> None:
        """The pane took ``nbytes`` and came back for more ``busy`` seconds later."""
        self._bytes = self._bytes * _DECAY + nbytes
        self._busy = self._busy * _DECAY + max(busy, 1e-6)

    def on_read(self, held: int, credit: int) -> int:
        """``held`` bytes wait in the client and the server may send ``credit`` more (asked as the
        pane comes for more, and as it takes a chunk, before new credit): set and return the window."""
        rate = self.rate
        cap = self.high if rate is None else max(self.low, min(self.high, int(rate * TARGET_SECONDS)))
        if self.typing:
            # A key's echo comes behind whatever the server may still send: keep that to the least.
            self.size = self.low
        elif held > 0:
            # Output waits for the pane: no more than it consumes in TARGET_SECONDS may queue.
            self.size = max(self.low, min(self.size, cap))
        elif credit < self.size // 2:
            # Nothing waits, and the server used half its credit: a grant is due while the pane
            # keeps up, so the link (or the program), not the pane, sets the pace. On a distant
            # link that credit is mostly bytes in flight, and the window must grow to cover the
            # round trip: once data arrives in more than one packet per window, the credit
            # never falls much below half before it is topped up again.
            self.size = max(self.low, min(self.size * 2, cap))
        return self.size

    def grant(self, held: int, credit: int) -> int:
        """Credit to add so that ``held + credit`` is the window again; 0 until it fell below half
        (one window-adjust packet per half window, as asyncssh does)."""
        if held + credit >= self.size // 2:
            return 0
        return self.size - held - credit


class _Window(Protocol):
    """What of asyncssh's private channel the credit reads and writes."""

    _init_recv_window: int
    _recv_window: int

    def send_packet(self, pkttype: int, *args: bytes) -> None: ...


class ChannelCredit:
    """A :class:`ReadAhead` in charge of an asyncssh client process's channel window."""

    def __init__(self, process: Any, rule: ReadAhead | None = None) -> None:
        self.process = process
        self.rule = rule or ReadAhead()
        self.chan: _Window | None = getattr(process, "_chan", None)
        self._returned_at: float | None = None
        self._returned = 0
        self._typed_at = float("-inf")
        self.enabled = (
            self.chan is not None and hasattr(self.chan, "_recv_window") and hasattr(self.chan, "send_packet")
        )
        if self.enabled and self.chan is not None:
            # asyncssh adjusts the window when it delivers a packet if its credit fell below half of
            # _init_recv_window; with 0 that never happens and the credit is ours to grant.
            self.chan._init_recv_window = 0

    def held(self) -> int:
        """Bytes received and not yet read: the stream's buffer plus packets parked in the channel."""
        parked = sum(len(item[0]) for item in getattr(self.chan, "_recv_buf", ()) if isinstance(item, tuple))
        return int(getattr(self.process, "_recv_buf_len", 0) or 0) + parked

    def typed(self) -> None:
        """The user sent the program a key or a paste: its echo should not wait behind a big window."""
        self._typed_at = time.monotonic()
        self.rule.typing = True

    def _typing(self, now: float) -> None:
        self.rule.typing = now - self._typed_at < TYPING_SECONDS

    def before_read(self) -> None:
        if not self.enabled or self.chan is None:
            return
        now = time.monotonic()
        self._typing(now)
        if self._returned_at is not None and self._returned:
            self.rule.consumed(self._returned, now - self._returned_at)
        held, credit = self.held(), self.chan._recv_window
        self.rule.on_read(held, credit)
        self._grant(held, credit)

    def after_read(self, nbytes: int) -> None:
        if not self.enabled or self.chan is None:
            return
        self._returned_at, self._returned = time.monotonic(), nbytes
        self._typing(self._returned_at)
        held, credit = self.held(), self.chan._recv_window
        # Judged before granting: once topped up, the credit no longer says the server ran out.
        self.rule.on_read(held, credit)
        self._grant(held, credit)

    def _grant(self, held: int, credit: int) -> None:
        adjust = self.rule.grant(held, credit)
        chan = self.chan
        if chan is None or adjust <= 0 or getattr(chan, "_send_state", "open") != "open":
            return
        try:
            chan.send_packet(MSG_CHANNEL_WINDOW_ADJUST, UInt32(adjust))
        except Exception:  # noqa: BLE001 - a closing channel: the read that follows reports it
            return
        chan._recv_window += adjust
