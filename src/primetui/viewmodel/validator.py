"""Where the editor's validation runs: a thread for normal files, a helper process for big ones.

A thread is enough for a config of a few hundred lines (a few ms). A multi-thousand-line file
takes a few hundred milliseconds of pure Python, and a thread holding the GIL that long makes
keystrokes stutter, so big texts go to one long-lived helper process (``python -m
primetui.sft.worker``, started on demand, stopped by pid at exit). If it dies, the check runs
in the thread and a new helper is started next time.
"""

from __future__ import annotations

import atexit
import subprocess
import sys
import threading

from primetui.sft.check import Report, check_text
from primetui.sft.context import CheckContext
from primetui.sft.worker import read_frame, write_frame

BIG_TEXT = 20_000  # characters (~600 lines); above this the check runs in the helper process

_lock = threading.Lock()
_proc: subprocess.Popen | None = None


def _helper() -> subprocess.Popen:
    global _proc
    if _proc is None or _proc.poll() is not None:
        _proc = subprocess.Popen([sys.executable, "-m", "primetui.sft.worker"], stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, close_fds=True)
    return _proc


def warm() -> None:
    """Start the helper ahead of the first big validation (it imports pydantic and tree-sitter)."""
    threading.Thread(target=validate, args=("", CheckContext(), True), daemon=True).start()


def validate(text: str, ctx: CheckContext, force_helper: bool = False) -> Report:
    """Check ``text``; called from a worker thread (it blocks on the helper's pipe, not on the GIL)."""
    global _proc
    if len(text) < BIG_TEXT and not force_helper:
        return check_text(text, ctx)
    with _lock:  # one request at a time on the pipe
        try:
            proc = _helper()
            write_frame(proc.stdin, (text, ctx))
            return read_frame(proc.stdout)
        except (OSError, EOFError, ValueError):
            stop()
    return check_text(text, ctx)


@atexit.register
def stop() -> None:
    """Stop the helper we started (by its pid, through its Popen)."""
    global _proc
    proc, _proc = _proc, None
    if proc is not None and proc.poll() is None:
        try:
            proc.stdin.close()
            proc.wait(timeout=2)
        except (OSError, subprocess.TimeoutExpired):
            proc.kill()
