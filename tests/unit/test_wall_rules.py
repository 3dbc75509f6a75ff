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
        assert scope["path"] == path  # the request's own scope reaches the route
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


TOO_DEEP = f"JSON nested deeper than {MAX_JSON_DEPTH} levels is not accepted"
TOO_LONG = f"An integer of {MAX_INT_DIGITS + 1:,} digits is too long: send at most {MAX_INT_DIGITS:,} digits"


@pytest.mark.parametrize(
    "body,msg",
    [
        (b"\xff{}", "The body is not UTF-8 (bad byte at offset 0); send JSON in UTF-8"),
        (b"[" * (MAX_JSON_DEPTH + 1) + b"]" * (MAX_JSON_DEPTH + 1), TOO_DEEP),
        (b'{"a": NaN}', "NaN is not a JSON number: send finite numbers only"),
        (b'{"a": -Infinity}', "-Infinity is not a JSON number: send finite numbers only"),
        (b'{"a": 1e999}', "1e999 is too large for a number: send finite numbers only"),
        (b'{"a": ' + b"1" * (MAX_INT_DIGITS + 1) + b"}", TOO_LONG),
        (b'{"a": -' + b"1" * (MAX_INT_DIGITS + 1) + b"}", TOO_LONG),
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


# ---- the body as the route and the connection see it ------------------------------------------------


async def drive(
    path: str, headers: dict[str, str], incoming: list[dict[str, Any]], route: Any
) -> tuple[list[dict[str, Any]], int]:
    """Run one request through the wall to ``route``; (messages sent, how many times the body was read)."""
    reads = 0

    async def receive() -> dict[str, Any]:
        nonlocal reads
        reads += 1
        return incoming.pop(0) if incoming else {"type": "http.disconnect"}

    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    raw = [(k.encode(), v.encode()) for k, v in headers.items()] + [(b"authorization", TOKEN.encode())]
    scope = {"type": "http", "path": path, "headers": raw, "query_string": b""}
    middleware = RequestWall(route, api_prefix="/api/", authorized=lambda h: h == TOKEN, unauthorized="Bad token")
    await middleware(scope, receive, send)
    return sent, reads


def answering(reads: int, seen: list[dict[str, Any]] | None = None) -> Any:
    """A route that reads ``reads`` body messages (recording them in ``seen``), then answers 200."""

    async def route(scope: dict[str, Any], receive: Any, send: Any) -> None:
        for _ in range(reads):
            message = await receive()
            if seen is not None:
                seen.append(message)
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok", "more_body": False})

    return route


def part(body: bytes, more: bool = True) -> dict[str, Any]:
    return {"type": "http.request", "body": body, "more_body": more}


def closes(sent: list[dict[str, Any]]) -> bool:
    assert all("headers" not in m for m in sent[1:]), "only the reply's start carries headers"
    return (b"connection", b"close") in sent[0].get("headers", [])


async def test_the_route_gets_a_json_body_replayed_once_then_what_the_client_sends_next() -> None:
    seen: list[dict[str, Any]] = []
    incoming = [part(b'{"a": '), part(b"1}", more=False), {"type": "http.disconnect"}]
    sent, _ = await drive("/api/v1/volumes", dict(JSON), incoming, answering(2, seen))
    assert seen == [{"type": "http.request", "body": b'{"a": 1}', "more_body": False}, {"type": "http.disconnect"}]
    assert sent[0]["status"] == 200 and not closes(sent)


async def test_a_message_without_body_or_more_body_keys_ends_the_body() -> None:
    seen: list[dict[str, Any]] = []
    sent, _ = await drive(
        "/api/v1/volumes", dict(JSON), [part(b'{"a": 1}'), {"type": "http.request"}], answering(1, seen)
    )
    assert seen[0]["body"] == b'{"a": 1}' and sent[0]["status"] == 200


async def test_a_streamed_body_exactly_at_the_cap_reaches_the_route() -> None:
    cap = body_rule("/upload").cap
    seen: list[dict[str, Any]] = []
    sent, _ = await drive("/upload", {}, [part(b"x" * (cap - 1)), part(b"y", more=False)], answering(2, seen))
    assert sent[0]["status"] == 200 and [len(m["body"]) for m in seen] == [cap - 1, 1]


def test_a_body_past_the_cap_is_an_http_413_for_the_routes_own_parsing() -> None:
    error = wall.BodyTooLarge(10)
    assert (
        error.status_code == 413
        and error.detail == "The request body is larger than this route accepts (10 bytes); send less."
    )


async def test_a_body_read_whole_keeps_the_connection_even_when_chunked() -> None:
    incoming = [part(b"ab"), part(b"c", more=False)]
    sent, _ = await drive("/upload", {"transfer-encoding": "chunked"}, incoming, answering(2))
    assert not closes(sent)
    gone = [part(b"ab"), {"type": "http.disconnect"}]  # the client went away: nothing left to read
    sent, _ = await drive("/upload", {"transfer-encoding": "chunked"}, gone, answering(2))
    assert not closes(sent)


async def test_what_is_left_unread_decides_whether_the_connection_stays() -> None:
    limit = wall.DRAIN_LIMIT
    incoming = [part(b"x" * 10), part(b"y" * 10), part(b"z" * 10)]
    kept, _ = await drive("/s3/vol/key", {"content-length": str(limit + 15)}, list(incoming), answering(2))
    assert not closes(kept)  # limit - 5 left: the server drains it
    closed, _ = await drive("/s3/vol/key", {"content-length": str(limit + 25)}, list(incoming), answering(2))
    assert closes(closed)  # limit + 5 left
    both, _ = await drive("/upload", {"content-length": "30", "transfer-encoding": "chunked"}, incoming, answering(1))
    assert closes(both)  # chunked: the length said is not what is left


async def test_a_client_waiting_for_100_continue_keeps_its_connection_once_the_route_asked() -> None:
    headers = {"content-length": "3", "expect": "100-continue"}
    sent, _ = await drive("/upload", headers, [part(b"a"), part(b"bc", more=False)], answering(1))
    assert not closes(sent)


async def test_a_closed_connection_lingers_reading_up_to_the_drain_limit(monkeypatch) -> None:
    monkeypatch.setattr(wall, "DRAIN_LIMIT", 10)
    incoming = [part(b"12345") for _ in range(6)] + [part(b"", more=False)]
    sent, reads = await drive("/upload", {"transfer-encoding": "chunked"}, incoming, answering(0))
    assert closes(sent) and sent[1] == {"type": "http.response.body", "body": b"ok", "more_body": True}
    assert sent[-1] == {"type": "http.response.body", "body": b"", "more_body": False} and len(sent) == 3
    assert reads == 3  # 5, 10, 15 bytes dropped: past the limit, it stops


async def test_lingering_stops_at_the_end_of_the_body(monkeypatch) -> None:
    incoming = [part(b"a"), part(b"b"), part(b"c", more=False)]
    sent, reads = await drive("/upload", {"transfer-encoding": "chunked"}, incoming, answering(0))
    assert closes(sent) and reads == 3
    ended = [part(b"a"), {"type": "http.disconnect"}]
    sent, reads = await drive("/upload", {"transfer-encoding": "chunked"}, ended, answering(0))
    assert reads == 2


async def test_lingering_gives_up_after_its_seconds(monkeypatch) -> None:
    import asyncio

    monkeypatch.setattr(wall, "LINGER_SECONDS", 0.05)
    never = asyncio.Event()

    async def receive() -> dict[str, Any]:
        await never.wait()  # a client that sends nothing more
        return {"type": "http.disconnect"}

    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {"type": "http", "path": "/upload", "headers": [(b"transfer-encoding", b"chunked")], "query_string": b""}
    middleware = RequestWall(answering(0), api_prefix="/api/", authorized=lambda h: True, unauthorized="")
    await asyncio.wait_for(middleware(scope, receive, send), timeout=10)  # a bound on a hang
    assert sent[-1] == {"type": "http.response.body", "body": b"", "more_body": False}


async def test_numbers_at_the_edges_of_the_wall() -> None:
    huge = "1" + "0" * 400 + ".5"
    reply = await call(chunks=(b'{"a": ' + huge.encode() + b"}",), headers=JSON)
    assert reply.detail[0]["msg"] == f"{huge[:30]} is too large for a number: send finite numbers only"
    assert (await call(query="limit=+1234567890123456789")).status == 200  # 19 digits after the sign
    assert (await call(query="limit=-0000000000000000000001")).status == 200
    assert json_too_deep(b"[1,[2,[3]]]", limit=2)  # other bytes between the brackets do not count
    assert json_too_deep(b'{"a":{"b":{}}}', limit=2) and not json_too_deep(b'{"a":{"b":{}}}', limit=3)
    assert json_too_deep(b"[[]][[[]]]", limit=2)


async def test_the_routes_headers_stay_and_only_its_connection_header_is_replaced() -> None:
    async def route(scope: dict[str, Any], receive: Any, send: Any) -> None:
        assert scope["path"] == "/upload"
        headers = [(b"content-type", b"text/plain"), (b"Connection", b"keep-alive")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": b"o", "more_body": True})
        await send({"type": "http.response.body", "body": b"k"})

    sent, _ = await drive("/upload", {"transfer-encoding": "chunked"}, [part(b"a", more=False)], route)
    assert sent[0]["headers"] == [(b"content-type", b"text/plain"), (b"connection", b"close")]
    # lingering holds the reply's last message open, reads the rest, then ends the reply
    assert [(m.get("body"), m.get("more_body")) for m in sent[1:]] == [(b"o", True), (b"k", True), (b"", False)]


async def test_a_request_without_a_body_changes_nothing_in_the_reply() -> None:
    sent, reads = await drive("/upload", {}, [], answering(0))
    assert sent == [
        {"type": "http.response.start", "status": 200, "headers": []},
        {"type": "http.response.body", "body": b"ok", "more_body": False},
    ]
    assert reads == 0


async def test_exactly_the_drain_limit_left_keeps_the_connection() -> None:
    incoming = [part(b"x" * 10), part(b"y" * 10)]
    sent, _ = await drive("/s3/vol/key", {"content-length": str(wall.DRAIN_LIMIT + 20)}, incoming, answering(2))
    assert not closes(sent)


async def test_a_client_never_asked_for_its_body_is_not_lingered_for() -> None:
    headers = {"content-length": "3", "expect": "100-continue"}
    sent, reads = await drive("/upload", headers, [part(b"abc", more=False)], answering(0))
    assert closes(sent) and reads == 0 and len(sent) == 2


async def test_a_body_past_the_cap_after_the_reply_started_is_raised_not_answered_twice() -> None:
    cap = body_rule("/upload").cap

    async def route(scope: dict[str, Any], receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        while (await receive()).get("more_body"):
            pass

    with pytest.raises(wall.BodyTooLarge):
        await drive("/upload", {}, [part(b"x" * cap), part(b"y", more=False)], route)
    sent, _ = await drive("/upload", {}, [part(b"x" * cap), part(b"y", more=False)], answering(2))
    assert sent[0]["status"] == 413
    assert (
        json.loads(sent[1]["body"])["detail"]
        == f"The request body is larger than this route accepts ({cap:,} bytes); send less."
    )
    json_cap = API_CAP
    sent, _ = await drive("/api/v1/volumes", dict(JSON), [part(b" " * json_cap), part(b"1", more=False)], answering(1))
    assert (
        json.loads(sent[1]["body"])["detail"]
        == f"The request body is larger than this route accepts ({json_cap:,} bytes); send less."
    )


async def test_a_long_parameter_name_is_cut_in_the_refusal() -> None:
    key = "k" * 70
    reply = await call(query=f"{key}=" + "9" * 30)
    assert reply.detail[0]["loc"] == ["query", "k" * 60]


async def test_other_traffic_passes_with_its_own_receive_and_send() -> None:
    async def receive() -> dict[str, Any]:
        return {"type": "websocket.connect"}

    async def send(message: dict[str, Any]) -> None:
        pass

    async def app(scope: dict[str, Any], r: Any, s: Any) -> None:
        assert r is receive and s is send

    await RequestWall(app, api_prefix="/api/", authorized=lambda h: False, unauthorized="")(
        {"type": "lifespan"}, receive, send
    )


async def test_messages_may_leave_out_their_optional_keys() -> None:
    """ASGI lets ``more_body`` (default False) and a reply's ``headers`` (default none) be left out."""

    async def bare(scope: dict[str, Any], receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200})
        await send({"type": "http.response.body", "body": b"ok"})

    sent, _ = await drive("/upload", {"transfer-encoding": "chunked"}, [{"type": "http.request", "body": b"a"}], bare)
    assert sent[0]["headers"] == [(b"connection", b"close")]
    read_whole = [{"type": "http.request", "body": b"abc"}]
    sent, _ = await drive("/upload", {"transfer-encoding": "chunked"}, read_whole, answering(1))
    assert not closes(sent)  # the one message was the whole body
    drained = [part(b"a"), {"type": "http.request", "body": b"b"}, part(b"c", more=False)]
    sent, reads = await drive("/upload", {"transfer-encoding": "chunked"}, drained, answering(0))
    assert reads == 2  # lingering stops at the message that ends the body
