"""Keeping a download inside the folder the user chose, and what a copy may keep of a file's mode.

Every name in a download comes from the server's directory listing, so a careless or hostile
server decides them. OpenSSH's sftp refuses such names ("Server sent suspect path") and scp fixed
the same class of bug as CVE-2019-6111; these are the same rules:

- a listed name that is empty, ``.``, ``..``, holds ``/`` (absolute or not) or a NUL byte is
  refused, and so is one over 255 bytes or a path over 1024 bytes (the platform's own limits), and
  one shaped like a file being written (``.NAME.primetui-partial``: writing ``NAME`` would remove it);
- a name that passes lands under the name the screen shows for it (:func:`local_name`: controls,
  bidi and invisible format characters made visible by the one neutraliser), so no ESC, BEL or
  RLO reaches a local file name; two names that become the same keep the first;
- a file is fetched only with a listed size, at most the local disk's free space, and is kept
  only when exactly that many bytes arrived (:func:`body_problem`): a get never reads past it;
- local paths are never joined as strings: :class:`LocalTree` opens the chosen folder once and
  reaches every folder below it one component at a time from its descriptor, with
  ``O_NOFOLLOW``, so a local symlink on the way (or a race that plants one) is refused instead
  of followed out of the tree; files are written under a temporary name in that folder and
  renamed within it, which replaces a symlink itself, never the file it points to;
- a copied file keeps only its permission bits: never setuid, setgid or sticky, and group or
  world write only when the file it replaces already allowed it (:func:`safe_mode`).
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Self, cast

from primetui.monitor_core.escapes import clean
from primetui.shell.paths import MAX_KEY, MAX_SEGMENT

# Answers of an overwrite prompt (see ``Overwrite``).
REPLACE, SKIP, REPLACE_ALL = "replace", "skip", "all"
Overwrite = Callable[[str], Awaitable[str]]
"""Asked with a path (as shown to the user) that already exists; answers REPLACE, SKIP or REPLACE_ALL."""

EXISTS_REASON = "already exists; left as it was"
PARTIAL = ".primetui-partial"
"""The suffix of a file being written (renamed into place when complete)."""
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_NEW_FILE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


@dataclass(frozen=True)
class Skipped:
    """One entry a transfer left alone, and why (both shown to the user)."""

    path: str
    reason: str


class Refused(Exception):
    """A local path that cannot be written without leaving the tree; ``str()`` is the reason."""


def name_problem(name: bytes) -> str | None:
    """Why a name from a directory listing may not become a local name, or None when it may."""
    if not name:
        return "refused name: it is empty"
    if b"\0" in name:
        return "refused name: it holds a NUL byte"
    if name.startswith(b"/"):
        return "refused name: it is an absolute path"
    if b"/" in name:
        return "refused name: it holds a /"
    if name in (b".", b".."):
        return f"refused name: it is {name.decode()}"
    if len(name) > MAX_SEGMENT:
        return f"refused name: it is {len(name)} bytes (at most {MAX_SEGMENT})"
    if name.startswith(b".") and name.endswith(PARTIAL.encode()):  # it would be (or remove) another file's partial
        return f"refused name: it is the name of a file being written (.NAME{PARTIAL})"
    return None


def local_name(name: bytes) -> bytes:
    """The local form of a listed name: the text the screen shows for it (:func:`clean`), in UTF-8.

    C0 controls become control pictures (ESC ``␛``, BEL ``␇``, LF ``␊``), DEL ``␡``, C1 controls,
    bidi overrides, isolates and marks, zero-width characters, U+2028/9 and the BOM ``\ufffd``, a
    tab a space; bytes that are not UTF-8 become ``\ufffd`` too, as a UTF-8 terminal shows them.
    """
    if name.isascii() and name.decode().isprintable():
        return name
    return clean(name.decode("utf-8", "replace")).encode()


def landing_name(name: bytes) -> tuple[bytes, str | None]:
    """(the local form of a listed name, why it may not land or None): :func:`name_problem` on the name
    as listed, then on its local form (made visible, a name grows: ESC's one byte is ``␛``'s three)."""
    if problem := name_problem(name):
        return name, problem
    local = local_name(name)
    if local != name and (problem := name_problem(local)):
        return local, "refused name: made visible, " + problem.removeprefix("refused name: ")
    return local, None


def size_problem(size: int | None, dir_fd: int) -> str | None:
    """Why a file listed at ``size`` bytes is not fetched into the folder ``dir_fd`` (None: it is).

    The listed size is the file's ceiling: a get never writes past it. A file listed without one
    has no ceiling, so it is not read; one listed larger than the disk's free space would only fill it.
    """
    if size is None or size < 0:
        return "listed without a size; not fetched (a get reads no more than a file's listed size)"
    disk = os.fstatvfs(dir_fd)
    free = disk.f_bavail * disk.f_frsize
    if size > free:
        return f"listed at {size:,} bytes, more than the {free:,} bytes free on the local disk; not fetched"
    return None


def body_problem(listed: int, got: int, *, more: bool = False, announced: int | None = None) -> str:
    """Why a fetched file is not kept: its body was not the size it was listed at."""
    if announced is not None:
        return f"not kept: the server announced {announced:,} bytes, but it was listed at {listed:,}"
    if more:
        return f"not kept: it sent more than the {listed:,} bytes it was listed at (cut at {listed:,})"
    return f"not kept: it ended after {got:,} of the {listed:,} bytes it was listed at"


def path_problem(rel: bytes) -> str | None:
    """Why a (checked) relative path is refused as a whole: longer than the platform allows."""
    if len(rel) > MAX_KEY:
        return f"refused path: it is {len(rel)} bytes (at most {MAX_KEY})"
    return None


def safe_mode(mode: int | None, existing: int | None = None) -> int:
    """The mode a copied file gets from the mode it had at the source.

    Only the permission bits survive (no setuid, setgid, sticky); group and world write only when
    the file being replaced already had that bit, so a copy never opens a file up to others.
    """
    perm = stat.S_IMODE(mode) & 0o777 if mode is not None else 0o644
    kept = perm & 0o755
    if existing is not None:
        kept |= perm & stat.S_IMODE(existing) & 0o022
    return kept


def shown(rel: bytes) -> str:
    """A relative path as text for messages (undecodable bytes kept as escapes, never dropped)."""
    return rel.decode("utf-8", "backslashreplace")


class LocalTree:
    """A local folder opened once; every path below it is reached from its descriptor, never by a
    string join and never through a symlink. Use as a context manager."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._fd = -1
        self._last: tuple[tuple[bytes, ...], int] | None = None

    def __enter__(self) -> Self:
        # The chosen folder itself is the user's (a link they made to another disk is theirs to follow).
        self.root.mkdir(parents=True, exist_ok=True)
        self._fd = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        return self

    def __exit__(self, *exc: object) -> None:
        self._drop_last()
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def _drop_last(self) -> None:
        if self._last is not None:
            os.close(self._last[1])
            self._last = None

    def folder(self, parts: tuple[bytes, ...]) -> int:
        """A descriptor of ``root/parts...``, made as needed; Refused if a symlink or file is on the way.

        The descriptor stays owned by the tree (only the last one is kept open, so a wide tree
        never runs out of descriptors); do not close it.
        """
        if not parts:
            return self._fd
        if self._last is not None and self._last[0] == parts:
            return self._last[1]
        self._drop_last()
        fd = self._fd
        for i, part in enumerate(parts):
            with contextlib.suppress(FileExistsError):
                os.mkdir(part, 0o755, dir_fd=fd)
            try:
                child = os.open(part, _DIR_FLAGS, dir_fd=fd)
            except OSError as exc:
                if fd != self._fd:
                    os.close(fd)
                where = shown(b"/".join(parts[: i + 1]))
                if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                    raise Refused(f"{where} is a local symlink or file, not a folder; it was left alone") from None
                raise
            if fd != self._fd:
                os.close(fd)
            fd = child
        self._last = (parts, fd)
        return fd

    @staticmethod
    def existing(dir_fd: int, name: bytes) -> os.stat_result | None:
        """What is at ``name`` in that folder now (a symlink is reported, not followed)."""
        try:
            return os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
        except FileNotFoundError:
            return None

    @staticmethod
    def create_partial(dir_fd: int, name: bytes) -> int:
        """A new, empty, owner-only file to write into (a stale one from an earlier crash is replaced)."""
        with contextlib.suppress(FileNotFoundError):
            os.unlink(name, dir_fd=dir_fd)
        return os.open(name, _NEW_FILE_FLAGS, 0o600, dir_fd=dir_fd)

    @staticmethod
    def publish(dir_fd: int, partial: bytes, name: bytes) -> None:
        """Rename the finished file into place (within the same folder: a symlink there is replaced)."""
        os.rename(partial, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)

    @staticmethod
    def discard(dir_fd: int, partial: bytes) -> None:
        with contextlib.suppress(OSError):
            os.unlink(partial, dir_fd=dir_fd)


