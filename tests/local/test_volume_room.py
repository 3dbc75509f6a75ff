"""The volume size cap under parallel uploads: room is reserved before bytes are accepted, by every
kind of direct upload (declared length, a chunked stream of unknown length, multipart parts), and
given back when an upload fails."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlsplit
from xml.etree import ElementTree

import boto3
import httpx
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

from primetui.api import sigv4
from primetui.local.paths import dir_size_bytes
from primetui.local.storage.body import TOO_LARGE
from primetui.local.testing import LocalPlatform
from tests.waiting import wait_for, wait_for_sync

pytestmark = pytest.mark.timeout(300)

MiB = 1024 * 1024
VOLUME = "room-race"
SIZE = 5 * MiB
ALREADY = 1 * MiB  # on the volume before the race: 4 MiB of room left
UPLOAD = 3 * MiB  # each upload is 3 MiB: one fits, two never do


def _route(api: httpx.Client, mode: str, path: str) -> dict:
    reply = api.post(f"/training/volumes/{VOLUME}/transfer", json={"mode": mode, "path": path})
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
        config=Config(signature_version="s3v4", retries={"max_attempts": 1}, max_pool_connections=32, read_timeout=120),
    )


def _chunked_put(r: dict, key: str, size: int) -> tuple[int, str, str]:
    """A PUT whose body is a chunked stream of unknown length (no Content-Length): (status, code, message)."""
    base = urlsplit(r["endpoint"])
    path = f"{base.path}/{r['bucket']}/{key}"
    headers = sigv4.sign(
        "PUT",
        path,
        "",
        {"host": base.netloc},
        access_key=r["accessKeyId"],
        secret=r["secretAccessKey"],
        session_token=r["sessionToken"],
    )

    def body() -> Iterator[bytes]:
        for _ in range(size // (64 * 1024)):
            yield b"c" * (64 * 1024)

    reply = httpx.put(f"{base.scheme}://{base.netloc}{path}", headers=headers, content=body(), timeout=120)
    if reply.status_code == 200:
        return 200, "", ""
    error = ElementTree.fromstring(reply.content)
    return reply.status_code, error.findtext("Code") or "", error.findtext("Message") or ""


@pytest.fixture
def room_volume(api: httpx.Client, local_platform: LocalPlatform) -> Path:
    reply = api.post("/training/volumes", json={"name": VOLUME, "size": "5Mi", "warm": False})
    assert reply.status_code == 200, reply.text
    r = _route(api, "put", "seed/")
    _s3(r).put_object(Bucket=r["bucket"], Key=f"{VOLUME}/seed/already.bin", Body=b"a" * ALREADY)
    assert api.post(f"/training/volumes/{VOLUME}/transfer/release", json={"leaseId": r["leaseId"]}).status_code == 204
    return local_platform.data_dir / "volumes" / VOLUME


def test_sixteen_parallel_uploads_never_overfill_the_volume(
    local_platform: LocalPlatform, api: httpx.Client, room_volume: Path
) -> None:
    r = _route(api, "put", "race/")
    s3 = _s3(r)
    bucket = r["bucket"]
    start = threading.Barrier(16)
    upload_ids: list[str] = []

    def single(n: int) -> Callable[[], tuple[str, str, str]]:
        def go() -> tuple[str, str, str]:
            key = f"{VOLUME}/race/single-{n}.bin"
            start.wait()
            try:
                s3.put_object(Bucket=bucket, Key=key, Body=b"s" * UPLOAD)  # a declared length
            except ClientError as exc:
                return key, exc.response["Error"]["Code"], exc.response["Error"]["Message"]
            return key, "", ""

        return go

    def streamed(n: int) -> Callable[[], tuple[str, str, str]]:
        def go() -> tuple[str, str, str]:
            key = f"{VOLUME}/race/streamed-{n}.bin"
            start.wait()
            _, code, message = _chunked_put(r, key, UPLOAD)
            return key, code, message

        return go

    def multipart(n: int) -> Callable[[], tuple[str, str, str]]:
        def go() -> tuple[str, str, str]:
            key = f"{VOLUME}/race/multipart-{n}.bin"
            upload_id = s3.create_multipart_upload(Bucket=bucket, Key=key)["UploadId"]
            upload_ids.append(upload_id)
            start.wait()
            try:
                parts = []
                for number in (1, 2):
                    etag = s3.upload_part(
                        Bucket=bucket, Key=key, UploadId=upload_id, PartNumber=number, Body=b"m" * (UPLOAD // 2)
                    )["ETag"]
                    parts.append({"PartNumber": number, "ETag": etag})
                s3.complete_multipart_upload(
                    Bucket=bucket, Key=key, UploadId=upload_id, MultipartUpload={"Parts": parts}
                )
            except ClientError as exc:
                s3.abort_multipart_upload(Bucket=bucket, Key=key, UploadId=upload_id)  # as boto3's transfers do
                return key, exc.response["Error"]["Code"], exc.response["Error"]["Message"]
            return key, "", ""

        return go

    jobs = [single(n) for n in range(4)] + [streamed(n) for n in range(4)] + [multipart(n) for n in range(8)]
    with ThreadPoolExecutor(len(jobs)) as pool:
        outcomes = list(pool.map(lambda job: job(), jobs))

    landed = [key for key, code, _ in outcomes if not code]
    refused = [(key, code, message) for key, code, message in outcomes if code]
    on_disk = dir_size_bytes(room_volume)
    assert on_disk <= SIZE, f"the volume holds {on_disk:,} bytes, past its {SIZE:,}; landed: {landed}"
    assert len(landed) <= 1 and on_disk == ALREADY + UPLOAD * len(landed)
    assert refused and all((code, message) == ("EntityTooLarge", TOO_LARGE) for _, code, message in refused), refused
    for key, _, _ in refused:  # nothing of a refused upload sits on the volume, whole or in part
        assert not (room_volume.parent / key).exists(), key
    staging = local_platform.data_dir / "storage-uploads"
    assert not list(staging.glob(".incoming-*")) and not any((staging / f"mpu-{u}").exists() for u in upload_ids)

    # Every refused upload gave its room back: exactly what is left fits, one byte more does not.
    left = SIZE - on_disk
    s3.put_object(Bucket=bucket, Key=f"{VOLUME}/race/rest.bin", Body=b"r" * left)
    with pytest.raises(ClientError) as past:
        s3.put_object(Bucket=bucket, Key=f"{VOLUME}/race/one-more.bin", Body=b"!")
    assert past.value.response["Error"]["Code"] == "EntityTooLarge"
    assert api.post(f"/training/volumes/{VOLUME}/transfer/release", json={"leaseId": r["leaseId"]}).status_code == 204
    assert dir_size_bytes(room_volume) == SIZE


async def test_a_final_sync_takes_room_beside_direct_uploads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A read-write session's final sync reserves what it adds in the same ledger the storage route uses."""
    from primetui.local.sessions import mountns, staging
    from primetui.local.sessions.manager import SessionManager
    from primetui.local.storage.room import Ledger

    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("PRIME_SSH_KEY_PATH", raising=False)
    volume = tmp_path / "data" / "volumes" / "vol"
    (volume / "datasets").mkdir(parents=True)
    (volume / "datasets" / "a.bin").write_bytes(b"a" * MiB)
    ledger = Ledger("vol", lambda: dir_size_bytes(volume), lambda: 4 * MiB)
    manager = SessionManager(
        tmp_path / "data", idle_timeout=3600, speed=100, volume_size=lambda _: 4 * MiB, room=lambda _: ledger
    )
    await manager.start()
    try:
        for upload_holds, wanted in ((2 * MiB, "failed"), (0, "stopped")):
            ledger.refresh()
            upload = ledger.reservation()  # a direct upload in flight holds this much
            assert upload.add(upload_holds)
            rec = manager.create("vol", read_only=False)
            await _phase(rec, {"ready"})
            (manager.work_dir(rec.id) / "datasets" / "b.bin").write_bytes(b"b" * (3 * MiB // 2))
            manager.stop("vol", rec.id)
            await _phase(rec, {"stopped", "failed"})
            upload.release()
            assert rec.phase == wanted, rec.error_message
            if wanted == "failed":
                assert rec.error_message.startswith(
                    "No space left on device: the session's files add 1.500 MiB to "
                    "the volume, which has 1.000 MiB free, so nothing was written back"
                )
                assert not (volume / "datasets" / "b.bin").exists()
                kept = manager.work_dir(rec.id)  # the session's files are kept for the user; this test drops them
                mountns.unmount_work(kept)
                staging.remove_tree(kept)
        assert dir_size_bytes(volume) == MiB + 3 * MiB // 2 and ledger.reserved == 0
    finally:
        await manager.close()


async def _phase(rec, phases: set[str]) -> None:  # type: ignore[no-untyped-def]
    await wait_for(lambda: rec.phase in phases, f"session {rec.id} to reach {sorted(phases)}", timeout=30)


def test_an_overwrite_needs_room_only_for_what_it_adds(local_platform: LocalPlatform, api: httpx.Client) -> None:
    assert api.post("/training/volumes", json={"name": "room-over", "size": "2Mi", "warm": False}).status_code == 200
    reply = api.post("/training/volumes/room-over/transfer", json={"mode": "put", "path": "data/"})
    assert reply.status_code == 200, reply.text
    r = reply.json()
    s3 = _s3(r)
    key = "room-over/data/f.bin"
    s3.put_object(Bucket=r["bucket"], Key=key, Body=b"1" * (3 * MiB // 2))
    s3.put_object(Bucket=r["bucket"], Key=key, Body=b"2" * (3 * MiB // 2))  # 0.5 MiB free: it replaces 1.5 MiB
    s3.put_object(Bucket=r["bucket"], Key=key, Body=b"3" * (2 * MiB))  # adds exactly the 0.5 MiB left
    with pytest.raises(ClientError) as full:
        s3.put_object(Bucket=r["bucket"], Key="room-over/data/g.bin", Body=b"!")
    assert full.value.response["Error"]["Code"] == "EntityTooLarge"
    assert api.post("/training/volumes/room-over/transfer/release", json={"leaseId": r["leaseId"]}).status_code == 204
    on_disk = local_platform.data_dir / "volumes" / "room-over" / "data" / "f.bin"
    assert on_disk.read_bytes() == b"3" * (2 * MiB)


def test_a_client_that_goes_away_mid_body_gives_its_room_back(local_platform: LocalPlatform, api: httpx.Client) -> None:
    import socket

    assert api.post("/training/volumes", json={"name": "room-gone", "size": "4Mi", "warm": False}).status_code == 200
    reply = api.post("/training/volumes/room-gone/transfer", json={"mode": "put", "path": "data/"})
    assert reply.status_code == 200, reply.text
    r = reply.json()
    base = urlsplit(r["endpoint"])
    path = f"{base.path}/{r['bucket']}/room-gone/data/cut.bin"
    headers = sigv4.sign(
        "PUT",
        path,
        "",
        {"host": base.netloc, "content-length": str(3 * MiB)},
        access_key=r["accessKeyId"],
        secret=r["secretAccessKey"],
        session_token=r["sessionToken"],
    )
    head = f"PUT {path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers.items()) + "\r\n"
    with socket.create_connection((base.hostname, base.port), timeout=10) as sock:
        sock.sendall(head.encode() + b"c" * MiB)  # 3 MiB promised and reserved, 1 MiB sent, then gone
    s3 = _s3(r)

    def whole_room_free() -> bool:
        try:
            s3.put_object(Bucket=r["bucket"], Key="room-gone/data/all.bin", Body=b"a" * (4 * MiB))
        except ClientError as exc:
            assert exc.response["Error"]["Code"] == "EntityTooLarge"
            return False
        return True

    wait_for_sync(whole_room_free, "the room the cut-off upload held to come back (a 4 MiB put fits)")
    assert api.post("/training/volumes/room-gone/transfer/release", json={"leaseId": r["leaseId"]}).status_code == 204
    folder = local_platform.data_dir / "volumes" / "room-gone" / "data"
    assert sorted(p.name for p in folder.iterdir()) == ["all.bin"]
    log = (local_platform.data_dir.parent / "server.log").read_text(errors="replace")
    assert "cut.bin" not in log, "a client going away mid-body is not a server error"
