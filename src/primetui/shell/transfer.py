"""SFTP put and get over a session connection, with progress, the platform's path rules and confinement.

``put(conn, local, remote, progress)`` and ``get(conn, remote, local, progress)`` copy a file or a
folder (rsync's rule: ``dir/`` copies the contents, ``dir`` the folder itself; a remote path ending
in ``/`` means "into"). Every file is written under a temporary name and renamed when complete,
so an interrupted copy never leaves a truncated file under the real name. ``progress(done, total,
name)`` is called with byte counts over the whole transfer. Cancelling the coroutine (a UI's
"cancel") stops the transfer and removes the half-written file.

Both directions follow ``primetui.shell.confine``: names a server lists are checked before they
become local names and land as the screen shows them (no control or bidi character), a file is
read up to its listed size and kept only when exactly that many bytes came, every local path is
reached without following a symlink, modes keep only their permission bits, an existing file is
replaced only when ``overwrite`` says so (``True``, or a coroutine that asks), and symlinks,
FIFOs, sockets, devices and refused names are skipped and listed, with the reason, in
``TransferResult.skipped``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import posixpath
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import asyncssh

from primetui.shell.confine import (
    PARTIAL,
    Asker,
    Landing,
    LocalTree,
    Overwrite,
    Skipped,
    body_problem,
    kind_reason,
    landing_name,
    local_kind,
    path_problem,
    safe_mode,
    shown,
)
from primetui.shell.connect import SessionConnection, classify_loss
from primetui.shell.errors import ConnectionDropped, RemotePathError, TransferError
from primetui.shell.paths import (
    MOUNT,
    RemotePath,
    check_length,
    check_put_names,
    remote_path,
)

Progress = Callable[[int, int, str], None]
MAX_LISTED = 100_000
"""Directory entries a get reads before it gives up (a server may list without end)."""
_MOUNT_PREFIX = MOUNT.encode() + b"/"
_SFTP_KIND = {
    asyncssh.FILEXFER_TYPE_SYMLINK: "symlink",
    asyncssh.FILEXFER_TYPE_FIFO: "fifo",
    asyncssh.FILEXFER_TYPE_SOCKET: "socket",
    asyncssh.FILEXFER_TYPE_CHAR_DEVICE: "device",
    asyncssh.FILEXFER_TYPE_BLOCK_DEVICE: "device",
}


@dataclass(frozen=True)
class TransferResult:
    """What a put or get moved, and what it left alone (with why)."""

    files: int
    bytes: int
    destination: str
    skipped: tuple[Skipped, ...] = ()


@dataclass(frozen=True)
class PutTarget:
    """A checked put: the local source, and where its top item lands on the volume."""

    src: Path
    target: RemotePath
    base: str
    contents: bool


def copies_contents(local: str) -> bool:
    return local.endswith(("/", os.sep)) or os.path.basename(local) in (".", "..")


def check_put_target(local: str, remote: str) -> PutTarget:
    """The one check of a put before anything connects; RemotePathError says what is wrong.

    The platform's rules (characters, no climbing above the root, runs/ is read-only, the
    root-put limit, lengths) and the local ones (exists, readable, not a symlink).
    """
    if not local.strip():
        raise RemotePathError("Type the local file or folder to put.")
    src = Path(local).expanduser()
    if src.is_symlink():
        raise RemotePathError(f"{local} is a symlink; type the path it points to.")
    if src.exists() and not (src.is_file() or src.is_dir()):
        raise RemotePathError(f"{local} is {kind_reason(local_kind(src.stat().st_mode))}; nothing to put.")
    if not (src.is_file() or src.is_dir()):
        raise RemotePathError(f"No such local file or folder: {local}; check the path (relative to {os.getcwd()}).")
    if not os.access(src, os.R_OK | (os.X_OK if src.is_dir() else 0)):
        raise RemotePathError(f"Cannot read {local} (permission denied); fix its permissions or pick another path.")
    target = remote_path(remote)
    contents = src.is_dir() and copies_contents(local)
    if target.into:
        top = sorted(os.listdir(src)) if contents else [src.resolve().name]
        base = target.rel if contents else target.child(top[0]).rel
    else:
        top = [target.rel.split("/", 1)[0]]
        base = target.rel
    check_put_names(target, top)
    check_length(base)
    return PutTarget(src, target, base, contents)


def check_get_target(remote: str, local: str) -> RemotePath:
    """The one check of a get before anything connects; RemotePathError says what is wrong."""
    target = remote_path(remote)
    if not local.strip():
        raise RemotePathError("Type the local folder to copy into (. is the current folder).")
    dst = Path(local).expanduser()
    if dst.exists() and not dst.is_dir():
        raise RemotePathError(f"{local} is a file; type a folder to copy into.")
    probe = dst if dst.exists() else dst.parent
    while not probe.exists():
        probe = probe.parent
    if not probe.is_dir() or not os.access(probe, os.W_OK | os.X_OK):
        raise RemotePathError(f"Cannot write into {probe} (permission denied); pick another local folder.")
    return target


@dataclass(frozen=True)
class GetTarget:
    """A checked get: the volume path, and where it lands locally (``top`` below the folder ``root``)."""

    target: RemotePath
    dst: Path
    root: Path
    top: tuple[bytes, ...]


def get_layout(remote: str, local: str, volume: str) -> GetTarget:
    """Where a get of ``remote`` into ``local`` lands (rsync's rule for a trailing /); RemotePathError
    when the paths are refused or the name it would land under cannot be a local name."""
    target = check_get_target(remote, local)
    dst = Path(local).expanduser()
    name = posixpath.basename(target.rel) if target.rel else volume
    landed, problem = landing_name(os.fsencode(name))
    if problem:
        raise RemotePathError(f"Cannot use {name!r} as a local name ({problem}); get a folder inside it instead.")
    name = os.fsdecode(landed)
    copy_contents = target.into and bool(target.rel) and remote.rstrip().endswith("/")
    if dst.is_dir() and not copy_contents:
        dst = dst / name
    root, top = (dst, ()) if copy_contents or not dst.name else (dst.parent, (os.fsencode(dst.name),))
    return GetTarget(target, dst, root, top)


def _local_plan(pt: PutTarget, skipped: list[Skipped]) -> tuple[list[tuple[Path, str, os.stat_result]], list[str], int]:
    """(files as (local path, volume rel, stat), dirs as volume rel, total bytes) for an upload."""
    src, base = pt.src, pt.base
    if src.is_file():
        st = src.stat()
        return [(src, base, st)], [], st.st_size
    files: list[tuple[Path, str, os.stat_result]] = []
    dirs: list[str] = [base]
    total = 0
    label = src if pt.contents else src.parent

    def unreadable(exc: OSError) -> None:
        skipped.append(Skipped(os.path.relpath(exc.filename or src, label), f"cannot list it ({exc.strerror or exc})"))

    for root, dnames, fnames in os.walk(src, followlinks=False, onerror=unreadable):
        rel_root = os.path.relpath(root, src)
        keep: list[str] = []
        for name in sorted(dnames) + sorted(fnames):
            path = Path(root) / name
            rel = posixpath.normpath(posixpath.join(base, rel_root, name))
            st = os.lstat(path)
            if stat.S_ISDIR(st.st_mode):
                keep.append(name)
                dirs.append(rel)
            elif not stat.S_ISREG(st.st_mode):
                skipped.append(Skipped(os.path.relpath(path, label), kind_reason(local_kind(st.st_mode))))
            elif not os.access(path, os.R_OK):
                skipped.append(Skipped(os.path.relpath(path, label), "cannot read it (permission denied)"))
            else:
                files.append((path, rel, st))
                total += st.st_size
        dnames[:] = [d for d in dnames if d in keep]
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


async def _remote_existing(sftp: asyncssh.SFTPClient, path: str) -> asyncssh.SFTPAttrs | None:
    try:
        return await sftp.lstat(path)
    except asyncssh.SFTPNoSuchFile:
        return None


async def put(
    conn: SessionConnection,
    local: str | os.PathLike[str],
    remote: str,
    progress: Progress | None = None,
    *,
    overwrite: bool | Overwrite = False,
) -> TransferResult:
    """Upload a local file or folder onto the volume (refused for read-only sessions and runs/).

    A file already on the volume is replaced only as ``overwrite`` says; symlinks, FIFOs and other
    special files in the tree are skipped and listed.
    """
    local_str = os.fspath(local)
    pt = check_put_target(local_str, remote)
    if conn.endpoint.read_only:
        raise RemotePathError("This is a read-only session; open a read-write session to put files on the volume.")
    skipped: list[Skipped] = []
    files, dirs, total = _local_plan(pt, skipped)
    for _, rel, _ in files:
        check_length(rel)
    for rel in dirs:
        check_length(rel)
    asker = Asker(overwrite)
    done = 0
    copied = 0
    try:
        async with conn.conn.start_sftp_client() as sftp:
            if pt.target.rel and pt.src.is_dir() and not pt.target.into:
                await sftp.makedirs(f"{MOUNT}/{pt.target.rel}", exist_ok=True)
            for rel in dirs:
                await sftp.makedirs(f"{MOUNT}/{rel}", exist_ok=True)
            for path, rel, st in files:
                dest = f"{MOUNT}/{rel}"
                existing = await _remote_existing(sftp, dest)
                if existing is not None:
                    if existing.type == asyncssh.FILEXFER_TYPE_DIRECTORY:
                        skipped.append(Skipped(rel, "a folder on the volume has that name; left alone"))
                        continue
                    if not await asker.replace(f"{conn.endpoint.volume_name}:/{rel}"):
                        skipped.append(Skipped(rel, asker.reason))
                        continue
                parent = posixpath.dirname(dest)
                if parent != MOUNT:
                    await sftp.makedirs(parent, exist_ok=True)
                partial = posixpath.join(parent, f".{posixpath.basename(dest)[:200]}{PARTIAL}")
                start = done

                def handler(_src, _dst, sent, _total, start=start, rel=rel):
                    if progress:
                        progress(start + sent, total, rel)

                try:
                    await sftp.put(str(path), partial, progress_handler=handler)
                    mode = safe_mode(
                        st.st_mode,
                        existing.permissions
                        if existing is not None and existing.type == asyncssh.FILEXFER_TYPE_REGULAR
                        else None,
                    )
                    await sftp.setstat(
                        partial, asyncssh.SFTPAttrs(permissions=mode, atime=int(st.st_atime), mtime=int(st.st_mtime))
                    )
                    await sftp.posix_rename(partial, dest)
                except BaseException:  # failed or cancelled: leave no half file behind
                    with contextlib.suppress(Exception):
                        await asyncio.wait_for(asyncio.shield(sftp.remove(partial)), 2)
                    raise
                done = start + st.st_size
                copied += 1
                if progress:
                    progress(done, total, rel)
    except (asyncssh.Error, OSError) as exc:
        raise _sftp_error(exc, f"Put {local_str} -> {remote}") from exc
    return TransferResult(copied, done, "/" + pt.base if pt.base else "/", tuple(skipped))


def _volume_rel(rpath: bytes) -> bytes:
    return rpath[len(_MOUNT_PREFIX) :] if rpath.startswith(_MOUNT_PREFIX) else rpath.lstrip(b"/")


async def _remote_plan(sftp: asyncssh.SFTPClient, remote: bytes, top: tuple[bytes, ...], skipped: list[Skipped]):
    """(files as (remote path, local parts, attrs), folders as local parts) under ``remote``.

    Every listed name is checked before it becomes a local name (its :func:`landing_name`; a name
    whose local form an earlier one in the folder took is skipped); what is not copied is added to
    ``skipped`` with the reason.
    """
    files: list[tuple[bytes, tuple[bytes, ...], asyncssh.SFTPAttrs]] = []
    dirs: list[tuple[bytes, ...]] = []
    attrs = await sftp.stat(remote)
    if attrs.type != asyncssh.FILEXFER_TYPE_DIRECTORY:
        if attrs.type not in (asyncssh.FILEXFER_TYPE_REGULAR, asyncssh.FILEXFER_TYPE_UNKNOWN):
            raise RemotePathError(
                f"{shown(_volume_rel(remote))} is {kind_reason(_SFTP_KIND.get(attrs.type, 'other'))}; nothing to get."
            )
        return [(remote, top, attrs)], []
    listed = 0
    stack = [(remote, top)]
    while stack:
        rdir, parts = stack.pop()
        dirs.append(parts)
        seen: dict[bytes, bytes] = {}  # local name -> the listed name that took it
        async for entry in sftp.scandir(rdir):
            name = entry.filename
            if isinstance(name, str):  # asyncssh decodes when it can; the checks are on bytes
                name = os.fsencode(name)
            listed += 1
            if listed > MAX_LISTED:
                raise TransferError(
                    f"{shown(_volume_rel(remote))} lists more than {MAX_LISTED} entries; get a smaller folder."
                )
            if name in (b".", b".."):
                continue  # every listing holds them
            rpath = rdir + b"/" + name
            rel = _volume_rel(rpath)
            local, problem = landing_name(name)
            problem = problem or path_problem(rel)
            if problem is None and local in seen:
                first = seen[local]
                problem = (
                    "listed twice; the first was kept"
                    if first == name
                    else f"its local name {shown(local)} is an earlier entry's; the first was kept"
                )
            if problem:
                skipped.append(Skipped(shown(rel + (b"" if name else b'""')), problem))  # an empty name, shown as ""
                continue
            seen[local] = name
            kind = entry.attrs.type
            if kind == asyncssh.FILEXFER_TYPE_DIRECTORY:
                stack.append((rpath, parts + (local,)))
            elif kind == asyncssh.FILEXFER_TYPE_REGULAR:
                files.append((rpath, parts + (local,), entry.attrs))
            else:
                skipped.append(Skipped(shown(rel), kind_reason(_SFTP_KIND.get(kind, "other"))))
    return files, dirs


class _Mismatch(Exception):
    """The file's body was not the size it was listed at; ``str()`` is the reason it is not kept."""


class _Covered:
    """How many bytes from offset 0 have arrived with no hole, from blocks arriving in any order."""

    def __init__(self) -> None:
        self.end = 0
        self._ahead: dict[int, int] = {}  # start -> end of blocks past a hole (few: reads in flight)

    def add(self, start: int, end: int) -> None:
        if start > self.end:
            self._ahead[start] = max(end, self._ahead.get(start, end))
            return
        self.end = max(self.end, end)
        while self._ahead:
            reached = [k for k in self._ahead if k <= self.end]
            if not reached:
                return
            for k in reached:
                self.end = max(self.end, self._ahead.pop(k))


async def _fetch(sftp: asyncssh.SFTPClient, rpath: bytes, fd: int, size: int, on_bytes: Callable[[int], None]) -> int:
    """Copy the remote file, listed at ``size`` bytes, into the open local file (parallel reads, written
    where they belong); return ``size``.

    The listed size is the ceiling: ``size + 1`` bytes are asked for (the server's own idea of the
    file's end is not), nothing at or past ``size`` is written, and _Mismatch is raised when any byte
    came from there or fewer than ``size`` came (the caller does not keep the file).
    """
    covered, copied, more = _Covered(), 0, False
    async with sftp.open(rpath, "rb") as src:
        # Not broken off early: the reads in flight are bounded by the size asked for, and end cleanly.
        async for offset, data in await src.read_parallel(size + 1, 0):
            keep = data[: max(0, size - offset)]
            more = more or len(keep) < len(data)
            if keep:
                os.pwrite(fd, keep, offset)
                covered.add(offset, offset + len(keep))
                copied += len(keep)
                on_bytes(min(copied, size))
    if more:
        raise _Mismatch(body_problem(size, covered.end, more=True))
    if covered.end < size:
        raise _Mismatch(body_problem(size, covered.end))
    return size


def _keep_times(fd: int, attrs: asyncssh.SFTPAttrs) -> None:
    with contextlib.suppress(
        TypeError, ValueError, OverflowError, OSError
    ):  # a server's odd times are not worth failing for
        if attrs.mtime is not None:
            os.utime(fd, (attrs.atime if attrs.atime is not None else attrs.mtime, attrs.mtime))


async def get(
    conn: SessionConnection,
    remote: str,
    local: str | os.PathLike[str],
    progress: Progress | None = None,
    *,
    overwrite: bool | Overwrite = False,
) -> TransferResult:
    """Download a file or folder from the volume to ``local``, confined to it.

    An existing local file is replaced only as ``overwrite`` says (``False``: never, it is listed
    as skipped; ``True``: always; a coroutine: asked per file, where "all" stops asking).
    """
    local_str = os.fspath(local)
    at = get_layout(remote, local_str, conn.endpoint.volume_name)
    skipped: list[Skipped] = []
    asker = Asker(overwrite)
    done = copied = 0
    try:
        async with conn.conn.start_sftp_client() as sftp:
            files, dirs = await _remote_plan(sftp, at.target.remote.encode(), at.top, skipped)
            total = sum(max(0, attrs.size or 0) for _, _, attrs in files)
            with LocalTree(at.root) as tree:
                landing = Landing(tree, skipped)
                for parts in dirs:
                    landing.folder(parts, shown(b"/".join(parts)))
                for rpath, parts, attrs in files:
                    rel = shown(_volume_rel(rpath))
                    slot = landing.slot(parts, rel, attrs.size)
                    if slot is None:
                        continue
                    dir_fd, there = slot
                    if there is not None and not await asker.replace(landing.shown(parts)):
                        skipped.append(Skipped(rel, asker.reason))
                        continue
                    start = done

                    def on_bytes(n: int, start: int = start, rel: str = rel) -> None:
                        if progress:
                            progress(start + n, total, rel)

                    try:
                        with landing.writing(dir_fd, parts[-1], there, attrs.permissions) as fd:
                            size = await _fetch(sftp, rpath, fd, attrs.size or 0, on_bytes)
                            _keep_times(fd, attrs)
                    except _Mismatch as exc:  # the partial file is gone; the rest of the get goes on
                        skipped.append(Skipped(rel, str(exc)))
                        continue
                    done = start + size
                    copied += 1
                    if progress:
                        progress(done, total, rel)
    except (asyncssh.Error, OSError) as exc:
        raise _sftp_error(exc, f"Get {remote} -> {local_str}") from exc
    return TransferResult(copied, done, str(at.dst), tuple(skipped))
