"""One S3 import or export: plan, then copy object by object through s3transfer, against the volume's room.

Import (S3 prefix -> volume path): the listing is read first (its size is the job's ``total``);
a key with a ``..`` part, or one the volume path rules refuse, stops the job before any byte moves
("nothing outside the volume path"). The whole import must fit the room left on the volume (the
room ledger, :mod:`primetui.local.storage.room`) or nothing is copied; each object then reserves
its bytes before it is fetched, into a staging folder beside the volumes, and lands in the volume
by one rename when complete, so a file on the volume is always whole. A cancel, a failure or an
endpoint that dies leaves only whole files behind; the staging folder goes.

Export (volume path -> S3 prefix): the files under the path (symlinks skipped) are uploaded, big
ones as multipart; an object appears in the bucket only when its upload completes.

Restart: a job started again with the same URL and path skips what is already there. On import a
file is skipped when its size matches the object's and its mtime is the object's Last-Modified (the
import sets it); on export an object is skipped when its size matches the file's and it is not
older than the file. A platform restart fails the jobs it finds live: their credentials were never
stored, so they cannot go on by themselves.
"""

from __future__ import annotations

import os
import shutil
import threading
from collections import deque
from concurrent.futures import CancelledError, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from primetui.local.paths import PathEscapeError, canonical_parts, in_runs, resolve_volume_path, volume_name_of
from primetui.local.storage.room import Ledger, file_size
from primetui.local.transfers import s3io
from primetui.local.transfers.reach import S3Url
from primetui.local.transfers.stats import Meter, human_bytes

CANCELLED = "Cancelled; the files copied before the cancel stay."
WINDOW = 64
"""Objects submitted to the manager and not yet landed (bounds memory and staged files)."""


class Stop(Exception):
    """The job ends here; ``str()`` is the sentence for ``errorMessage`` (empty when cancelled)."""


@dataclass
class _Item:
    rel: str
    size: int
    key: str
    source: Path | None = None  # export: the file
    dest: Path | None = None  # import: where it lands
    mtime: float = 0.0
    staged: Path | None = None
    room: Any = None