_KIND = {
    "symlink": "a symlink, not followed",
    "fifo": "a FIFO (named pipe), not a regular file",
    "socket": "a socket, not a regular file",
    "device": "a device, not a regular file",
}


def kind_reason(kind: str) -> str:
    """Why an entry of this kind is not copied."""
    return _KIND.get(kind, "not a regular file or folder")


def local_kind(mode: int) -> str:
    """The kind of a local file, in :func:`kind_reason`'s words."""
    if stat.S_ISLNK(mode):
        return "symlink"
    if stat.S_ISFIFO(mode):
        return "fifo"
    if stat.S_ISSOCK(mode):
        return "socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    return "other"


AskNow = Callable[[str], str]
"""As :data:`Overwrite`, for a copy running in a thread: blocks until the user answers."""


class Asker:
    """Whether to replace an existing file: never, always, or ask (where "all" stops asking)."""

    def __init__(self, overwrite: bool | Overwrite | AskNow | None) -> None:
        self._overwrite = overwrite
        self.reason = EXISTS_REASON

    def _settled(self) -> bool | None:
        if self._overwrite is True:
            return True
        return None if callable(self._overwrite) else False

    def _take(self, answer: str) -> bool:
        if answer == REPLACE_ALL:
            self._overwrite = True
        self.reason = "already exists; kept, as you chose"
        return answer in (REPLACE, REPLACE_ALL)

    async def replace(self, where: str) -> bool:
        settled = self._settled()
        if settled is not None:
            return settled
        ask = cast(Overwrite, self._overwrite)  # not settled, so callable: an async copy is given an Overwrite
        return self._take(await ask(where))

    def replace_now(self, where: str) -> bool:
        """:meth:`replace` for a copy in a thread, where ``overwrite`` blocks instead of being awaited."""
        settled = self._settled()
        if settled is not None:
            return settled
        ask = cast(AskNow, self._overwrite)  # not settled, so callable: a copy in a thread is given an AskNow
        return self._take(ask(where))


