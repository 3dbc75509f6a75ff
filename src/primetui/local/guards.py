"""Bad input gets a 4xx, never a 500: the local platform's guards around every route.

- before any route, :class:`primetui.local.wall.RequestWall` checks the token, the body's size, and
  a JSON body's encoding, depth and numbers, and a query number SQLite cannot store (422);
- an ``OverflowError`` from deeper down -> 422;
- a 422 never echoes a long input back: each ``input`` is cut to :data:`ECHO_LIMIT` characters;
- an unexpected error still answers 500, but its body names no path on the server's disk and
  carries no exception text (the traceback goes to the server's own log).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from primetui.local.wall import RequestWall, unprocessable

log = logging.getLogger("primetui.local")

ECHO_LIMIT = 200
"""At most this many characters of a rejected input come back in a 422."""


def _cut(value: Any) -> Any:
    """``value`` as a 422 may echo it: JSON-safe (raw bytes decoded, no NaN or infinity) and short."""
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    if isinstance(value, str):
        return value if len(value) <= ECHO_LIMIT else value[:ECHO_LIMIT] + f"… ({len(value):,} characters)"
    try:
        text, as_is = json.dumps(value, allow_nan=False), True
    except (TypeError, ValueError):  # bytes or a non-finite float inside: echo it as text instead
        text, as_is = json.dumps(value, default=str), False
    if len(text) > ECHO_LIMIT:
        return text[:ECHO_LIMIT] + f"… ({len(text):,} characters)"
    return value if as_is else text


def install(app: FastAPI, *, api_prefix: str, authorized: Callable[[str | None], bool], unauthorized: str) -> None:
    """Put the request wall in front of every route and add the error handlers to ``app``.

    Call it after every other middleware is added, so that the wall is the outermost one.
    """
    app.add_middleware(RequestWall, api_prefix=api_prefix, authorized=authorized, unauthorized=unauthorized)

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
        return unprocessable(["query"], "A number in the request is too large to store; use a smaller one")

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error on %s %s", request.method, request.url.path)
        return JSONResponse(
            status_code=500,
            content={
                "detail": f"The local platform hit an internal error ({type(exc).__name__}); "
                "see the server's output for the traceback."
            },
        )
