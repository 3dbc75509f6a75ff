"""Bad input gets a 4xx, never a 500: the local platform's guards around every route.

- a JSON body holding ``NaN``/``Infinity`` (not JSON, though Python reads it) -> 422;
- a query number that SQLite cannot store (beyond 64-bit: ``?page=10**21``, ``min_step``,
  ``pod_index``) -> 422 naming the parameter; an ``OverflowError`` from deeper down -> 422 too;
- a 422 never echoes a long input back: each ``input`` is cut to :data:`ECHO_LIMIT` characters;
- an unexpected error still answers 500, but its body names no path on the server's disk and
  carries no exception text (the traceback goes to the server's own log).
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import parse_qsl

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

log = logging.getLogger("primetui.local")

ECHO_LIMIT = 200
"""At most this many characters of a rejected input come back in a 422."""

SQLITE_MAX = 2**63 - 1
_INT = re.compile(r"\s*[+-]?\d+\s*")

Send = Callable[[dict[str, Any]], Awaitable[None]]


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _cut(value: Any) -> Any:
    if isinstance(value, str):
        return value if len(value) <= ECHO_LIMIT else value[:ECHO_LIMIT] + f"… ({len(value):,} characters)"
    if isinstance(value, (dict, list)):
        text = json.dumps(value, default=str)
        return value if len(text) <= ECHO_LIMIT else text[:ECHO_LIMIT] + f"… ({len(text):,} characters)"
    return value


def _unprocessable(loc: list[Any], msg: str, kind: str = "value_error") -> JSONResponse:
    return JSONResponse(status_code=422, content={"detail": [{"loc": loc, "msg": msg, "type": kind}]})


class InputGuard:
    """ASGI middleware: refuses NaN/Infinity bodies and out-of-range query integers before any route."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Callable[[], Awaitable[dict[str, Any]]], send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        query = scope.get("query_string", b"").decode("latin-1")
        for key, value in parse_qsl(query, keep_blank_values=True):
            if _INT.fullmatch(value) and abs(int(value)) > SQLITE_MAX:
                await _unprocessable(["query", key[:60]], "Input is too large: use a number below 2**63")(scope, receive, send)
                return
        content_type = dict(scope.get("headers") or []).get(b"content-type", b"")
        # Storage uploads (/s3) are object bytes whatever their type: streamed to disk, never buffered here.
        if scope.get("method") in ("POST", "PUT", "PATCH") and b"json" in content_type \
                and not str(scope.get("path", "")).startswith("/s3/"):
            chunks: list[bytes] = []
            more = True
            while more:
                message = await receive()
                chunks.append(message.get("body", b""))
                more = message.get("more_body", False)
            body = b"".join(chunks)
            if body:
                try:
                    json.loads(body, parse_constant=_reject_constant)
                except ValueError as exc:
                    if "not a JSON number" in str(exc):
                        await _unprocessable(["body"], f"{str(exc)[:60]}: send finite numbers only", "json_invalid")(scope, receive, send)
                        return
            sent = False

            async def replay() -> dict[str, Any]:
                nonlocal sent
                if sent:
                    return await receive()
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}

            await self.app(scope, replay, send)
            return
        await self.app(scope, receive, send)


def install(app: FastAPI) -> None:
    """Add the middleware and the error handlers to ``app``."""
    app.add_middleware(InputGuard)

    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, exc: RequestValidationError) -> JSONResponse:
        items = []
        for err in exc.errors():
            item = {k: v for k, v in err.items() if k in ("loc", "msg", "type")}
            item["msg"] = _cut(str(item.get("msg", "")))
            if "input" in err:
                item["input"] = _cut(err["input"])
            items.append(item)
        return JSONResponse(status_code=422, content={"detail": items})

    @app.exception_handler(OverflowError)
    async def _overflow(request: Request, exc: OverflowError) -> JSONResponse:
        return _unprocessable(["query"], "A number in the request is too large to store; use a smaller one")

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error on %s %s", request.method, request.url.path)
        return JSONResponse(
            status_code=500,
            content={"detail": f"The local platform hit an internal error ({type(exc).__name__}); "
                               "see the server's output for the traceback."},
        )