class Landing:
    """A download's files landing in a :class:`LocalTree`, the same way whatever the copy reads from.

    A folder that cannot be reached without leaving the tree is listed once in ``skipped`` (and
    everything under it skipped silently); a file lands under a temporary name, gets a
    :func:`safe_mode`, and is renamed into place only when complete.
    """

    def __init__(self, tree: LocalTree, skipped: list[Skipped]) -> None:
        self.tree = tree
        self.skipped = skipped
        self._refused: set[tuple[bytes, ...]] = set()

    def folder(self, parts: tuple[bytes, ...], rel: str) -> int | None:
        """The folder's descriptor, or None when it (or one above it) was refused."""
        if any(parts[:i] in self._refused for i in range(1, len(parts) + 1)):
            return None  # already listed once, for the folder in the way
        try:
            return self.tree.folder(parts)
        except Refused as exc:
            self._refused.add(parts)
            self.skipped.append(Skipped(rel, str(exc)))
            return None

    def slot(self, parts: tuple[bytes, ...], rel: str, size: int | None) -> tuple[int, os.stat_result | None] | None:
        """(folder descriptor, what is there now) for the file at ``parts``, listed at ``size`` bytes, or
        None when it must be skipped (see :func:`size_problem`)."""
        dir_fd = self.folder(parts[:-1], rel)
        if dir_fd is None:
            return None
        if problem := size_problem(size, dir_fd):
            self.skipped.append(Skipped(rel, problem))
            return None
        there = self.tree.existing(dir_fd, parts[-1])
        if there is not None and stat.S_ISDIR(there.st_mode):
            self.skipped.append(Skipped(rel, "a local folder has that name; left alone"))
            return None
        return dir_fd, there

    def shown(self, parts: tuple[bytes, ...]) -> str:
        """The local path of ``parts`` as the user sees it (for the overwrite question)."""
        return os.path.join(str(self.tree.root), shown(b"/".join(parts)))

    @contextlib.contextmanager
    def writing(self, dir_fd: int, leaf: bytes, there: os.stat_result | None, mode: int | None) -> Iterator[int]:
        """An open descriptor to fill with ``leaf``'s bytes; on a clean exit it is published with a safe
        mode, on an error or a cancel the half-written file is removed."""
        partial = b"." + leaf[:200] + PARTIAL.encode()
        fd = self.tree.create_partial(dir_fd, partial)
        try:
            yield fd
            old = there.st_mode if there is not None and stat.S_ISREG(there.st_mode) else None
            os.fchmod(fd, safe_mode(mode, old))
            os.close(fd)
            fd = -1
            self.tree.publish(dir_fd, partial, leaf)
        except BaseException:
            if fd >= 0:
                os.close(fd)
            self.tree.discard(dir_fd, partial)
            raise


def key_parts(rel: bytes) -> tuple[tuple[bytes, ...], str | None]:
    """An object key (relative to the folder being fetched) as local path components (each one's
    :func:`local_name`), and why it is refused (None when it is not): each must pass :func:`landing_name`."""
    if rel.startswith(b"/"):
        return (), "refused name: it is an absolute path"
    parts: list[bytes] = []
    for part in rel.split(b"/"):
        local, problem = landing_name(part)
        if problem:
            return tuple(parts), problem
        parts.append(local)
    return tuple(parts), None


def describe_skipped(skipped: list[Skipped] | tuple[Skipped, ...], limit: int = 8) -> str:
    """``Skipped 3: a (a symlink, not followed); …`` for a result line ('' when nothing was skipped)."""
    if not skipped:
        return ""
    parts = [f"{s.path} ({s.reason})" for s in skipped[:limit]]
    more = f"; and {len(skipped) - limit} more" if len(skipped) > limit else ""
    return f"Skipped {len(skipped)}: " + "; ".join(parts) + more + "."
