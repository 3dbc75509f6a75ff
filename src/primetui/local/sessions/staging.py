"""Copying a volume into a session's working dir (staging) and back again (the final sync).

The hosted platform stages a volume from its bucket onto the session pod's disk with rclone and
writes the changes back when the session stops; this is the same thing between two local
directories. Both directions report an rclone-style stats line through ``report`` (the
``progress`` field of the session), throttled so a thousand small files do not mean a thousand
database writes.

Symlinks are the only way a copy could reach outside its tree, so both directions copy a link
only when it is relative and stays inside the tree; absolute links and links that climb out are
skipped (and counted in the final line). Copied files keep only their safe permission bits (no
setuid, setgid or sticky; group/world write only where the replaced file had it). ``runs/`` holds run outputs: staging
copies it in so the
shell can read checkpoints, but the final sync never writes, deletes or replaces anything under it.
"""

from __future__ import annotations

import os
import posixpath
import shutil
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from primetui.local.paths import PathEscapeError, canonical_parts
from primetui.shell.confine import safe_mode

RUNS_DIR = "runs"
PARTIAL_SUFFIX = ".primetui-partial"
_CHUNK = 1024 * 1024
_REPORT_EVERY = 0.2

Report = Callable[[str], None]


def human_bytes(n: float) -> str:
    """rclone's binary units: ``12.345 MiB``."""
    units = ["B", "KiB", "MiB", "GiB", "TiB"]
    value = float(n)
    for unit in units:
        if value < 1024 or unit == units[-1]:
            return f"{value:.3f} {unit}" if unit != "B" else f"{int(value)} B"
        value /= 1024
    raise AssertionError("unreachable")


def _eta(seconds: float) -> str:
    seconds = int(seconds)
    if seconds >= 3600:
        return f"{seconds // 3600}h{seconds % 3600 // 60}m{seconds % 60}s"
    if seconds >= 60:
        return f"{seconds // 60}m{seconds % 60}s"
    return f"{seconds}s"


@dataclass
class _Stats:
    total_bytes: int
    total_files: int
    report: Report
    started: float = field(default_factory=time.monotonic)
    done_bytes: int = 0
    done_files: int = 0
    skipped_links: int = 0
    _last: float = 0.0

    def line(self) -> str:
        elapsed = max(time.monotonic() - self.started, 1e-6)
        rate = self.done_bytes / elapsed
        pct = 100 if self.total_bytes == 0 else int(self.done_bytes * 100 / self.total_bytes)
        left = (self.total_bytes - self.done_bytes) / rate if rate > 0 else 0
        text = (
            f"Transferred: {human_bytes(self.done_bytes)} / {human_bytes(self.total_bytes)}, "
            f"{pct}%, {human_bytes(rate)}/s, ETA {_eta(left)} "
            f"({self.done_files}/{self.total_files} files)"
        )
        if self.skipped_links:
            text += f", {self.skipped_links} symlink(s) leaving the volume skipped"
        return text

    def tick(self, force: bool = False) -> None:
        now = time.monotonic()
        if force or now - self._last >= _REPORT_EVERY:
            self._last = now
            self.report(self.line())


def contained_link(root: Path, link: Path) -> str | None:
    """The link's target if it is relative and, decided lexically by ``paths.canonical_parts`` (the
    rule every route applies: ``\\`` a separator, no control, no look-alike), stays inside ``root``."""
    target = os.readlink(link)
    if os.path.isabs(target):
        return None
    rel_dir = posixpath.relpath(str(link.parent), str(root))
    try:
        canonical_parts(posixpath.join(rel_dir, target))
    except PathEscapeError:
        return None
    return target


def _walk(root: Path, skip_top: frozenset[str] = frozenset()):
    """Yield (relative path, lstat) for everything under root, parents before children."""
    stack = [Path("")]
    while stack:
        rel = stack.pop()
        try:
            entries = sorted(os.scandir(root / rel), key=lambda e: e.name)
        except (FileNotFoundError, NotADirectoryError):
            continue
        for entry in entries:
            if rel == Path("") and entry.name in skip_top:
                continue
            child = rel / entry.name
            try:
                st = entry.stat(follow_symlinks=False)
            except FileNotFoundError:
                continue
            yield child, st
            if stat.S_ISDIR(st.st_mode):
                stack.append(child)


def _measure(root: Path, skip_top: frozenset[str]) -> tuple[int, int]:
    total = files = 0
    for _, st in _walk(root, skip_top):
        if stat.S_ISREG(st.st_mode):
            total += st.st_size
            files += 1
    return total, files


def _copy_file(src: Path, dst: Path, stats: _Stats) -> None:
    """Copy through a temp name and rename, so a crash never leaves half a file under the real name.

    The copy keeps its times and only the safe permission bits (``primetui.shell.confine``): a
    session's setuid file must not become a setuid file on the host's volume folder.
    """
    tmp = dst.with_name(f".{dst.name}{PARTIAL_SUFFIX}")
    try:
        old = os.lstat(dst)
    except (FileNotFoundError, NotADirectoryError):
        old = None
    with open(src, "rb") as fin, open(tmp, "wb") as fout:
        while chunk := fin.read(_CHUNK):
            fout.write(chunk)
            stats.done_bytes += len(chunk)
            stats.tick()
    shutil.copystat(src, tmp, follow_symlinks=False)
    os.chmod(
        tmp, safe_mode(os.lstat(src).st_mode, old.st_mode if old is not None and stat.S_ISREG(old.st_mode) else None)
    )
    os.replace(tmp, dst)


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.exists() or path.is_symlink():
        path.unlink()


