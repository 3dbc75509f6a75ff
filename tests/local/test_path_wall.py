"""Paths decided once, over real HTTP: a storage key is resolved before its scope is checked.

Regressions of issue 42's first finding: with get credentials for ``datasets``, the key
``research/datasets/..\\private\\secret.txt`` read ``private/secret.txt``; with put credentials for
``uploads``, the same trick overwrote a file in the read-only ``runs/``, another folder's file and
the demo dataset. A backslash is a separator now, decided before any check, so these keys get the
403 their ``/`` spelling gets; a symlink on the volume is followed before the check too.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

import boto3
import httpx
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

from primetui.local.testing import LocalPlatform

pytestmark = pytest.mark.timeout(120)

SECRET = b"the private folder's secret\n"
RUN_OUTPUT = b"a run's output\n"
OTHER = b"another folder's file\n"


def _route(api: httpx.Client, mode: str, path: str) -> dict:
    reply = api.post("/training/volumes/research/transfer", json={"mode": mode, "path": path})
    assert reply.status_code == 200, reply.text
    return reply.json()


def _s3(r: dict):  # type: ignore[no-untyped-def]
    return boto3.client(
        "s3",
        endpoint_url=r["endpoint"],
        region_name="auto",
        aws_access_key_id=r["accessKeyId"],
        aws_secret_access_key=r["secretAccessKey"],
        aws_session_token=r["sessionToken"],
        config=Config(signature_version="s3v4", retries={"max_attempts": 1}),
    )


def _signed_get(r: dict, raw_path: str) -> httpx.Response:
    """A GET whose path goes on the wire exactly as written (percent-escapes included), SigV4-signed."""
    from urllib.parse import urlsplit

    from primetui.api import sigv4

    base = urlsplit(r["endpoint"])
    full = base.path + raw_path
    headers = sigv4.sign(
        "GET",
        full,
        "",
        {"host": base.netloc},
        access_key=r["accessKeyId"],
        secret=r["secretAccessKey"],
        session_token=r["sessionToken"],
    )
    return httpx.get(f"{base.scheme}://{base.netloc}{full}", headers=headers, timeout=30)


@pytest.fixture
def volume(local_platform: LocalPlatform) -> Iterator[Path]:
    """The demo volume with a private folder, a run's output and another folder, as files on disk."""
    root = local_platform.data_dir / "volumes" / "research"
    planted = {"private/secret.txt": SECRET, "runs/r-wall/out.txt": RUN_OUTPUT, "others/kept.txt": OTHER}
    for rel, data in planted.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    yield root
    for rel, data in planted.items():
        assert (root / rel).read_bytes() == data, f"{rel} was changed through the storage route"


def _code(exc: pytest.ExceptionInfo) -> str:
    return exc.value.response["Error"]["Code"]


@pytest.mark.parametrize(
    "key",
    [
        "research/datasets/..\\private\\secret.txt",  # the finding, as boto3 sends it (%5C)
        "research/datasets\\..\\private\\secret.txt",
        "research/datasets/x\\..\\..\\private\\secret.txt",
    ],
)
def test_a_backslash_does_not_read_another_folder(
    local_platform: LocalPlatform, api: httpx.Client, volume: Path, key: str
) -> None:
    s3 = _s3(_route(api, "get", "datasets"))
    with pytest.raises(ClientError) as refused:
        s3.get_object(Bucket="primetui-local-volumes", Key=key)
    assert _code(refused) == "AccessDenied"  # as the same key written with '/'
    with pytest.raises(ClientError) as slash:
        s3.get_object(Bucket="primetui-local-volumes", Key=key.replace("\\", "/"))
    assert _code(slash) == "AccessDenied"


def test_a_raw_backslash_on_the_wire_and_a_listing_through_one_are_refused(
    local_platform: LocalPlatform, api: httpx.Client, volume: Path
) -> None:
    r = _route(api, "get", "datasets")
    reply = _signed_get(r, "/primetui-local-volumes/research/datasets/..%5Cprivate%5Csecret.txt")
    assert reply.status_code == 403 and SECRET not in reply.content, reply.text
    s3 = _s3(r)
    with pytest.raises(ClientError) as listing:
        s3.list_objects_v2(Bucket="primetui-local-volumes", Prefix="research/datasets/..\\private\\")
    assert _code(listing) == "AccessDenied"
    # a key decoded once: %252e%252e is the literal name '%2e%2e', not '..'
    literal = _signed_get(r, "/primetui-local-volumes/research/datasets/%252e%252e/private/secret.txt")
    assert literal.status_code == 404, literal.text


