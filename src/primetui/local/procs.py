"""Process helpers shared by the launcher, the run supervisor and the test harness (stdlib only)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any, Protocol


class Child(Protocol):
    """What the harness needs of a started server: a ``subprocess.Popen``, or a process forked for it."""

    pid: int
    returncode: int | None

    def poll(self) -> int | None: ...

    def wait(self, timeout: float | None = None) -> int: ...

    def send_signal(self, sig: int) -> None: ...

    def kill(self) -> None: ...


def pid_alive(pid: int) -> bool:
    """True when a process with ``pid`` exists (also when it belongs to another user)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def wait_for_ready_file(ready: Path, proc: Child, timeout: float, poll: float = 0.05) -> dict[str, Any] | None:
    """Wait until a started server writes its JSON ``ready`` file; return what it holds (the file is removed).

    Returns None when ``proc`` exits first or ``timeout`` seconds pass; the caller tells the two
    apart with ``proc.poll()``.
    """
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if ready.exists():
            try:
                info = json.loads(ready.read_text(encoding="utf-8"))
            except json.JSONDecodeError:
                info = None
            if info:
                ready.unlink(missing_ok=True)
                return info
        if proc.poll() is not None:
            return None
        time.sleep(poll)
    return None
