"""Logs that cannot fill a disk: size-capped files, and repeated lines counted instead of written.

- :class:`CappedFile` appends bytes to a file and rotates it at a size cap (``name`` -> ``name.1``,
  ``name.1`` -> ``name.2``, ...), so a log takes at most ``cap * (backups + 1)`` bytes.
- :func:`capture_output` sends this process's stdout and stderr (file descriptors 1 and 2, so
  also what C code, warnings and uncaught tracebacks write) through a pipe into a :class:`CappedFile`.
- :class:`RepeatFilter` passes the first record of each kind (logger, level, message template),
  then counts the others for a minute: one line per minute with the count, never one line, let
  alone one traceback, per event.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

MiB = 1024 * 1024

LOG_CAP = 8 * MiB
"""Bytes a platform log file holds before it is rotated (``server.log``, ``process.out``, ``serve``'s log)."""
LOG_BACKUPS = 2
"""Rotated files kept beside each log (``.1``, ``.2``): a log takes at most 3 x 8 MiB = 24 MiB."""
REPEAT_WINDOW = 60.0
"""Seconds during which further records of one kind are counted, not written."""
MAX_KINDS = 1000
"""Kinds remembered at once; past it, those with nothing left out and an ended window are forgotten."""


class CappedFile:
    """Append-only bytes to ``path``, rotated once it would pass ``cap`` bytes (mode 0600, thread-safe)."""

    def __init__(self, path: Path, cap: int = LOG_CAP, backups: int = LOG_BACKUPS) -> None:
        self.path = Path(path)
        self.cap = cap
        self.backups = backups
        self._lock = threading.Lock()
        self._fd = -1
        self._size = 0
        self._open()

    def _open(self) -> None:
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
        self._size = os.fstat(self._fd).st_size

    def _rotate(self) -> None:
        os.close(self._fd)
        for n in range(self.backups - 1, 0, -1):
            older = self.path.with_name(f"{self.path.name}.{n}")
            if older.exists():
                os.replace(older, self.path.with_name(f"{self.path.name}.{n + 1}"))
        if self.backups:
            os.replace(self.path, self.path.with_name(f"{self.path.name}.1"))
        else:
            self.path.unlink(missing_ok=True)
        self._open()

    def write(self, data: bytes) -> None:
        with self._lock:
            while data:
                if self._size and self._size + len(data) > self.cap:
                    self._rotate()
                # A single write longer than the cap fills a file of its own, cut at the cap.
                piece, data = data[: self.cap], data[self.cap :]
                os.write(self._fd, piece)
                self._size += len(piece)

    def close(self) -> None:
        with self._lock:
            if self._fd >= 0:
                os.close(self._fd)
                self._fd = -1


def capture_output(path: Path, cap: int = LOG_CAP, backups: int = LOG_BACKUPS) -> CappedFile:
    """From now on, file descriptors 1 and 2 of this process write into a :class:`CappedFile` at ``path``.

    A daemon thread copies the pipe into the file; the pipe is drained at exit (atexit), so the
    last lines of a normal exit are kept.
    """
    import atexit

    target = CappedFile(path, cap, backups)
    sys.stdout.flush()
    sys.stderr.flush()
    read_end, write_end = os.pipe()
    os.set_inheritable(read_end, False)
    os.dup2(write_end, 1)
    os.dup2(write_end, 2)
    os.close(write_end)

    def pump() -> None:
        while True:
            try:
                chunk = os.read(read_end, 65536)
            except OSError:
                return
            if not chunk:
                return
            target.write(chunk)

    thread = threading.Thread(target=pump, name="capped-output", daemon=True)
    thread.start()

    def drain() -> None:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except (OSError, ValueError):
            pass
        # Point 1 and 2 at /dev/null so the pipe's last writer goes and the pump reads its end.
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.dup2(null, 2)
        os.close(null)
        thread.join(timeout=2.0)

    atexit.register(drain)
    return target


class RepeatFilter(logging.Filter):
    """Pass the first record of each kind; count the rest for :data:`REPEAT_WINDOW` seconds.

    A kind is (logger, level, message template), so ``"refused %s"`` with any argument is one kind.
    When the window ends, the next record of that kind is written with the count of those left out
    (``… (and 4,212 more like it in the last 60 s)``); :meth:`report` writes pending counts even
    when no further record comes (the server calls it once a minute). ``quiet`` names message
    starts whose traceback is never written (an accept that failed for lack of file descriptors
    says all in one line).
    """

    def __init__(
        self, window: float = REPEAT_WINDOW, quiet: tuple[str, ...] = (), clock: Callable[[], float] = time.monotonic
    ) -> None:
        super().__init__()
        self.clock = clock
        self.window = window
        self.quiet = quiet
        self._kinds: dict[tuple[str, int, str], tuple[float, int, logging.LogRecord]] = {}
        self._lock = threading.Lock()

    def filter(self, record: logging.LogRecord) -> bool:
        decided = getattr(
            record, "_repeat_pass", None
        )  # a mark this filter leaves on the record, not a LogRecord field
        if decided is not None:  # another handler already decided (and may have rewritten the message)
            return bool(decided)
        decision = self._decide(record)
        setattr(record, "_repeat_pass", decision)
        return decision

    def _decide(self, record: logging.LogRecord) -> bool:
        if getattr(record, "repeat_report", False):
            return True
        kind = (record.name, record.levelno, str(record.msg))
        now = self.clock()
        with self._lock:
            if len(self._kinds) > MAX_KINDS:  # messages formatted before logging make a kind each
                self._kinds = {k: v for k, v in self._kinds.items() if v[1] or now - v[0] < self.window}
            seen = self._kinds.get(kind)
            if seen is not None and now - seen[0] < self.window:
                self._kinds[kind] = (seen[0], seen[1] + 1, record)
                return False
            left_out = seen[1] if seen is not None else 0
            self._kinds[kind] = (now, 0, record)
        if str(record.msg).startswith(self.quiet) and record.exc_info:
            exc = record.exc_info[1]
            record.msg = f"{record.msg}: {exc}"
            record.exc_info = None
            record.exc_text = None
        if left_out:
            record.msg = f"{record.msg} (and {left_out:,} more like it in the last {self.window:.0f} s)"
        return True

    def report(self, logger: logging.Logger) -> None:
        """Write one line per kind whose window has ended with records left out, and start it again."""
        now = self.clock()
        lines = []
        with self._lock:
            for kind, (start, count, record) in list(self._kinds.items()):
                if count and now - start >= self.window:
                    lines.append(
                        (
                            record.levelno,
                            f"{count:,} more like this in the last {now - start:.0f} s: "
                            f"{record.name}: {str(record.msg)[:200]}",
                        )
                    )
                    self._kinds[kind] = (now, 0, record)
        for level, line in lines:
            logger.log(level, line, extra={"repeat_report": True})


def install_repeat_filter(quiet: tuple[str, ...] = ()) -> RepeatFilter:
    """Put one :class:`RepeatFilter` on every handler of the root logger (call after ``basicConfig``)."""
    repeat = RepeatFilter(quiet=quiet)
    for handler in logging.getLogger().handlers:
        handler.addFilter(repeat)
    return repeat


__all__ = [
    "LOG_BACKUPS",
    "LOG_CAP",
    "REPEAT_WINDOW",
    "CappedFile",
    "RepeatFilter",
    "capture_output",
    "install_repeat_filter",
]
