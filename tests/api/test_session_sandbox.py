"""Issue 42 finding 4: a session shell reaches only its volume (the bubblewrap sandbox).

A root session shell used to read the platform's token and database, read and write other volumes
and the real volume, see every host process, and undo a read-only session with
``mount -o remount,rw /volume``. Each test types into a real login shell over real SSH on a fresh
local platform, then checks on the host that nothing outside the volume changed.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from primetui.local.sessions import mountns
from primetui.local.testing import LocalPlatform
from primetui.shell import open_session_connection, open_shell
from tests.api.ssh_helpers import create_volume, make_key, read_until, wait_phase

pytestmark = [
    pytest.mark.timeout(240),
    pytest.mark.skipif(not mountns.probe().namespaces, reason="needs root and bubblewrap: " + mountns.probe().why),
]


@pytest.fixture
def platform(tmp_path):
    key = make_key(tmp_path / "home" / ".ssh" / "id_ed25519")
    with LocalPlatform.start(
        tmp_path, demo=False, env={"HOME": str(tmp_path / "home"), "PRIME_SSH_KEY_PATH": str(key)}
    ) as lp:
        yield lp, key


async def _typed(proc, command: str, n: int) -> str:
    """Type ``command`` into the shell and return what it printed up to the end marker ``END<n>``."""
    proc.write(f"{command}; echo E$((0+{n}))ND\r".encode())
    out = await read_until(proc, f"E{n}ND\r\n".encode(), timeout=30)
    return out.decode(errors="replace")


async def _open(api, key, volume: str, read_only: bool):
    s = await api.create_session(volume, read_only=read_only)
    s = await wait_phase(api, volume, s.id, {"ready", "failed"}, timeout=60.0)
    assert s.phase == "ready", s.error_message
    conn = await open_session_connection(s, key)
    proc = await open_shell(conn, "xterm", 200, 50)
    await read_until(proc, b"\n")
    return s, conn, proc


def _outside(lp: LocalPlatform, other: Path) -> dict[str, str]:
    """Host paths a session must not reach: the platform's token and database, another volume, the
    session's own volume as stored, and the user's private SSH key."""
    return {
        "token": str(lp.data_dir / "token"),
        "database": str(lp.data_dir / "state.sqlite3"),
        "other volume": str(other / "secret.txt"),
        "own volume": str(lp.data_dir / "volumes" / "research" / "data.txt"),
        "ssh key": str(lp.data_dir.parent / "home" / ".ssh" / "id_ed25519"),
    }


async def test_a_read_only_shell_reaches_only_its_volume_and_cannot_undo_read_only(platform):
    lp, key = platform
    root = create_volume(lp, "research", {"data.txt": b"original\n"})
    other = create_volume(lp, "other", {"secret.txt": b"another team's file\n"})
    assert (lp.data_dir / "token").is_file() and (lp.data_dir / "state.sqlite3").is_file()
    async with lp.client() as api:
        s, conn, proc = await _open(api, key, "research", read_only=True)
        reached = []  # everything the shell reached that it must not, so a failure names each one
        try:
            for n, (what, path) in enumerate(_outside(lp, other).items()):
                out = await _typed(
                    proc, f"cat {shlex.quote(path)} && echo REA$((1))CHED; echo pwned >> {shlex.quote(path)}", n
                )
                if "REA1CHED" in out or "No such file or directory" not in out:
                    reached.append(f"read {what}")
            out = await _typed(
                proc, f"ls {shlex.quote(str(lp.data_dir))} {shlex.quote(str(lp.data_dir / 'volumes'))}", 10
            )
            if out.count("No such file or directory") != 2:
                reached.append("listed the data dir")

            # Processes: the sandbox's own, numbered from 1; not the platform, not the host's.
            out = await _typed(
                proc, f"ls -d /proc/{lp.pid} && echo SE$((1))EN; ps -eo pid=,comm= | sed 's/^ */P /'", 11
            )
            procs = {int(pid): comm for pid, comm in re.findall(r"^P (\d+) (\S+)", out, re.M)}
            if "SE1EN" in out or lp.pid in procs or not set(procs.values()) <= {"bwrap", "bash", "sh", "ps", "sed"}:
                reached.append(f"saw host processes: {sorted(set(procs.values()))[:12]}")

            # Read-only holds against root: no remount, no unmount, every write refused by the kernel.
            out = await _typed(
                proc,
                "mount -o remount,rw /volume; echo remount=$?; mount -o remount,rw,bind /volume; "
                "echo rebind=$?; umount /volume; echo umount=$?; echo evil > /volume/data.txt; "
                "echo new > /volume/new.txt; cat /volume/data.txt",
                12,
            )
            for step in ("remount", "rebind", "umount"):
                if not re.search(rf"{step}=[1-9]", out):
                    reached.append(f"{step} of /volume worked")
            if out.count("Read-only file system") != 2 or "original" not in out:
                reached.append("wrote /volume")
        finally:
            await conn.close()
        assert not reached, "the shell " + "; ".join(reached)
        work = lp.data_dir / "sessions" / "work" / s.id
        with pytest.raises(OSError, match="Read-only file system"):  # the copy is still read-only for the host too
            (work / "after.txt").write_text("x")
        await api.stop_session("research", s.id)
        await wait_phase(api, "research", s.id, {"stopped"}, timeout=60.0)
    assert (root / "data.txt").read_bytes() == b"original\n" and not (root / "new.txt").exists()
    assert (other / "secret.txt").read_bytes() == b"another team's file\n"
    assert sorted(p.name for p in other.iterdir()) == ["secret.txt"]


async def test_a_read_write_shell_writes_its_volume_and_nothing_else(platform):
    lp, key = platform
    root = create_volume(lp, "research", {"data.txt": b"original\n"})
    other = create_volume(lp, "other", {"secret.txt": b"another team's file\n"})
    async with lp.client() as api:
        s, conn, proc = await _open(api, key, "research", read_only=False)
        try:
            for n, (what, path) in enumerate(_outside(lp, other).items()):
                out = await _typed(proc, f"echo pwned >> {shlex.quote(path)} && echo WRO$((1))TE", n)
                assert "WRO1TE" not in out and "No such file or directory" in out, (what, out)
            out = await _typed(
                proc,
                "echo changed > /volume/data.txt && mkdir -p /volume/notes && "
                "echo kept > notes/new.txt && echo W$((1+1))OTE",
                10,
            )
            assert "W2OTE" in out, out
            # Nothing else is writable: the root, the system, the host's folders; /tmp is the sandbox's own.
            out = await _typed(proc, "touch /x /usr/x /etc/x; echo tmp > /tmp/x && cat /tmp/x", 11)
            assert out.count("Read-only file system") == 3 and "\ntmp\r\n" in out, out
        finally:
            await conn.close()
        await api.stop_session("research", s.id)
        stopped = await wait_phase(api, "research", s.id, {"stopped", "failed"}, timeout=60.0)
        assert stopped.phase == "stopped", stopped.error_message
    assert (root / "data.txt").read_bytes() == b"changed\n" and (root / "notes/new.txt").read_bytes() == b"kept\n"
    assert (other / "secret.txt").read_bytes() == b"another team's file\n"
    assert (lp.data_dir / "token").read_text().strip() == lp.token
    assert not Path("/x").exists() and not Path("/usr/x").exists() and not Path("/etc/x").exists()
