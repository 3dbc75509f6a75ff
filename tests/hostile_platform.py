"""A hostile platform over real HTTP on 127.0.0.1: the real local platform behind a rewriting proxy.

Every JSON reply from the local platform is forwarded with every string field made hostile: run,
volume, model, env and file names, messages, log lines (each line), metric names (dict keys of
metric rows), session progress. Identifiers (``id``, ``*Id``), statuses, phases and timestamps keep
their value, so the dashboard can still parse and navigate. The hostile suffix ``HOSTILE`` is
removed again from every incoming path, query and body, so an action on a hostile volume name still
reaches the right volume. Creating a volume answers 409 with a hostile ``detail`` (a toast path).
"""

from __future__ import annotations

import asyncio
import json
import re
import socket
import threading
from typing import Any
from urllib.parse import quote, unquote

import httpx
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

HOSTILE = (
    "[bold red]markup[/]"
    "\x1b]0;pwned\x07 \x1b[2J"  # OSC 0 window title, then clear screen
    "\x1b]2;pwned2\x1b\\"  # OSC 2 with ST
    "\x1b]52;c;cHduZWQ=\x07"  # OSC 52 clipboard write
    "\x1b]8;;http://evil.invalid/\x1b\\link\x1b]8;;\x1b\\"  # OSC 8 hyperlink
    "\x9b31m\x9d0;c1\x9c"  # C1 CSI and C1 OSC
    "\x1bPdcs\x1b\\\x1b_apc\x1b\\"  # DCS, APC
    "\u202eevil\u202c\u2066iso\u2069"  # bidi override, isolate
    "\x07\x7f\x1b[31m"  # BEL, DEL, SGR
)
"""Appended to every outside string. Its visible form on screen starts ``[bold red]markup[/]␛]0;pwned␇``."""

_KEEP = re.compile(r"(^id$|Id$|_id$|^status$|^phase$|At$|_at$|^time$|^type$|^role$|^size$|^state$)")
_TIME = re.compile(r"^\d{4}-\d\d-\d\dT")
_METRIC_KEEP = {"step", "time"}


def hostile(value: Any, key: str = "") -> Any:
    """The reply with every outside string field made hostile (see the module docstring)."""
    if isinstance(value, dict):
        metric_row = "step" in value and all(isinstance(v, (int, float, type(None))) for v in value.values())
        out = {}
        for k, v in value.items():
            if metric_row and k not in _METRIC_KEEP:
                out[k + HOSTILE] = v
            else:
                out[k] = hostile(v, k)
        return out
    if isinstance(value, list):
        return [hostile(v, key) for v in value]
    if isinstance(value, str):
        if _KEEP.search(key) or _TIME.match(value) or value == "":
            return value
        if key == "logs":
            return "\n".join(line + HOSTILE for line in value.split("\n"))
        return value + HOSTILE
    return value


def strip_hostile(text: str) -> str:
    return text.replace(HOSTILE, "")


class HostileProxy:
    """``with HostileProxy(upstream) as proxy:`` serves on ``proxy.base_url`` (127.0.0.1, a free port)."""

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream.rstrip("/")
        self.requests: list[str] = []
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.base_url = f"http://127.0.0.1:{self.port}"
        app = Starlette(routes=[Route("/{path:path}", self.forward, methods=["GET", "POST", "PUT", "PATCH", "DELETE"])])
        self.server = uvicorn.Server(
            uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning", lifespan="off")
        )
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    async def forward(self, request: Request) -> Response:
        path = quote(strip_hostile(unquote(request.url.path)))
        query = [(strip_hostile(k), strip_hostile(v)) for k, v in request.query_params.multi_items()]
        body = await request.body()
        if body:
            body = strip_hostile(body.decode("utf-8", "replace")).encode()
            try:  # a JSON body carries the hostile suffix JSON-escaped
                body = json.dumps(_unhostile(json.loads(body))).encode()
            except ValueError:
                pass
        self.requests.append(f"{request.method} {path}")
        if request.method == "POST" and path.endswith("/training/volumes"):
            return Response(
                json.dumps({"detail": "volume quota reached" + HOSTILE}), status_code=409, media_type="application/json"
            )
        headers = {k: v for k, v in request.headers.items() if k.lower() in ("authorization", "content-type", "accept")}
        async with httpx.AsyncClient(timeout=30) as client:
            reply = await client.request(
                request.method, self.upstream + path, params=query, content=body, headers=headers
            )
        content = reply.content
        if "json" in reply.headers.get("content-type", "") and content:
            content = json.dumps(hostile(reply.json())).encode()
        return Response(content, status_code=reply.status_code, media_type=reply.headers.get("content-type"))

    def __enter__(self) -> HostileProxy:
        self.thread.start()
        for _ in range(200):
            if self.server.started:
                return self
            asyncio.run(asyncio.sleep(0.05))
        raise RuntimeError("the hostile proxy did not start")

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


def _unhostile(value: Any) -> Any:
    if isinstance(value, dict):
        return {strip_hostile(k): _unhostile(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_unhostile(v) for v in value]
    return strip_hostile(value) if isinstance(value, str) else value
