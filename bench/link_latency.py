"""Shell output over a distant link: the pane's SSH throughput at a given round-trip time.

A hosted session's pod can be 50-150 ms away. This machine cannot add latency to loopback (no
netem), so a proxy on 127.0.0.1 holds every byte for half the round-trip time in each direction
(no bandwidth limit, order kept) in front of a real local-platform session's SSH server. Through
it, in turn and in the same run:

- primetui: ``primetui.shell.open_shell`` (the pane's reader, with its window rule) reading
  ``seq 1 N`` with no screen;
- the pane: the same output drawn by primetui's terminal pane (``TerminalView`` in a headless app),
  from the command's start until its last line is on screen;
- OpenSSH: ``ssh -tt`` running the same command, its output to /dev/null (the terminal user's
  baseline; its channel window is 2 MiB).

    uv run python bench/link_latency.py                       # RTT 0, 25, 50, 100 ms
    uv run python bench/link_latency.py --rtt 100 --repeat 3 --ab OTHER/src

Each reader runs in a process of its own (in the proxy's, its work would delay the link too).
``--ab OTHER/src`` also measures another checkout's code, in the same rounds.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from ptyapp import ssh_key_home  # noqa: E402


class DelayProxy:
    """A TCP proxy on 127.0.0.1 that delivers each chunk ``one_way`` seconds after it arrived."""

    def __init__(self, target_port: int, one_way: float) -> None:
        self.target_port = target_port
        self.one_way = one_way
        self.server: asyncio.base_events.Server | None = None
        self.port = 0
        self.links: set[asyncio.Task] = set()

    async def start(self) -> int:
        self.server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        self.port = self.server.sockets[0].getsockname()[1]
        return self.port

    async def close(self) -> None:
        if self.server is not None:
            self.server.close()
        for task in self.links:
            task.cancel()
        await asyncio.gather(*self.links, return_exceptions=True)

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self.links.add(task)
        try:
            up_r, up_w = await asyncio.open_connection("127.0.0.1", self.target_port)
            await asyncio.gather(self._pipe(reader, up_w), self._pipe(up_r, writer), return_exceptions=True)
        except (OSError, asyncio.CancelledError):
            writer.close()
        finally:
            self.links.discard(task)

    async def _pipe(self, src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
        queue: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()

        async def deliver() -> None:
            while True:
                due, data = await queue.get()
                if not data:
                    break
                wait = due - time.monotonic()
                if wait > 0:
                    await asyncio.sleep(wait)
                dst.write(data)
                await dst.drain()
            dst.close()

        sender = asyncio.create_task(deliver())
        try:
            while data := await src.read(256 * 1024):
                queue.put_nowait((time.monotonic() + self.one_way, data))
            queue.put_nowait((0.0, b""))
            await sender
        except OSError:
            pass
        finally:
            if not sender.done():  # the proxy closes: the data still in flight is dropped
                sender.cancel()
                await asyncio.gather(sender, return_exceptions=True)


async def primetui_read(session: dict, key_path: Path, n: int) -> tuple[int, float]:
    """Bytes and seconds for ``seq 1 n`` read by primetui's shell reader (direct, through the proxy)."""
    from primetui.shell import open_session_connection, open_shell

    conn = await open_session_connection(session, key_path, direct=True)
    try:
        proc = await open_shell(conn, "xterm-256color", 120, 35, command=f"seq 1 {n}")
        t0 = time.perf_counter()
        total = 0
        while data := await proc.read():
            total += len(data)
        dt = time.perf_counter() - t0
        await proc.wait()
    finally:
        await conn.close()
    return total, dt


def openssh_read(user: str, port: int, key_path: Path, home: Path, n: int) -> tuple[int, float]:
    """Seconds for ``ssh -tt`` to run ``seq 1 n`` through the proxy, output to /dev/null (bytes: seq's)."""
    cmd = [
        "ssh",
        "-tt",
        "-F",
        "/dev/null",
        "-i",
        str(key_path),
        "-p",
        str(port),
        "-o",
        "StrictHostKeyChecking=no",
        "-o",
        "UserKnownHostsFile=/dev/null",
        "-o",
        "LogLevel=ERROR",
        "-o",
        "BatchMode=yes",
        "-o",
        "IdentitiesOnly=yes",
        f"{user}@127.0.0.1",
        f"seq 1 {n}",
    ]
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home)}
    # ssh's login (two round trips and more) is not in primetui's figure either: the clock starts
    # at the first byte of output
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    assert proc.stdout is not None
    first = proc.stdout.read(1)
    t0 = time.perf_counter()
    total = len(first)
    while chunk := proc.stdout.read1(1 << 20):
        total += len(chunk)
    dt = time.perf_counter() - t0
    proc.wait()
    return total, dt


async def pane_read(session: dict, key_path: Path, n: int) -> tuple[int, float]:
    """Bytes and seconds for ``seq 1 n`` drawn by the terminal pane (bench/terminal.py's harness)."""
    from terminal import through_pane

    from primetui.shell.term.transport import SessionTransport

    class SeqOverSSH(SessionTransport):
        async def start(self, cols: int, rows: int) -> None:
            await super().start(cols, rows)
            self.write(b"stty -echo; clear; seq 1 %d; exit\r" % n)

    total, dt, _frames, _cpu = await through_pane(lambda: SeqOverSSH(session, key_path, direct=True), str(n))
    return total, dt


