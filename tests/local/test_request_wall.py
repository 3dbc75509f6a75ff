"""The local platform's request wall: token before body, capped bodies, deep JSON, and no 500 for any body.

Bodies are sent over a raw socket where the point is what the server does before the body has
arrived (a client library would insist on sending it all first).
"""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from primetui.api._httpx import shared_ssl_context
from primetui.local.testing import LocalPlatform
from primetui.local.wall import MAX_JSON_DEPTH, MiB, body_rule, json_too_deep

pytestmark = pytest.mark.timeout(180)

BODY_ROUTES = [
    ("POST", "/training/runs"),
    ("POST", "/training/runs/prepare"),
    ("POST", "/training/runs/{id}/pause"),
    ("POST", "/training/runs/{id}/resume"),
    ("PUT", "/rft/runs/{id}/stop"),
    ("PUT", "/rft/runs/{id}/restart"),
    ("POST", "/training/volumes"),
    ("PATCH", "/training/volumes/research"),
    ("POST", "/training/volumes/research/transfer"),
    ("POST", "/training/volumes/research/sessions"),
    ("DELETE", "/training/runs/{id}"),
]
HUB_POST = "/api/datasets/nobody/nothing/paths-info/main"  # public, like the Hub: no token


def _rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def _raw(lp: LocalPlatform, head: str, body: bytes = b"", timeout: float = 20.0) -> tuple[int, dict]:
    """Send ``head`` (request line and headers) and ``body`` as they are; return the reply's status and JSON."""
    url = urlsplit(lp.base_url)
    with socket.create_connection((url.hostname, url.port), timeout=timeout) as sock:
        sock.sendall(head.replace("\n", "\r\n").encode() + b"\r\n" + body)
        reply = b""
        while b"\r\n\r\n" not in reply or len(reply.split(b"\r\n\r\n", 1)[1]) < _length(reply):
            chunk = sock.recv(65536)
            if not chunk:
                break
            reply += chunk
    status = int(reply.split(b" ", 2)[1])
    return status, json.loads(reply.split(b"\r\n\r\n", 1)[1] or b"null")


def _length(reply: bytes) -> int:
    for line in reply.split(b"\r\n\r\n", 1)[0].split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return int(value)
    return 0


def _deep(levels: int) -> bytes:
    return b'{"config": ' + b"[" * levels + b"]" * levels + b', "mode": "sft"}'


@pytest.fixture(scope="module")
def lp(tmp_path_factory) -> Iterator[LocalPlatform]:
    with LocalPlatform.start(tmp_path_factory.mktemp("wall"), demo=True) as platform:
        yield platform


@pytest.fixture
def api(lp: LocalPlatform) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=lp.api_url, headers=lp.headers, timeout=60, verify=shared_ssl_context()) as c:
        yield c


def test_the_token_is_checked_before_the_body_is_read(lp: LocalPlatform) -> None:
    """A request announcing 300 MB without a token is refused before any of it is sent."""
    status, reply = _raw(
        lp,
        "POST /api/v1/training/volumes HTTP/1.1\nHost: x\nContent-Type: application/json\nContent-Length: 300000000\n",
        b'{"name": ',
        timeout=10,
    )
    assert status == 401 and "Bearer" in reply["detail"]


def test_a_streamed_body_without_a_token_does_not_grow_the_server(lp: LocalPlatform) -> None:
    url = urlsplit(lp.base_url)
    before = _rss_kib(lp.pid)
    sent = 0
    with socket.create_connection((url.hostname, url.port), timeout=30) as sock:
        sock.sendall(
            b"POST /api/v1/training/runs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: 300000000\r\n\r\n"
        )
        chunk = b"[" * MiB
        try:
            while sent < 64 * MiB:
                sock.sendall(chunk)
                sent += len(chunk)
        except OSError:
            pass  # the server may close once it has answered
        sock.settimeout(10)
        head = sock.recv(4096)
    grown_mib = (_rss_kib(lp.pid) - before) / 1024
    assert head.startswith(b"HTTP/1.1 401"), head[:100]
    assert grown_mib < 24, f"the server grew by {grown_mib:.0f} MiB reading a body it then refused"


