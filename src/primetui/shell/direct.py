"""Put and get straight to the volume's storage (the V9 route's ``via: "r2"``), with no session.

The same layout and path rules as the session copy in :mod:`primetui.shell.transfer` (rsync's
rule: ``dir/`` copies the contents, ``dir`` the folder itself; a remote path ending in ``/`` means
"into"), so the two routes put files in the same places. Synchronous (the caller runs it in a
thread); ``should_stop()`` is polled between chunks so a UI's cancel ends it, and a download
never leaves a half-written file under the real name.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Callable
from pathlib import Path
from typing import Any

from primetui.shell.errors import RemotePathError, TransferError
from primetui.shell.paths import check_length, check_put_names, remote_path
from primetui.shell.transfer import TransferResult, _copies_contents, _local_plan

Progress = Callable[[int, int, str], None]


class Stopped(Exception):
    """The caller asked the transfer to stop."""


def put_route_args(local: str, remote: str) -> tuple[str, list[str] | None]:
    """(path, entries) of the V9 put request for copying ``local`` to ``remote`` (entries: a root put)."""
    src = Path(local)
    target = remote_path(remote)
    contents = src.is_dir() and _copies_contents(local)
    if target.rel:
        return target.rel + ("/" if target.into else ""), None
    return "", sorted(os.listdir(src)) if contents else [src.resolve().name]


def _ticker(total: int, progress: Progress | None, should_stop: Callable[[], bool]) -> Callable[[str], Callable[[int], None]]:
    done = [0]

    def for_file(rel: str) -> Callable[[int], None]:
        def tick(n: int) -> None:
            if should_stop():
                raise Stopped()
            done[0] += n
            if progress:
                progress(done[0], total, rel)

        return tick

    return for_file


def put(storage: Any, local: str, remote: str, progress: Progress | None = None,
        should_stop: Callable[[], bool] = lambda: False) -> TransferResult:
    """Upload ``local`` (a file or folder) onto the volume at ``remote``."""
    src = Path(local)
    if src.is_symlink():
        raise RemotePathError(f"{local} is a symlink; pass the path it points to.")
    if not (src.is_file() or src.is_dir()):
        raise RemotePathError(f"No such file or directory: {local}")
    target = remote_path(remote)
    contents = src.is_dir() and _copies_contents(local)
    if target.into:
        top = sorted(os.listdir(src)) if contents else [src.resolve().name]
        base = target.rel if contents else target.child(top[0]).rel
    else:
        top = [target.rel.split("/", 1)[0]]
        base = target.rel
    check_put_names(target, top)
    files, dirs, total = _local_plan(src, base)
    for rel in [r for _, r in files] + dirs:
        check_length(rel)
    tick = _ticker(total, progress, should_stop)
    for path, rel in files:
        storage.upload(path, rel, tick(rel))
    filled = {posixpath.dirname(rel) for _, rel in files} | {posixpath.dirname(d) for d in dirs}
    parents = {p for d in filled for p in _ancestors(d)}
    for rel in dirs:
        if rel not in parents:  # an empty folder: rclone's marker keeps it
            storage.make_dir(rel)
    if progress:
        progress(total, total, "")
    return TransferResult(len(files), total, "/" + base if base else "/")


def _ancestors(rel: str) -> list[str]:
    parts = rel.split("/") if rel else []
    return ["/".join(parts[:i]) for i in range(1, len(parts) + 1)]


def get(storage: Any, remote: str, local: str, volume: str, progress: Progress | None = None,
        should_stop: Callable[[], bool] = lambda: False) -> TransferResult:
    """Download ``remote`` (a file or folder on the volume) into ``local``."""
    target = remote_path(remote)
    dst = Path(local)
    name = posixpath.basename(target.rel) if target.rel else volume
    copy_contents = target.into and bool(target.rel) and remote.rstrip().endswith("/")
    if dst.is_dir() and not copy_contents:
        dst = dst / name
    head = storage.head(target.rel) if target.rel and not remote.rstrip().endswith("/") else None
    if head is not None:
        plan = [(target.rel, dst, head["size"])]
        dirs: list[Path] = []
    else:
        folder = target.rel + "/" if target.rel else ""
        plan, dirs = [], [dst]
        for item in storage.list(folder, recursive=True):
            parts = item.key[len(folder):].rstrip("/").split("/")
            if any(p in ("", ".", "..") for p in parts) or item.key.startswith("runs/.sessions/"):
                continue
            if item.is_dir:
                dirs.append(dst.joinpath(*parts))
            else:
                plan.append((item.key, dst.joinpath(*parts), item.size or 0))
        if not plan and len(dirs) == 1:
            raise TransferError(f"Get {remote}: no such file or directory on the volume. Check the path.")
    _refuse_linked(dst, [p for _, p, _ in plan] + dirs)
    total = sum(size for _, _, size in plan)
    tick = _ticker(total, progress, should_stop)
    for d in dirs:
        d.mkdir(parents=True, exist_ok=True)
    for key, path, _ in plan:
        storage.download(key, path, tick(key))
    if progress:
        progress(total, total, "")
    return TransferResult(len(plan), total, str(dst))


def _refuse_linked(dst: Path, paths: list[Path]) -> None:
    """Refuse, before anything is written, a get whose path below ``dst`` passes a symlink (it would
    write through it, outside the folder the user chose); ``dst`` itself may be a link the user made."""
    seen: set[Path] = set()
    for path in paths:
        cur = dst
        for part in path.relative_to(dst).parts:
            cur = cur / part
            if cur in seen:
                continue
            seen.add(cur)
            if cur.is_symlink():
                raise RemotePathError(f"{cur} is a symlink inside the destination; the get would write through it. "
                                      "Remove it or get elsewhere.")
            if not cur.exists():
                break