async def child_read(src: str, how: str, session: dict, key_path: Path, n: int) -> tuple[int, float]:
    """``how`` (primetui_read or pane_read) with another checkout's code, in a subprocess."""
    code = (
        "import asyncio, json, sys; sys.path.insert(0, sys.argv[1]); sys.path.insert(1, sys.argv[2]);"
        "import link_latency;"
        "from pathlib import Path;"
        "how = getattr(link_latency, sys.argv[3]);"
        "print(json.dumps(asyncio.run(how(json.loads(sys.argv[4]), Path(sys.argv[5]), int(sys.argv[6])))))"
    )
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        code,
        src,
        str(HERE),
        how,
        json.dumps(session),
        str(key_path),
        str(n),
        stdout=subprocess.PIPE,
    )
    out, _ = await proc.communicate()
    total, dt = json.loads(out)
    return total, dt


async def run(rtts: list[float], n: int, repeat: int, other: str | None, pane: bool) -> None:
    from primetui.local.testing import LocalPlatform

    with tempfile.TemporaryDirectory() as tmp:
        home, key_path = ssh_key_home(Path(tmp))
        env = {"HOME": str(home), "PRIME_SSH_KEY_PATH": str(key_path)}
        with LocalPlatform.start(Path(tmp), demo=False, env=env) as lp:
            client = lp.client()
            try:
                await client.create_volume("bench", "10Gi", warm=False)
                s = await client.create_session("bench")
                deadline = time.monotonic() + 60
                while s.phase not in ("ready", "failed") and time.monotonic() < deadline:
                    await asyncio.sleep(0.05)
                    s = await client.get_session("bench", s.id)
                if s.phase != "ready":
                    raise SystemExit(f"the session did not get ready: {s.phase}")
                from primetui.shell.endpoint import endpoint_of

                ep = endpoint_of(s)
                user, port = ep.user, ep.port
                has_ssh = shutil.which("ssh") is not None
                load0 = os.getloadavg()
                rows = []
                for rtt in rtts:
                    proxy = DelayProxy(port, rtt / 2000)
                    pport = await proxy.start()
                    wire = s.model_dump(by_alias=True, mode="json")
                    wire["sshConnection"] = f"{user}@127.0.0.1 -p {pport}"
                    got: dict[str, list[float]] = {
                        "primetui": [],
                        "other": [],
                        "pane": [],
                        "other pane": [],
                        "openssh": [],
                    }
                    for _ in range(repeat):
                        # each reader in a process of its own: in this one, its work would delay
                        # the proxy's deliveries (the link) as well
                        for name, src in (("", str(HERE.parent / "src")), ("other", other)):
                            if src is None:
                                continue
                            total, dt = await child_read(src, "primetui_read", wire, key_path, n)
                            got[name or "primetui"].append(total / dt / 1e6)
                            if pane:
                                total, dt = await child_read(src, "pane_read", wire, key_path, n)
                                got[f"{name} pane".strip()].append(total / dt / 1e6)
                        if has_ssh:
                            total, dt = await asyncio.to_thread(openssh_read, user, pport, key_path, home, n)
                            got["openssh"].append(total / dt / 1e6)
                    await proxy.close()
                    rows.append((rtt, {k: v for k, v in got.items() if v}))
                    print(
                        f"RTT {rtt:5.0f} ms: "
                        + "; ".join(
                            f"{k} {statistics.median(v):.2f} MB/s ({', '.join(f'{x:.2f}' for x in v)})"
                            for k, v in got.items()
                            if v
                        ),
                        flush=True,
                    )
                await client.stop_session("bench", s.id)
            finally:
                await client.aclose()
    load1 = os.getloadavg()
    print(
        f"\n`seq 1 {n}` over SSH through a delay proxy, median MB/s of {repeat} run(s); "
        f"{os.cpu_count()} cores, load average {load0[0]:.2f} at the start, {load1[0]:.2f} at the end.\n"
    )
    names = [k for k in ("primetui", "other", "pane", "other pane", "openssh") if any(k in r for _, r in rows)]
    print("| RTT | " + " | ".join(names) + " |")
    print("|---:|" + "---:|" * len(names))
    for rtt, r in rows:
        print(
            f"| {rtt:.0f} ms | " + " | ".join(f"{statistics.median(r[k]):.2f}" if k in r else "-" for k in names) + " |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rtt", type=float, action="append", help="round-trip time in ms (repeatable)")
    parser.add_argument("--lines", type=int, default=1_000_000, help="seq 1 N (default 1,000,000: 6.9 MB)")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--ab", metavar="SRC", help="also measure another checkout's src/ in the same rounds")
    parser.add_argument("--no-pane", action="store_true", help="skip the rows drawn by the terminal pane")
    args = parser.parse_args()
    asyncio.run(run(args.rtt or [0, 25, 50, 100], args.lines, args.repeat, args.ab, not args.no_pane))


if __name__ == "__main__":
    main()
