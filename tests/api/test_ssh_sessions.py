"""Volume sessions end to end: V5-V8 over real HTTP, SSH over the real gateway and directly."""

from __future__ import annotations

import asyncio
import hashlib
import os
import re
from pathlib import Path

import asyncssh
import pytest

from primetui.api.errors import PrimeAPIError
from primetui.shell import (
    GatewayCertificateMismatch,
    HostKeyMismatch,
    KeyFileError,
    AuthenticationRefused,
    RemotePathError,
    SessionStopped,
    TransferError,
    get,
    open_session_connection,
    open_shell,
    put,
)
import httpx

from primetui.local.sessions import mountns
from tests.api import ssh_helpers
from tests.api.ssh_helpers import create_volume, make_key, read_until as _read_until, ssh_platform_fixture, wait_phase

CLI_SSH_CONNECTION = re.compile(
    r"(?P<user>[a-zA-Z_][a-zA-Z0-9_-]*)@(?P<host>[a-zA-Z0-9.-]+)(?: -p (?P<port>[0-9]{1,5}))?"
)


ssh_platform = ssh_platform_fixture("ssh-platform")
api = ssh_helpers.api


async def _ready(api, volume: str, read_only: bool = False):
    s = await api.create_session(volume, read_only=read_only)
    return await wait_phase(api, volume, s.id, {"ready", "failed"})


async def test_phases_single_writer_and_final_sync(ssh_platform, api):
    lp, key = ssh_platform
    root = create_volume(lp, "phases", {"datasets/a.txt": b"alpha\n", "runs/r1/keep.txt": b"run output\n"})
    first = await api.create_session("phases")
    assert first.status == "PENDING" and first.phase == "creating" and first.ssh_connection is None
    seen: list[str] = []
    ready = await wait_phase(api, "phases", first.id, {"ready"}, seen=seen)
    order = ["creating", "staging", "ready"]
    assert seen == sorted(seen, key=order.index) and seen[-1] == "ready"  # never backwards
    assert ready.status == "RUNNING"
    assert ready.progress and ready.progress.startswith("Transferred:") and "(2/2 files)" in ready.progress
    assert CLI_SSH_CONNECTION.fullmatch(ready.ssh_connection)

    with pytest.raises(PrimeAPIError) as conflict:
        await api.create_session("phases")
    assert "active read-write session" in str(conflict.value)
    ro = await api.create_session("phases", read_only=True)  # readers are always welcome
    listed = await api.list_sessions("phases")
    assert [s.id for s in listed] == [ro.id, first.id]  # newest first

    conn = await open_session_connection(ready, key)
    try:
        done = await conn.run(
            "echo changed > datasets/a.txt && mkdir -p notes && echo n > notes/new.txt "
            "&& echo clobber > runs/r1/keep.txt && rm -f missing"
        )
        assert done.exit_status == 0, done.stderr
    finally:
        await conn.close()
    await api.stop_session("phases", first.id)
    seen = []
    stopped = await wait_phase(api, "phases", first.id, {"stopped", "failed"}, seen=seen)
    order = ["ready", "syncing", "finalizing", "stopped", "failed"]
    assert seen == sorted(seen, key=order.index)
    assert stopped.phase == "stopped" and stopped.status == "STOPPED", stopped.error_message
    assert (root / "datasets/a.txt").read_bytes() == b"changed\n"
    assert (root / "notes/new.txt").read_bytes() == b"n\n"
    assert (root / "runs/r1/keep.txt").read_bytes() == b"run output\n"  # the sync leaves runs/ alone
    with pytest.raises(PrimeAPIError, match="not found"):
        await api.get_session("phases", "vs_nope")
    with pytest.raises(PrimeAPIError, match="Volume 'nowhere' not found"):
        await api.create_session("nowhere")
    again = await api.create_session("phases")  # the writer slot is free once stopped
    await api.stop_session("phases", again.id)
    await api.stop_session("phases", ro.id)