def stage(volume: Path, work: Path, report: Report) -> str:
    """Copy the whole volume into ``work`` (created fresh). Returns the final stats line."""
    if os.path.ismount(work):  # a session disk of its own (mountns): empty already, keep the mount
        pass
    elif work.exists():
        remove_tree(work)
    work.mkdir(parents=True, exist_ok=True)
    total, files = _measure(volume, frozenset())
    stats = _Stats(total, files, report)
    stats.tick(force=True)
    for rel, st in _walk(volume):
        src, dst = volume / rel, work / rel
        if stat.S_ISDIR(st.st_mode):
            dst.mkdir(exist_ok=True)
        elif stat.S_ISLNK(st.st_mode):
            target = contained_link(volume, src)
            if target is None:
                stats.skipped_links += 1
            else:
                os.symlink(target, dst)
        elif stat.S_ISREG(st.st_mode):
            _copy_file(src, dst, stats)
            stats.done_files += 1
    stats.tick(force=True)
    return stats.line()


def _same_file(a: os.stat_result, b: os.stat_result) -> bool:
    return a.st_size == b.st_size and a.st_mtime_ns == b.st_mtime_ns


def sync_back(work: Path, volume: Path, report: Report) -> str:
    """Make the volume (except ``runs/``) equal the working dir (except ``runs/``): the final sync.

    Like ``rclone sync``: changed files are copied (size or mtime differ), new ones added, and
    files removed in the session are removed from the volume. Returns the final stats line.
    """
    skip = frozenset({RUNS_DIR})
    # Half-written uploads (primetui's put writes `.name.primetui-partial`, then renames) are
    # never published: a transfer cut off by the stop must not land on the volume.
    wanted: dict[Path, os.stat_result] = {
        rel: st for rel, st in _walk(work, skip) if not rel.name.endswith(PARTIAL_SUFFIX)
    }
    changed_bytes = changed_files = 0
    for rel, st in wanted.items():
        if stat.S_ISREG(st.st_mode):
            try:
                old = os.lstat(volume / rel)
            except (FileNotFoundError, NotADirectoryError):
                old = None
            if old is None or not stat.S_ISREG(old.st_mode) or not _same_file(st, old):
                changed_bytes += st.st_size
                changed_files += 1
    stats = _Stats(changed_bytes, changed_files, report)
    stats.tick(force=True)
    # Deletions first (deepest first), so a file that became a directory (or back) has room.
    existing = sorted((rel for rel, _ in _walk(volume, skip)), key=lambda p: len(p.parts), reverse=True)
    for rel in existing:
        mine = wanted.get(rel)
        theirs = os.lstat(volume / rel) if (volume / rel).is_symlink() or (volume / rel).exists() else None
        if theirs is None:
            continue
        if mine is None or stat.S_IFMT(mine.st_mode) != stat.S_IFMT(theirs.st_mode):
            _remove(volume / rel)
    for rel, st in wanted.items():  # _walk yields parents before children
        src, dst = work / rel, volume / rel
        if stat.S_ISDIR(st.st_mode):
            dst.mkdir(exist_ok=True)
        elif stat.S_ISLNK(st.st_mode):
            target = contained_link(work, src)
            if target is None:
                stats.skipped_links += 1
                continue
            if dst.is_symlink() and os.readlink(dst) == target:
                continue
            _remove(dst)
            os.symlink(target, dst)
        elif stat.S_ISREG(st.st_mode):
            try:
                old = os.lstat(dst)
            except (FileNotFoundError, NotADirectoryError):
                old = None
            if old is not None and stat.S_ISREG(old.st_mode) and _same_file(st, old):
                continue
            _copy_file(src, dst, stats)
            stats.done_files += 1
    stats.tick(force=True)
    return stats.line()


def make_read_only(work: Path) -> None:
    """Drop write permission on a read-only session's copy, so writes fail at once in the shell
    (as on the hosted pod's read-only mount) instead of being discarded silently at stop.
    Links are left alone (their mode is meaningless)."""
    for rel, st in _walk(work):
        path = work / rel
        if stat.S_ISDIR(st.st_mode):
            os.chmod(path, stat.S_IMODE(st.st_mode) & ~0o222)
        elif stat.S_ISREG(st.st_mode):
            os.chmod(path, stat.S_IMODE(st.st_mode) & ~0o222)
    os.chmod(work, stat.S_IMODE(os.stat(work).st_mode) & ~0o222)


def remove_tree(work: Path) -> None:
    """Remove a working dir, restoring write permission where a read-only copy took it away."""
    if not work.exists():
        return

    def retry(func, path, _exc):
        parent = os.path.dirname(path)
        os.chmod(parent, stat.S_IMODE(os.stat(parent).st_mode) | 0o700)
        if os.path.isdir(path) and not os.path.islink(path):
            os.chmod(path, stat.S_IMODE(os.stat(path).st_mode) | 0o700)
        func(path)

    for dirpath, _dirnames, _files in os.walk(work):
        os.chmod(dirpath, stat.S_IMODE(os.stat(dirpath).st_mode) | 0o700)
    shutil.rmtree(work, onerror=retry)
