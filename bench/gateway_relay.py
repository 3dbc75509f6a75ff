"""CPU per MB of the local platform's TLS gateway relay, alone, in one process.

A TLS client (pinned, SNI-routed, as ``primetui.shell`` connects) sends ``--mb`` MB through the
gateway to a loopback TCP sink, and the sink sends the same back (the direction a shell flood
takes); the figure is MB per CPU-second of the whole process (client TLS + gateway + sink), so
the same work on the two ends makes a change in the relay show. ``--ab OTHER/src`` measures
another checkout's gateway and this one alternately, in subprocesses of one invocation.

    uv run python bench/gateway_relay.py [--mb 64] [--repeat 5] [--ab OTHER/src]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import ssl
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_SRC = str(Path(__file__).resolve().parents[1] / "src")
if "--src" in sys.argv:
    _SRC = str(Path(sys.argv[sys.argv.index("--src") + 1]).resolve())
sys.path.insert(0, _SRC)

CHUNK = 64 * 1024


async def one_run(mb: int) -> dict:
    from primetui.local.sessions.gateway import Gateway
    from primetui.local.sessions.keys import load_gateway_cert

    total = mb * 1_000_000
    payload = os.urandom(CHUNK)

    async def sink(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        got = 0
        while got < total:  # the upload, then the same amount back (the shell's direction)
            data = await reader.read(1 << 20)
            if not data:
                break
            got += len(data)
        sent = 0
        while sent < total:
            writer.write(payload)
            sent += len(payload)
            await writer.drain()
        writer.close()

    upstream = await asyncio.start_server(sink, "127.0.0.1", 0)
    port = upstream.sockets[0].getsockname()[1]
    with tempfile.TemporaryDirectory() as tmp:
        gw = Gateway(load_gateway_cert(Path(tmp)), lambda alias: port if alias == "vol-ssh-bench" else None)
        await gw.start()
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
        reader, writer = await asyncio.open_connection(
            "127.0.0.1", gw.port, ssl=ctx, server_hostname="vol-ssh-bench.localhost", limit=1 << 20
        )
        t0, c0 = time.perf_counter(), time.process_time()
        sent = 0
        while sent < total:
            writer.write(payload)
            sent += len(payload)
            await writer.drain()
        got = 0
        while data := await reader.read(1 << 20):
            got += len(data)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        writer.close()
        await gw.close()
    upstream.close()
    if got < total:
        raise RuntimeError(f"only {got} of {total} bytes came back")
    return {"mb": 2 * total / 1e6, "wall": wall, "cpu": cpu}


def summary(runs: list[dict]) -> str:
    rates = sorted(r["mb"] / r["cpu"] for r in runs)
    return f"median {statistics.median(rates):6.1f} MB/CPU-s (runs: {', '.join(f'{x:.1f}' for x in rates)})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=64, help="MB each way (default 64)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--ab", metavar="SRC", help="also measure another checkout's src/, alternating")
    parser.add_argument("--src", metavar="SRC", help="import primetui from SRC")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.json:
        print(json.dumps(asyncio.run(one_run(args.mb))))
        return
    print(
        f"machine: {os.cpu_count()} cores, load {' '.join(f'{x:.2f}' for x in os.getloadavg())}; "
        f"{args.mb} MB each way through the gateway, {args.repeat} runs"
    )
    here = str(Path(__file__).resolve().parents[1] / "src")
    sides = {"A (other)": str(Path(args.ab).resolve()), "B (this)": here} if args.ab else {"this": here}
    runs: dict[str, list[dict]] = {k: [] for k in sides}
    for _ in range(args.repeat):
        for name, src in sides.items():
            out = subprocess.run(
                [sys.executable, __file__, "--json", "--src", src, "--mb", str(args.mb)],
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            runs[name].append(json.loads(out.strip().splitlines()[-1]))
    for name, src in sides.items():
        print(f"  {name:10s} {summary(runs[name])}  [{src}]")
    print(f"load after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