async def test_gateway_direct_and_pinning(ssh_platform, api):
    lp, key = ssh_platform
    create_volume(lp, "pins", {"hello.txt": b"hi\n"})
    s = await _ready(api, "pins", read_only=True)
    host_pub = (lp.data_dir / "sessions" / "ssh_host_ed25519_key.pub").read_text().split()[:2]
    assert s.host_public_key.split() == host_pub
    der_pem = (lp.data_dir / "sessions" / "gateway.crt").read_bytes()
    from cryptography import x509
    from cryptography.hazmat.primitives.serialization import Encoding

    der = x509.load_pem_x509_certificate(der_pem).public_bytes(Encoding.DER)
    assert s.gateway.cert_sha256 == hashlib.sha256(der).hexdigest()
    assert s.gateway.host == "127.0.0.1"

    for direct in (False, True):
        conn = await open_session_connection(s, key, direct=direct)
        assert conn.via_gateway is (not direct)
        out = await conn.run("cat hello.txt; echo $PRIMETUI_SESSION_MODE")
        assert out.stdout == b"hi\nread-only\n"
        with pytest.raises(asyncssh.ChannelOpenError):  # no port forwarding into the machine
            await conn.conn.open_connection("127.0.0.1", int(lp.base_url.rsplit(":", 1)[1]))
        await conn.close()

    wrong_cert = s.model_copy(update={"gateway": s.gateway.model_copy(update={"cert_sha256": "ab" * 32})})
    with pytest.raises(GatewayCertificateMismatch) as bad_cert:
        await open_session_connection(wrong_cert, key)
    assert str(bad_cert.value) == (
        f"the gateway 127.0.0.1:{s.gateway.port} presented an unexpected certificate "
        f"(SHA-256 {s.gateway.cert_sha256}); refusing to connect"
    )
    other = asyncssh.generate_private_key("ssh-ed25519").export_public_key().decode().split()
    wrong_host = s.model_copy(update={"host_public_key": " ".join(other[:2])})
    for direct in (False, True):
        with pytest.raises(HostKeyMismatch, match="refusing to connect"):
            await open_session_connection(wrong_host, key, direct=direct)

    with pytest.raises(KeyFileError, match="SSH key not found"):
        await open_session_connection(s, lp.data_dir / "no-such-key")
    stranger = make_key(lp.data_dir.parent / "stranger" / "id_ed25519")
    with pytest.raises(AuthenticationRefused, match="refused the SSH key"):
        await open_session_connection(s, stranger)
    await api.stop_session("pins", s.id)


async def test_a_flood_arrives_whole_over_aes_gcm_without_compression(ssh_platform, api):
    """A shell flood through the gateway and directly: every byte in order, also when the reader
    stalls first (the gateway relay pauses and resumes on its transports' flow control), on the
    cipher the client offers first; a client offering only chacha20-poly1305 still gets in."""
    lp, key = ssh_platform
    create_volume(lp, "flood", {"x.txt": b"x\n"})
    s = await _ready(api, "flood", read_only=True)
    n = 400_000
    expected = b"".join(b"%d\r\n" % i for i in range(1, n + 1))  # the pty turns \n into \r\n
    for direct in (False, True):
        conn = await open_session_connection(s, key, direct=direct)
        try:
            assert conn.conn.get_extra_info("send_cipher") == "aes128-gcm@openssh.com"
            assert conn.conn.get_extra_info("recv_cipher") == "aes128-gcm@openssh.com"
            assert conn.conn.get_extra_info("send_compression") == "none"
            assert conn.conn.get_extra_info("recv_compression") == "none"
            proc = await open_shell(conn, "xterm-256color", 120, 40, command=f"seq 1 {n}")
            await asyncio.sleep(1.0)  # nobody reads: the window and the relay's buffers fill up
            chunks = []
            while data := await proc.read():
                chunks.append(data)
            assert b"".join(chunks) == expected
            assert (await proc.wait()).exit_status == 0
        finally:
            await conn.close()

    from primetui.shell.connect import local_host_address
    from primetui.shell.endpoint import endpoint_of

    ep = endpoint_of(s)
    pinned = asyncssh.import_public_key(s.host_public_key)
    async with asyncssh.connect(
        local_host_address(ep.host),
        ep.port,
        username=ep.user,
        known_hosts=([pinned], [], []),
        client_keys=[asyncssh.read_private_key(str(key))],
        config=None,
        agent_path=None,
        encryption_algs=["chacha20-poly1305@openssh.com"],
    ) as legacy:
        assert legacy.get_extra_info("send_cipher") == "chacha20-poly1305@openssh.com"
        assert (await legacy.run("cat x.txt", encoding=None)).stdout == b"x\n"
    await api.stop_session("flood", s.id)


