"""Put and get straight to the volume's storage (the V9 route's ``via: "r2"``), with no session.

The same checks, layout and confinement as the session copy in :mod:`primetui.shell.transfer`,
by calling the same code: a put is checked by ``check_put_target`` and planned by its local walk
(symlinks, FIFOs and unreadable files skipped and listed); a get lands through
:class:`primetui.shell.confine.Landing` in a :class:`~primetui.shell.confine.LocalTree`, so a key
the storage lists that is not a safe local name (``..``, absolute, a NUL, over-long) is skipped
and listed, a key's control and bidi characters land as the screen shows them, nothing is written
through a local symlink, modes are safe, and an existing file is replaced only as ``overwrite``
says. Each file is read up to the size the listing gave it and kept only when exactly that many
bytes came (:meth:`~primetui.api.volume_storage.VolumeStorage.download`). Synchronous (the caller
runs it in a thread); ``should_stop()`` is polled between chunks so a UI's cancel ends it, and a
download never leaves a half-written file under the real name.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Callable
from typing import Any

from primetui.api.volume_storage import SizeMismatch
from primetui.shell.confine import (
    Asker,
    AskNow,
    Landing,
    LocalTree,
    Skipped,
    body_problem,
    key_parts,
    path_problem,
    shown,
)
from primetui.shell.errors import TransferError
from primetui.shell.paths import check_length
from primetui.shell.transfer import (
    MAX_LISTED,
    TransferResult,
    _local_plan,
    check_put_target,
    get_layout,
)

Progress = Callable[[int, int, str], None]
_SESSION_STATE = "runs/.sessions/"


class Stopped(Exception):
    """The caller asked the transfer to stop."""


def put_route_args(local: str, remote: str) -> tuple[str, list[str] | None]:
    """(path, entries) of the V9 put request for copying ``local`` to ``remote`` (entries: a root put)."""
    pt = check_put_target(local, remote)
    if pt.target.rel:
        return pt.target.rel + ("/" if pt.target.into else ""), None
    return "", sorted(os.listdir(pt.src)) if pt.contents else [pt.src.resolve().name]


def _ticker(
    total: int, progress: Progress | None, should_stop: Callable[[], bool]
) -> Callable[[int, str], Callable[[int], None]]:
    done = [0]

    def for_file(start: int, rel: str) -> Callable[[int], None]:
        done[0] = start

        def tick(n: int) -> None:
            if should_stop():
                raise Stopped()
            done[0] += n
            if progress:
                progress(done[0], total, rel)

        return tick

    return for_file


def put(
    storage: Any,
    local: str,
    remote: str,
    progress: Progress | None = None,
    should_stop: Callable[[], bool] = lambda: False,
    *,
    overwrite: bool | AskNow = False,
    volume: str = "",
) -> TransferResult:
    """Upload ``local`` (a file or folder) onto the volume at ``remote``.

    A file already on the volume is replaced only as ``overwrite`` says; special files are skipped
    and listed, as over a session.
    """
    pt = check_put_target(local, remote)
    skipped: list[Skipped] = []
    files, dirs, total = _local_plan(pt, skipped)
    for rel in [r for _, r, _ in files] + dirs:
        check_length(rel)
    tick = _ticker(total, progress, should_stop)
    asker = Asker(overwrite)
    done = copied = 0
    for path, rel, st in files:
        if storage.head(rel) is not None and not asker.replace_now(f"{volume}:/{rel}"):
            skipped.append(Skipped(rel, asker.reason))
            continue
        storage.upload(path, rel, tick(done, rel))
        done += st.st_size
        copied += 1
    filled = {posixpath.dirname(rel) for _, rel, _ in files} | {posixpath.dirname(d) for d in dirs}
    parents = {p for d in filled for p in _ancestors(d)}
    for rel in dirs:
        if rel not in parents:  # an empty folder: rclone's marker keeps it
            storage.make_dir(rel)
    if progress:
        progress(done, done, "")
    return TransferResult(copied, done, "/" + pt.base if pt.base else "/", tuple(skipped))


def _ancestors(rel: str) -> list[str]:
    parts = rel.split("/") if rel else []
    return ["/".join(parts[:i]) for i in range(1, len(parts) + 1)]


def _plan(storage: Any, remote: str, rel: str, top: tuple[bytes, ...], skipped: list[Skipped]):
    """(files as (key, local parts, listed size), folders as local parts) of the get, every listed key
    checked; a key whose local form another key already took is skipped (the first is kept)."""
    head = storage.head(rel) if rel and not remote.rstrip().endswith("/") else None
    if head is not None:
        return [(rel, top, head["size"])], []
    folder = rel + "/" if rel else ""
    files: list[tuple[str, tuple[bytes, ...], int | None]] = []
    dirs: list[tuple[bytes, ...]] = [top]
    taken: set[tuple[bytes, ...]] = set()
    for listed, item in enumerate(storage.list(folder, recursive=True), 1):
        if listed > MAX_LISTED:
            raise TransferError(f"{remote} lists more than {MAX_LISTED} entries; get a smaller folder.")
        if item.key.startswith(_SESSION_STATE) or not item.key.startswith(folder):
            continue
        below = item.key[len(folder) :].encode("utf-8", "surrogateescape")
        below = below[:-1] if item.is_dir else below
        if not below:
            continue  # the folder's own marker
        parts, problem = key_parts(below)
        problem = problem or path_problem(item.key.encode("utf-8", "surrogateescape"))
        if problem is None and not item.is_dir and top + parts in taken:
            problem = f"its local name {shown(b'/'.join(parts))} is an earlier entry's; the first was kept"
        if problem:
            skipped.append(Skipped(shown(item.key.encode("utf-8", "surrogateescape")) or '""', problem))
        elif item.is_dir:
            dirs.append(top + parts)
        else:
            taken.add(top + parts)
            files.append((item.key, top + parts, item.size))
    if not files and len(dirs) == 1 and not skipped:
        raise TransferError(f"Get {remote}: no such file or directory on the volume. Check the path.")
    return files, dirs


def get(
    storage: Any,
    remote: str,
    local: str,
    volume: str,
    progress: Progress | None = None,
    should_stop: Callable[[], bool] = lambda: False,
    *,
    overwrite: bool | AskNow = False,
) -> TransferResult:
    """Download ``remote`` (a file or folder on the volume) into ``local``, confined to it."""
    at = get_layout(remote, local, volume)
    skipped: list[Skipped] = []
    files, dirs = _plan(storage, remote, at.target.rel, at.top, skipped)
    total = sum(size or 0 for _, _, size in files)
    tick = _ticker(total, progress, should_stop)
    asker = Asker(overwrite)
    done = copied = 0
    with LocalTree(at.root) as tree:
        landing = Landing(tree, skipped)
        for parts in dirs:
            landing.folder(parts, shown(b"/".join(parts)))
        for key, parts, size in files:
            slot = landing.slot(parts, key, size)
            if slot is None:
                continue
            dir_fd, there = slot
            if there is not None and not asker.replace_now(landing.shown(parts)):
                skipped.append(Skipped(key, asker.reason))
                continue
            try:
                with landing.writing(dir_fd, parts[-1], there, None) as fd:
                    done += storage.download(key, fd, size, tick(done, key))
            except SizeMismatch as exc:  # the partial file is gone; the rest of the get goes on
                skipped.append(Skipped(key, body_problem(exc.listed, exc.got, more=exc.more, announced=exc.announced)))
                continue
            copied += 1
    if progress:
        progress(done, done, "")
    return TransferResult(copied, done, str(at.dst), tuple(skipped))
