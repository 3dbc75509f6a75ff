"""SFTP put and get over a session connection, with progress and the platform's path rules.

``put(conn, local, remote, progress)`` and ``get(conn, remote, local, progress)`` copy a file or a
folder (rsync's rule: ``dir/`` copies the contents, ``dir`` the folder itself; a remote path ending
in ``/`` means "into"). Every file is written under a temporary name and renamed when complete,
so an interrupted copy never leaves a truncated file under the real name. ``progress(done, total,
name)`` is called with byte counts over the whole transfer. Cancelling the coroutine (a UI's
"cancel") stops the transfer and removes the half-written file.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import posixpath
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import asyncssh

from primetui.shell.connect import SessionConnection, classify_loss
from primetui.shell.errors import ConnectionDropped, RemotePathError, TransferError
from primetui.shell.paths import check_length, check_put_names, remote_path

Progress = Callable[[int, int, str], None]
_PARTIAL = ".primetui-partial"


@dataclass(frozen=True)
class TransferResult:
    """What a put or get moved."""

    files: int
    bytes: int
    destination: str


def _copies_contents(local: str) -> bool:
    return local.endswith(("/", os.sep)) or os.path.basename(local) in (".", "..")


def _local_plan(local: Path, base_rel: str) -> tuple[list[tuple[Path, str]], list[str], int]:
    """(files as (local path, volume rel), dirs as volume rel, total bytes) for an upload."""
    files: list[tuple[Path, str]] = []
    dirs: list[str] = []
    total = 0
    if local.is_file():
        return [(local, base_rel)], [], local.stat().st_size
    dirs.append(base_rel)
    for root, dnames, fnames in os.walk(local, followlinks=False):
        rel_root = os.path.relpath(root, local)
        for name in sorted(dnames) + sorted(fnames):
            path = Path(root) / name
            if path.is_symlink():
                raise RemotePathError(f"{path} is a symlink; copy the files it points to instead. Nothing was copied.")
        for name in sorted(dnames):
            rel = posixpath.normpath(posixpath.join(base_rel, rel_root, name)) if base_rel else posixpath.normpath(posixpath.join(rel_root, name))
            dirs.append(rel)
        for name in sorted(fnames):
            path = Path(root) / name
            rel = posixpath.normpath(posixpath.join(base_rel, rel_root, name)) if base_rel else posixpath.normpath(posixpath.join(rel_root, name))
            files.append((path, rel))
            total += path.stat().st_size
    return files, [d for d in dirs if d and d != "."], total


def _sftp_error(exc: Exception, what: str) -> Exception:
    if isinstance(exc, asyncssh.SFTPError):
        reason = (exc.reason or "").rstrip(".")
        if isinstance(exc, asyncssh.SFTPNoSuchFile):
            return TransferError(f"{what}: no such file or directory on the volume. Check the path.")
        if isinstance(exc, asyncssh.SFTPPermissionDenied):
            return TransferError(f"{what}: refused by the session ({reason}).")
        return TransferError(f"{what}: {reason or type(exc).__name__}.")
    if isinstance(exc, OSError):
        return TransferError(f"{what}: {exc.strerror or exc}.")
    return classify_loss(exc) or ConnectionDropped(f"{what}: the connection dropped; reconnect and retry.")


async def put(conn: SessionConnection, local: str | os.PathLike[str], remote: str, progress: Progress | None = None) -> TransferResult:
    """Upload a local file or folder onto the volume (refused for read-only sessions and runs/)."""
    local_str = os.fspath(local)
    src = Path(local_str)
    if src.is_symlink():
        raise RemotePathError(f"{local_str} is a symlink; pass the path it points to.")
    if not (src.is_file() or src.is_dir()):
        raise RemotePathError(f"No such file or directory: {local_str}")
    if not os.access(src, os.R_OK | (os.X_OK if src.is_dir() else 0)):
        raise RemotePathError(f"Permission denied: {local_str}")
    target = remote_path(remote)
    contents = src.is_dir() and _copies_contents(local_str)
    if target.into:
        top = sorted(os.listdir(src)) if contents else [src.resolve().name]
        base = target.rel if contents else target.child(top[0]).rel
    else:
        top = [target.rel.split("/", 1)[0]]
        base = target.rel
    check_put_names(target, top)
    if conn.endpoint.read_only:
        raise RemotePathError("This is a read-only session; open a read-write session to put files on the volume.")
    files, dirs, total = _local_plan(src, base)
    for _, rel in files:
        check_length(rel)
    for rel in dirs:
        check_length(rel)
    done = 0
    try:
        async with conn.conn.start_sftp_client() as sftp:
            if target.rel and src.is_dir() and not target.into:
                await sftp.makedirs("/volume/" + target.rel, exist_ok=True)
            for rel in dirs:
                await sftp.makedirs("/volume/" + rel, exist_ok=True)
            for path, rel in files:
                dest = "/volume/" + rel
                parent = posixpath.dirname(dest)
                if parent != "/volume":
                    await sftp.makedirs(parent, exist_ok=True)
                partial = posixpath.join(parent, f".{posixpath.basename(dest)}{_PARTIAL}")
                start = done

                def handler(_src, _dst, copied, _total, start=start, rel=rel):
                    if progress:
                        progress(start + copied, total, rel)

                try:
                    await sftp.put(str(path), partial, progress_handler=handler, preserve=True)
                    await sftp.posix_rename(partial, dest)
                except BaseException:  # failed or cancelled: leave no half file behind
                    with contextlib.suppress(Exception):
                        await asyncio.wait_for(asyncio.shield(sftp.remove(partial)), 2)
                    raise
                done = start + path.stat().st_size
                if progress:
                    progress(done, total, rel)
    except (asyncssh.Error, OSError) as exc:
        raise _sftp_error(exc, f"Put {local_str} -> {remote}") from exc
    return TransferResult(len(files), done, "/" + base if base else "/")


async def _remote_plan(sftp: asyncssh.SFTPClient, remote: str, dest: Path):
    files: list[tuple[str, Path, int]] = []
    dirs: list[Path] = []
    attrs = await sftp.stat(remote)
    if attrs.type != asyncssh.FILEXFER_TYPE_DIRECTORY:
        return [(remote, dest, attrs.size or 0)], []
    stack = [(remote, dest)]
    while stack:
        rdir, ldir = stack.pop()
        dirs.append(ldir)
        async for entry in sftp.scandir(rdir):
            name = entry.filename
            if name in (".", ".."):
                continue
            rpath = posixpath.join(rdir, name)
            if entry.attrs.type == asyncssh.FILEXFER_TYPE_DIRECTORY:
                stack.append((rpath, ldir / name))
            elif entry.attrs.type == asyncssh.FILEXFER_TYPE_REGULAR:
                files.append((rpath, ldir / name, entry.attrs.size or 0))
    return files, dirs


async def get(conn: SessionConnection, remote: str, local: str | os.PathLike[str], progress: Progress | None = None) -> TransferResult:
    """Download a file or folder from the volume to ``local``."""
    target = remote_path(remote)
    local_str = os.fspath(local)
    dst = Path(local_str)
    name = posixpath.basename(target.rel) if target.rel else conn.endpoint.volume_name
    copy_contents = target.into and bool(target.rel) and remote.rstrip().endswith("/")
    if dst.is_dir() and not copy_contents:
        dst = dst / name
    probe = dst.parent if not dst.exists() else dst
    while not probe.exists():
        probe = probe.parent
    if not os.access(probe, os.W_OK | os.X_OK):
        raise RemotePathError(f"Cannot write to {local_str}")
    done = 0
    try:
        async with conn.conn.start_sftp_client() as sftp:
            files, dirs = await _remote_plan(sftp, target.remote, dst)
            total = sum(size for _, _, size in files)
            for d in dirs:
                d.mkdir(parents=True, exist_ok=True)
            for rpath, lpath, size in files:
                lpath.parent.mkdir(parents=True, exist_ok=True)
                partial = lpath.with_name(f".{lpath.name}{_PARTIAL}")
                start = done
                rel = rpath.removeprefix("/volume/")

                def handler(_src, _dst, copied, _total, start=start, rel=rel):
                    if progress:
                        progress(start + copied, total, rel)

                try:
                    await sftp.get(rpath, str(partial), progress_handler=handler, preserve=True)
                    os.replace(partial, lpath)
                except BaseException:  # failed or cancelled: leave no half file behind
                    partial.unlink(missing_ok=True)
                    raise
                done = start + size
                if progress:
                    progress(done, total, rel)
    except (asyncssh.Error, OSError) as exc:
        raise _sftp_error(exc, f"Get {remote} -> {local_str}") from exc
    return TransferResult(len(files), done, str(dst))