async def test_shell_pty_resize_and_stop_while_connected(ssh_platform, api):
    lp, key = ssh_platform
    create_volume(lp, "shell")
    s = await _ready(api, "shell")
    conn = await open_session_connection(s, key)
    os.environ["LC_PRIMETUI_PROBE"] = "sent-by-client"  # LANG/LC_* travel like OpenSSH's SendEnv
    try:
        proc = await open_shell(conn, "xterm-256color", 100, 30)
    finally:
        del os.environ["LC_PRIMETUI_PROBE"]
    proc.write(b"stty size; echo T=$TERM L=$LC_PRIMETUI_PROBE\r")
    out = await _read_until(proc, b"L=sent-by-client")
    assert b"30 100" in out and b"T=xterm-256color" in out
    proc.resize(120, 40)
    proc.write(b"stty size; echo done-$((6*7))\r")
    out = await _read_until(proc, b"done-42")
    assert b"40 120" in out

    await api.stop_session("shell", s.id)  # the platform stops the session under the open shell
    end = await asyncio.wait_for(proc.wait(), 15)
    assert isinstance(end.error, SessionStopped)
    assert "stopped" in str(end.error) and s.id in str(end.error)
    await wait_phase(api, "shell", s.id, {"stopped"})
    await conn.close()


@pytest.mark.skipif(not mountns.probe().namespaces, reason="a read-only mount needs root and mount namespaces")
async def test_read_only_refuses_writes_by_every_path(ssh_platform, api, tmp_path):
    """As root: the read-only session's copy is a read-only mount, so every write fails in the kernel."""
    lp, key = ssh_platform
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("outside the volume\n")
    root = create_volume(lp, "readonly", {"data.txt": b"original\n"})
    (root / "escape").symlink_to(outside)  # an absolute link out of the volume
    (root / "inside").symlink_to("data.txt")  # a harmless relative link
    s = await _ready(api, "readonly", read_only=True)
    conn = await open_session_connection(s, key)
    try:
        assert os.geteuid() == 0  # this machine and CI: root ignores permission bits, not a ro mount
        shell = await conn.run(
            "pwd; echo evil > data.txt; echo new > /volume/new.txt; touch x; mkdir d; "
            "chmod 777 data.txt; rm data.txt; ls -a"
        )
        assert shell.stdout.splitlines()[0] == b"/volume"
        assert shell.stderr.count(b"Read-only file system") == 6, shell.stderr
        assert b"escape" not in shell.stdout  # links leaving the volume are not staged
        assert b"inside" in shell.stdout
        async with conn.conn.start_sftp_client() as sftp:
            with pytest.raises(
                asyncssh.SFTPPermissionDenied, match="Read-only file system: this is a read-only session"
            ):
                async with sftp.open("/volume/data.txt", "wb") as f:
                    await f.write(b"x")
            for op in (
                lambda: sftp.remove("/volume/data.txt"),
                lambda: sftp.mkdir("/volume/d"),
                lambda: sftp.rename("/volume/data.txt", "/volume/b.txt"),
                lambda: sftp.symlink("/volume/data.txt", "/volume/l"),
                lambda: sftp.chmod("/volume/data.txt", 0o777),
            ):
                with pytest.raises(asyncssh.SFTPPermissionDenied, match="Read-only file system"):
                    await op()
            assert await sftp.realpath("/volume/../../..") == "/"  # '..' stops at the session root
        # the platform's own view of the copy is read-only too (so SFTP cannot write even past its checks)
        work = lp.data_dir / "sessions" / "work" / s.id
        with pytest.raises(OSError, match="Read-only file system"):
            (work / "backdoor").symlink_to(root)
        with pytest.raises(RemotePathError, match="read-only session"):
            await put(conn, lp.data_dir.parent / "home" / ".ssh" / "id_ed25519.pub", "keys/")
    finally:
        await conn.close()
    await api.stop_session("readonly", s.id)
    await wait_phase(api, "readonly", s.id, {"stopped"})
    assert (root / "data.txt").read_bytes() == b"original\n"
    assert not (root / "new.txt").exists()
    assert (outside / "secret.txt").read_text() == "outside the volume\n"


