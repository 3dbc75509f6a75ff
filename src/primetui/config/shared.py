"""State that two dashboards on one machine share, merged on write and never clobbered.

Every file here is changed by a read-modify-write held under an advisory lock
(``fcntl.flock`` on a sibling ``.NAME.lock`` file), and written with :func:`atomic_write`: a
second dashboard's write waits for the first one's, then reads the file as it is now and applies
only its own change. A reader that takes no lock still sees the old file or the new one.

- :func:`locked` is the lock; :func:`update_json` a locked change of a JSON object file.
- :class:`Announced` is the "already told" set: an anomaly or an ending of a run is announced by
  the first dashboard that claims it, once per run, across restarts and dashboards.

Stdlib only (no UI imports). Where ``fcntl`` does not exist the writes are not locked; they stay
atomic.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from primetui.config.fileio import atomic_write

LOCK_WAIT = 5.0
"""Seconds a writer waits for another one's lock before giving up (a holder keeps it milliseconds)."""
ANNOUNCED_FILE = "announced.json"
MAX_ANNOUNCED_RUNS = 2000
"""Runs kept in the announced set; the runs told about longest ago are dropped first."""


class LockTimeout(OSError):
    """Another process held the lock longer than :data:`LOCK_WAIT`; nothing was written."""


def lock_path(path: Path) -> Path:
    """The lock file beside ``path``: ``.NAME.lock`` (it stays; removing it would race)."""
    path = Path(path)
    return path.parent / f".{path.name}.lock"


@contextmanager
def locked(path: Path, wait: float = LOCK_WAIT) -> Iterator[None]:
    """Hold the advisory lock of ``path`` (exclusive) for a read-modify-write; creates the directory."""
    try:
        import fcntl
    except ImportError:  # no flock on this system: atomic writes alone
        yield
        return
    lock = lock_path(path)
    lock.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        end = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > end:
                    raise LockTimeout(
                        11, f"{path} is being written by another primetui; try again", str(path)
                    ) from None
                time.sleep(0.01)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def read_json_object(path: Path) -> dict[str, Any]:
    """The JSON object in ``path``; a missing, unreadable or broken file is ``{}``."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def update_json(path: Path, change: Callable[[dict[str, Any]], Any]) -> dict[str, Any]:
    """Apply ``change`` (it edits the dict in place) to the JSON object in ``path`` under its lock.

    The file is written only when the change changed something; returns the object as written (or
    as found). Raises ``OSError`` (:class:`LockTimeout` among them) when it cannot be written.
    """
    path = Path(path)
    with locked(path):
        data = read_json_object(path)
        before = json.dumps(data, sort_keys=True)
        change(data)
        if json.dumps(data, sort_keys=True) != before:
            atomic_write(path, json.dumps(data, indent=1, sort_keys=False) + "\n")
    return data


class Announced:
    """What has been told about each run already: anomalies and endings, once per run.

    ``claim(run_id, key)`` is True for the first dashboard (or start) that asks, False for every
    later one. The set lives in ``announced.json`` (``{"runs": {RUN: [KEY, ...]}}``) when a path is
    given, else for this process only. A file that cannot be written is reported by ``problem``
    and the claim is kept in memory: better told twice than never.
    """

    def __init__(self, path: Path | None) -> None:
        self.path = Path(path) if path is not None else None
        self.problem: str | None = None
        self._mine: set[tuple[str, str]] = set()

    def claim(self, run_id: str, key: str) -> bool:
        pair = (str(run_id), str(key))
        if pair in self._mine:
            return False
        self._mine.add(pair)
        if self.path is None:
            return True
        won = True

        def change(data: dict[str, Any]) -> None:
            nonlocal won
            runs = data.get("runs")
            if not isinstance(runs, dict):
                runs = data["runs"] = {}
            told = runs.pop(pair[0], None)
            told = [str(k) for k in told] if isinstance(told, list) else []
            if pair[1] in told:
                won = False
            else:
                told.append(pair[1])
            runs[pair[0]] = told  # the run told about last goes last: the oldest are dropped first
            while len(runs) > MAX_ANNOUNCED_RUNS:
                runs.pop(next(iter(runs)))

        try:
            update_json(self.path, change)
        except OSError as exc:
            self.problem = (
                f"Could not record what was announced in {self.path} ({exc.strerror or exc}); "
                "another dashboard may announce it again."
            )
            return True
        return won

    def told(self, run_id: str) -> list[str]:
        """The keys already announced for ``run_id`` (from the file when there is one)."""
        if self.path is None:
            return sorted(k for r, k in self._mine if r == run_id)
        told = read_json_object(self.path).get("runs", {})
        keys = told.get(run_id) if isinstance(told, dict) else None
        return [str(k) for k in keys] if isinstance(keys, list) else []


__all__ = ["ANNOUNCED_FILE", "Announced", "LockTimeout", "lock_path", "locked", "read_json_object", "update_json"]