@pytest.mark.parametrize(
    ("key", "victim"),
    [
        ("research/uploads/..\\runs\\r-wall\\out.txt", "runs/r-wall/out.txt"),  # the read-only runs/
        ("research/uploads/..\\others\\kept.txt", "others/kept.txt"),  # another folder's file
        ("research/uploads/..\\datasets\\reverse-text\\README.md", "datasets/reverse-text/README.md"),  # the demo data
    ],
)
def test_a_backslash_does_not_write_outside_the_put(
    local_platform: LocalPlatform, api: httpx.Client, volume: Path, key: str, victim: str
) -> None:
    before = hashlib.sha256((volume / victim).read_bytes()).hexdigest()
    r = _route(api, "put", "uploads/")
    try:
        with pytest.raises(ClientError) as single:
            _s3(r).put_object(Bucket=r["bucket"], Key=key, Body=b"overwritten\n")
        assert _code(single) == "AccessDenied"
        with pytest.raises(ClientError) as multipart:  # a client of its own: a new connection
            _s3(r).create_multipart_upload(Bucket=r["bucket"], Key=key)
        assert _code(multipart) == "AccessDenied"
    finally:
        assert (
            api.post("/training/volumes/research/transfer/release", json={"leaseId": r["leaseId"]}).status_code == 204
        )
    assert hashlib.sha256((volume / victim).read_bytes()).hexdigest() == before


def test_a_symlink_on_the_volume_is_followed_before_the_scope_check(
    local_platform: LocalPlatform, api: httpx.Client, volume: Path
) -> None:
    links = {volume / "datasets" / "wall-to-private": "../private", volume / "uploads-l" / "to-runs": "../runs"}
    for link, target in links.items():
        link.parent.mkdir(exist_ok=True)
        link.unlink(missing_ok=True)
        link.symlink_to(target)
    try:
        with pytest.raises(ClientError) as read:
            _s3(_route(api, "get", "datasets")).get_object(
                Bucket="primetui-local-volumes", Key="research/datasets/wall-to-private/secret.txt"
            )
        assert _code(read) == "AccessDenied"
        r = _route(api, "put", "uploads-l/")
        try:
            with pytest.raises(ClientError) as write:
                _s3(r).put_object(Bucket=r["bucket"], Key="research/uploads-l/to-runs/r-wall/out.txt", Body=b"x")
            assert _code(write) == "AccessDenied"
            assert write.value.response["Error"]["Message"] == "These credentials do not reach that key."
        finally:
            assert (
                api.post("/training/volumes/research/transfer/release", json={"leaseId": r["leaseId"]}).status_code
                == 204
            )
    finally:
        for link in links:
            link.unlink()


@pytest.mark.parametrize(
    "key",
    [
        "research/ｒｕｎｓ/x.txt",  # fullwidth: reads as runs
        "research/uploads/..\\Runs\\x.txt",  # runs on a case-insensitive file system
        "research/uploads/．．/runs/x.txt",  # fullwidth dots: read as '..'
        "research/uploads/a%00b",  # NUL (the key is decoded once: %00 is NUL)
    ],
)
def test_look_alikes_and_controls_are_refused_with_one_sentence(
    local_platform: LocalPlatform, api: httpx.Client, key: str
) -> None:
    r = _route(api, "put", "uploads/")
    try:
        from urllib.parse import quote

        reply = _signed_get(r, "/primetui-local-volumes/" + quote(key, safe="/%"))
        assert reply.status_code == 400 and b"<Code>InvalidArgument</Code>" in reply.content, reply.text
    finally:
        assert (
            api.post("/training/volumes/research/transfer/release", json={"leaseId": r["leaseId"]}).status_code == 204
        )


def test_a_put_inside_its_path_still_lands(local_platform: LocalPlatform, api: httpx.Client) -> None:
    r = _route(api, "put", "uploads/")
    try:
        _s3(r).put_object(Bucket=r["bucket"], Key="research/uploads//sub\\./ok.txt", Body=b"fine\n")
    finally:
        assert (
            api.post("/training/volumes/research/transfer/release", json={"leaseId": r["leaseId"]}).status_code == 204
        )
    assert (local_platform.data_dir / "volumes" / "research" / "uploads" / "sub" / "ok.txt").read_bytes() == b"fine\n"


def test_the_transfer_route_refuses_a_look_alike_of_runs(local_platform: LocalPlatform, api: httpx.Client) -> None:
    for path in ("Runs/x/", "RUNS", "./runs/x"):
        reply = api.post("/training/volumes/research/transfer", json={"mode": "put", "path": path})
        assert reply.status_code == 400, (path, reply.text)
        assert "runs" in reply.json()["detail"]