async def test_sftp_does_not_follow_a_link_out_of_the_copy(ssh_platform, api):
    lp, key = ssh_platform
    root = create_volume(lp, "backdoor", {"data.txt": b"original\n"})
    s = await _ready(api, "backdoor")
    conn = await open_session_connection(s, key)
    try:
        (lp.data_dir / "sessions" / "work" / s.id / "backdoor").symlink_to(root)  # points at the real volume
        async with conn.conn.start_sftp_client() as sftp:
            for path in ("/volume/backdoor", "/volume/backdoor/data.txt"):
                with pytest.raises(asyncssh.SFTPPermissionDenied, match="outside the volume"):
                    await sftp.listdir(path) if path.endswith("backdoor") else await sftp.stat(path)
    finally:
        await conn.close()
    await api.stop_session("backdoor", s.id)
    await wait_phase(api, "backdoor", s.id, {"stopped"})


async def test_put_get_round_trip_with_path_rules(ssh_platform, api, tmp_path):
    lp, key = ssh_platform
    root = create_volume(lp, "transfer")
    src = tmp_path / "dataset"
    (src / "shards").mkdir(parents=True)
    (src / "train.jsonl").write_bytes(b'{"prompt": "a"}\n' * 5000)
    (src / "shards" / "0.bin").write_bytes(bytes(range(256)) * 4096)
    s = await _ready(api, "transfer")
    conn = await open_session_connection(s, key)
    calls: list[tuple[int, int, str]] = []
    try:
        sent = await put(conn, src, "datasets/", lambda done, total, name: calls.append((done, total, name)))
        assert sent.files == 2 and calls[-1][0] == calls[-1][1] == sent.bytes
        assert all(a[0] <= b[0] for a, b in zip(calls, calls[1:]))  # progress only grows
        back = tmp_path / "back"
        back.mkdir()
        got = await get(conn, "datasets/dataset", back)
        assert got.files == 2
        for rel in ("train.jsonl", "shards/0.bin"):
            assert (
                hashlib.sha256((back / "dataset" / rel).read_bytes()).digest()
                == hashlib.sha256((src / rel).read_bytes()).digest()
            )
        # rsync's rules: "dir/" copies the contents, a path without a trailing slash is the exact name
        await put(conn, str(src) + "/", "flat/")
        await put(conn, src / "train.jsonl", "renamed/train-v2.jsonl")
        listing = await conn.run("ls flat renamed")
        assert listing.stdout.split() == [b"flat:", b"shards", b"train.jsonl", b"renamed:", b"train-v2.jsonl"]
        contents = tmp_path / "contents"
        contents.mkdir()
        await get(conn, "flat/", contents)  # trailing slash: the folder's contents, not the folder
        assert sorted(p.name for p in contents.iterdir()) == ["shards", "train.jsonl"]
        # cancelling a get part way leaves no half file behind
        big = lp.data_dir / "sessions" / "work" / s.id / "big.bin"
        big.write_bytes(b"\0" * (16 * 1024 * 1024))
        started = asyncio.Event()
        task = asyncio.create_task(get(conn, "big.bin", tmp_path / "big.bin", lambda *a: started.set()))
        await asyncio.wait_for(started.wait(), 30)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert not (tmp_path / "big.bin").exists() and not list(tmp_path.glob("*.primetui-partial"))
        with pytest.raises(RemotePathError, match="runs/ holds run outputs and is read-only"):
            await put(conn, src, "runs/")
        with pytest.raises(RemotePathError, match="no spaces or shell characters"):
            await put(conn, src, "my data/")
        with pytest.raises(RemotePathError, match="climbs above the volume root"):
            await get(conn, "../etc/passwd", back)
        with pytest.raises(TransferError, match="no such file"):
            await get(conn, "datasets/missing.txt", back)
    finally:
        await conn.close()
    await api.stop_session("transfer", s.id)
    await wait_phase(api, "transfer", s.id, {"stopped"})
    assert (root / "datasets/dataset/shards/0.bin").read_bytes() == (src / "shards" / "0.bin").read_bytes()


