"""The request wall in front of /s3 (direct storage): no bearer token there, but SigV4 before the
body is read; bodies up to one S3 part, streamed and never read as JSON."""

from __future__ import annotations

import os
import socket
from urllib.parse import urlsplit

import boto3
import httpx
import pytest
from botocore.config import Config

from primetui.local.storage.body import MAX_PART
from primetui.local.storage.s3 import BUCKET
from primetui.local.testing import LocalPlatform
from primetui.local.wall import S3_CAP, MiB, body_rule

pytestmark = pytest.mark.timeout(180)


def _route(lp: LocalPlatform, mode: str, path: str) -> dict:
    reply = httpx.post(
        f"{lp.api_url}/training/volumes/research/transfer",
        headers=lp.headers,
        json={"mode": mode, "path": path},
        timeout=30,
    )
    assert reply.status_code == 200, reply.text
    return reply.json()


def _release(lp: LocalPlatform, route: dict) -> None:
    assert (
        httpx.post(
            f"{lp.api_url}/training/volumes/research/transfer/release",
            headers=lp.headers,
            json={"leaseId": route["leaseId"]},
            timeout=30,
        ).status_code
        == 204
    )


def _head_only(lp: LocalPlatform, head: str) -> tuple[int, bytes]:
    """Send only the request line and headers (the body is promised, never sent); the whole reply."""
    url = urlsplit(lp.base_url)
    with socket.create_connection((url.hostname, url.port), timeout=20) as sock:
        sock.sendall(head.replace("\n", "\r\n").encode() + b"\r\n")
        reply = b""
        while True:
            chunk = sock.recv(65536)  # the server answers and closes without waiting for the body
            if not chunk:
                break
            reply += chunk
    return int(reply.split(b" ", 2)[1]), reply.split(b"\r\n\r\n", 1)[1]


def test_the_s3_rule_fits_one_part_and_never_reads_json() -> None:
    rule = body_rule(f"/s3/{BUCKET}/research/datasets/x.json")
    assert rule.prefix == "/s3/" and rule.cap == S3_CAP and MAX_PART < S3_CAP < MAX_PART * 1.02
    assert not rule.json


def test_an_s3_put_over_16_mib_goes_through(local_platform: LocalPlatform) -> None:
    route = _route(local_platform, "put", "datasets/wall/")
    s3 = boto3.client(
        "s3",
        endpoint_url=route["endpoint"],
        region_name="auto",
        aws_access_key_id=route["accessKeyId"],
        aws_secret_access_key=route["secretAccessKey"],
        aws_session_token=route["sessionToken"],
        config=Config(signature_version="s3v4", retries={"max_attempts": 1}),
    )
    blob = os.urandom(17 * MiB)  # not UTF-8: a JSON check of this body would refuse it
    try:
        s3.put_object(
            Bucket=route["bucket"], Key="research/datasets/wall/big.json", Body=blob, ContentType="application/json"
        )
    finally:
        _release(local_platform, route)
    on_disk = local_platform.data_dir / "volumes" / "research" / "datasets" / "wall" / "big.json"
    assert on_disk.read_bytes() == blob


@pytest.mark.parametrize(
    "authorization",
    [
        "",  # unsigned
        "Authorization: AWS4-HMAC-SHA256 Credential=NOPE/20260101/auto/s3/aws4_request, "
        "SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-security-token, Signature=" + "0" * 64 + "\n",
        "Authorization: Bearer {token}\n",  # the platform's token means nothing here
    ],
)
def test_an_unsigned_s3_put_is_refused_before_its_body(local_platform: LocalPlatform, authorization: str) -> None:
    host = urlsplit(local_platform.base_url).netloc
    status, body = _head_only(
        local_platform,
        (
            f"PUT /s3/{BUCKET}/research/datasets/x.json HTTP/1.1\nHost: {host}\n"
            f"Content-Type: application/json\nContent-Length: {64 * MiB}\nx-amz-content-sha256: UNSIGNED-PAYLOAD\n"
            f"x-amz-date: 20260101T000000Z\nx-amz-security-token: t\n"
            + authorization.format(token=local_platform.token)
            + "Connection: close\n"
        ),
    )
    assert status in (400, 403) and b"<Error><Code>" in body
    assert not (local_platform.data_dir / "volumes" / "research" / "datasets" / "x.json").exists()


def test_a_body_over_the_s3_cap_is_refused_at_once(local_platform: LocalPlatform) -> None:
    host = urlsplit(local_platform.base_url).netloc
    status, body = _head_only(
        local_platform,
        (
            f"PUT /s3/{BUCKET}/research/datasets/x HTTP/1.1\nHost: {host}\nContent-Length: {S3_CAP + 1}\n"
            "Connection: close\n"
        ),
    )
    assert status == 413 and b"larger than this route accepts" in body
    assert httpx.get(f"{local_platform.base_url}/s3/", timeout=10).status_code in (400, 403)  # still serving
