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


FORKED_TRAINER = b"primetui.local.trainer.forks"
"""The command line a forked trainer keeps from the process that forked it (``primetui.local.trainer.forks``)."""


def trainer_in(pid: int, folder: Path, exact: bool = False) -> bool:
    """True when ``pid`` is alive, not a zombie, and the trainer of a run dir in ``folder`` (``exact``: of
    the run dir ``folder``): its command line names it (a trainer started fresh), or it was forked by the
    trainers' fork server and works in it. Guards a signal against a pid the system gave to another process."""
    if not pid_alive(pid):
        return False
    try:
        args = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\x00")
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    if ") Z" in stat:  # a zombie is dead for our purposes
        return False
    where = str(folder).encode()
    if where in args if exact else any(where in arg for arg in args):
        return True
    if not any(FORKED_TRAINER in arg for arg in args):
        return False
    try:
        cwd = Path(os.readlink(f"/proc/{pid}/cwd"))
    except OSError:
        return False
    home = Path(os.path.realpath(folder))
    return cwd == home if exact else cwd == home or home in cwd.parents


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