@pytest.mark.slow
def test_official_prime_cli_ssh_through_the_gateway(ssh_platform, tmp_path):
    """`prime volumes ssh` (0.18.0) + its TLS `volumes proxy` + OpenSSH with StrictHostKeyChecking."""
    import shutil
    import subprocess
    import sys

    if shutil.which("ssh") is None:
        pytest.skip("OpenSSH client not installed")
    lp, key = ssh_platform
    create_volume(lp, "cli", {"hello.txt": b"hello from the volume\n"})
    home = tmp_path / "cli-home"
    home.mkdir()
    env = dict(
        os.environ,
        HOME=str(home),
        PRIME_BASE_URL=lp.base_url,
        PRIME_API_KEY=lp.token,
        PRIME_DISABLE_VERSION_CHECK="1",
        PRIME_SSH_KEY_PATH=str(key),
    )
    prime = Path(sys.executable).with_name("prime")
    done = subprocess.run(
        [str(prime), "--plain", "volumes", "ssh", "cli", "--read-only"],
        input=b"cat hello.txt\necho marker-$((6*7))\nexit\n",
        capture_output=True,
        env=env,
        timeout=120,
    )
    out = done.stdout.decode()
    assert done.returncode == 0, out + done.stderr.decode()
    assert "hello from the volume" in out and "marker-42" in out
    config = (home / ".prime" / "volume-ssh" / "config").read_text()
    assert "ProxyCommand" in config and "StrictHostKeyChecking yes" in config
    session_id = re.search(r"Session (vs_[0-9a-f]+)", out).group(1)
    httpx.delete(f"{lp.api_url}/training/volumes/cli/sessions/{session_id}", headers=lp.headers, timeout=30)


async def test_openssh_config_with_primetui_proxy(ssh_platform, api, tmp_path):
    """`ssh -F ~/.prime/volume-ssh/config alias` through primetui's own TLS ProxyCommand."""
    import shutil
    import subprocess

    from primetui.shell import write_ssh_config

    if shutil.which("ssh") is None:
        pytest.skip("OpenSSH client not installed")
    lp, key = ssh_platform
    create_volume(lp, "openssh", {"hello.txt": b"hi from openssh\n"})
    s = await _ready(api, "openssh", read_only=True)
    folder = tmp_path / "volume-ssh"
    (folder).mkdir()
    (folder / "config").write_text("Host other\n  HostName example.invalid\n")
    cmd = write_ssh_config(s, key, folder=folder)
    write_ssh_config(s, key, folder=folder)  # rewriting replaces the block, never duplicates it
    config = (folder / "config").read_text()
    assert config.count(f"Host {cmd.alias}") == 1 and "Host other" in config
    assert "primetui.shell.proxy" in config and "StrictHostKeyChecking yes" in config
    done = await asyncio.to_thread(
        subprocess.run,
        [*cmd.argv, "cat hello.txt"],
        capture_output=True,
        timeout=60,
        env=dict(os.environ, HOME=str(tmp_path)),
    )
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout == b"hi from openssh\n"
    # what `prime volumes get` runs without rsync: OpenSSH scp (SFTP mode) to /volume/...
    scp = await asyncio.to_thread(
        subprocess.run,
        ["scp", "-F", str(cmd.config_path), f"{cmd.alias}:/volume/hello.txt", str(tmp_path / "got.txt")],
        capture_output=True,
        timeout=60,
        env=dict(os.environ, HOME=str(tmp_path)),
    )
    assert scp.returncode == 0, scp.stderr.decode()
    assert (tmp_path / "got.txt").read_bytes() == b"hi from openssh\n"
    # a wrong pin in the config is refused by the proxy before SSH starts
    (folder / "config").write_text(config.replace(s.gateway.cert_sha256, "0" * 64))
    bad = await asyncio.to_thread(
        subprocess.run,
        [*cmd.argv, "true"],
        capture_output=True,
        timeout=60,
        env=dict(os.environ, HOME=str(tmp_path)),
    )
    assert bad.returncode != 0 and b"presented an unexpected certificate" in bad.stderr
    await api.stop_session("openssh", s.id)
