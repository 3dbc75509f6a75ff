"""Throughput of a volume session's shell: `seq 1 1500000` on a PTY, read by the client.

The session is served by a real local platform (a `primetui local serve` subprocess, as in use),
and read here by the client layer (`primetui.shell`). Baseline: the same command on a local pty
read directly (no SSH) in the same run. Measured paths: direct SSH to the session endpoint, and
SSH inside the TLS gateway (SNI routed, certificate pinned). Also the time from "create session"
(HTTP) to "ready", and from connect to the first shell byte.

    uv run python -m bench.ssh_throughput [--repeat 3]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import pty
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import asyncssh

from primetui.shell import get, open_session_connection, open_shell, put

COMMAND = "seq 1 1500000"


async def local_pty() -> tuple[int, float]:
    master, slave = pty.openpty()
    start = time.perf_counter()
    proc = await asyncio.create_subprocess_exec("sh", "-c", COMMAND, stdin=slave, stdout=slave, stderr=slave)
    os.close(slave)
    loop = asyncio.get_running_loop()
    total = 0
    done = asyncio.Event()
    os.set_blocking(master, False)

    def readable() -> None:
        nonlocal total
        try:
            data = os.read(master, 65536)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            loop.remove_reader(master)
            done.set()
            return
        total += len(data)

    loop.add_reader(master, readable)
    await done.wait()
    await proc.wait()
    os.close(master)
    return total, time.perf_counter() - start


async def over_ssh(wire: dict, key: Path, direct: bool) -> tuple[int, float]:
    conn = await open_session_connection(wire, key, direct=direct)
    try:
        start = time.perf_counter()
        proc = await open_shell(conn, "xterm-256color", 120, 40, command=COMMAND)
        total = 0
        while data := await proc.read():
            total += len(data)
        elapsed = time.perf_counter() - start
        await proc.wait()
    finally:
        await conn.close()
    return total, elapsed


async def main(repeat: int) -> None:
    from primetui.local.testing import LocalPlatform

    tmp = Path(tempfile.mkdtemp(prefix="primetui-bench-"))
    key = asyncssh.generate_private_key("ssh-ed25519")
    key_path = tmp / "home" / ".ssh" / "id_ed25519"
    key_path.parent.mkdir(parents=True)
    key_path.write_bytes(key.export_private_key())
    key_path.chmod(0o600)
    Path(str(key_path) + ".pub").write_bytes(key.export_public_key())
    env = {"HOME": str(tmp / "home"), "PRIME_SSH_KEY_PATH": str(key_path), "PRIMETUI_LOCAL_SPEED": "1000"}
    with LocalPlatform.start(tmp, env=env) as lp:
        client = lp.client()
        try:
            await client.create_volume("bench", "10Gi", warm=False)
            (lp.data_dir / "volumes" / "bench" / "blob.bin").write_bytes(os.urandom(32 * 1024 * 1024))
            t0 = time.perf_counter()
            session = await client.create_session("bench", read_only=True)
            while session.phase != "ready":
                await asyncio.sleep(0.01)
                session = await client.get_session("bench", session.id)
            ready_s = time.perf_counter() - t0
            wire = session.model_dump(by_alias=True, exclude_none=True)
            t1 = time.perf_counter()
            conn = await open_session_connection(wire, key_path)
            proc = await open_shell(conn, "xterm-256color", 80, 24)
            await proc.read()
            first_byte_s = time.perf_counter() - t1
            await proc.close()
            await conn.close()

            rows = {"local pty (baseline)": [], "ssh direct": [], "ssh via TLS gateway": []}
            for _ in range(repeat):
                rows["local pty (baseline)"].append(await local_pty())
                rows["ssh direct"].append(await over_ssh(wire, key_path, True))
                rows["ssh via TLS gateway"].append(await over_ssh(wire, key_path, False))
            # SFTP put/get of one 64 MiB file on a read-write session, next to a local file copy
            rw = await client.create_session("bench", read_only=False)
            while rw.phase != "ready":
                await asyncio.sleep(0.01)
                rw = await client.get_session("bench", rw.id)
            payload = tmp / "payload.bin"
            payload.write_bytes(os.urandom(64 * 1024 * 1024))
            conn = await open_session_connection(rw.model_dump(by_alias=True, exclude_none=True), key_path)
            transfer = {"local copy (baseline)": [], "sftp put": [], "sftp get": []}
            try:
                for i in range(repeat):
                    t = time.perf_counter()
                    await asyncio.to_thread(shutil.copyfile, payload, tmp / f"copy-{i}.bin")
                    transfer["local copy (baseline)"].append(time.perf_counter() - t)
                    t = time.perf_counter()
                    await put(conn, payload, f"up/{i}.bin")
                    transfer["sftp put"].append(time.perf_counter() - t)
                    t = time.perf_counter()
                    await get(conn, f"up/{i}.bin", tmp / f"down-{i}.bin")
                    transfer["sftp get"].append(time.perf_counter() - t)
            finally:
                await conn.close()
            await client.stop_session("bench", rw.id)
            await client.stop_session("bench", session.id)
        finally:
            await client.aclose()
    base = statistics.median(n / s for n, s in rows["local pty (baseline)"])
    print(f"# {COMMAND} on a 120x40 PTY, median of {repeat}; python {sys.version.split()[0]}, {os.cpu_count()} cpus")
    print("| path | bytes | MB/s | vs baseline |")
    print("|---|---|---|---|")
    for name, samples in rows.items():
        rate = statistics.median(n / s for n, s in samples)
        print(f"| {name} | {samples[0][0]:,} | {rate / 1e6:.1f} | {rate / base:.2f}x |")
    size = 64 * 1024 * 1024
    copy_rate = size / statistics.median(transfer["local copy (baseline)"])
    print("\n| transfer (64 MiB) | MB/s | vs baseline |")
    print("|---|---|---|")
    for name, seconds in transfer.items():
        rate = size / statistics.median(seconds)
        print(f"| {name} | {rate / 1e6:.1f} | {rate / copy_rate:.2f}x |")
    print(f"\ncreate session (HTTP) to ready, 32 MiB volume: {ready_s:.2f} s (artificial holds shortened, speed=1000)")
    print(f"connect through the gateway + shell to first byte: {first_byte_s * 1000:.0f} ms")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    asyncio.run(main(parser.parse_args().repeat))
