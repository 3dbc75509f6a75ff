"""SFTP (and scp, which asyncssh serves through the same object) for one session, contained.

Every client path is decided by ``paths.resolve_volume_path`` (mount form), the one decision every
route makes: ``\\`` is a separator, controls and look-alikes are refused, ``..`` cannot climb out and
a symlink that points outside is refused, whether it is the last component or one on the way. The
``runs/`` rule reads the resolved place, never the raw path.
``/volume`` (where the hosted pod mounts the volume, and where the official CLI's rsync/scp
commands aim) is an alias of the root. A read-only session refuses every operation that could
change a file; a read-write one refuses writes under ``runs/`` (run outputs; the final sync leaves
them alone, so such a write would be silently lost).
"""

from __future__ import annotations

from pathlib import Path

import asyncssh
from asyncssh.constants import (
    ACE4_APPEND_DATA,
    ACE4_WRITE_ATTRIBUTES,
    ACE4_WRITE_DATA,
    FXF_ACCESS_DISPOSITION,
    FXF_APPEND,
    FXF_CREAT,
    FXF_OPEN_EXISTING,
    FXF_TRUNC,
    FXF_WRITE,
)

from primetui.local.paths import PathEscapeError, VolumePath, in_runs, resolve_volume_path

READ_ONLY_MESSAGE = "Read-only file system: this is a read-only session; open a read-write session to change the volume"
RUNS_MESSAGE = "runs/ holds run outputs and is read-only; put elsewhere"


class ContainedSFTPServer(asyncssh.SFTPServer):
    """asyncssh's SFTP server, kept inside ``root`` and optionally read-only."""

    def __init__(self, chan: asyncssh.SSHServerChannel, *, root: Path, read_only: bool, on_activity=None):
        self._root = Path(root).resolve()
        self._read_only = read_only
        self._on_activity = on_activity
        super().__init__(chan, chroot=bytes(self._root))

    # -- path mapping -------------------------------------------------------------------------
    def _decide(self, path: bytes, follow_last: bool) -> VolumePath:
        """The one path decision (``paths.resolve_volume_path``, mount form), as an SFTP refusal."""
        try:
            return resolve_volume_path(self._root, path, follow_last=follow_last, mount=True)
        except PathEscapeError as exc:
            raise asyncssh.SFTPPermissionDenied(str(exc)) from None

    def map_path(self, path: bytes) -> bytes:
        if self._on_activity:
            self._on_activity()
        # The last component as named: lstat, readlink, remove and rename act on a link itself.
        return str(self._decide(path, follow_last=False).path).encode("utf-8", "surrogateescape")

    def _check_write(self, path: bytes, follow_last: bool = True) -> None:
        """Refuse a write in a read-only session, or one whose RESOLVED place is under ``runs/`` (or a look-alike)."""
        if self._read_only:
            raise asyncssh.SFTPPermissionDenied(READ_ONLY_MESSAGE)
        if in_runs(self._decide(path, follow_last).rel):
            raise asyncssh.SFTPPermissionDenied(RUNS_MESSAGE)

    # -- operations that change something ----------------------------------------------------
    def open(self, path, pflags, attrs):
        if pflags & (FXF_WRITE | FXF_APPEND | FXF_CREAT | FXF_TRUNC):
            self._check_write(path)
        return super().open(path, pflags, attrs)

    def open56(self, path, desired_access, flags, attrs):
        writing = desired_access & (ACE4_WRITE_DATA | ACE4_APPEND_DATA | ACE4_WRITE_ATTRIBUTES)
        if writing or (flags & FXF_ACCESS_DISPOSITION) != FXF_OPEN_EXISTING:
            self._check_write(path)
        return super().open56(path, desired_access, flags, attrs)

    def remove(self, path):
        self._check_write(path, follow_last=False)
        return super().remove(path)

    def mkdir(self, path, attrs):
        self._check_write(path)
        return super().mkdir(path, attrs)

    def rmdir(self, path):
        self._check_write(path, follow_last=False)
        return super().rmdir(path)

    def rename(self, oldpath, newpath):
        self._check_write(oldpath, follow_last=False)
        self._check_write(newpath, follow_last=False)
        return super().rename(oldpath, newpath)

    def posix_rename(self, oldpath, newpath):
        self._check_write(oldpath, follow_last=False)
        self._check_write(newpath, follow_last=False)
        return super().posix_rename(oldpath, newpath)

    def symlink(self, oldpath, newpath):
        self._check_write(newpath, follow_last=False)
        return super().symlink(oldpath, newpath)

    def link(self, oldpath, newpath):
        self._check_write(newpath, follow_last=False)
        return super().link(oldpath, newpath)

    def setstat(self, path, attrs):
        self._check_write(path)
        return super().setstat(path, attrs)

    def lsetstat(self, path, attrs):
        self._check_write(path, follow_last=False)
        return super().lsetstat(path, attrs)

    def fsetstat(self, file_obj, attrs):
        if self._read_only:
            raise asyncssh.SFTPPermissionDenied(READ_ONLY_MESSAGE)
        return super().fsetstat(file_obj, attrs)

    def write(self, file_obj, offset, data):
        if self._read_only:  # defence in depth: open() already refused write handles
            raise asyncssh.SFTPPermissionDenied(READ_ONLY_MESSAGE)
        if self._on_activity:
            self._on_activity()
        return super().write(file_obj, offset, data)

    def exit(self):
        # asyncssh ends an SFTP subsystem without an exit status; OpenSSH's scp/sftp then exit 255
        # ("Transfer failed" in the prime CLI). Send 0 like OpenSSH's sftp-server does.
        chan = self.channel
        if chan.get_subsystem() == "sftp":
            try:
                chan.exit(0)
            except Exception:  # the channel is already closing: nothing left to report to
                pass
        return super().exit()