@pytest.mark.parametrize(
    "path,declared",
    [
        ("/api/v1/training/runs", 1 * MiB + 1),
        ("/api/v1/training/volumes", 64 * 1024 + 1),
        ("/api/v1/training/volumes/research/sessions", 64 * 1024 + 1),
        (HUB_POST, 16 * MiB + 1),
    ],
)
def test_a_declared_length_over_the_cap_is_413_at_once(lp: LocalPlatform, path: str, declared: int) -> None:
    auth = f"Authorization: Bearer {lp.token}\n"
    status, reply = _raw(
        lp,
        f"POST {path} HTTP/1.1\nHost: x\n{auth}Content-Type: application/json\nContent-Length: {declared}\n",
        b"{",
        timeout=10,
    )
    assert status == 413 and f"{body_rule(path).cap:,} bytes" in reply["detail"], reply


@pytest.mark.parametrize("content_type", ["application/json", "application/octet-stream", None])
def test_a_streamed_body_over_the_cap_is_413_and_memory_stays_bounded(
    lp: LocalPlatform, api: httpx.Client, content_type: str | None
) -> None:
    before = _rss_kib(lp.pid)

    def chunks() -> Iterator[bytes]:  # no Content-Length: chunked, so only counting can stop it
        for _ in range(40):
            yield b" " * MiB

    headers = {"content-type": content_type} if content_type else {}
    reply = api.post("/training/runs", content=chunks(), headers=headers)
    assert reply.status_code == 413, reply.text
    assert "1,048,576 bytes" in reply.json()["detail"]
    grown_mib = (_rss_kib(lp.pid) - before) / 1024
    assert grown_mib < 24, f"the server grew by {grown_mib:.0f} MiB on a body over a 1 MiB cap"


@pytest.mark.parametrize("path,cap", [("/training/runs", MiB), ("/training/volumes", 64 * 1024)])
def test_a_body_just_under_the_cap_still_reaches_the_route(api: httpx.Client, path: str, cap: int) -> None:
    body = json.dumps({"mode": "sft", "pad": " " * (cap - 100)})  # no config, no name: the route refuses it
    assert len(body) <= cap
    reply = api.post(path, content=body, headers={"content-type": "application/json"})
    assert reply.status_code == 422 and "larger than" not in reply.text, reply.text[:300]


@pytest.mark.parametrize("levels", [MAX_JSON_DEPTH + 1, 5000, 30_000])  # 30,000 deep still fits under 64 KiB
def test_deep_json_is_422_with_a_token(api: httpx.Client, levels: int) -> None:
    for method, path in (
        ("POST", "/training/runs"),
        ("POST", "/training/volumes"),
        ("POST", "/training/volumes/research/sessions"),
        ("POST", "/training/runs/prepare"),
    ):
        reply = api.request(method, path, content=_deep(levels), headers={"content-type": "application/json"})
        assert reply.status_code == 422, (path, reply.text[:300])
        assert f"deeper than {MAX_JSON_DEPTH}" in reply.json()["detail"][0]["msg"]


def test_deep_json_without_a_token_is_401_on_the_api_and_422_on_the_public_hub(lp: LocalPlatform) -> None:
    with httpx.Client(base_url=lp.base_url, timeout=60) as bare:
        for headers in ({"content-type": "application/json"}, {}):
            assert bare.post("/api/v1/training/runs", content=_deep(100_000), headers=headers).status_code == 401
        reply = bare.post(HUB_POST, content=_deep(100_000), headers={"content-type": "application/json"})
        assert reply.status_code == 422, reply.text[:300]
        # Outside the API a body without a content type is not JSON (an upload's bytes): not parsed, no 500.
        assert bare.post(HUB_POST, content=_deep(100_000) + b"\xff").status_code < 500


def test_json_nested_to_the_limit_is_still_accepted(api: httpx.Client) -> None:
    nested: object = "leaf"
    for _ in range(MAX_JSON_DEPTH - 1):
        nested = [nested]
    reply = api.post("/training/volumes", json={"name": "deep-ok", "size": "1Gi", "warm": False, "x": nested})
    assert reply.status_code in (200, 422), reply.text
    if reply.status_code == 422:
        assert "deeper" not in reply.text


def test_depth_counts_brackets_outside_strings_only() -> None:
    assert not json_too_deep(b'{"a": "' + b"[" * 500 + b'"}', 10)
    assert not json_too_deep(b'["\\"[[[[[[[[[[[[", 1]', 3)
    assert json_too_deep(b"[" * 4 + b"]" * 4, 3) and not json_too_deep(b"[" * 3 + b"]" * 3, 3)
    assert not json_too_deep(b"[]" * 10_000, 3)  # many siblings are not depth


