"""A session's disk and whether its processes can be sandboxed (probed once).

Where the platform runs as root and ``mount`` works:

- the working copy is a tmpfs sized to the volume (``size=<volume size>``), mounted at the working
  dir in the platform's own namespace, so staging, the final sync and SFTP see it and a write past
  the volume's free space fails with "No space left on device";
- a read-only session's tmpfs is remounted read-only once staged, so every write (shell, exec, SFTP)
  fails with "Read-only file system".

Where bubblewrap also works, every shell or command of the session starts in a sandbox of its own
(:mod:`primetui.local.sessions.sandbox`) that has the copy at ``/volume``, read-only for a read-only
session, and no capability to undo that. Nothing is created on the host for it.

Elsewhere (not root, no ``bwrap``, no user namespaces, or ``PRIMETUI_SESSION_NAMESPACES=0``)
:func:`probe` says why, and the session falls back to a shell in the working dir, with what the
platform's user can reach (the welcome line says so); without the disk, read-only is kept by file
permissions and the size is checked at the final sync.
"""

from __future__ import annotations

import functools
import logging
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from primetui.local.environ import account_environment
from primetui.local.sessions import sandbox

log = logging.getLogger("primetui.local.sessions")

MOUNT_POINT = sandbox.MOUNT_POINT
DISABLE_ENV = "PRIMETUI_SESSION_NAMESPACES"
_FSNAME = "primetui-volume"


@dataclass(frozen=True)
class Isolation:
    namespaces: bool
    """Processes run in a bubblewrap sandbox with the copy at /volume (see :mod:`.sandbox`)."""
    why: str = ""
    """When not: one clause saying why (for the welcome line and the server log)."""
    disks: bool = False
    """The working copy is a tmpfs of the volume's size, sealed read-only for a read-only session."""


def _run(argv: list[str], timeout: float = 20.0) -> subprocess.CompletedProcess:
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False, env=account_environment())


def _first_line(result: subprocess.CompletedProcess) -> str:
    text = (result.stderr or result.stdout or "").strip()
    return (text.splitlines() or [f"exit status {result.returncode}"])[0][:160]


def _probe_disks(scratch: Path) -> str:
    """'' when a tmpfs can be mounted (in a throwaway namespace), else why not."""
    if not (shutil.which("unshare") and shutil.which("mount") and shutil.which("umount")):
        return "util-linux's unshare/mount are not installed"
    try:
        test = _run(
            [
                "unshare",
                "--mount",
                "--propagation",
                "private",
                "--",
                "/bin/sh",
                "-c",
                f'mount -t tmpfs -o size=64k {_FSNAME}-probe "$1" && umount "$1"',
                "probe",
                str(scratch),
            ],
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return f"unshare failed ({exc})"
    return "" if test.returncode == 0 else f"mount namespaces are not available ({_first_line(test)})"


def _probe_sandbox(scratch: Path) -> str:
    """'' when bubblewrap makes the sessions' sandbox here, else why not."""
    if not shutil.which(sandbox.BWRAP):
        return "bubblewrap (bwrap) is not installed"
    try:
        test = _run(sandbox.wrap(["/bin/sh", "-c", "exit 0"], work=scratch, read_only=True), timeout=20)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"bwrap failed ({exc})"
    return "" if test.returncode == 0 else f"bwrap could not make a sandbox ({_first_line(test)})"


@functools.lru_cache(maxsize=1)
def probe() -> Isolation:
    """Can this platform give sessions a disk of their own and a sandbox? Probed once per process."""
    if os.environ.get(DISABLE_ENV, "").strip() in ("0", "no", "false"):
        return Isolation(False, f"{DISABLE_ENV}=0 is set")
    if os.geteuid() != 0:
        return Isolation(False, "the local platform is not running as root")
    with tempfile.TemporaryDirectory(prefix="primetui-probe-") as scratch:
        no_disks = _probe_disks(Path(scratch))
        no_sandbox = _probe_sandbox(Path(scratch))
    if no_disks:
        log.info("session disks are not sized to their volume: %s", no_disks)
    return Isolation(not no_sandbox, no_sandbox, disks=not no_disks)


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
