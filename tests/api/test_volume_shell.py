"""The seed's step 2 in a local session, as root: /volume, `hf download` offline, the disk's size, hangup.

The tests share one platform (no demo data), each on a fresh volume of its own, and type the seed's commands
into a session; the two that need a platform started differently (under nohup, without namespaces) start theirs.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import signal
from pathlib import Path

import pytest

from primetui.local.sessions import mountns
from primetui.local.testing import LocalPlatform
from tests.api.ssh_helpers import create_volume, make_key, read_until, wait_phase
from tests.waiting import wait_for
from primetui.shell import open_session_connection, open_shell

pytestmark = pytest.mark.timeout(240)

# /volume, read-only mounts and the disk's size need root and mount namespaces (this machine and CI).
NAMESPACES = pytest.mark.skipif(
    not mountns.probe().namespaces, reason="needs root and mount namespaces: " + mountns.probe().why
)

SEED_DOWNLOAD = (
    "hf download willcb/R1-reverse-wikipedia-paragraphs-v1-1000 \\\n  --repo-type dataset \\\n"
    "  --local-dir /volume/datasets/reverse-text"
)
SHARD = "datasets/reverse-text/data/train-00000-of-00001.parquet"
BUNDLED = Path(__file__).parents[2] / "src/primetui/local/datasets/reverse-text/data/train-00000-of-00001.parquet"


@pytest.fixture(scope="module")
def shell_platform(tmp_path_factory):
    """The module's platform (no demo data): each test that uses it gets a volume of its own (``platform``)."""
    tmp = tmp_path_factory.mktemp("volume-shell")
    key = make_key(tmp / "home" / ".ssh" / "id_ed25519")
    with LocalPlatform.start(tmp, demo=False, env={"HOME": str(tmp / "home"), "PRIME_SSH_KEY_PATH": str(key)}) as lp:
        yield lp, key


_VOLUMES = itertools.count(1)


@pytest.fixture
def platform(shell_platform):
    """(platform, ssh key, the name of a volume no other test uses: the test creates it)."""
    lp, key = shell_platform
    return lp, key, f"shell-{next(_VOLUMES)}"


async def _ready(api, volume: str, read_only: bool = False, phases=("ready", "failed")):
    s = await api.create_session(volume, read_only=read_only)
    return await wait_phase(api, volume, s.id, set(phases), timeout=60.0)


@NAMESPACES
async def test_shell_exec_and_sftp_see_the_volume_at_slash_volume(platform):
    lp, key, vol = platform
    root = create_volume(lp, vol, {"datasets/a.txt": b"alpha\n"}, size="100Gi")
    async with lp.client() as api:
        s = await _ready(api, vol)
        conn = await open_session_connection(s, key)
        try:
            proc = await open_shell(conn, "xterm", 100, 30)
            banner = await read_until(proc, b"\n")
            assert b"mounted at /volume (" in banner and b"B free)" in banner
            proc.write(
                b"pwd; echo V=$VOLUME; ls /volume/datasets; df -B1 --output=size /volume | tail -1; echo E$((1+1))ND\r"
            )
            out = await read_until(proc, b"E2ND")
            assert b"/volume\r\n" in out and b"V=/volume" in out
            assert str(100 * 2**30).encode() in out  # the disk is the volume's size
            done = await conn.run("cat /volume/datasets/a.txt && echo seen > /volume/datasets/b.txt && pwd")
            assert done.stdout == b"alpha\n/volume\n", done.stderr
            async with conn.conn.start_sftp_client() as sftp:
                assert sorted(await sftp.listdir("/volume/datasets")) == [".", "..", "a.txt", "b.txt"]
        finally:
            await conn.close()
        await api.stop_session(vol, s.id)
        stopped = await wait_phase(api, vol, s.id, {"stopped", "failed"}, timeout=60.0)
        assert stopped.phase == "stopped", stopped.error_message
    assert (root / "datasets/b.txt").read_bytes() == b"seen\n"
    assert not Path("/volume/datasets").exists()  # the host's /volume stays an empty mount point


@NAMESPACES
async def test_hf_download_as_in_the_seed_then_an_unknown_repo(platform):
    lp, key, vol = platform
    root = create_volume(lp, vol, size="100Gi")  # a fresh volume: no dataset on it
    async with lp.client() as api:
        s = await _ready(api, vol)
        conn = await open_session_connection(s, key)
        try:
            proc = await open_shell(conn, "xterm", 120, 30)
            await read_until(proc, b"\n")
            proc.write(SEED_DOWNLOAD.replace("\n", "\r").encode() + b"\r")
            out = await read_until(proc, b"path: /volume/datasets/reverse-text")
            assert b"Downloaded" in out
            proc.write(b"hf download nobody/nothing --repo-type dataset --local-dir /volume/x; echo rc=$?\r")
            out = await read_until(proc, b"rc=1")
            text = out.decode(errors="replace")
            assert "Dataset 'nobody/nothing' not found." in text  # the Hub's own words
            assert "The local platform serves only its bundled datasets" in text and "rc=1" in text
            proc.write(b"exit\r")
            await asyncio.wait_for(proc.wait(), 15)
        finally:
            await conn.close()
        await api.stop_session(vol, s.id)
        stopped = await wait_phase(api, vol, s.id, {"stopped", "failed"}, timeout=60.0)
        assert stopped.phase == "stopped", stopped.error_message
    assert (root / SHARD).read_bytes() == BUNDLED.read_bytes()