@dataclass
class Job:
    """What one transfer knows while it runs (the credentials only until it ends)."""

    id: str
    volume: str
    direction: str
    path: str
    target: S3Url
    region: str
    endpoint: str | None
    secret: s3io.Secret | None
    root: Path
    staging: Path
    ledger: Ledger
    meter: Meter = field(default_factory=Meter)
    cancelled: threading.Event = field(default_factory=threading.Event)
    outcome: str = "running"
    error: str | None = None
    stopping: str | None = None
    """Set when the server stops: the job ends ``failed`` with this sentence instead of ``cancelled``."""
    _inflight: list = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def cancel(self) -> None:
        """Stop soon (from any thread): in-flight requests are cancelled, staged bytes dropped."""
        self.cancelled.set()
        with self._lock:
            futures = list(self._inflight)
        for future in futures:
            future.cancel()

    # -- the job thread -----------------------------------------------------------------------
    def run(self) -> None:
        """Blocking: the whole job, in its own thread. Sets ``outcome`` and ``error``."""
        secret = self.secret
        try:
            assert secret is not None  # dropped only once the job has ended
            s3 = s3io.client(secret, self.region, self.endpoint)
            manager, done = s3io.manager(s3), False
            self._small = ThreadPoolExecutor(s3io.CONCURRENCY, thread_name_prefix=f"{self.id}-small")
            try:
                self._import(s3, manager) if self.direction == "import" else self._export(s3, manager)
                done = True
            finally:
                self._small.shutdown(wait=True, cancel_futures=True)
                manager.shutdown(cancel=not done)
            self.outcome = "succeeded"
        except (Stop, CancelledError) as exc:
            self._end_failed(str(exc) if isinstance(exc, Stop) else "")
        except Exception as exc:  # every S3 or disk error becomes the job's one sentence
            self._end_failed(s3io.explain(exc, self.target.bucket, secret))
        finally:
            self.secret = None  # the credentials live as long as the job, and no longer
            shutil.rmtree(self.staging, ignore_errors=True)

    def _end_failed(self, message: str) -> None:
        if self.stopping:
            self.outcome, self.error = "failed", self.stopping
        elif self.cancelled.is_set():
            self.outcome, self.error = "cancelled", CANCELLED
        else:
            self.outcome, self.error = "failed", message or "The transfer failed."

    def _check(self) -> None:
        if self.cancelled.is_set():
            raise CancelledError

    def _pump(self, items, submit, finish) -> None:
        """Submit each item, keeping at most :data:`WINDOW` in flight; ``finish`` each as it completes."""
        window: deque = deque()
        try:
            for item in items:
                self._check()
                future = submit(item)
                with self._lock:
                    self._inflight.append(future)
                window.append((future, item))
                if self.cancelled.is_set():
                    future.cancel()
                while len(window) > WINDOW:
                    self._complete(window.popleft(), finish)
            while window:
                self._complete(window.popleft(), finish)
        except BaseException:
            for future, item in window:
                future.cancel()
                if item.room is not None:
                    item.room.release()
            raise

    def _complete(self, pair, finish) -> None:
        future, item = pair
        future.result()
        with self._lock:
            self._inflight.remove(future)
        self._check()
        finish(item)

    # -- import -------------------------------------------------------------------------------
    def _import(self, s3, manager) -> None:
        items = self._plan_import(s3)
        self.staging.mkdir(parents=True, exist_ok=True)
        counter = s3io.Counter(self.meter.add)

        def submit(item: _Item):
            assert item.dest is not None  # the import's plan gives each item where it lands
            item.room = self.ledger.reservation(credit=file_size(item.dest))
            if not item.room.add(item.size):
                raise Stop(self._no_room(item.size))
            item.staged = self.staging / f"{id(item):x}"
            if item.size < s3io.PART_BYTES:
                return self._small.submit(s3io.get_small, s3, self.target.bucket, item.key, item.staged, self.meter.add)
            return manager.download(
                self.target.bucket, item.key, str(item.staged), subscribers=[s3io.KnownSize(item.size), counter]
            )

        def finish(item: _Item) -> None:
            dest, staged = item.dest, item.staged
            assert dest is not None and staged is not None  # set by the plan and by submit

            def move() -> None:
                dest.parent.mkdir(parents=True, exist_ok=True)
                os.utime(staged, (item.mtime, item.mtime))
                os.replace(staged, dest)

            self.ledger.land(item.room, dest, item.size, move)

        self._pump(items, submit, finish)

    def _plan_import(self, s3) -> list[_Item]:
        prefix, items, need = self.target.prefix, [], 0
        for obj in s3io.listing(s3, self.target.bucket, prefix):
            self._check()
            rel = obj.key[len(prefix) :]
            if not rel:
                continue
            dest = self._destination(obj.key, rel)
            if rel.endswith("/"):  # a folder marker: the folder, no file
                dest.mkdir(parents=True, exist_ok=True)
                continue
            mtime = obj.modified.timestamp()
            st = _stat(dest)
            if st is not None and st.st_size == obj.size and int(st.st_mtime) == int(mtime):
                continue  # copied by an earlier run of the same import
            need += max(0, obj.size - (st.st_size if st is not None else 0))
            items.append(_Item(rel, obj.size, obj.key, dest=dest, mtime=mtime))
        self.meter.total = sum(item.size for item in items)
        self.ledger.refresh()
        if need > self.ledger.room:
            raise Stop(self._no_room(need))
        return items

    def _destination(self, key: str, rel: str) -> Path:
        name = volume_name_of(self.volume)
        refused = (
            f"Object key '{key[:200]}' would land outside the volume path '{self.path or '/'}' of volume "
            f"'{name}'; nothing was copied. Rename the object (no '..' parts) and start the import again."
        )
        if any(part == ".." for part in rel.split("/")):
            raise Stop(refused)
        try:
            canonical_parts(rel)
            target = resolve_volume_path(self.root, f"{self.path}/{rel}", follow_last=False)
        except PathEscapeError as exc:
            raise Stop(f"{refused[:-1]} ({exc}).") from None
        if in_runs(target.rel):
            raise Stop(
                f"Object key '{key[:200]}' would land in runs/, which holds run outputs and is read-only; "
                "nothing was copied."
            )
        return target.path

    def _no_room(self, need: int) -> str:
        name = volume_name_of(self.volume)
        return (
            f"The import is larger than the room left on volume '{name}' ({human_bytes(need)} to copy, "
            f"{human_bytes(max(0, self.ledger.room))} left); expand it with `prime volumes expand {name} "
            "--size <larger>` and start the import again (files already copied are skipped)."
        )

    # -- export -------------------------------------------------------------------------------
    def _export(self, s3, manager) -> None:
        existing = {obj.key: obj for obj in s3io.listing(s3, self.target.bucket, self.target.prefix)}
        items = []
        for rel, source, st in _walk(resolve_volume_path(self.root, self.path).path):
            self._check()
            key = self.target.prefix + rel
            there = existing.get(key)
            if there is not None and there.size == st.st_size and there.modified.timestamp() >= st.st_mtime - 1:
                continue
            items.append(_Item(rel, st.st_size, key, source=source, mtime=st.st_mtime))
        existing.clear()
        self.meter.total = sum(item.size for item in items)
        counter = [s3io.Counter(self.meter.add)]

        def submit(item: _Item):
            extra = {"Metadata": {"mtime": f"{item.mtime:.9f}"}}
            if item.size < s3io.PART_BYTES:
                return self._small.submit(
                    s3io.put_small,
                    s3,
                    item.source,
                    self.target.bucket,
                    item.key,
                    extra["Metadata"],
                    item.size,
                    self.meter.add,
                )
            return manager.upload(str(item.source), self.target.bucket, item.key, extra_args=extra, subscribers=counter)

        self._pump(items, submit, lambda item: None)


def _stat(path: Path) -> os.stat_result | None:
    try:
        st = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    import stat

    return st if stat.S_ISREG(st.st_mode) else None


def _walk(top: Path):
    """(volume-path-relative name, path, stat) of every regular file under ``top``; symlinks are skipped."""
    stack = [(top, "")]
    while stack:
        folder, rel = stack.pop()
        with os.scandir(folder) as entries:
            for entry in sorted(entries, key=lambda e: e.name):
                name = f"{rel}{entry.name}"
                if entry.is_dir(follow_symlinks=False):
                    stack.append((Path(entry.path), name + "/"))
                elif entry.is_file(follow_symlinks=False):
                    yield name, Path(entry.path), entry.stat(follow_symlinks=False)
