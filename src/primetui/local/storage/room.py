"""Room on a volume: one ledger per volume, so writers running side by side cannot overfill it.

A volume's size caps the bytes of its regular files (what :func:`paths.dir_size_bytes` counts).
Every writer in this process that the storage route reaches takes room here *before* it accepts
bytes, and gives it back when it fails, or once its bytes are on the volume and counted:

- a direct PUT reserves its declared length before it reads the body (``Content-Length``, or
  ``x-amz-decoded-content-length``); a body of unknown length grows its reservation with each
  chunk, before the chunk is written;
- the parts of a multipart upload reserve the same way, into one reservation for the upload, and
  complete lands the joined file against it: the parts are already counted, so complete takes no
  new room and counts nothing twice;
- a read-write session's final sync reserves what it adds to the volume before it writes back.

Room is ``size - on_disk - reserved``. ``on_disk`` is measured by walking the volume at most every
:data:`FRESH_SECONDS` (so bytes written outside the ledger, a run's checkpoints, show up), and is
kept exact in between by the writers that land through :meth:`Ledger.land`. A walk that runs while
files land keeps the growth they report (the walk may or may not have seen them): the ledger errs
on the full side until the next walk, never on the empty side.

Overwriting: an upload to a key that already holds a file is credited with that file's size. It
reserves only what it adds beyond the file it replaces, since the old file leaves the volume in
the same rename that brings the new one in (uploads stream into a staging folder beside the
volumes, which the cap does not cover). When it lands, the credit is checked again against the
file that is there then: if that file is smaller or gone, the difference must still fit, or the
upload is refused.
"""

from __future__ import annotations

import os
import stat
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from primetui.local.paths import dir_size_bytes, split_volume_key

FRESH_SECONDS = 2.0
"""How long a walk of the volume is trusted (writes through the ledger keep it exact in between)."""

T = TypeVar("T")


class NoRoom(Exception):
    """The volume has no room for the bytes asked for."""


def file_size(path: Path) -> int:
    """Bytes the regular file at ``path`` counts against its volume (0 when there is none)."""
    try:
        st = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return 0
    return st.st_size if stat.S_ISREG(st.st_mode) else 0


@dataclass
class Ledger:
    """The room of one volume: its size, what is on it, and what writers hold for bytes in flight."""

    volume: str
    measure: Callable[[], int]
    """Bytes on the volume now (a walk of its folder)."""
    size: Callable[[], int | None]
    """The volume's size now (None once it is deleted)."""
    _lock: threading.Lock = field(default_factory=threading.Lock)
    landing: threading.Lock = field(default_factory=threading.Lock)
    """Held while one writer moves its file into place, so the file it replaces is the one it counted."""
    _cap: int = 0
    _on_disk: int = 0
    _reserved: int = 0
    _measured_at: float = float("-inf")
    _walking: bool = False
    _grown_during_walk: int = 0

    def refresh(self) -> None:
        """Read the volume's size, and walk the volume when the last walk is stale (blocking: run in a thread)."""
        cap = self.size()
        with self._lock:
            self._cap = cap or 0
            if self._walking or time.monotonic() - self._measured_at < FRESH_SECONDS:
                return
            self._walking, self._grown_during_walk = True, 0
        try:
            measured = self.measure()
        finally:
            with self._lock:
                self._walking = False
        with self._lock:
            self._on_disk = measured + self._grown_during_walk
            self._measured_at = time.monotonic()

    def stale(self) -> None:
        """Walk the volume again at the next :meth:`refresh` (something outside the ledger changed it)."""
        with self._lock:
            self._measured_at = float("-inf")

    @property
    def room(self) -> int:
        with self._lock:
            return self._cap - self._on_disk - self._reserved

    @property
    def reserved(self) -> int:
        with self._lock:
            return self._reserved

    def reservation(self, credit: int = 0) -> Reservation:
        """A new, empty reservation; ``credit`` is the size of the file its bytes will replace."""
        return Reservation(self, credit)

    def land(self, held: Reservation, path: Path, size: int, move: Callable[[], T]) -> T:
        """Move a file of ``size`` bytes to ``path`` (by ``move()``) against ``held``, then count it.

        Blocking (run it in a thread). Raises :class:`NoRoom`, before moving anything, when the file at
        ``path`` is smaller now than the credit ``held`` was given and the difference does not fit.
        The reservation is used up either way: its bytes are counted on the volume or given back.
        """
        with self.landing:
            delta = size - file_size(path)
            with self._lock:
                held.closed = True
                extra = delta - held.held
                if extra > 0 and extra > self._cap - self._on_disk - self._reserved:
                    self._reserved -= held.held
                    held.held = held.total = 0
                    raise NoRoom
                self._reserved += max(0, extra)
                held.held += max(0, extra)
            try:
                result = move()
            except BaseException:
                held.release()
                raise
            with self._lock:
                self._reserved -= held.held
                held.held = held.total = 0
                self._on_disk += delta
                if self._walking and delta > 0:
                    self._grown_during_walk += delta
        return result

    def settle(self, held: Reservation, grown: int) -> None:
        """A writer that copied into the volume itself is done: count ``grown`` bytes and release ``held``."""
        with self._lock:
            held.closed = True
            self._reserved -= held.held
            held.held = held.total = 0
            self._on_disk += grown
            if self._walking and grown > 0:
                self._grown_during_walk += grown
            self._measured_at = float("-inf")  # walk again before the next reservation trusts the count


@dataclass
class Reservation:
    """Room one writer holds on a volume for bytes it has accepted (or promised) and not yet landed."""

    ledger: Ledger
    credit: int = 0
    """Bytes of the file these bytes replace: they need no new room."""
    total: int = 0
    """Bytes this reservation stands for."""
    held: int = 0
    """Room held in the ledger: ``max(0, total - credit)`` while open."""
    closed: bool = False

    def add(self, n: int) -> bool:
        """Stand for ``n`` more bytes; False (and nothing changed) when the volume has no room for them."""
        ledger = self.ledger
        with ledger._lock:
            if self.closed:
                return False
            need = max(0, self.total + n - self.credit) - self.held
            if need > 0 and need > ledger._cap - ledger._on_disk - ledger._reserved:
                return False
            self.total += n
            if need > 0:
                ledger._reserved += need
                self.held += need
            return True

    def sub(self, n: int) -> None:
        """Stand for ``n`` bytes fewer (bytes that will not land): the room they held is given back."""
        ledger = self.ledger
        with ledger._lock:
            self.total = max(0, self.total - n)
            keep = 0 if self.closed else max(0, self.total - self.credit)
            if self.held > keep:
                ledger._reserved -= self.held - keep
                self.held = keep

    def release(self) -> None:
        """Give back all the room held; nothing more is added to this reservation."""
        ledger = self.ledger
        with ledger._lock:
            self.closed = True
            ledger._reserved -= self.held
            self.held = self.total = 0


def ledger_of(state: Any, volume: str) -> Ledger:
    """The one ledger of ``volume`` (a :func:`paths.volume_key`) on the platform of ``state``."""
    ledgers: dict[str, Ledger] = state.extras.setdefault("room", {})
    found = ledgers.get(volume)
    if found is None:

        def size() -> int | None:
            row = state.store.get_volume(*split_volume_key(volume))
            return int(row["size_bytes"]) if row is not None else None

        found = ledgers.setdefault(volume, Ledger(volume, lambda: dir_size_bytes(state.volume_dir(volume)), size))
    return found
