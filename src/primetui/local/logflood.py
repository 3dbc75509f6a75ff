"""``LogFlood``: extra log lines appended to a live local run's log at a set rate (tests and benches).

The local trainer writes a line or two per step; the hosted log windows only bite when a run is
chattier than one window per poll. A ``LogFlood`` plays that chatty process: it appends numbered,
timestamped console lines (``HH:MM:SS    INFO flood <tag> 000123``) to ``logs/<component>.log`` of
a run directory, the file the platform ingests, in small batches at ``rate`` lines per second.
Every line is unique, so a reader can count what it lost or repeated against ``written``.

    with LogFlood(lp.data_dir / "runs" / run_id, rate=1000) as flood:
        ...
    print(flood.written)
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from types import TracebackType

BATCH_SECONDS = 0.02


class LogFlood:
    """Append ``rate`` lines/s to ``<run_dir>/logs/<component>.log`` from a thread until stopped."""

    def __init__(
        self,
        run_dir: Path,
        *,
        rate: float = 1000.0,
        component: str = "trainer",
        tag: str = "x",
        limit: int | None = None,
    ) -> None:
        self.path = Path(run_dir) / "logs" / f"{component}.log"
        self.rate = float(rate)
        self.tag = tag
        self.limit = limit
        self.written = 0
        """Lines appended so far."""
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def line(self, n: int) -> str:
        """The ``n``-th line this flood writes (1-based), without its time stamp."""
        return f"flood {self.tag} {n:07d}"

    def start(self) -> LogFlood:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._thread = threading.Thread(target=self._run, name="log-flood", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(10)

    def __enter__(self) -> LogFlood:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def _run(self) -> None:
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            start = time.monotonic()
            while not self._stop.is_set():
                due = int((time.monotonic() - start) * self.rate)
                if self.limit is not None:
                    due = min(due, self.limit)
                if due > self.written:
                    stamp = time.strftime("%H:%M:%S")
                    chunk = "".join(f"{stamp}    INFO {self.line(n)}\n" for n in range(self.written + 1, due + 1))
                    os.write(fd, chunk.encode())  # whole lines, one O_APPEND write: never interleaved mid-line
                    self.written = due
                if self.limit is not None and self.written >= self.limit:
                    return
                self._stop.wait(BATCH_SECONDS)
        finally:
            os.close(fd)
