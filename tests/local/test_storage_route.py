"""V9/V10 and the S3 endpoint they hand out: SigV4, scope, leases, the single-writer rule, multipart,
ranges and paging, driven with boto3 (what prime 0.18.0 uses)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import boto3
import httpx
import pytest
from boto3.s3.transfer import TransferConfig
from botocore.config import Config
from botocore.exceptions import ClientError

from primetui.local.paths import resolve_volume_path
from primetui.local.storage.grants import PUT_SECONDS, Grants
from primetui.local.teams import LOCAL_TEAM_ID
from primetui.local.testing import LocalPlatform


def route(api: httpx.Client, mode: str, path: str = "", volume: str = "research", **extra) -> dict:
    reply = api.post(f"/training/volumes/{volume}/transfer", json={"mode": mode, "path": path, **extra})
    assert reply.status_code == 200, reply.text
    return reply.json()


def s3_for(r: dict, secret: str | None = None):  # type: ignore[no-untyped-def]
    return boto3.client(
        "s3",
        endpoint_url=r["endpoint"],
        region_name="auto",
        aws_access_key_id=r["accessKeyId"],
        aws_secret_access_key=secret or r["secretAccessKey"],
        aws_session_token=r["sessionToken"],
        config=Config(signature_version="s3v4", retries={"max_attempts": 1}),
    )


def release(api: httpx.Client, r: dict, volume: str = "research") -> None:
    assert api.post(f"/training/volumes/{volume}/transfer/release", json={"leaseId": r["leaseId"]}).status_code == 204


def code(exc: pytest.ExceptionInfo) -> str:
    return exc.value.response["Error"]["Code"]


def test_route_shape_and_a_wrong_signature(local_platform: LocalPlatform, api: httpx.Client) -> None:
    r = route(api, "get")
    assert r["via"] == "r2" and r["endpoint"].startswith("http://127.0.0.1:") and r["prefix"] == "research/"
    assert r["expiresAt"].endswith("Z") and "leaseId" not in r
    with pytest.raises(ClientError) as bad:
        s3_for(r, secret="not-the-secret").list_objects_v2(Bucket=r["bucket"], Prefix="research/")
    assert code(bad) == "SignatureDoesNotMatch"
    unsigned = httpx.get(f"{r['endpoint']}/{r['bucket']}?list-type=2")
    assert unsigned.status_code == 403 and b"AccessDenied" in unsigned.content


def test_reads_stay_in_their_volume_and_writes_need_a_put(local_platform: LocalPlatform, api: httpx.Client) -> None:
    r = route(api, "get")
    s3 = s3_for(r)
    assert api.post("/training/volumes", json={"name": "other-vol", "size": "1Gi", "warm": False}).status_code == 200
    with pytest.raises(ClientError) as other:
        s3.list_objects_v2(Bucket=r["bucket"], Prefix="other-vol/")
    assert code(other) == "AccessDenied"
    with pytest.raises(ClientError) as write:
        s3.put_object(Bucket=r["bucket"], Key="research/datasets/x.txt", Body=b"x")
    assert code(write) == "AccessDenied"
    narrow = s3_for(route(api, "get", "datasets/reverse-text/"))
    with pytest.raises(ClientError) as beside:
        narrow.list_objects_v2(Bucket=r["bucket"], Prefix="research/datasets/")
    assert code(beside) == "AccessDenied"
    assert narrow.list_objects_v2(Bucket=r["bucket"], Prefix="research/datasets/reverse-text/")["KeyCount"] > 0


def test_runs_is_read_only_and_a_team_volume_is_not_found(local_platform: LocalPlatform, api: httpx.Client) -> None:
    refused = api.post("/training/volumes/research/transfer", json={"mode": "put", "path": "runs/x/"})
    assert (
        refused.status_code == 400
        and refused.json()["detail"] == "runs/ holds run outputs and is read-only; put elsewhere."
    )
    root = api.post("/training/volumes/research/transfer", json={"mode": "put", "path": "", "entries": ["runs"]})
    assert root.status_code == 400
    team = api.post("/training/volumes/research/transfer", json={"mode": "get", "path": "", "teamId": LOCAL_TEAM_ID})
    assert team.status_code == 404 and "Volume 'research' not found" in team.json()["detail"]


def test_one_writer_a_lease_blocks_a_second_put_and_a_read_write_session(
    local_platform: LocalPlatform, api: httpx.Client
) -> None:
    first = route(api, "put", "datasets/lease/")
    assert first["leaseId"].startswith("lease_")
    second = api.post("/training/volumes/research/transfer", json={"mode": "put", "path": "datasets/other/"})
    assert second.status_code == 409 and "upload in progress" in second.json()["detail"]
    session = api.post("/training/volumes/research/sessions", json={"readOnly": False})
    assert session.status_code == 409 and "upload in progress" in session.json()["detail"]
    refreshed = route(api, "put", "datasets/lease/", leaseId=first["leaseId"])
    assert refreshed["leaseId"] == first["leaseId"] and refreshed["accessKeyId"] != first["accessKeyId"]
    release(api, first)
    release(api, first)  # idempotent
    with pytest.raises(ClientError) as after:
        s3_for(refreshed).put_object(Bucket=first["bucket"], Key="research/datasets/lease/x", Body=b"x")
    assert code(after) == "AccessDenied"
    rw = api.post("/training/volumes/research/sessions", json={"readOnly": False})
    assert rw.status_code == 200, rw.text
    try:
        during = route(api, "put", "datasets/lease/")
        assert during["via"] == "session" and during["session"]["id"] == rw.json()["id"]
        assert route(api, "get")["via"] == "r2"  # reads go direct: the volume as of the last sync
    finally:
        assert api.delete(f"/training/volumes/research/sessions/{rw.json()['id']}").status_code == 204


def test_multipart_ranges_and_paging(local_platform: LocalPlatform, api: httpx.Client, tmp_path: Path) -> None:
    r = route(api, "put", "datasets/big/")
    s3 = s3_for(r)
    blob = tmp_path / "blob.bin"
    blob.write_bytes(hashlib.sha256(b"seed").digest() * (11 * 1024 * 1024 // 32))
    config = TransferConfig(multipart_threshold=5 * 1024 * 1024, multipart_chunksize=5 * 1024 * 1024)
    s3.upload_file(
        str(blob),
        r["bucket"],
        "research/datasets/big/blob.bin",
        Config=config,
        ExtraArgs={"Metadata": {"md5chksum": "c3VtCg==", "mtime": "1700000000.25"}},
    )
    for name in ("a.txt", "b.txt", "c.txt"):
        s3.put_object(Bucket=r["bucket"], Key=f"research/datasets/big/{name}", Body=name.encode())
    release(api, r)
    on_disk = local_platform.data_dir / "volumes" / "research" / "datasets" / "big" / "blob.bin"
    assert on_disk.read_bytes() == blob.read_bytes() and on_disk.stat().st_mtime == 1700000000.25

    reads = s3_for(route(api, "get"))
    head = reads.head_object(Bucket=r["bucket"], Key="research/datasets/big/blob.bin")
    assert head["ETag"].endswith('-3"') and head["Metadata"] == {"md5chksum": "c3VtCg==", "mtime": "1700000000.25"}
    part = reads.get_object(Bucket=r["bucket"], Key="research/datasets/big/blob.bin", Range="bytes=100-199")
    assert part["ContentRange"] == f"bytes 100-199/{blob.stat().st_size}"
    assert part["Body"].read() == blob.read_bytes()[100:200]
    keys = [
        o["Key"]
        for page in reads.get_paginator("list_objects_v2").paginate(
            Bucket=r["bucket"], Prefix="research/datasets/big/", PaginationConfig={"PageSize": 1}
        )
        for o in page["Contents"]
    ]
    assert keys == [f"research/datasets/big/{n}" for n in ("a.txt", "b.txt", "blob.bin", "c.txt")]


def test_put_credentials_and_leases_expire(tmp_path: Path) -> None:
    grants = Grants()
    grant = grants.issue("vol", "put", "datasets", None, now=1000.0)
    target = resolve_volume_path(tmp_path, "datasets/x")
    assert grant.expires == 1000.0 + PUT_SECONDS and grant.may_write(target, 1001.0)
    assert not grant.may_write(target, 1000.0 + PUT_SECONDS)
    assert grants.live_lease("vol", now=1000.0 + PUT_SECONDS) is None
    again = grants.issue("vol", "put", "datasets", None, now=1000.0 + PUT_SECONDS + 1)  # a lapsed lease frees it
    assert again.lease is not None and again.lease.id != grant.lease.id


def test_a_json_typed_object_is_stored_as_bytes(local_platform: LocalPlatform, api: httpx.Client) -> None:
    r = route(api, "put", "datasets/typed/")
    body = b'{"not": NaN}\n' * 1000  # not JSON the API would take, and it is not the API's to judge
    s3_for(r).put_object(
        Bucket=r["bucket"], Key="research/datasets/typed/x.json", Body=body, ContentType="application/json"
    )
    release(api, r)
    assert (local_platform.data_dir / "volumes" / "research" / "datasets" / "typed" / "x.json").read_bytes() == body


def _signed(r: dict, method: str, path: str, query: str = "", body: bytes = b"", headers: dict | None = None):  # type: ignore[no-untyped-def]
    from urllib.parse import urlsplit

    from primetui.api import sigv4

    base = urlsplit(r["endpoint"])
    full = base.path + path
    signed = sigv4.sign(
        method,
        full,
        query,
        {"host": base.netloc, **(headers or {})},
        access_key=r["accessKeyId"],
        secret=r["secretAccessKey"],
        session_token=r["sessionToken"],
    )
    url = f"{base.scheme}://{base.netloc}{full}" + (f"?{query}" if query else "")
    return httpx.request(method, url, headers=signed, content=body, timeout=30)


@pytest.mark.parametrize(
    ("method", "path", "query", "body", "headers", "status"),
    [
        ("GET", "/primetui-local-volumes/research/..%2F..%2Fetc%2Fpasswd", "", b"", {}, 400),
        ("GET", "/primetui-local-volumes/research/datasets/x%00y", "", b"", {}, 400),
        ("GET", "/other-bucket/research/x", "", b"", {}, 404),
        ("GET", "/primetui-local-volumes", "list-type=2&prefix=research/&max-keys=abc", b"", {}, 400),
        ("GET", "/primetui-local-volumes", "list-type=2&prefix=research/&continuation-token=%25%25", b"", {}, 400),
        ("GET", "/primetui-local-volumes", "list-type=2&prefix=research/&delimiter=x", b"", {}, 501),
        (
            "GET",
            "/primetui-local-volumes/research/datasets/reverse-text/README.md",
            "",
            b"",
            {"range": "bytes=zz"},
            416,
        ),
        (
            "PUT",
            "/primetui-local-volumes/research/datasets/fz/a",
            "partNumber=99999999999&uploadId=nope",
            b"x",
            {},
            404,
        ),
        ("POST", "/primetui-local-volumes/research/datasets/fz/a", "uploadId=nope", b"<junk", {}, 404),
        ("PUT", "/primetui-local-volumes/research/datasets/fz/a", "", b"x", {"x-amz-copy-source": "/b/k"}, 501),
        (
            "PUT",
            "/primetui-local-volumes/research/datasets/fz/a",
            "",
            b"abc",
            {"content-length": "3", "x-amz-decoded-content-length": "zz"},
            400,
        ),
        ("DELETE", "/primetui-local-volumes/research/datasets/reverse-text/README.md", "", b"", {}, 403),
    ],
)
def test_hostile_storage_requests_get_one_clear_refusal(
    local_platform: LocalPlatform, api: httpx.Client, method, path, query, body, headers, status
) -> None:
    r = route(api, "put", "datasets/fz/") if method in ("PUT", "POST") else route(api, "get")
    try:
        reply = _signed(r, method, path, query, body, headers)
        assert reply.status_code == status, reply.text
        assert b"<Code>" in reply.content
    finally:
        if r.get("leaseId"):
            release(api, r)


def test_a_put_past_the_volume_size_is_refused(local_platform: LocalPlatform, api: httpx.Client) -> None:
    assert api.post("/training/volumes", json={"name": "tiny-direct", "size": "1Mi", "warm": False}).status_code == 200
    r = route(api, "put", "data/", volume="tiny-direct")
    s3 = s3_for(r)
    s3.put_object(Bucket=r["bucket"], Key="tiny-direct/data/a.bin", Body=b"x" * 700_000)
    with pytest.raises(ClientError) as full:
        s3.put_object(Bucket=r["bucket"], Key="tiny-direct/data/b.bin", Body=b"y" * 700_000)
    assert code(full) == "EntityTooLarge"
    release(api, r, volume="tiny-direct")
    folder = local_platform.data_dir / "volumes" / "tiny-direct" / "data"
    assert sorted(p.name for p in folder.iterdir()) == ["a.bin"]
