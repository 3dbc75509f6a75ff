"""A loopback HTTP proxy that injects faults between a client and the local platform.

    with FaultProxy(upstream=lp.base_url, rate=0.5, seed=7) as proxy:
        client = PrimeClient(proxy.base_url, lp.token, timeout=httpx.Timeout(2.0, connect=1.0))

It listens on 127.0.0.1 (its own thread and event loop, so sync code, async tests and Textual apps can
all use it), speaks HTTP/1.1 with keep-alive to the client, and forwards each request to the upstream
on a fresh connection. With probability ``rate`` a request meets one fault of ``kinds`` instead:

- ``5xx``: 503 with a JSON detail;           ``html``: 502 with an HTML error page;
- ``429``: 429 with ``Retry-After``;          ``stall``: forwarded after ``stall_seconds``;
- ``timeout``: no answer for ``hang_seconds``, then the connection closes;
- ``reset``: the connection is reset (RST) without an answer;
- ``cut``: the real answer, its body cut in the middle (Content-Length promises more);
- ``malformed``: 200 with a JSON body that does not parse;  ``empty``: 200 with an empty body.

``drop_reused`` closes any connection at its second request without answering: the keep-alive race
(the server timed the idle connection out just as the client reused it).

Counters: ``requests`` (all), ``forwarded``, ``faults`` (per kind), ``times`` (monotonic arrival of
each request), so a test can bound the request rate.
"""

from __future__ import annotations

import asyncio
import random
import socket
import struct
import threading
import time
from collections import Counter
from urllib.parse import urlsplit

KINDS = ("5xx", "html", "429", "stall", "timeout", "reset", "cut", "malformed", "empty")

_HTML = (
    b"<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head>"
    b"<body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>"
)


