"""rclone-style progress: the strings hosted's rclone jobs report (``412.345 GiB``, ``182.400 MiB/s``, ``1h48m0s``).

A :class:`Meter` counts bytes as they move (from the S3 client's worker threads) and turns them into
the wire ``progress`` object; the rate is a moving average over the last few seconds, as rclone's is.
"""

from __future__ import annotations

import threading
import time
from collections import deque

_UNITS = ("KiB", "MiB", "GiB", "TiB", "PiB")
RATE_WINDOW = 5.0


def human_bytes(n: float) -> str:
    """``412.345 GiB``; plain bytes below 1 KiB (``512 B``)."""
    if n < 1024:
        return f"{int(n)} B"
    value = float(n)
    for unit in _UNITS:
        value /= 1024
        if value < 1024 or unit == _UNITS[-1]:
            return f"{value:.3f} {unit}"
    raise AssertionError("unreachable")


def go_duration(seconds: float) -> str:
    """Go's ``time.Duration`` text, to the second, as rclone prints an ETA: ``1h48m0s``, ``3m5s``, ``7s``."""
    total = max(0, int(round(seconds)))
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h{minutes}m{secs}s"
    if minutes:
        return f"{minutes}m{secs}s"
    return f"{secs}s"


class Meter:
    """Bytes moved so far, out of a total known once the listing is done; thread-safe."""

    def __init__(self, clock=time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self.total = 0
        self.done = 0
        self.errors = 0
        self._samples: deque[tuple[float, int]] = deque()

    def add(self, n: int) -> None:
        with self._lock:
            self.done += n

    def undo(self, n: int) -> None:
        """Bytes counted for an object that did not land (a retry or a failure): they are moved again."""
        with self._lock:
            self.done = max(0, self.done - n)

    def rate(self) -> float:
        """Bytes per second over the last :data:`RATE_WINDOW` seconds."""
        now = self._clock()
        with self._lock:
            self._samples.append((now, self.done))
            while len(self._samples) > 2 and now - self._samples[0][0] > RATE_WINDOW:
                self._samples.popleft()
            (t0, b0), (t1, b1) = self._samples[0], self._samples[-1]
        return (b1 - b0) / (t1 - t0) if t1 > t0 else 0.0

    def progress(self) -> dict:
        """The wire ``progress`` object (``VolumeTransferProgress``)."""
        rate = self.rate()
        with self._lock:
            done, total, errors = self.done, self.total, self.errors
        percentage = 100 if total == 0 else min(100, int(done * 100 // total))
        eta = go_duration((total - done) / rate) if rate > 0 and total > done else ("0s" if total <= done else "-")
        return {
            "transferred": human_bytes(done),
            "total": human_bytes(total),
            "percentage": percentage,
            "rate": f"{human_bytes(rate)}/s",
            "eta": eta,
            "errors": errors,
        }