@NAMESPACES
async def test_disk_full_then_expand_then_the_download_succeeds(platform):
    lp, key, vol = platform
    # 1 MiB volume already 1,000,000 bytes full: the 45 KB shard does not fit.
    root = create_volume(lp, vol, {"filler.bin": b"\0" * 1_000_000}, size="1Mi")
    async with lp.client() as api:
        s = await _ready(api, vol)
        conn = await open_session_connection(s, key)
        try:
            failed = await conn.run(SEED_DOWNLOAD.replace("\\\n", ""), timeout=120)
            assert failed.exit_status != 0
            assert b"No space left on device" in failed.stdout + failed.stderr
        finally:
            await conn.close()
        await api.stop_session(vol, s.id)
        await wait_phase(api, vol, s.id, {"stopped", "failed"}, timeout=60.0)
        await api.expand_volume(vol, "2Mi")
        s = await _ready(api, vol)
        conn = await open_session_connection(s, key)
        try:
            done = await conn.run(SEED_DOWNLOAD.replace("\\\n", ""), timeout=120)
            assert done.exit_status == 0, done.stderr
        finally:
            await conn.close()
        await api.stop_session(vol, s.id)
        stopped = await wait_phase(api, vol, s.id, {"stopped", "failed"}, timeout=60.0)
        assert stopped.phase == "stopped", stopped.error_message
    assert (root / SHARD).read_bytes() == BUNDLED.read_bytes()


def _session_pids(sid: int) -> list[int]:
    from primetui.local.sessions.sshd import session_members

    return session_members(sid)


def _session_names(sid: int) -> list[str]:
    names = []
    for pid in _session_pids(sid):
        with contextlib.suppress(OSError):
            names.append(Path(f"/proc/{pid}/comm").read_text().strip())
    return names


def _host_session(session_id: str, comm: str) -> int | None:
    """The terminal session, as the host numbers it, of the volume session's process named ``comm``
    (a sandboxed shell has PID numbers of its own, so its own `ps` cannot tell)."""
    mark = f"PRIMETUI_SESSION_ID={session_id}".encode()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        with contextlib.suppress(OSError):
            if Path(f"/proc/{entry}/comm").read_text().strip() == comm and mark in Path(
                f"/proc/{entry}/environ"
            ).read_bytes().split(b"\0"):
                return int(Path(f"/proc/{entry}/stat").read_bytes().rsplit(b")", 1)[1].split()[3])
    return None


async def _shell_with_a_background_job(api, key, volume: str = "research"):
    """A session on ``volume`` with a login shell that started ``sleep 600 &``: (session, connection,
    shell process, the shell's terminal session id)."""
    s = await _ready(api, volume)
    conn = await open_session_connection(s, key)
    proc = await open_shell(conn, "xterm", 100, 30)
    await read_until(proc, b"\n")
    proc.write(b"sleep 600 & echo STARTED$((1+1))\r")
    await read_until(proc, b"STARTED2")
    sid = await wait_for(lambda: _host_session(s.id, "sleep"), "the background sleep to show on the host")
    return s, conn, proc, sid


async def _session_ends(sid: int, what: str) -> None:
    """Wait until terminal session ``sid`` has no live process; on a hang, say what is left."""
    try:
        await wait_for(lambda: _session_pids(sid) == [], what)
    except AssertionError as exc:
        left = []
        for pid in _session_pids(sid):
            proc = Path(f"/proc/{pid}")
            with contextlib.suppress(OSError):
                state = (proc / "stat").read_bytes().rsplit(b")", 1)[1].split()[0].decode()
                left.append(
                    f"{pid} {(proc / 'comm').read_text().strip()} state={state} wchan={(proc / 'wchan').read_text()}"
                )
        raise AssertionError(f"{exc}; left: {left}") from None


async def test_closing_the_channel_hangs_up_on_bash_and_vim(platform):
    lp, key, vol = platform
    create_volume(lp, vol, {"notes.txt": b"hello\n"}, size="10Gi")
    async with lp.client() as api:
        s, conn, proc, sid = await _shell_with_a_background_job(api, key, vol)
        proc.write(b"vim notes.txt\r")
        await wait_for(
            lambda: {"bash", "vim", "sleep"} <= set(_session_names(sid)), "bash, vim and sleep in the session"
        )
        await conn.close()  # the client goes away without exiting anything
        # vim preserves its swap file (an fsync) before it exits: slow when the disk is busy
        await _session_ends(sid, "bash, vim and the background job to take the hangup")
        await api.stop_session(vol, s.id)
        await wait_phase(api, vol, s.id, {"stopped", "failed"}, timeout=60.0)


