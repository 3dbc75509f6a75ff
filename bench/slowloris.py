"""Slowloris against the local platform: how fast a client with the token is answered meanwhile.

    uv run python bench/slowloris.py                       # 3,000 half-sent requests, held 20 s
    uv run python bench/slowloris.py --connections 20000   # the 20,000 case (needs ulimit -n above 20,256)

1. A real ``primetui local serve`` with the shipped limits (head timeout 10 s, 1,024 connections,
   256 per client) answers ``GET /api/v1/training/volumes`` with the token, 50 times in a row:
   the baseline.
2. Then an attacker thread keeps ``--connections`` connections to 127.0.0.1 open, each with a request
   head cut in its middle; every one the server closes is opened again at once. Meanwhile the same
   request with the token is sent every 100 ms for ``--hold`` seconds.
3. Reported: the token client's median, 99th percentile and worst answer time in both phases, how many
   of its requests failed, the connections the attacker opened in all, the server's open file
   descriptors at the end, and the size of its log.

The attacker's sockets are this process's own: its soft limit on open files is raised to the hard
limit first, and the count is cut to fit. Numbers go to stdout as Markdown rows for docs/performance.md.
"""

from __future__ import annotations

import argparse
import os
import resource
import selectors
import socket
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from primetui.local.testing import LocalPlatform  # noqa: E402

HALF_HEAD = b"GET /api/v1/training/volumes HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bear"


def raise_open_files(wanted: int) -> int:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


class Attacker(threading.Thread):
    """Keeps ``count`` half-sent requests open to ``address``: reopens each one the server closes."""

    def __init__(self, address: tuple[str, int], count: int) -> None:
        super().__init__(name="slowloris", daemon=True)
        self.address = address
        self.count = count
        self.opened = 0
        self.refused = 0
        self.stop = threading.Event()
        self.selector = selectors.DefaultSelector()

    def _open(self) -> None:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.settimeout(2.0)
        try:
            sock.connect(self.address)
            sock.sendall(HALF_HEAD)
        except OSError:
            self.refused += 1
            sock.close()
            return
        sock.setblocking(False)
        self.selector.register(sock, selectors.EVENT_READ)
        self.opened += 1

    def run(self) -> None:
        while not self.stop.is_set() and len(self.selector.get_map()) < self.count:
            self._open()
        while not self.stop.is_set():
            for key, _ in self.selector.select(timeout=0.1):
                sock = key.fileobj
                assert isinstance(sock, socket.socket)
                try:
                    data = sock.recv(65536)
                except BlockingIOError:
                    continue
                except OSError:
                    data = b""
                if not data:
                    self.selector.unregister(sock)
                    sock.close()
                    if not self.stop.is_set():
                        self._open()

    def close(self) -> None:
        self.stop.set()
        self.join(timeout=30)
        for key in list(self.selector.get_map().values()):
            key.fileobj.close()  # type: ignore[union-attr]
        self.selector.close()


def timed_requests(client: httpx.Client, seconds: float | None, count: int | None) -> tuple[list[float], int]:
    times: list[float] = []
    failed = 0
    end = time.monotonic() + (seconds or 0)
    while (count is not None and len(times) + failed < count) or (seconds is not None and time.monotonic() < end):
        t0 = time.perf_counter()
        try:
            ok = client.get("/training/volumes").status_code == 200
        except httpx.HTTPError:
            ok = False
        if ok:
            times.append(time.perf_counter() - t0)
        else:
            failed += 1
        if seconds is not None:
            time.sleep(0.1)
    return times, failed


def row(label: str, times: list[float], failed: int) -> str:
    if not times:
        return f"| {label} | - | - | - | {failed} |"
    ordered = sorted(times)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return (
        f"| {label} | {statistics.median(ordered) * 1000:.1f} ms | {p99 * 1000:.1f} ms | "
        f"{ordered[-1] * 1000:.1f} ms | {failed} of {len(times) + failed} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--connections", type=int, default=3000)
    parser.add_argument("--hold", type=float, default=20.0, help="seconds the attack is held while measuring")
    args = parser.parse_args()
    limit = raise_open_files(args.connections + 256)
    count = min(args.connections, limit - 256)
    if count < args.connections:
        print(f"note: ulimit -n allows {limit} files here; holding {count} connections", file=sys.stderr)
    with tempfile.TemporaryDirectory() as tmp, LocalPlatform.start(tmp) as lp:
        host, port = lp.base_url.removeprefix("http://").rsplit(":", 1)
        with httpx.Client(base_url=lp.api_url, headers=lp.headers, timeout=30.0) as client:
            base, base_failed = timed_requests(client, None, 50)
            attacker = Attacker((host, int(port)), count)
            attacker.start()
            try:
                loaded, loaded_failed = timed_requests(client, args.hold, None)
                server_fds = len(os.listdir(f"/proc/{lp.pid}/fd"))
            finally:
                attacker.close()
        log_bytes = sum(p.stat().st_size for p in Path(tmp).glob("server.log*"))
    print(
        f"slowloris: {count:,} half-sent requests held for {args.hold:g} s on {os.cpu_count()} cores, "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    print("| token client | median | p99 | worst | failed |")
    print("|---|---|---|---|---|")
    print(row("alone (50 requests)", base, base_failed))
    print(row(f"during {count:,} half-sent requests", loaded, loaded_failed))
    print(
        f"attacker connections opened in all: {attacker.opened:,} (refused at connect: {attacker.refused:,}); "
        f"server file descriptors at the end: {server_fds:,}; server log: {log_bytes:,} bytes"
    )


if __name__ == "__main__":
    main()
