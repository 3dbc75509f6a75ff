"""The local platform's wall: what every HTTP request meets before any route, in this order.

1. Under the API prefix, a missing or wrong token -> 401, before one byte of the body is read.
   ``/s3`` is outside it: the storage route checks each request's SigV4 signature from its headers,
   also before reading the body (``primetui.local.storage.s3``).
2. A query integer SQLite cannot store (beyond 64-bit) -> 422 naming the parameter.
3. A body longer than its route's cap (:data:`BODY_RULES`) -> 413: at once when ``Content-Length``
   says so, else as soon as the streamed bytes pass the cap, so memory never holds more than the cap.
4. A body that will be read as JSON (its content type is JSON, or, under the API, there is none,
   which FastAPI reads as JSON) is read whole (under its cap) and checked before a route parses it: not UTF-8,
   nested deeper than :data:`MAX_JSON_DEPTH`, or holding a number that is not finite (``NaN``,
   ``Infinity``, ``1e999``) or an integer of more than :data:`MAX_INT_DIGITS` digits -> 422.

Every refusal has a JSON body ``{"detail": ...}`` like the routes' own errors.

Connections: a reply sent before its request's body has been read whole (every refusal above, and a
route's, such as the storage route refusing a PUT on its signature or for want of room) carries
``Connection: close``, and the server closes the connection after it. The unread rest of the body
is never taken as the next request, and a client that waits for ``100 Continue`` before it sends a
body is never left holding a connection the server reads as mid-body.
"""

from __future__ import annotations

import asyncio
import json
import math
import re
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

from starlette.exceptions import HTTPException
from starlette.responses import JSONResponse

from primetui.local.storage.body import MAX_PART

SQLITE_MAX = 2**63 - 1
_INT = re.compile(r"\s*[+-]?\d+\s*")

MiB = 1024 * 1024


@dataclass(frozen=True)
class BodyRule:
    """How the wall treats request bodies on paths starting with ``prefix``."""

    prefix: str
    cap: int
    """The largest body accepted, in bytes."""
    bare_is_json: bool
    """A body sent without a content type is read as JSON here (FastAPI's body parameters do that)."""
    json: bool = True
    """False where a body is never JSON whatever its content type says (object bytes): streamed, never read whole."""


KiB = 1024
S3_CAP = MAX_PART + MAX_PART // 64
"""One S3 PUT or multipart part (5 GiB), plus room for aws-chunked framing (a signature per chunk of 8 KiB or more)."""
BODY_RULES: tuple[BodyRule, ...] = (
    # Direct storage: object bytes streamed to the volume's disk, capped again by the room left on it.
    BodyRule("/s3/", S3_CAP, False, json=False),
    BodyRule("/api/v1/training/runs", 1 * MiB, True),  # a run's whole config as JSON: a few KiB, room for long env args
    BodyRule("/api/v1/", 64 * KiB, True),  # volumes, sessions, transfers, stop/restart: a few fields each
    BodyRule("/", 16 * MiB, False),  # the Hub endpoint: with passthrough, an `hf upload` commit carries small files
)
"""The first rule whose prefix matches the path decides; a route that streams uploads gets its own."""

MAX_JSON_DEPTH = 64
"""Deepest nesting of arrays and objects accepted in a JSON body (a run's config needs under 10)."""

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Message = MutableMapping[str, Any]  # as starlette.types spells it, so a starlette Response takes our send
Send = Callable[[Message], Awaitable[None]]


def body_rule(path: str) -> BodyRule:
    """The rule for bodies sent to ``path``."""
    return next(rule for rule in BODY_RULES if path.startswith(rule.prefix))


class BodyTooLarge(HTTPException):
    """Raised by the wall's ``receive`` once a streamed body passes its cap.

    An ``HTTPException`` so that a route reading the body (FastAPI's body parsing re-raises these)
    answers 413 with the usual ``{"detail": ...}``, not a 400 or a 500.
    """

    def __init__(self, cap: int) -> None:
        super().__init__(413, f"The request body is larger than this route accepts ({cap:,} bytes); send less.")


def _refuse(status: int, detail: Any) -> JSONResponse:
    return JSONResponse(status_code=status, content={"detail": detail})


def unprocessable(loc: list[Any], msg: str, kind: str = "value_error") -> JSONResponse:
    return _refuse(422, [{"loc": loc, "msg": msg, "type": kind}])


