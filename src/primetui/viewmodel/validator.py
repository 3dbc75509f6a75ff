"""Where the editor's validation runs: a thread for normal files, a helper process for big ones.

A thread is enough for a config of a few hundred lines (a few ms). A multi-thousand-line file
takes a few hundred milliseconds of pure Python, and a thread holding the GIL that long makes
keystrokes stutter, so big texts go to a long-lived helper process (``python -m
primetui.sft.worker``). Each editor owns one :class:`Validator`, and so at most one helper: it is
started on demand, and :meth:`Validator.close` (the editor closing) ends it by its pid; on a 5 MB
file it holds a few hundred MB, which must not outlive the editor. If a helper dies, the check
runs in the thread and a new helper is started next time. Helpers still running when the program
exits are stopped then.
"""

from __future__ import annotations

import atexit
import subprocess
import sys
import threading
import weakref

from primetui.sft.check import Report, check_text
from primetui.sft.context import CheckContext
from primetui.sft.worker import read_frame, write_frame

BIG_TEXT = 20_000  # characters (~600 lines); above this the check runs in the helper process
STOP_WAIT = 2.0  # seconds a helper gets to exit on SIGTERM before it is killed

_open: weakref.WeakSet[Validator] = weakref.WeakSet()


class ValidatorClosed(RuntimeError):
    """The validator was closed (its editor closed): nothing is checked any more."""


class Validator:
    """One editor's validation (see the module docstring). ``validate`` runs in a worker thread."""

    def __init__(self) -> None:
        self._pipe = threading.Lock()  # one request at a time on the helper's pipes
        self._state = threading.Lock()  # guards _proc and closed; never held while waiting on the helper
        self._proc: subprocess.Popen[bytes] | None = None
        self.closed = False
        _open.add(self)

    @property
    def pid(self) -> int | None:
        """The pid of this validator's helper process while it runs, else None."""
        proc = self._proc
        return proc.pid if proc is not None and proc.poll() is None else None

    def _helper(self) -> subprocess.Popen[bytes]:
        with self._state:
            if self.closed:
                raise ValidatorClosed("the editor closed")
            if self._proc is None or self._proc.poll() is not None:
                self._proc = subprocess.Popen(
                    [sys.executable, "-m", "primetui.sft.worker"],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.DEVNULL,
                    close_fds=True,
                )
            return self._proc

    def warm(self) -> None:
        """Start the helper ahead of the first big validation (it imports pydantic and tree-sitter)."""
        threading.Thread(target=self._warm, daemon=True).start()

    def _warm(self) -> None:
        try:
            self.validate("", CheckContext(), force_helper=True)
        except ValidatorClosed:
            pass

    def validate(self, text: str, ctx: CheckContext, force_helper: bool = False) -> Report:
        """Check ``text``; called from a worker thread (it blocks on the helper's pipe, not on the GIL).
        Raises :class:`ValidatorClosed` once the validator is closed."""
        if self.closed:
            raise ValidatorClosed("the editor closed")
        if len(text) < BIG_TEXT and not force_helper:
            return check_text(text, ctx)
        with self._pipe:
            proc = self._helper()
            try:
                if proc.stdin is None or proc.stdout is None:  # never: both are pipes
                    raise OSError("the helper has no pipes")
                write_frame(proc.stdin, (text, ctx))
                report: Report = read_frame(proc.stdout)
                return report
            except (OSError, EOFError, ValueError):
                if self.closed:
                    raise ValidatorClosed("the editor closed") from None  # close() ended the helper under us
                self._end(proc, wait=False)
        return check_text(text, ctx)

    def close(self) -> None:
        """End the helper (by its pid, through its Popen) without waiting on it: SIGTERM now, and
        a thread reaps it (SIGKILL after ``STOP_WAIT``). Later checks raise ValidatorClosed."""
        with self._state:
            self.closed = True
            proc, self._proc = self._proc, None
        _open.discard(self)
        if proc is not None:
            self._end(proc, wait=False)

    @staticmethod
    def _end(proc: subprocess.Popen[bytes], wait: bool) -> None:
        if proc.poll() is None:
            try:
                proc.terminate()
            except OSError:
                pass
        if wait:
            _reap(proc)
        else:
            threading.Thread(target=_reap, args=(proc,), daemon=True).start()


def _reap(proc: subprocess.Popen[bytes]) -> None:
    """Wait for a terminated helper (so no zombie keeps its pid); kill it if SIGTERM did not end it."""
    for stream in (proc.stdin, proc.stdout):
        try:
            if stream is not None:
                stream.close()
        except OSError:
            pass
    try:
        proc.wait(timeout=STOP_WAIT)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@atexit.register
def stop_all() -> None:
    """Stop every helper still running (the app is exiting with editors open)."""
    for validator in list(_open):
        with validator._state:
            validator.closed = True
            proc, validator._proc = validator._proc, None
        if proc is not None:
            Validator._end(proc, wait=True)
