"""The walls around a session's shells and commands: a bubblewrap (``bwrap``) sandbox per process.

Each shell or command of a session (an ``rsync --server`` included; SFTP and scp are served by the
platform itself, confined to the copy) starts as ``bwrap … -- argv`` with:

- its own user, mount, PID, IPC, UTS and cgroup namespaces; the network namespace is the host's
  (``hf download`` talks to the platform's Hub endpoint on 127.0.0.1);
- no capability at all (``--cap-drop ALL``) and ``no_new_privs`` (bwrap sets it), so root inside
  cannot mount, remount or unmount anything, and no setuid program gives it back; root inside is
  root only in the sandbox's user namespace, which cannot make further user namespaces
  (``--disable-userns``);
- a root of its own, read-only, holding only: ``/usr`` and the ``/bin``, ``/sbin``, ``/lib*`` links or
  folders (read-only), ``/etc`` (read-only, every file or folder that is not world-readable hidden:
  ``/etc/shadow``, ``/etc/gshadow``, ``/etc/ssl/private``, ...), a ``/proc`` of its own PID namespace,
  a minimal ``/dev`` (null, zero, full, random, urandom, tty, a devpts of its own, the session's
  terminal as ``/dev/console``), a private ``/tmp`` and an empty private home (tmpfs, capped), the
  Python the platform runs (read-only: its prefixes and import path, for ``hf``), the session's tmux
  folder, and the volume's working copy at ``/volume`` (read-only for a read-only session);
- ``/usr/local/bin`` as on the host plus the session's ``hf`` (a tmpfs holding the host's entries,
  then made read-only), since a login shell's profile resets PATH.

Nothing else of the host is there: not the platform's data dir (its token, its database, the other
volumes, other sessions' copies), not the user's home, not ``/run``, ``/var``, ``/sys`` or the host's
``/tmp``, and no host process. The processes of a sandbox end when its first process (the shell or
the command) ends, or when the platform does (``--die-with-parent``).
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

BWRAP = "bwrap"
MOUNT_POINT = "/volume"
SCRATCH_BYTES = 1 << 30
"""The size cap of a sandbox's private /tmp and of its home (tmpfs: memory, only what is written)."""
_TOP_LEVEL = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")
_SYSTEM = ("/usr", "/etc", "/proc", "/dev", MOUNT_POINT)


def _modes(root: str, names: list[str]) -> list[tuple[str, int]]:
    """(path, lstat mode) of each of ``names`` in ``root``, sorted; a name gone meanwhile is left out."""
    found = []
    for name in sorted(names):
        path = os.path.join(root, name)
        try:
            found.append((path, os.lstat(path).st_mode))
        except OSError:
            continue
    return found


def etc_masks(etc: Path = Path("/etc")) -> list[str]:
    """bwrap arguments hiding what in ``etc`` is not world-readable (secrets: shadow, private keys)."""
    args: list[str] = []
    for root, dirs, files in os.walk(etc, followlinks=False):
        kept = []
        for path, mode in _modes(root, dirs):
            if stat.S_ISLNK(mode):
                continue
            if mode & 0o005 != 0o005:
                args += ["--tmpfs", path]  # an empty folder in its place
            else:
                kept.append(os.path.basename(path))
        dirs[:] = kept
        for path, mode in _modes(root, files):
            if stat.S_ISREG(mode) and not mode & 0o004:
                args += ["--ro-bind", "/dev/null", path]  # unreadable in its place
    return args


def _system_view() -> list[str]:
    args = ["--ro-bind", "/usr", "/usr"]
    for name in _TOP_LEVEL:
        path = Path("/", name)
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), str(path)]
        elif path.is_dir():
            args += ["--ro-bind", str(path), str(path)]
    args += ["--ro-bind", "/etc", "/etc", *etc_masks()]
    args += ["--proc", "/proc", "--dev", "/dev"]
    args += [
        "--size",
        str(SCRATCH_BYTES),
        "--perms",
        "1777",
        "--tmpfs",
        "/tmp",
        "--dir",
        "/var",
        "--symlink",
        "../tmp",
        "/var/tmp",
    ]
    return args


def _under(path: str, folders) -> bool:
    return any(path == f or path.startswith(f.rstrip("/") + "/") for f in folders)


def _private_home(home: str | None) -> list[str]:
    if not home or not os.path.isabs(home) or home == "/" or _under(home, _SYSTEM):
        return []
    return ["--size", str(SCRATCH_BYTES), "--perms", "0700", "--tmpfs", home]


def python_paths(data_dir: Path | None = None, home: str | None = None) -> list[str]:
    """What ``hf`` needs from the host: the prefixes of the Python the platform runs and its import
    path (not the current folder), never a folder that holds the data dir or the home folder."""
    wanted = [
        sys.prefix,
        sys.exec_prefix,
        sys.base_prefix,
        sys.base_exec_prefix,
        os.path.dirname(os.path.realpath(sys.executable)),
    ]
    cwd = os.getcwd()
    wanted += [p for i, p in enumerate(sys.path) if p and not (i == 0 and p in (cwd, ""))]
    keep_out = [str(p) for p in (data_dir, home) if p]
    chosen: list[str] = []
    for raw in wanted:
        path = os.path.realpath(raw) if os.path.isabs(raw) else ""
        if not path or path == "/" or not os.path.exists(path) or _under(path, _SYSTEM):
            continue
        if any(_under(inner, [path]) for inner in keep_out):
            continue  # binding it would show the data dir (the token, other volumes) or the home folder
        if _under(path, chosen):
            continue
        chosen = [c for c in chosen if not _under(c, [path])] + [path]
    return sorted(chosen)


def _usr_local_bin(hf: Path | None) -> list[str]:
    """/usr/local/bin as on the host, plus ``hf``: a tmpfs with the host's entries, made read-only."""
    folder = Path("/usr/local/bin")
    if hf is None or not folder.is_dir() or not hf.is_file():
        return []
    args = ["--tmpfs", str(folder)]
    for entry in sorted(folder.iterdir()):
        if entry.name == "hf":
            continue
        if entry.is_symlink():
            args += ["--symlink", os.readlink(entry), str(entry)]
        else:
            args += ["--ro-bind", str(entry), str(entry)]
    args += ["--ro-bind", str(hf), str(folder / "hf"), "--remount-ro", str(folder)]
    return args


def wrap(
    argv: list[str],
    *,
    work: Path,
    read_only: bool,
    home: str | None = None,
    hf: Path | None = None,
    tmux_dir: Path | None = None,
    data_dir: Path | None = None,
) -> list[str]:
    """``argv`` run in a sandbox that reaches the working copy ``work`` at /volume, starting there."""
    args = [
        BWRAP,
        "--unshare-user",
        "--disable-userns",
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--cap-drop",
        "ALL",
        "--die-with-parent",
    ]
    args += _system_view()
    # Outer folders first: a home under the Python's prefix, or a prefix under the home, both stay visible.
    mounts = [(home, _private_home(home))] + [(p, ["--ro-bind", p, p]) for p in python_paths(data_dir, home)]
    for _dest, mount in sorted((m for m in mounts if m[1]), key=lambda m: (m[0] or "").count("/")):
        args += mount
    args += _usr_local_bin(hf)
    if tmux_dir is not None:
        args += ["--bind", str(tmux_dir), str(tmux_dir)]
    args += ["--ro-bind" if read_only else "--bind", str(work), MOUNT_POINT]
    args += ["--remount-ro", "/", "--chdir", MOUNT_POINT, "--", *argv]
    return args