class FaultProxy:
    """See the module docstring."""

    def __init__(
        self,
        upstream: str,
        *,
        rate: float = 0.0,
        kinds: tuple[str, ...] = KINDS,
        seed: int = 0,
        retry_after: int = 1,
        stall_seconds: float = 1.5,
        hang_seconds: float = 4.0,
        drop_reused: bool = False,
    ) -> None:
        parts = urlsplit(upstream)
        self.upstream = (parts.hostname or "127.0.0.1", parts.port or 80)
        self.rate = rate
        self.kinds = tuple(kinds)
        self.retry_after = retry_after
        self.stall_seconds = stall_seconds
        self.hang_seconds = hang_seconds
        self.drop_reused = drop_reused
        self.requests = 0
        self.forwarded = 0
        self.faults: Counter[str] = Counter()
        self.times: list[float] = []
        self.paths: Counter[str] = Counter()
        self._rng = random.Random(seed)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: asyncio.AbstractServer | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self.port = 0

    # --- lifecycle -----------------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> FaultProxy:
        self._thread = threading.Thread(target=self._run, name="fault-proxy", daemon=True)
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("the fault proxy did not start")
        return self

    def stop(self) -> None:
        loop = self._loop
        if loop is not None and loop.is_running():
            loop.call_soon_threadsafe(loop.stop)
        if self._thread is not None:
            self._thread.join(10)

    def __enter__(self) -> FaultProxy:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _run(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        asyncio.set_event_loop(loop)
        self._server = loop.run_until_complete(asyncio.start_server(self._client, "127.0.0.1", 0))
        self.port = self._server.sockets[0].getsockname()[1]
        self._ready.set()
        try:
            loop.run_forever()
        finally:
            self._server.close()
            tasks = asyncio.all_tasks(loop)
            for task in tasks:
                task.cancel()
            loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))
            loop.close()

    def requests_per_minute(self, since: float | None = None) -> float:
        """Mean request rate over the requests seen (after monotonic ``since``)."""
        times = [t for t in self.times if since is None or t >= since]
        if len(times) < 2:
            return float(len(times))
        span = max(times[-1] - times[0], 1e-9)
        return len(times) / span * 60.0

    # --- one client connection ------------------------------------------------------------------
    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        served = 0
        try:
            while True:
                request = await _read_request(reader)
                if request is None:
                    return
                head, body = request
                self.requests += 1
                self.times.append(time.monotonic())
                self.paths[_path_of(head)] += 1
                if self.drop_reused and served >= 1:
                    self.faults["drop"] += 1
                    return  # close without an answer, as a keep-alive timeout racing the request does
                served += 1
                kind = self._rng.choice(self.kinds) if self.kinds and self._rng.random() < self.rate else None
                if kind is None:
                    self.forwarded += 1
                    writer.write(await self._forward(head, body))
                    await writer.drain()
                    continue
                self.faults[kind] += 1
                if not await self._fault(kind, head, body, writer):
                    return
        except (ConnectionError, asyncio.IncompleteReadError, OSError, asyncio.CancelledError):
            return  # a cancelled handler (proxy shutdown) ends quietly
        finally:
            try:
                writer.close()
            except Exception:  # noqa: BLE001 - already gone
                pass

    async def _fault(self, kind: str, head: bytes, body: bytes, writer: asyncio.StreamWriter) -> bool:
        """Answer with fault ``kind``; False when the connection must close."""
        if kind == "5xx":
            writer.write(_response(503, b'{"detail":"Service Unavailable"}', "application/json"))
        elif kind == "html":
            writer.write(_response(502, _HTML, "text/html"))
        elif kind == "429":
            writer.write(
                _response(
                    429,
                    b'{"detail":"Too Many Requests"}',
                    "application/json",
                    extra=f"Retry-After: {self.retry_after}\r\n",
                )
            )
        elif kind == "stall":
            await asyncio.sleep(self.stall_seconds)
            self.forwarded += 1
            writer.write(await self._forward(head, body))
        elif kind == "timeout":
            await asyncio.sleep(self.hang_seconds)
            return False
        elif kind == "reset":
            sock = writer.get_extra_info("socket")
            if sock is not None:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            writer.transport.abort()
            return False
        elif kind == "cut":
            self.forwarded += 1
            real = await self._forward(head, body)
            split = real.find(b"\r\n\r\n") + 4
            payload = real[split:]
            writer.write(real[:split] + payload[: max(1, len(payload) // 2)])
            await writer.drain()
            return False
        elif kind == "malformed":
            writer.write(_response(200, b'{"logs": "12:00:00 INFO half a rep', "application/json"))
        elif kind == "empty":
            writer.write(_response(200, b"", "application/json"))
        await writer.drain()
        return True

    async def _forward(self, head: bytes, body: bytes) -> bytes:
        """The upstream's answer, re-framed for a keep-alive client (Content-Length, no chunks)."""
        up_reader, up_writer = await asyncio.open_connection(*self.upstream)
        try:
            lines = head.split(b"\r\n")
            kept = [ln for ln in lines[1:] if ln and not ln.lower().startswith(b"connection:")]
            up_writer.write(b"\r\n".join([lines[0], *kept, b"Connection: close", b"", b""]) + body)
            await up_writer.drain()
            raw = await up_reader.read(-1)
        finally:
            up_writer.close()
        split = raw.find(b"\r\n\r\n")
        status_line, *headers = raw[:split].split(b"\r\n")
        payload = raw[split + 4 :]
        out = [status_line]
        for header in headers:
            name = header.split(b":", 1)[0].strip().lower()
            if name in (b"connection", b"content-length", b"transfer-encoding", b"keep-alive"):
                continue
            out.append(header)
        if b"chunked" in raw[:split].lower():
            payload = _dechunk(payload)
        out += [b"Content-Length: " + str(len(payload)).encode(), b"Connection: keep-alive", b"", b""]
        return b"\r\n".join(out) + payload


async def _read_request(reader: asyncio.StreamReader) -> tuple[bytes, bytes] | None:
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
        return None
    length = 0
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":", 1)[1].strip() or 0)
    body = await reader.readexactly(length) if length else b""
    return head[:-4], body


def _path_of(head: bytes) -> str:
    parts = head.split(b"\r\n", 1)[0].split(b" ")
    return parts[1].decode("latin-1").split("?", 1)[0] if len(parts) > 1 else "?"


def _response(status: int, body: bytes, content_type: str, extra: str = "") -> bytes:
    reason = {200: "OK", 429: "Too Many Requests", 502: "Bad Gateway", 503: "Service Unavailable"}.get(status, "")
    return (
        f"HTTP/1.1 {status} {reason}\r\nContent-Type: {content_type}\r\nContent-Length: {len(body)}\r\n"
        f"{extra}Connection: keep-alive\r\n\r\n"
    ).encode() + body


def _dechunk(data: bytes) -> bytes:
    out, i = b"", 0
    while True:
        j = data.find(b"\r\n", i)
        if j < 0:
            return out
        size = int(data[i:j].split(b";")[0] or b"0", 16)
        if size == 0:
            return out
        out += data[j + 2 : j + 2 + size]
        i = j + 2 + size + 2
