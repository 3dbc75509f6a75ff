"""prime-rl's console log format, without colour: ``HH:MM:SS    INFO message``.

Every platform component (trainer, orchestrator, inference, env servers) logs through this, one
flushed line at a time, because the platform tails these files live.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

LEVELS = ("DEBUG", "INFO", "SUCCESS", "WARNING", "ERROR")


def format_line(level: str, message: str, when: float | None = None) -> str:
    """One log line exactly as prime-rl's loguru format renders it, minus the ANSI codes."""
    stamp = time.strftime("%H:%M:%S", time.localtime(time.time() if when is None else when))
    return f"{stamp} {level:>7} {message}"


class ConsoleLog:
    """A per-component log file (and optionally stderr) written line by line."""

    def __init__(self, path: Path, *, echo: bool = False) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        self._echo = echo

    def log(self, level: str, message: str) -> None:
        # A multi-line message (a traceback) keeps the prefix on its first line only, as loguru does.
        line = format_line(level, message) + "\n"
        os.write(self._fd, line.encode("utf-8", "replace"))
        if self._echo:
            sys.stderr.write(line)
            sys.stderr.flush()

    def debug(self, message: str) -> None:
        self.log("DEBUG", message)

    def info(self, message: str) -> None:
        self.log("INFO", message)

    def success(self, message: str) -> None:
        self.log("SUCCESS", message)

    def warning(self, message: str) -> None:
        self.log("WARNING", message)

    def error(self, message: str) -> None:
        self.log("ERROR", message)

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


def format_time(seconds: float) -> str:
    """prime-rl's ``format_time``: 850ms, 8.5s, 2m 5s, 1h 3m, 2d 4h."""
    if seconds < 1:
        return f"{seconds * 1000:.0f}ms"
    if seconds < 60:
        return f"{seconds:.1f}s"
    if seconds < 3600:
        return f"{int(seconds // 60)}m {int(seconds % 60)}s"
    if seconds < 86400:
        return f"{int(seconds // 3600)}h {int(seconds % 3600 // 60)}m"
    return f"{int(seconds // 86400)}d {int(seconds % 86400 // 3600)}h"
