"""A fake platform that sends any bytes at all over real HTTP/1.1 on 127.0.0.1.

``WirePlatform(reply_for)`` answers each request with ``reply_for(method, path, query)``, a
:class:`Reply`: any status, headers and body, a body cut short of its Content-Length, a gzip body
(a decompression bomb), or a body that trickles one byte at a time. Every route the client reads
has a valid baseline in :func:`baseline` (a run, its metrics, logs, checkpoints, env servers,
progress, usage; volumes, sessions, models, GPU types, teams, whoami) for tests to mutate.

Each trickle stops by itself after ``TRICKLE_LIMIT`` seconds, so the server never outlives a test.
"""

from __future__ import annotations

import asyncio
import gzip
import json
import threading
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

TRICKLE_LIMIT = 30.0
RUN_ID = "run0fuzz"
VOLUME = "research"
NOW = "2026-01-02T03:04:05Z"


@dataclass
class Reply:
    status: int = 200
    body: bytes = b"{}"
    headers: dict[str, str] = field(default_factory=lambda: {"Content-Type": "application/json"})
    content_length: int | None = None
    """The Content-Length sent (None: the body's length); larger than the body = a cut body."""
    trickle: float = 0.0
    """Seconds between single bytes of the body (0: all at once)."""

    @classmethod
    def json(cls, data: Any, status: int = 200) -> Reply:
        return cls(status, json.dumps(data, allow_nan=True).encode())

    @classmethod
    def raw_json(cls, text: str, status: int = 200) -> Reply:
        """JSON text as given (``1e999``, ``NaN``: what json.dumps would not write)."""
        return cls(status, text.encode())


def gzip_bomb(decoded_mib: int) -> bytes:
    """A gzip body that inflates to ``decoded_mib`` MiB of ``{"runs":[`` followed by spaces."""
    out = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    parts = [out.compress(b'{"runs": [')]
    block = b" " * (1024 * 1024)
    parts += [out.compress(block) for _ in range(decoded_mib)]
    parts.append(out.flush())
    return b"".join(parts)


def gzipped(reply: Reply) -> Reply:
    return Reply(reply.status, gzip.compress(reply.body), {**reply.headers, "Content-Encoding": "gzip"})


def baseline_run(run_id: str = RUN_ID, **extra: Any) -> dict[str, Any]:
    return {
        "id": run_id,
        "userId": "u1",
        "status": "COMPLETED",
        "createdAt": NOW,
        "updatedAt": NOW,
        "startedAt": NOW,
        "completedAt": NOW,
        "name": f"name-{run_id}",
        "baseModel": "Qwen/Qwen3-0.6B",
        "maxSteps": 10,
        "volumeName": VOLUME,
        "gpuCount": 1,
        "kind": "DEDICATED_FULL_FT",
        "runConfig": {"max_steps": 10, "model": {"name": "Qwen/Qwen3-0.6B"}},
        **extra,
    }


