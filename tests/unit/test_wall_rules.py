"""The request wall's rules, in process: the ASGI middleware in front of a route that echoes its body.

tests/local/test_request_wall.py proves the wall over real HTTP against the platform; these drive
``RequestWall`` directly so each rule (token, query integers, caps, JSON checks, connection
handling) is exact and a mutation of any of them fails here (docs/testing.md, "Mutation testing").
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from primetui.local import wall
from primetui.local.wall import MAX_INT_DIGITS, MAX_JSON_DEPTH, RequestWall, body_rule, json_too_deep

TOKEN = "Bearer secret-token"
API_CAP = body_rule("/api/v1/volumes").cap


class Reply:
    def __init__(self, messages: list[dict[str, Any]], reached: list[bytes]) -> None:
        start = messages[0]
        self.status = start["status"]
        self.headers = {k.lower(): v for k, v in start.get("headers", [])}
        self.body = b"".join(m.get("body", b"") for m in messages[1:])
        self.reached = reached  # the bodies the route read (empty: the route never ran)
        self.last_body_message = messages[-1]

    @property
    def detail(self) -> Any:
        return json.loads(self.body)["detail"]


async def call(
    path: str = "/api/v1/volumes",
    *,
    chunks: tuple[bytes, ...] = (b"",),
    headers: dict[str, str] | None = None,
    query: str = "",
    token: str | None = TOKEN,
    route_reads: bool = True,
    disconnect_early: bool = False,
) -> Reply:
    """One request through the wall to a route that reads its body (``route_reads``) and answers 200."""
    reached: list[bytes] = []

    async def route(scope: dict[str, Any], receive: Any, send: Any) -> None:
        body = b""
        if route_reads:
            while True:
                message = await receive()
                body += message.get("body", b"")
                if not message.get("more_body", False):
                    break
        reached.append(body)
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
        await send({"type": "http.response.body", "body": b"route", "more_body": False})

    raw_headers = [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]
    if token is not None:
        raw_headers.append((b"authorization", token.encode()))
    scope = {"type": "http", "path": path, "headers": raw_headers, "query_string": query.encode()}
    incoming = [
        {"type": "http.request", "body": chunk, "more_body": i < len(chunks) - 1} for i, chunk in enumerate(chunks)
    ]
    if disconnect_early:
        incoming = incoming[:1]
        incoming[0]["more_body"] = True
    incoming.append({"type": "http.disconnect"})

    async def receive() -> dict[str, Any]:
        return incoming.pop(0) if incoming else {"type": "http.disconnect"}

    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    middleware = RequestWall(route, api_prefix="/api/", authorized=lambda h: h == TOKEN, unauthorized="Bad token")
    await middleware(scope, receive, send)
    return Reply(sent, reached) if sent else Reply([{"status": None}], reached)


JSON = {"content-type": "application/json"}


async def test_a_good_request_reaches_the_route_with_its_body_whole() -> None:
    reply = await call(chunks=(b'{"name": ', b'"x"}'), headers=JSON)
    assert reply.status == 200 and reply.reached == [b'{"name": "x"}'] and reply.body == b"route"


async def test_a_missing_or_wrong_token_is_401_before_the_route() -> None:
    for token in (None, "Bearer wrong"):
        reply = await call(token=token)
        assert reply.status == 401 and reply.detail == "Bad token" and reply.reached == []
    outside = await call("/hub/models", token=None)  # outside the API prefix: no token asked
    assert outside.status == 200


@pytest.mark.parametrize(
    "value,refused",
    [("9223372036854775807", False), ("9223372036854775808", True), ("-9223372036854775808", True),
     (" 12 ", False), ("+1" + "0" * 19, True), ("0" * 30 + "5", False), ("1e99", False), ("abc", False)],
)  # fmt: skip
async def test_a_query_integer_beyond_64_bits_is_422_naming_the_parameter(value: str, refused: bool) -> None:
    reply = await call(query=f"limit={value}")
    if refused:
        assert reply.status == 422 and reply.reached == []
        assert reply.detail == [
            {"loc": ["query", "limit"], "msg": "Input is too large: use a number below 2**63", "type": "value_error"}
        ]
    else:
        assert reply.status == 200


async def test_the_token_comes_before_the_query_check() -> None:
    reply = await call(query="limit=" + "9" * 40, token=None)
    assert reply.status == 401


async def test_a_declared_length_over_the_cap_is_413_at_once_and_at_the_cap_goes_on() -> None:
    over = await call(headers={**JSON, "content-length": str(API_CAP + 1)}, chunks=(b"{}",))
    assert over.status == 413 and over.reached == [] and f"({API_CAP:,} bytes)" in over.detail
    assert b"connection" not in over.headers  # 64 KiB left unread: the server drains it, the connection stays
    at_cap = await call(headers={**JSON, "content-length": str(API_CAP)}, chunks=(b"{}",))
    assert at_cap.status == 200


async def test_a_streamed_json_body_past_the_cap_is_413_and_at_the_cap_reaches_the_route() -> None:
    body = b'"' + b"a" * (API_CAP - 2) + b'"'
    assert len(body) == API_CAP
    fits = await call(chunks=(body[:1000], body[1000:]), headers=JSON)
    assert fits.status == 200 and fits.reached == [body]
    over = await call(chunks=(body[:1000], body[1000:], b" "), headers=JSON)
    assert over.status == 413 and over.reached == []


async def test_a_streamed_body_that_is_not_json_past_the_cap_is_413_from_the_route_read() -> None:
    cap = body_rule("/upload").cap  # the Hub endpoint: not JSON without a content type
    over = await call("/upload", chunks=(b"x" * cap, b"y"))
    assert over.status == 413 and over.reached == []
    fits = await call("/upload", chunks=(b"x" * 10, b"y"))
    assert fits.status == 200 and fits.reached == [b"x" * 10 + b"y"]


@pytest.mark.parametrize(
    "body,msg",
    [
        (b"\xff{}", "The body is not UTF-8 (bad byte at offset 0); send JSON in UTF-8"),
        (b"[" * (MAX_JSON_DEPTH + 1) + b"]" * (MAX_JSON_DEPTH + 1), f"JSON nested deeper than {MAX_JSON_DEPTH} levels is not accepted"),
        (b'{"a": NaN}', "NaN is not a JSON number: send finite numbers only"),
        (b'{"a": -Infinity}', "-Infinity is not a JSON number: send finite numbers only"),
        (b'{"a": 1e999}', "1e999 is too large for a number: send finite numbers only"),
        (b'{"a": ' + b"1" * (MAX_INT_DIGITS + 1) + b"}", f"An integer of {MAX_INT_DIGITS + 1:,} digits is too long: send at most {MAX_INT_DIGITS:,} digits"),
        (b'{"a": -' + b"1" * (MAX_INT_DIGITS + 1) + b"}", f"An integer of {MAX_INT_DIGITS + 1:,} digits is too long: send at most {MAX_INT_DIGITS:,} digits"),
    ],
    ids=["not-utf8", "too-deep", "nan", "-inf", "1e999", "long-int", "long-negative-int"],
)  # fmt: skip
async def test_a_json_body_the_platform_cannot_hold_is_422_with_its_sentence(body: bytes, msg: str) -> None:
    reply = await call(chunks=(body,), headers=JSON)
    assert reply.status == 422 and reply.reached == []
    assert reply.detail == [{"loc": ["body"], "msg": msg, "type": "json_invalid"}]


@pytest.mark.parametrize(
    "body",
    [
        b"[" * MAX_JSON_DEPTH + b"]" * MAX_JSON_DEPTH,
        b'{"a": ' + b"1" * MAX_INT_DIGITS + b"}",
        b'{"a": 1.5e300, "b": -2}',
        b"{not json",
    ],
    ids=["at-depth", "longest-int", "finite", "malformed-left-to-the-route"],
)
async def test_json_within_the_limits_and_malformed_json_reach_the_route(body: bytes) -> None:
    reply = await call(chunks=(body,), headers=JSON)
    assert reply.status == 200 and reply.reached == [body]


async def test_a_body_without_a_content_type_is_json_under_the_api_and_not_on_the_hub() -> None:
    assert (await call(chunks=(b'{"a": NaN}',))).status == 422
    assert (await call(chunks=(b'{"a": NaN}',), headers={"content-type": " Application/JSON "})).status == 422
    assert (await call(chunks=(b'{"a": NaN}',), headers={"content-type": "text/plain"})).status == 200
    assert (await call("/upload", chunks=(b'{"a": NaN}',), token=None)).status == 200
    # storage bytes are never JSON, whatever their content type says
    assert (await call("/s3/vol/key", chunks=(b'{"a": NaN}',), headers=JSON, token=None)).status == 200


async def test_a_client_gone_before_its_json_body_ends_gets_no_reply() -> None:
    reply = await call(chunks=(b'{"a": ', b"1}"), headers=JSON, disconnect_early=True)
    assert reply.status is None and reply.reached == []


def test_depth_counts_brackets_outside_strings_only() -> None:
    deep = b"[" * 3 + b"]" * 3
    assert not json_too_deep(deep, limit=3) and json_too_deep(deep, limit=2)
    assert not json_too_deep(b'["[[[[", {"a": "{{{{"}]', limit=2)
    assert not json_too_deep(b'["\\"[[[["]', limit=1)
    assert not json_too_deep(b"[[]" + b"[]" * 10 + b"]", limit=2)  # many brackets, shallow
    assert json_too_deep(b"[[[]]]" + b"[]", limit=2)


async def test_a_refusal_before_the_body_closes_the_connection_unless_the_rest_is_small() -> None:
    # the route answers without reading a small declared body: the wall reads the rest and keeps the connection
    small = await call("/upload", chunks=(b"abc",), headers={"content-length": "3"}, route_reads=False)
    assert small.status == 200 and b"connection" not in small.headers
    # a chunked body nobody read: the reply closes the connection
    chunked = await call("/upload", chunks=(b"abc",), headers={"transfer-encoding": "chunked"}, route_reads=False)
    assert chunked.headers[b"connection"] == b"close"
    # a client waiting for 100 Continue that was never asked for its body: close, nothing to drain
    waiting = await call(
        "/upload", chunks=(b"abc",), headers={"content-length": "3", "expect": "100-continue"}, route_reads=False
    )
    assert waiting.headers[b"connection"] == b"close"
    big = str(wall.DRAIN_LIMIT + 1)
    over = await call("/upload", chunks=(b"abc",), headers={"content-length": big}, route_reads=False)
    assert over.headers[b"connection"] == b"close" and over.last_body_message["more_body"] is False


async def test_websockets_and_lifespan_pass_through() -> None:
    seen: list[str] = []

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        seen.append(scope["type"])

    middleware = RequestWall(app, api_prefix="/api/", authorized=lambda h: False, unauthorized="Bad token")
    await middleware({"type": "websocket", "path": "/api/x"}, None, None)  # type: ignore[arg-type]
    assert seen == ["websocket"]
