"""How a session's processes see its volume: a private mount namespace with the copy at /volume.

Where the platform runs as root and ``unshare``/``mount`` work (this is probed once):

- the working copy is a tmpfs sized to the volume (``size=<volume size>``), mounted at the working
  dir in the platform's own namespace, so staging, the final sync and SFTP see it and a write past
  the volume's free space fails with "No space left on device";
- a read-only session's tmpfs is remounted read-only once staged, so every write (shell, exec, SFTP,
  root included) fails with "Read-only file system";
- every shell or command of the session starts through ``unshare --mount --propagation private``,
  which bind-mounts the working copy at ``/volume`` (``remount,ro,bind`` for a read-only session)
  and ``cd``s there; ``/usr/local/bin`` gains the session's ``hf`` through a read-only overlay
  (a login shell's profile resets PATH). Those mounts exist only inside that namespace and end with
  its processes.

The one trace on the host is an empty ``/volume`` directory, created when missing as the mount
point (nothing is ever written into it on the host). Elsewhere (not root, no ``unshare``, or
``PRIMETUI_SESSION_NAMESPACES=0``) :func:`probe` says why and the session falls back to a shell in
the working dir, read-only by file permissions, and a size check at the final sync.
"""

from __future__ import annotations

import functools
import logging
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from primetui.local.environ import account_environment

log = logging.getLogger("primetui.local.sessions")

MOUNT_POINT = "/volume"
DISABLE_ENV = "PRIMETUI_SESSION_NAMESPACES"
_FSNAME = "primetui-volume"
# $1 working copy, $2 "1" for read-only, $3 a bin dir or "", then the command. Runs as the
# namespace's first process. A login shell's /etc/profile resets PATH, so the bin dir (the `hf`
# launcher) joins /usr/local/bin through a read-only overlay, in this namespace only.
_SETUP = (
    'w=$1; ro=$2; b=$3; shift 3; '
    'if mount --bind "$w" /volume && { [ "$ro" = 0 ] || mount -o remount,ro,bind /volume; }; then :; '
    'else echo "primetui: could not mount the volume at /volume" >&2; exit 126; fi; '
    'if [ -n "$b" ] && [ -d /usr/local/bin ]; then '
    'mount -t overlay primetui-bin -o "lowerdir=$b:/usr/local/bin" /usr/local/bin 2>/dev/null || true; fi; '
    'cd /volume && exec "$@"'
)


@dataclass(frozen=True)
class Isolation:
    namespaces: bool
    """Processes run in a private mount namespace with the copy at /volume (and tmpfs size limits)."""
    why: str = ""
    """When not: one clause saying why (for the login line and the server log)."""


def _run(argv: list[str], timeout: float = 20.0) -> subprocess.CompletedProcess:
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False, env=account_environment())


@functools.lru_cache(maxsize=1)
def probe() -> Isolation:
    """Can this platform give sessions a mount namespace? Probed once per process."""
    if os.environ.get(DISABLE_ENV, "").strip() in ("0", "no", "false"):
        return Isolation(False, f"{DISABLE_ENV}=0 is set")
    if os.geteuid() != 0:
        return Isolation(False, "the local platform is not running as root")
    if not (shutil.which("unshare") and shutil.which("mount") and shutil.which("umount")):
        return Isolation(False, "util-linux's unshare/mount are not installed")
    point = Path(MOUNT_POINT)
    try:
        point.mkdir(mode=0o755, exist_ok=True)
    except OSError as exc:
        return Isolation(False, f"{MOUNT_POINT} cannot be created ({exc.strerror})")
    if point.is_symlink() or not point.is_dir():
        return Isolation(False, f"{MOUNT_POINT} exists and is not a directory")
    try:
        test = _run(["unshare", "--mount", "--propagation", "private", "--", "/bin/sh", "-c",
                     f"mount -t tmpfs -o size=64k {_FSNAME}-probe {MOUNT_POINT} && umount {MOUNT_POINT}"], timeout=10)
    except (OSError, subprocess.SubprocessError) as exc:
        return Isolation(False, f"unshare failed ({exc})")
    if test.returncode != 0:
        return Isolation(False, f"mount namespaces are not available ({(test.stderr or '').strip()[:120]})")
    return Isolation(True)


def wrap(argv: list[str], work: Path, read_only: bool, bin_dir: Path | None = None) -> list[str]:
    """``argv`` run in a new private mount namespace with ``work`` at /volume, starting there."""
    usable_bin = bin_dir is not None and ":" not in str(bin_dir) and "," not in str(bin_dir)
    return ["unshare", "--mount", "--propagation", "private", "--", "/bin/sh", "-c", _SETUP,
            "primetui-session", str(work), "1" if read_only else "0", str(bin_dir) if usable_bin else "", *argv]


def _mount_error(what: str, result: subprocess.CompletedProcess) -> OSError:
    return OSError(f"{what} failed: {(result.stderr or result.stdout or '').strip()[:200]}")


def mount_work(work: Path, size_bytes: int) -> None:
    """A fresh tmpfs of ``size_bytes`` at ``work`` (created if needed) to stage the volume into."""
    work.mkdir(parents=True, exist_ok=True)
    result = _run(["mount", "-t", "tmpfs", "-o", f"size={max(int(size_bytes), 4096)},mode=0755", _FSNAME, str(work)])
    if result.returncode != 0:
        raise _mount_error("mounting the session's disk", result)


def seal_read_only(work: Path) -> None:
    """Remount a staged working copy read-only (for every process, root included)."""
    result = _run(["mount", "-o", "remount,ro", str(work)])
    if result.returncode != 0:
        raise _mount_error("making the session's disk read-only", result)


def is_session_mount(work: Path) -> bool:
    try:
        with open("/proc/self/mounts", encoding="utf-8") as fh:
            target = str(work)
            return any(line.split()[:2] == [_FSNAME, target] for line in fh)
    except OSError:
        return False


def unmount_work(work: Path) -> None:
    """Unmount the session's tmpfs at ``work`` if there is one (lazily when something holds it)."""
    if not is_session_mount(work):
        return
    result = _run(["umount", str(work)])
    if result.returncode != 0:
        log.warning("unmounting %s: %s; detaching it lazily", work, (result.stderr or "").strip())
        _run(["umount", "-l", str(work)])


def disk_usage(work: Path) -> tuple[int, int] | None:
    """(used, free) bytes of the session's disk, or None when it is not a mount of its own."""
    if not is_session_mount(work):
        return None
    st = os.statvfs(work)
    total = st.f_blocks * st.f_frsize
    free = st.f_bavail * st.f_frsize
    return total - free, free


def spill_to_disk(work: Path) -> None:
    """The platform is stopping with the session live: move its copy off the tmpfs onto disk (same
    path), so nothing stays mounted and the next start can still sync it back."""
    if not is_session_mount(work):
        return
    saved = work.with_name(work.name + ".spill")
    if saved.exists():
        shutil.rmtree(saved)
    shutil.copytree(work, saved, symlinks=True)
    unmount_work(work)
    work.rmdir()
    saved.rename(work)