async def test_a_platform_started_under_nohup_still_hangs_up_a_background_job(tmp_path):
    """`nohup primetui local serve` ignores SIGHUP in the server: its sessions' programs must not
    inherit that (sshd gives them default signals), or a background job outlives the hangup."""
    key = make_key(tmp_path / "home" / ".ssh" / "id_ed25519")
    previous = signal.signal(signal.SIGHUP, signal.SIG_IGN)  # what nohup does, inherited by the server
    try:
        lp_cm = LocalPlatform.start(
            tmp_path, demo=False, env={"HOME": str(tmp_path / "home"), "PRIME_SSH_KEY_PATH": str(key)}
        )
    finally:
        signal.signal(signal.SIGHUP, previous)
    with lp_cm as lp:
        create_volume(lp, "research", {}, size="10Gi")
        async with lp.client() as api:
            s, conn, _, sid = await _shell_with_a_background_job(api, key)
            await wait_for(lambda: "sleep" in _session_names(sid), "the background sleep to start")
            await conn.close()
            await _session_ends(sid, "the shell and its background sleep to take the hangup")
            await api.stop_session("research", s.id)
            await wait_phase(api, "research", s.id, {"stopped", "failed"}, timeout=60.0)


async def test_a_program_flooding_the_terminal_still_takes_the_hangup(platform):
    """The client goes away while a program writes faster than anyone reads: the program takes the
    hangup all the same (its handler, which writes too, is never left stuck on a full terminal)."""
    lp, key, vol = platform
    create_volume(lp, vol, {}, size="10Gi")
    flood = (
        "perl -e '$SIG{HUP} = sub { syswrite STDOUT, qq(hung up\\n); exit 0 }; "
        "syswrite STDOUT, qq(FLOOD\\n); while (1) { syswrite STDOUT, q(x) x 4096 }'"
    )
    async with lp.client() as api:
        s = await _ready(api, vol)
        conn = await open_session_connection(s, key)
        proc = await open_shell(conn, "xterm", 100, 30)
        await read_until(proc, b"\n")
        proc.write(flood.encode() + b"\r")
        out = b""
        while b"FLOOD\r\n" not in out:
            out += await asyncio.wait_for(proc.read(1 << 16), 15)
        sid = await wait_for(lambda: _host_session(s.id, "perl"), "perl to show on the host")
        await conn.close()  # nobody reads the flood any more
        await _session_ends(sid, "perl and the shell to take the hangup")
        await api.stop_session(vol, s.id)
        await wait_phase(api, vol, s.id, {"stopped", "failed"}, timeout=60.0)


async def test_without_namespaces_the_shell_says_so_and_the_final_sync_refuses_an_overfull_copy(tmp_path):
    key = make_key(tmp_path / "home" / ".ssh" / "id_ed25519")
    env = {"HOME": str(tmp_path / "home"), "PRIME_SSH_KEY_PATH": str(key), "PRIMETUI_SESSION_NAMESPACES": "0"}
    with LocalPlatform.start(tmp_path, demo=False, env=env) as lp:
        root = create_volume(lp, "small", {"a.txt": b"a\n"}, size="1Mi")
        async with lp.client() as api:
            ro = await _ready(api, "small", read_only=True)
            conn = await open_session_connection(ro, key)
            try:
                proc = await open_shell(conn, "xterm", 200, 30)
                banner = await read_until(proc, b"weaker")
                assert b"/volume is not available here (PRIMETUI_SESSION_NAMESPACES=0 is set)" in banner
                assert (
                    b"NOT SANDBOXED: this shell reaches every file, process and socket the platform's user can"
                    in banner
                )
                assert b"read-only is enforced by file permissions only" in banner
            finally:
                await conn.close()
            await api.stop_session("small", ro.id)
            s = await _ready(api, "small")
            work = lp.data_dir / "sessions" / "work" / s.id
            conn = await open_session_connection(s, key)
            try:
                done = await conn.run("pwd; echo $VOLUME; cat /volume/a.txt; head -c 2000000 /dev/zero > big.bin")
                assert done.stdout == f"{work}\n{work}\na\n".encode(), done.stderr
            finally:
                await conn.close()
            await api.stop_session("small", s.id)
            failed = await wait_phase(api, "small", s.id, {"stopped", "failed"}, timeout=60.0)
    assert failed.phase == "failed"
    assert failed.error_message.startswith(
        "No space left on device: the session's files take 1.907 MiB, more than the volume's 1.000 MiB"
    )
    assert "prime volumes expand small --size" in failed.error_message
    assert not (root / "big.bin").exists() and (work / "big.bin").stat().st_size == 2_000_000  # nothing lost
