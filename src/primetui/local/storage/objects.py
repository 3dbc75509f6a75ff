"""A volume's directory seen as an S3 object namespace, the way rclone lays one out.

- A regular file is an object whose key is its volume-relative path.
- An empty directory is a zero-byte marker object ``dir/``; a directory with children is only the
  common prefix of their keys.
- Symlinks and names that are not UTF-8 are not objects (a bucket has neither); nor are names no key
  can reach because the path decision (``paths.canonical_parts``) reads them otherwise: a ``\\``
  (a separator), a control character, a form that is not NFC, a look-alike of ``..`` or ``runs``.

Keys list in the order S3 gives them (UTF-8 byte order), which a depth-first walk gives when each
directory's entries are sorted by name, with a directory sorting as ``name/``. Nothing here loads
a whole directory tree or a whole file into memory.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from primetui.local.paths import PathEscapeError, canonical_parts, safe_join


@dataclass(frozen=True)
class Entry:
    """One listing item: an object (``size`` set) or a common prefix (``size`` None)."""

    key: str
    size: int | None
    mtime_ns: int = 0


def _sort_key(name: str, is_dir: bool) -> bytes:
    return (name + "/" if is_dir else name).encode("utf-8")


def _children(folder: Path) -> list[tuple[str, bool, os.stat_result]]:
    """(name, is_dir, stat) of ``folder``'s files and directories, in key order; links and odd names skipped."""
    found = []
    try:
        with os.scandir(folder) as it:
            for entry in it:
                try:
                    entry.name.encode("utf-8")
                    st = entry.stat(follow_symlinks=False)
                except (UnicodeEncodeError, OSError):
                    continue
                if stat.S_ISDIR(st.st_mode):
                    found.append((entry.name, True, st))
                elif stat.S_ISREG(st.st_mode):
                    found.append((entry.name, False, st))
    except (FileNotFoundError, NotADirectoryError, PermissionError):
        return []
    found.sort(key=lambda item: _sort_key(item[0], item[1]))
    return found


def _addressable(key: str) -> bool:
    """A name a key can reach: one the path decision gives back unchanged (no ``\\``, control, non-NFC, look-alike)."""
    try:
        return canonical_parts(key)[0] == key.split("/")
    except PathEscapeError:
        return False


def _is_empty_dir(path: Path) -> bool:
    try:
        with os.scandir(path) as it:
            return next(it, None) is None
    except OSError:
        return False


def _walk(root: Path, rel_dir: str, name_prefix: str, after: str, rollup: bool) -> Iterator[Entry]:
    folder = safe_join(root, rel_dir) if rel_dir else root
    for name, is_dir, st in _children(folder):
        if not name.startswith(name_prefix):
            continue
        key = rel_dir + name
        if not _addressable(key):
            continue
        if not is_dir:
            if key > after:
                yield Entry(key, st.st_size, st.st_mtime_ns)
            continue
        dir_key = key + "/"
        if after >= dir_key and not after.startswith(dir_key):
            continue  # every key under dir_key sorts at or before `after`
        if rollup:
            if dir_key > after:
                yield Entry(dir_key, None)
        elif _is_empty_dir(folder / name):
            if dir_key > after:
                yield Entry(dir_key, 0, st.st_mtime_ns)
        else:
            yield from _walk(root, dir_key, "", after, rollup)


def list_keys(root: Path, prefix: str, *, delimiter: bool, after: str = "") -> Iterator[Entry]:
    """Objects (and, with the ``/`` delimiter, common prefixes) whose key starts with ``prefix``, after ``after``."""
    rel_dir, _, name_prefix = prefix.rpartition("/")
    rel_dir = rel_dir + "/" if rel_dir else ""
    try:
        folder = safe_join(root, rel_dir) if rel_dir else root
    except PathEscapeError:
        return
    if not folder.is_dir() or folder.is_symlink():
        return
    if rel_dir and not name_prefix and rel_dir > after and _is_empty_dir(folder):
        yield Entry(rel_dir, 0, folder.stat().st_mtime_ns)  # the listed directory's own marker
        return
    yield from _walk(root, rel_dir, name_prefix, after, delimiter)


def object_path(root: Path, key: str) -> Path | None:
    """The file (or, for ``dir/``, the empty directory) behind ``key``, or None when there is no such object."""
    try:
        path = safe_join(root, key)
    except PathEscapeError:
        return None
    try:
        st = path.lstat()
    except OSError:
        return None
    if key.endswith("/"):
        return path if stat.S_ISDIR(st.st_mode) and _is_empty_dir(path) else None
    return path if stat.S_ISREG(st.st_mode) else None