@pytest.mark.parametrize(
    "body",
    [
        b'{"name": "inf-vol", "size": "1Gi", "warm": 1e999}',
        b'{"name": "inf-vol", "size": "1Gi", "x": -1e400}',
        b'{"name": "inf-vol", "size": "1Gi", "x": ' + b"7" * 5000 + b"}",
    ],
)
def test_numbers_json_cannot_hold_get_422(api: httpx.Client, lp: LocalPlatform, body: bytes) -> None:
    reply = api.post("/training/volumes", content=body, headers={"content-type": "application/json"})
    assert reply.status_code == 422, reply.text
    msg = reply.json()["detail"][0]["msg"]
    assert "finite numbers only" in msg or "An integer of 5,000 digits is too long" in msg, msg
    assert not (lp.data_dir / "volumes" / "inf-vol").exists()


def test_the_token_comes_before_the_query_check_and_a_query_of_5000_digits_is_422(
    lp: LocalPlatform, api: httpx.Client
) -> None:
    huge = "9" * 5000  # int() of it raises ValueError: this was a 500, with or without a token
    with httpx.Client(base_url=lp.api_url, timeout=30) as bare:
        assert bare.get("/rft/runs", params={"page": huge}).status_code == 401
    reply = api.get("/rft/runs", params={"page": huge})
    assert reply.status_code == 422 and reply.json()["detail"][0]["loc"] == ["query", "page"], reply.text[:300]
    assert api.get("/rft/runs", params={"page": "0" * 30 + "1"}).status_code == 200  # leading zeros are not size


HOSTILE_BODIES = [
    ("truncated", b'{"name": "v", "size": "1G', "application/json"),
    ("invalid UTF-8", b'{"name": "\xff\xfe\xc3(", "size": "1Gi"}', "application/json"),
    ("invalid UTF-8, no content type", b'{"name": "\xc3\x28"}', None),
    ("UTF-16", '{"name": "v"}'.encode("utf-16"), "application/json"),
    ("NUL bytes", b'{"name": "v\x00", "size": "1Gi"\x00}', "application/json"),
    ("JSON sent as text", b'{"name": "as-text", "size": "1Gi"}', "text/plain"),
    ("JSON sent as a form", b'{"name": "as-form", "size": "1Gi"}', "application/x-www-form-urlencoded"),
    ("multipart without a boundary", b"--x\r\n\r\n", "multipart/form-data"),
    ("XML", b"<volume><name>v</name></volume>", "application/xml"),
    ("a bare number too big for a float", b"1e999999", "application/json"),
    ("huge numbers in fields", b'{"name": "v", "size": 1e999, "config": {"max_steps": 1e400}}', "application/json"),
    ("a huge integer", b'{"max_steps": ' + b"9" * 5000 + b"}", "application/json"),
    ("a long string under the cap", b'{"name": "' + b"x" * 900_000 + b'"}', "application/json"),
    ("an array at the top", b"[1, 2, 3]", "application/json"),
    ("null", b"null", "application/json"),
    ("whitespace only", b"   \n ", "application/json"),
    ("deep objects", b'{"a":' * 3000 + b"1" + b"}" * 3000, "application/json"),
    ("deep, cut off", b"[" * 3000, None),
    ("a JSON content type with junk parameters", b'{"name": "v"}', "application/json; charset=latin-1; x=\x7f"),
]


@pytest.mark.parametrize("method,path", BODY_ROUTES)
@pytest.mark.parametrize("label,body,content_type", HOSTILE_BODIES, ids=[b[0] for b in HOSTILE_BODIES])
def test_no_body_gets_a_500(
    lp: LocalPlatform, api: httpx.Client, method: str, path: str, label: str, body: bytes, content_type: str | None
) -> None:
    headers = {"content-type": content_type} if content_type else {}
    reply = api.request(method, path.replace("{id}", "no-such-run"), content=body, headers=headers)
    assert reply.status_code < 500, f"{label}: {reply.status_code} {reply.text[:300]}"
    if reply.status_code >= 400:
        assert isinstance(reply.json().get("detail"), (str, list)), reply.text[:300]
    assert "Traceback" not in lp.output()


def test_a_body_cut_short_by_the_client_leaves_the_server_answering(lp: LocalPlatform, api: httpx.Client) -> None:
    url = urlsplit(lp.base_url)
    for content_type in ("application/json", "application/octet-stream"):
        with socket.create_connection((url.hostname, url.port), timeout=10) as sock:
            sock.sendall(
                f"POST /api/v1/training/volumes HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {lp.token}\r\n"
                f'Content-Type: {content_type}\r\nContent-Length: 1000\r\n\r\n{{"name": '.encode()
            )
        assert api.get("/training/volumes").status_code == 200
    assert "Traceback" not in lp.output()