def baseline(method: str, path: str, query: dict[str, str]) -> Any:
    """A valid reply body (decoded JSON) for every route the client reads, or None (404)."""
    p = path.removeprefix("/api/v1")
    parts = [unquote(s) for s in p.strip("/").split("/")]
    if p == "/rft/runs":
        limit = int(query.get("limit", 20))
        return {
            "runs": [baseline_run(RUN_ID), baseline_run("run1fuzz")][:limit],
            "total": 2,
            "page": 1,
            "limit": limit,
            "total_pages": 1,
        }
    if parts[:2] == ["rft", "runs"] and len(parts) >= 3:
        run_id = parts[2]
        tail = parts[3] if len(parts) > 3 else ""
        if tail == "":
            return {"run": baseline_run(run_id)}
        if tail == "metrics":
            return {"metrics": [{"step": s, "time": 1.767e9 + s, "loss/mean": 2.0 - s / 10} for s in range(1, 11)]}
        if tail == "logs":
            return {
                "logs": "\n".join(f"2026-01-02 03:04:{s:02d} | INFO | step {s} loss {2 - s / 10}" for s in range(10))
            }
        if tail == "checkpoints":
            return {
                "checkpoints": [
                    {
                        "id": f"ck{s}",
                        "rftRunId": run_id,
                        "step": s,
                        "storageUrl": f"s3://b/{s}",
                        "status": "READY",
                        "createdAt": NOW,
                        "sizeBytes": 1024 * s,
                    }
                    for s in (5, 10)
                ]
            }
        if tail == "env-servers":
            return {"env_servers": []}
        if tail == "progress":
            return {"latestStep": 10, "stepsWithSamples": [], "stepsWithDistributions": []}
    if parts[:2] == ["billing", "runs"]:
        return {"run_id": parts[2]}
    if p == "/training/volumes":
        return {
            "volumes": [
                {
                    "name": VOLUME,
                    "status": "RUNNING",
                    "clusterId": "c1",
                    "pvcName": "pvc-1",
                    "size": "5Ti",
                    "createdAt": NOW,
                }
            ]
        }
    if parts[:2] == ["training", "volumes"] and parts[-1] == "sessions":
        return {"sessions": []}
    if p == "/training/available-fft-models":
        return {"models": []}
    if p == "/training/available-gpu-types":
        return {"gpuTypes": []}
    if p == "/user/teams":
        return {"data": [], "total_count": 0}
    if p == "/user/whoami":
        return {"data": {"id": "u1", "email": "a@b.c"}}
    return None


def default_reply(method: str, path: str, query: dict[str, str]) -> Reply:
    data = baseline(method, path, query)
    return Reply.json(data) if data is not None else Reply.json({"detail": "Not Found"}, 404)


class WirePlatform:
    """``with WirePlatform(reply_for) as wp:`` serves on ``wp.base_url``; ``wp.requests`` lists what came."""

    def __init__(self, reply_for: Callable[[str, str, dict[str, str]], Reply] = default_reply) -> None:
        self.reply_for = reply_for
        self.requests: list[str] = []
        self.loop = asyncio.new_event_loop()
        self.server: asyncio.AbstractServer | None = None
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.port = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                method, target, _ = lines[0].split(" ", 2)
                headers = {
                    k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:] if line)
                }
                if int(headers.get("content-length", 0) or 0):
                    await reader.readexactly(int(headers["content-length"]))
                url = urlsplit(target)
                self.requests.append(f"{method} {url.path}")
                try:
                    reply = self.reply_for(method, url.path, dict(parse_qsl(url.query)))
                except Exception as exc:  # noqa: BLE001 - a broken test case shows as a 599, not a hang
                    reply = Reply(599, repr(exc).encode())
                length = reply.content_length if reply.content_length is not None else len(reply.body)
                out = [f"HTTP/1.1 {reply.status} X", f"Content-Length: {length}"]
                out += [f"{k}: {v}" for k, v in reply.headers.items()]
                cut = length != len(reply.body) or reply.trickle
                if cut:
                    out.append("Connection: close")
                writer.write(("\r\n".join(out) + "\r\n\r\n").encode("latin-1"))
                if reply.trickle:
                    end = self.loop.time() + TRICKLE_LIMIT
                    for i in range(len(reply.body)):
                        if self.loop.time() > end:
                            break
                        writer.write(reply.body[i : i + 1])
                        await writer.drain()
                        await asyncio.sleep(reply.trickle)
                else:
                    writer.write(reply.body)
                    await writer.drain()
                if cut:
                    break
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.LimitOverrunError, ValueError):
            pass
        except asyncio.CancelledError:  # the server stops: end quietly (asyncio logs a cancelled handler)
            pass
        finally:
            writer.close()

    def __enter__(self) -> WirePlatform:
        self.thread.start()

        async def start() -> None:
            self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
            self.port = self.server.sockets[0].getsockname()[1]

        asyncio.run_coroutine_threadsafe(start(), self.loop).result(10)
        return self

    def __exit__(self, *exc: object) -> None:
        async def stop() -> None:
            assert self.server is not None
            self.server.close()
            for task in asyncio.all_tasks():
                if task is not asyncio.current_task():
                    task.cancel()

        asyncio.run_coroutine_threadsafe(stop(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
