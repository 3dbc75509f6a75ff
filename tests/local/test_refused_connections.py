"""A refused request leaves its connection clean: the reply closes it (``Connection: close``), so the
unread body is never read as the next request, and a keep-alive client's next request is answered."""

from __future__ import annotations

import socket
from urllib.parse import urlsplit

import boto3
import httpx
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

from primetui.api import sigv4
from primetui.local.testing import LocalPlatform
from primetui.local.wall import S3_CAP

pytestmark = pytest.mark.timeout(180)

MiB = 1024 * 1024
VOLUME = "clean-conn"


@pytest.fixture(scope="module")
def put_route(local_platform: LocalPlatform) -> dict:
    with httpx.Client(base_url=local_platform.api_url, headers=local_platform.headers, timeout=30) as api:
        made = api.post("/training/volumes", json={"name": VOLUME, "size": "1Mi", "warm": False})
        assert made.status_code == 200, made.text
        reply = api.post(f"/training/volumes/{VOLUME}/transfer", json={"mode": "put", "path": "data/"})
        assert reply.status_code == 200, reply.text
        return reply.json()


def _read_reply(sock: socket.socket) -> tuple[int, dict[str, str], bytes] | None:
    """One HTTP/1.1 reply (status, headers, body), or None when the server closed the connection first."""
    buf = b""
    while b"\r\n\r\n" not in buf:
        chunk = sock.recv(65536)
        if not chunk:
            return None
        buf += chunk
    head, _, body = buf.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    length = int(headers.get("content-length", "0"))
    while len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        body += chunk
    return int(lines[0].split()[1]), headers, body[:length]


def _signed_head(r: dict, key: str, length: int, secret: str | None = None) -> bytes:
    """A signed PUT's request line and headers that promise ``length`` bytes after ``100 Continue``."""
    base = urlsplit(r["endpoint"])
    path = f"{base.path}/{r['bucket']}/{key}"
    headers = sigv4.sign(
        "PUT",
        path,
        "",
        {"host": base.netloc, "content-length": str(length), "expect": "100-continue"},
        access_key=r["accessKeyId"],
        secret=secret or r["secretAccessKey"],
        session_token=r["sessionToken"],
    )
    return (f"PUT {path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers.items()) + "\r\n").encode()


def _refusals(lp: LocalPlatform, r: dict) -> dict[str, tuple[bytes, int]]:
    host = urlsplit(lp.base_url).netloc
    return {
        "too big for the wall": (
            f"PUT /s3/{r['bucket']}/{VOLUME}/data/x HTTP/1.1\r\nhost: {host}\r\n"
            f"content-length: {S3_CAP + 1}\r\nexpect: 100-continue\r\n\r\n".encode(),
            413,
        ),
        "too big for the API": (
            f"POST /api/v1/training/volumes HTTP/1.1\r\nhost: {host}\r\n"
            f"authorization: Bearer {lp.token}\r\ncontent-type: application/json\r\n"
            f"content-length: {MiB}\r\nexpect: 100-continue\r\n\r\n".encode(),
            413,
        ),
        "no token": (
            f"POST /api/v1/training/volumes HTTP/1.1\r\nhost: {host}\r\ncontent-type: application/json\r\n"
            "content-length: 20\r\nexpect: 100-continue\r\n\r\n".encode(),
            401,
        ),
        # A client that sends its body at once, without waiting: the server reads the rest and keeps the connection.
        "no token, body sent": (
            f"POST /api/v1/training/volumes HTTP/1.1\r\nhost: {host}\r\n"
            "content-type: application/json\r\ncontent-length: 20\r\n\r\n".encode()
            + b'{"name": "nope-xx"} ',
            401,
        ),
        "out of scope": (_signed_head(r, f"{VOLUME}/elsewhere/x.bin", 10), 403),
        "bad signature": (_signed_head(r, f"{VOLUME}/data/x.bin", 10, secret="not-the-secret"), 403),
        "full volume": (_signed_head(r, f"{VOLUME}/data/x.bin", 2 * MiB), 400),
    }


@pytest.mark.parametrize(
    "kind",
    [
        "too big for the wall",
        "too big for the API",
        "no token",
        "no token, body sent",
        "out of scope",
        "bad signature",
        "full volume",
    ],
)
def test_a_refused_request_leaves_its_connection_clean(
    local_platform: LocalPlatform, put_route: dict, kind: str
) -> None:
    head, status = _refusals(local_platform, put_route)[kind]
    url = urlsplit(local_platform.base_url)
    with socket.create_connection((url.hostname, url.port), timeout=10) as sock:
        sock.sendall(head)  # a body behind Expect waits for a 100 Continue that never comes: the reply is the refusal
        refused = _read_reply(sock)
        assert refused is not None and refused[0] == status, refused
        if refused[1].get("connection", "").lower() == "close":
            assert sock.recv(1) == b"", "the reply said Connection: close and the server kept the connection"
            return
        # Kept alive: then the next request on it must be read as a request, not as the refused one's body.
        sock.sendall(
            f"GET /api/v1/training/volumes HTTP/1.1\r\nhost: {url.netloc}\r\n"
            f"authorization: Bearer {local_platform.token}\r\n\r\n".encode()
        )
        following = _read_reply(sock)
        assert following is not None and following[0] == 200, following


def test_a_keep_alive_s3_client_goes_on_after_refusals(local_platform: LocalPlatform, put_route: dict) -> None:
    r = put_route
    s3 = boto3.client(
        "s3",
        endpoint_url=r["endpoint"],
        region_name="auto",
        aws_access_key_id=r["accessKeyId"],
        aws_secret_access_key=r["secretAccessKey"],
        aws_session_token=r["sessionToken"],
        config=Config(
            signature_version="s3v4",
            retries={"max_attempts": 1},
            max_pool_connections=1,
            connect_timeout=10,
            read_timeout=10,
        ),
    )
    for attempt in range(3):  # boto3 sends Expect: 100-continue and holds the body back when refused
        with pytest.raises(ClientError) as full:
            s3.put_object(Bucket=r["bucket"], Key=f"{VOLUME}/data/big-{attempt}.bin", Body=b"x" * (2 * MiB))
        assert full.value.response["Error"]["Code"] == "EntityTooLarge"
        listed = s3.list_objects_v2(Bucket=r["bucket"], Prefix=f"{VOLUME}/data/")
        assert listed["KeyCount"] == 0


def test_a_keep_alive_http_client_that_sends_its_body_gets_the_refusal_and_goes_on(
    local_platform: LocalPlatform, put_route: dict
) -> None:
    r = put_route
    base = urlsplit(r["endpoint"])
    path = f"{base.path}/{r['bucket']}/{VOLUME}/elsewhere/x.bin"
    headers = sigv4.sign(
        "PUT",
        path,
        "",
        {"host": base.netloc},
        access_key=r["accessKeyId"],
        secret=r["secretAccessKey"],
        session_token=r["sessionToken"],
    )
    with httpx.Client(timeout=10) as client:
        for _ in range(3):
            refused = client.put(f"{base.scheme}://{base.netloc}{path}", headers=headers, content=b"y" * (2 * MiB))
            assert refused.status_code == 403 and b"<Code>AccessDenied</Code>" in refused.content
            after = client.get(f"{local_platform.api_url}/training/volumes", headers=local_platform.headers)
            assert after.status_code == 200 and VOLUME in after.text