MAX_INT_DIGITS = 4300
"""Longest integer accepted in a JSON body (Python's own limit for converting text to int)."""


class _BadNumber(ValueError):
    """A JSON number the platform refuses; ``str()`` is the sentence for the 422."""


def _reject_constant(name: str) -> Any:
    raise _BadNumber(f"{name} is not a JSON number: send finite numbers only")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _BadNumber(f"{text[:30]} is too large for a number: send finite numbers only")
    return value


def _bounded_int(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_INT_DIGITS:
        raise _BadNumber(f"An integer of {digits:,} digits is too long: send at most {MAX_INT_DIGITS:,} digits")
    return int(text)


_JSON_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKET = bytes(b for b in range(256) if b not in b"[]{}")


def json_too_deep(body: bytes, limit: int = MAX_JSON_DEPTH) -> bool:
    """True when arrays and objects in ``body`` nest deeper than ``limit`` (brackets inside strings do not count).

    Checked before parsing: Python's parser recurses once per level, so a deep enough body would
    raise RecursionError in it (or in what walks the result) instead of a clear refusal.
    """
    brackets = _JSON_STRING.sub(b"", body).translate(None, _NOT_BRACKET)
    if brackets.count(b"[") + brackets.count(b"{") <= limit:
        return False
    depth = 0
    for byte in brackets:
        depth += 1 if byte in (0x5B, 0x7B) else -1
        if depth > limit:
            return True
    return False


def _read_as_json(scope: Scope, rule: BodyRule) -> bool:
    """True when this request's body will be parsed as JSON: a JSON content type, or none where that means JSON."""
    if not rule.json:
        return False
    content_type = dict(scope.get("headers") or []).get(b"content-type", b"").strip().lower()
    return b"json" in content_type if content_type else rule.bare_is_json


def _too_big_for_sqlite(digits: str) -> bool:
    significant = digits.strip().lstrip("+-").lstrip("0")
    # Past 19 digits it is too big whatever they are; int() of thousands of digits would raise.
    return len(significant) > 19 or abs(int(digits)) > SQLITE_MAX


def _declared_length(scope: Scope) -> int | None:
    raw = dict(scope.get("headers") or []).get(b"content-length")
    try:
        return int(raw) if raw is not None else None
    except ValueError:
        return None


def _check_json(body: bytes) -> JSONResponse | None:
    """A 422 for a JSON body that is not UTF-8, too deep, or holds NaN/Infinity; None when it may go on."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        return unprocessable(
            ["body"], f"The body is not UTF-8 (bad byte at offset {exc.start}); send JSON in UTF-8", "json_invalid"
        )
    if json_too_deep(body):
        return unprocessable(
            ["body"], f"JSON nested deeper than {MAX_JSON_DEPTH} levels is not accepted", "json_invalid"
        )
    try:
        json.loads(text, parse_constant=_reject_constant, parse_float=_finite_float, parse_int=_bounded_int)
    except _BadNumber as exc:  # NaN, Infinity, 1e999, an integer of more than MAX_INT_DIGITS digits
        return unprocessable(["body"], str(exc), "json_invalid")
    except ValueError:
        return None  # malformed JSON: the route's parser answers 422 naming the position
    return None


class RequestWall:
    """ASGI middleware in front of every route: see the module's docstring."""

    def __init__(
        self, app: Any, *, api_prefix: str, authorized: Callable[[str | None], bool], unauthorized: str
    ) -> None:
        self.app = app
        self.api_prefix = api_prefix
        self.authorized = authorized
        self.unauthorized = unauthorized

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        reading = _BodyRead(scope, receive, send)
        receive, send = reading.receive, reading.send
        refusal = self._check_head(scope)
        if refusal is not None:
            await refusal(scope, receive, send)
            return
        rule = body_rule(scope.get("path", "/"))
        cap = rule.cap
        if (_declared_length(scope) or 0) > cap:
            await _refuse(413, BodyTooLarge(cap).detail)(scope, receive, send)
            return
        if _read_as_json(scope, rule):
            try:
                body = await _read_body(receive, cap)
            except BodyTooLarge as exc:
                await _refuse(413, exc.detail)(scope, receive, send)
                return
            if body is None:
                return  # the client went away before sending the whole body
            refusal = _check_json(body) if body else None
            if refusal is not None:
                await refusal(scope, receive, send)
                return
            await self.app(scope, _replay(body, receive), send)
            return
        started = False

        async def tracked(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, _capped(receive, cap), tracked)
        except BodyTooLarge as exc:
            if started:
                raise
            await _refuse(413, exc.detail)(scope, receive, send)

    def _check_head(self, scope: Scope) -> JSONResponse | None:
        if scope.get("path", "").startswith(self.api_prefix):
            header = dict(scope.get("headers") or []).get(b"authorization")
            if not self.authorized(header.decode("latin-1") if header is not None else None):
                return _refuse(401, self.unauthorized)
        query = scope.get("query_string", b"").decode("latin-1")
        for key, value in parse_qsl(query, keep_blank_values=True):
            if _INT.fullmatch(value) and _too_big_for_sqlite(value):
                return unprocessable(["query", key[:60]], "Input is too large: use a number below 2**63")
        return None


async def _read_body(receive: Receive, cap: int) -> bytes | None:
    """The whole body, refusing it past ``cap`` bytes; None when the client disconnected first."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > cap:
            raise BodyTooLarge(cap)
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


def _replay(body: bytes, receive: Receive) -> Receive:
    sent = False

    async def replay() -> dict[str, Any]:
        nonlocal sent
        if sent:
            return await receive()  # after the body: a disconnect, as the server reports it
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return replay


def _capped(receive: Receive, cap: int) -> Receive:
    size = 0

    async def capped() -> dict[str, Any]:
        nonlocal size
        message = await receive()
        size += len(message.get("body", b""))
        if size > cap:
            raise BodyTooLarge(cap)
        return message

    return capped


DRAIN_LIMIT = 16 * MiB
"""A refused request's unread body up to this size is read and thrown away, so its connection stays open."""
LINGER_SECONDS = 2.0
"""Beyond :data:`DRAIN_LIMIT`, the connection closes after the reply, reading the body this long (and at most
:data:`DRAIN_LIMIT` more) first, so that a client still sending sees the reply rather than a reset."""


class _BodyRead:
    """Keeps a connection in step when the reply starts before the request's body has been read whole.

    - The client still waits for ``100 Continue`` (nothing was read, so it was never sent): the reply
      closes the connection; the client sends no body and opens a new connection for its next request.
    - At most :data:`DRAIN_LIMIT` bytes are left: the reply keeps the connection, and the server reads
      the rest of the body and throws it away, so it is never taken as the next request.
    - More, or an unknown length (chunked): the reply closes the connection, after reading on for
      :data:`LINGER_SECONDS` (at most :data:`DRAIN_LIMIT` bytes) so the client gets to read the reply.
    """

    def __init__(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = dict(scope.get("headers") or [])
        self.declared = _declared_length(scope)
        self.chunked = b"transfer-encoding" in headers
        self.whole = not self.chunked and not self.declared
        self.waits_for_continue = headers.get(b"expect", b"").lower() == b"100-continue"
        self.asked = False  # the app asked for the body (the server then sent 100 Continue)
        self.read = 0
        self.linger = False
        self._receive, self._send = receive, send

    async def receive(self) -> dict[str, Any]:
        self.asked = True
        message = await self._receive()
        self.read += len(message.get("body", b""))
        if message["type"] != "http.request" or not message.get("more_body", False):
            self.whole = True  # the last of the body, or the client went away
        return message

    async def send(self, message: Message) -> None:
        if message["type"] == "http.response.start" and not self.whole:
            left = None if self.chunked or self.declared is None else self.declared - self.read
            if (self.waits_for_continue and not self.asked) or left is None or left > DRAIN_LIMIT:
                self.linger = not (self.waits_for_continue and not self.asked)
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"connection"]
                message = {**message, "headers": [*headers, (b"connection", b"close")]}
        if self.linger and message["type"] == "http.response.body" and not message.get("more_body", False):
            await self._send({**message, "more_body": True})
            await self._drain()
            message = {"type": "http.response.body", "body": b"", "more_body": False}
        await self._send(message)

    async def _drain(self) -> None:
        """Read and drop the body for up to LINGER_SECONDS and DRAIN_LIMIT bytes (the client reads the reply
        meanwhile)."""
        dropped = 0
        try:
            async with asyncio.timeout(LINGER_SECONDS):
                while not self.whole and dropped <= DRAIN_LIMIT:
                    message = await self._receive()
                    dropped += len(message.get("body", b""))
                    if message["type"] != "http.request" or not message.get("more_body", False):
                        self.whole = True
        except TimeoutError:
            pass
