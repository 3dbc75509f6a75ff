"""The project's one way to write a file (stdlib only, no UI imports).

Every writer goes through :func:`atomic_write`: a reader sees the old file or the new one, never half
of one, and a failed write leaves no temporary file. It writes through a symlink to its target (the
link stays a link), keeps an existing file's mode and owner, refuses a read-only file with a
sentence, and gives a new file the umask's default mode unless the caller asks for one (files that
hold secrets ask for ``0o600``).
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any


class ReadOnlyFileError(PermissionError):
    """The target exists and is read-only: it is left as it is."""


def is_read_only(path: Path) -> bool:
    """True when ``path`` exists and may not be written: no write bit at all (root included), or no access."""
    try:
        st = os.stat(path)
    except OSError:
        return False
    return not st.st_mode & 0o222 or not os.access(path, os.W_OK)


def directory_read_only(path: Path) -> bool:
    """True when the directory a save of ``path`` writes into exists and may not be written to.

    A save writes a temporary file beside the file and renames it over, so a writable file in such a
    directory cannot be saved either: a directory without write permission, an immutable one
    (``chattr +i``, root included), a read-only mount, or a kernel one such as ``/proc``.
    """
    parent = write_target(Path(path)).parent
    return parent.is_dir() and not os.access(parent, os.W_OK | os.X_OK)


def write_target(path: Path) -> Path:
    """The file a write to ``path`` changes: a symlink's final target (which may not exist yet)."""
    return Path(os.path.realpath(path)) if os.path.islink(path) else Path(path)


def atomic_write(path: Path, data: str | bytes, *, mode: int | None = None, newline: str = "\n") -> Path:
    """Replace ``path``'s content with ``data`` atomically; returns the file actually written.

    - a symlink is followed: its target is replaced and the link kept;
    - an existing file keeps its mode and owner; ``mode`` (e.g. ``0o600`` for secrets) overrides the
      mode of both new and existing files; a new file otherwise gets ``0o666`` minus the umask;
    - a read-only target raises :class:`ReadOnlyFileError` and is not touched;
    - ``str`` data has its ``\\n`` written as ``newline`` (``"\\r\\n"`` keeps a CRLF file CRLF);
    - the parent directory must exist (callers decide whether to create it);
    - on any failure the temporary file is removed and the error re-raised.
    """
    target = write_target(Path(path))
    try:
        old = os.stat(target)
    except FileNotFoundError:
        old = None
    if old is not None and is_read_only(target):
        raise ReadOnlyFileError(13, f"{target} is read-only; it was not changed", str(target))
    if isinstance(data, str):
        if newline != "\n":
            data = data.replace("\n", newline)
        data = data.encode("utf-8")
    create_mode = mode if mode is not None else (stat.S_IMODE(old.st_mode) if old is not None else 0o666)
    fd, tmp = _create_temp(target, create_mode)
    try:
        if mode is not None or old is not None:
            os.fchmod(fd, create_mode)  # exact, not reduced by the umask
        if old is not None and (old.st_uid, old.st_gid) != (os.getuid(), os.getgid()):
            _keep_owner(fd, old)
        with os.fdopen(fd, "wb") as handle:
            fd = -1
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        if fd >= 0:
            os.close(fd)
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    _sync_dir(target.parent)
    return target


def _create_temp(target: Path, create_mode: int) -> tuple[int, str]:
    # not mkstemp: it forces 0600, and a new file must get the umask's default
    while True:
        tmp = str(target.parent / f".{target.name}.{secrets.token_hex(4)}.tmp")
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, create_mode & 0o777), tmp
        except FileExistsError:
            continue


def _keep_owner(fd: int, old: os.stat_result) -> None:
    try:
        os.fchown(fd, old.st_uid, old.st_gid)
    except PermissionError:
        try:
            os.fchown(fd, -1, old.st_gid)  # a member of the group may keep at least the group
        except PermissionError:
            pass


def _sync_dir(directory: Path) -> None:
    try:
        dfd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dfd)
    except OSError:
        pass
    finally:
        os.close(dfd)


def atomic_write_text(path: Path, text: str, *, mode: int | None = None) -> Path:
    """:func:`atomic_write` for text with ``\\n`` line ends."""
    return atomic_write(path, text, mode=mode)


def write_json_atomic(path: Path, data: Any, mode: int | None = None) -> None:
    """Write ``data`` as JSON so a reader sees either the old or the new file, never half of one.

    Creates the parent directory when needed. Pass ``mode=0o600`` when the data holds a secret.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, json.dumps(data), mode=mode)


@dataclass(frozen=True)
class LoadedText:
    """A text file as an editor holds it: ``\\n`` line ends, plus what is needed to save it back."""

    text: str
    newline: str  # "\r\n" when the file used CRLF line ends, else "\n"
    digest: str  # sha256 of the bytes on disk, to notice another program's change


def digest_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def file_digest(path: Path) -> str | None:
    """sha256 of the file's bytes now, or None when it cannot be read (gone, unreadable)."""
    try:
        return digest_of(Path(path).read_bytes())
    except OSError:
        return None


def read_text_file(path: Path) -> LoadedText:
    """Read UTF-8 text (raises OSError / UnicodeDecodeError); CRLF is noted and turned into ``\\n``."""
    raw = Path(path).read_bytes()
    text = raw.decode("utf-8")
    newline = "\r\n" if "\r\n" in text else "\n"
    if newline == "\r\n":
        text = text.replace("\r\n", "\n")
    return LoadedText(text, newline, digest_of(raw))
