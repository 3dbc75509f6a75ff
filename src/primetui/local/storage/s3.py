"""The S3-compatible endpoint V9 hands out (``<base_url>/s3``), over each volume's directory.

It answers the subset of S3 that prime 0.18.0's direct transfers use (contract §3.3), path-style,
region ``auto``: ListObjectsV2 (prefix, ``/`` delimiter, continuation, ``encoding-type=url``),
HeadObject, GetObject (with one byte range), PutObject, and multipart upload (create, part,
complete, abort), with user metadata (``md5chksum``, ``mtime``). Every request is SigV4-signed
with credentials V9 issued (``grants``); reads stay inside what the grant reaches, writes need a
put grant whose lease is live, and ``runs/`` is never written. Bodies stream to and from disk.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import os
import re
import secrets
import shutil
import tempfile
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, quote, unquote
from xml.etree import ElementTree
from xml.sax.saxutils import escape

from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response, StreamingResponse

from primetui.api import sigv4
from primetui.local.paths import (
    PathEscapeError,
    VolumePath,
    in_runs,
    resolve_volume_path,
    safe_join,
    split_volume_key,
    volume_name_of,
)
from primetui.local.state import LocalState
from primetui.local.storage import meta
from primetui.local.storage.body import MAX_PART, TOO_LARGE, BodyError, receive
from primetui.local.storage.grants import Grant, Grants, Lease
from primetui.local.storage.objects import Entry, list_keys, object_path
from primetui.local.storage.room import NoRoom, Reservation, file_size, ledger_of

BUCKET = "primetui-local-volumes"
MOUNT = "/s3"
MAX_SKEW_SECONDS = 15 * 60
MAX_COMPLETE_BODY = 1 << 20
READ_CHUNK = 256 * 1024
XMLNS = "http://s3.amazonaws.com/doc/2006-03-01/"
_RANGE = re.compile(r"bytes=(\d*)-(\d*)")


@dataclass
class Upload:
    id: str
    volume: str
    key: str
    metadata: dict[str, str]
    folder: Path
    lease: Lease
    room: Reservation
    """What the parts hold on the volume (credited with the file at the key when the upload began)."""
    parts: dict[int, tuple[str, int]] = field(default_factory=dict)  # number -> (md5 hex, size)


@dataclass
class Storage:
    """The storage route's state on one server: grants, leases and open multipart uploads."""

    state: LocalState
    grants: Grants = field(default_factory=Grants)
    uploads: dict[str, Upload] = field(default_factory=dict)

    @property
    def staging(self) -> Path:
        folder = self.state.data_dir / "storage-uploads"  # same file system as the volumes: renames are atomic
        folder.mkdir(exist_ok=True, mode=0o700)
        return folder

    def drop_uploads(self, volume: str) -> None:
        for upload_id in [u.id for u in self.uploads.values() if u.volume == volume]:
            self.drop_upload(upload_id)

    def drop_upload(self, upload_id: str) -> None:
        """Forget an upload: its parts leave the disk and the room they held is given back."""
        upload = self.uploads.pop(upload_id, None)
        if upload is not None:
            upload.room.release()
            shutil.rmtree(upload.folder, ignore_errors=True)

    def drop_lapsed_uploads(self) -> None:
        """Uploads whose lease lapsed can never complete: they must not hold room on their volume."""
        now = time.time()
        for upload_id in [u.id for u in self.uploads.values() if not u.lease.live(now)]:
            self.drop_upload(upload_id)


class S3Error(Exception):
    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


def clear_staging(data_dir: Path) -> int:
    """Remove what a server killed mid-upload left in its staging folder; returns the bytes freed.

    Open uploads live in the server's memory only (a restart forgets them and their credentials), so
    at start nothing in ``storage-uploads`` can ever complete: a body cut off mid-PUT (``.incoming-*``)
    or the parts of a multipart upload (``mpu-*``). Called before the server takes requests.
    """
    folder = data_dir / "storage-uploads"
    if not folder.is_dir():
        return 0
    freed = 0
    for entry in list(folder.iterdir()):
        try:
            if entry.is_dir() and not entry.is_symlink():
                freed += sum(f.stat().st_size for f in entry.rglob("*") if f.is_file())
                shutil.rmtree(entry, ignore_errors=True)
            else:
                freed += entry.lstat().st_size
                entry.unlink(missing_ok=True)
        except OSError:
            continue
    return freed


def storage_of(state: LocalState) -> Storage:
    found = state.extras.get("storage")
    if found is None:
        found = state.extras["storage"] = Storage(state)
        meta.ensure_table(state.store.db)
    return found


def _error(exc: S3Error, method: str, resource: str) -> Response:
    if method == "HEAD":
        return Response(status_code=exc.status)
    body = (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>{exc.code}</Code>'
        f"<Message>{escape(exc.message)}</Message><Resource>{escape(resource[:300])}</Resource>"
        f"<RequestId>{secrets.token_hex(8)}</RequestId></Error>"
    )
    return Response(body, status_code=exc.status, media_type="application/xml")


# --- authentication -------------------------------------------------------------------------------


def _authenticate(storage: Storage, request: Request, raw_path: str, raw_query: str) -> Grant:
    header = request.headers.get("authorization")
    if not header:
        raise S3Error(
            403,
            "AccessDenied",
            "Requests to volume storage must be signed with the credentials "
            "`POST /training/volumes/{name}/transfer` issues.",
        )
    auth = sigv4.parse_authorization(header)
    if auth is None or auth.service != "s3" or "host" not in auth.signed_headers:
        raise S3Error(
            400,
            "AuthorizationHeaderMalformed",
            "The Authorization header is not an AWS4-HMAC-SHA256 header signature for service s3 that signs host.",
        )
    grant = storage.grants.lookup(auth.access_key)
    now = time.time()
    if grant is None:
        raise S3Error(
            403,
            "InvalidAccessKeyId",
            "These credentials are unknown here (a restart of the local "
            "platform ends them); ask the transfer route for new ones.",
        )
    if grant.expires <= now:
        raise S3Error(400, "ExpiredToken", "These credentials have expired; ask the transfer route for new ones.")
    if request.headers.get("x-amz-security-token") != grant.token or "x-amz-security-token" not in auth.signed_headers:
        raise S3Error(
            403, "InvalidToken", "The signed x-amz-security-token is not the one issued with these credentials."
        )
    amz_date = request.headers.get("x-amz-date", "")
    try:
        signed_at = datetime.strptime(amz_date, "%Y%m%dT%H%M%SZ").replace(tzinfo=timezone.utc).timestamp()
    except ValueError:
        raise S3Error(403, "AccessDenied", "x-amz-date is missing or not in the form YYYYMMDDTHHMMSSZ.") from None
    if abs(now - signed_at) > MAX_SKEW_SECONDS or auth.date != amz_date[:8]:
        raise S3Error(
            403,
            "RequestTimeTooSkewed",
            "The request was signed more than 15 minutes from now; check this machine's clock.",
        )
    payload_hash = request.headers.get("x-amz-content-sha256", "")
    if not payload_hash:
        raise S3Error(400, "InvalidRequest", "x-amz-content-sha256 is missing.")
    headers = {k.lower(): v for k, v in request.headers.items()}
    canonical = sigv4.canonical_request(request.method, raw_path, raw_query, headers, auth.signed_headers, payload_hash)
    expected = sigv4.signature(grant.secret, amz_date, auth.region, "s3", canonical)
    if not secrets.compare_digest(expected, auth.signature):
        raise S3Error(403, "SignatureDoesNotMatch", "The request signature does not match the credentials.")
    return grant


# --- the endpoint ---------------------------------------------------------------------------------


async def endpoint(request: Request) -> Response:
    """Every request under ``/s3``: authenticate, then route by method and query."""
    storage = storage_of(request.app.state.platform)
    raw_path = request.scope.get("raw_path", b"").decode("latin-1") or request.url.path
    raw_query = request.scope.get("query_string", b"").decode("latin-1")
    try:
        grant = _authenticate(storage, request, raw_path, raw_query)
        bucket, _, key = unquote(raw_path[len(MOUNT) + 1 :]).partition("/")
        if bucket != BUCKET:
            raise S3Error(404, "NoSuchBucket", f"The bucket '{bucket[:80]}' does not exist; use '{BUCKET}'.")
        query = dict(parse_qsl(raw_query, keep_blank_values=True))
        return await _route(storage, grant, request, key, query)
    except S3Error as exc:
        return _error(exc, request.method, raw_path)
    except BodyError as exc:
        return _error(S3Error(exc.status, exc.code, exc.message), request.method, raw_path)
    except ClientDisconnect:  # gone mid-body: its file and room are already given back; no one reads a reply
        return _error(
            S3Error(400, "IncompleteBody", "The client went away before the body ended."), request.method, raw_path
        )


def _volume_key(storage: Storage, grant: Grant, full_key: str, *, listing: bool = False) -> VolumePath:
    """``full_key`` decided once on the grant's volume (``paths.resolve_volume_path``), then scoped.

    The key arrives decoded once (the request path by :func:`endpoint`, a listing prefix by the query
    parser) and is not decoded again. 400 for a key the volume cannot hold (NUL, a control character,
    ``..`` above the root, a look-alike of ``runs``); 403 when the RESOLVED path lies outside the
    grant's volume or path; the raw string is never what the scope check reads. A listing prefix's
    last part is a partial name, so it is kept as written (a symlink there is not followed, and a
    listing never enters one).
    """
    prefix = grant.volume + "/"
    if not full_key.startswith(prefix):
        raise S3Error(403, "AccessDenied", "These credentials reach only their own volume's prefix.")
    try:
        target = resolve_volume_path(_root(storage, grant), full_key[len(prefix) :], follow_last=not listing)
    except PathEscapeError as exc:
        raise S3Error(400, "InvalidArgument", f"The key cannot name a place on the volume: {exc}.") from None
    if listing:
        if not _may_list(grant, target.key):
            raise S3Error(403, "AccessDenied", "These credentials do not reach that prefix.")
    elif not grant.reaches(target):
        raise S3Error(403, "AccessDenied", "These credentials do not reach that key.")
    return target


def _decide(storage: Storage, grant: Grant, key: str, *, write: bool) -> VolumePath:
    """The one decision on an object key: resolved, inside the grant, and for a write, allowed there."""
    target = _volume_key(storage, grant, key)
    if write and not grant.may_write(target, time.time()):
        why = (
            "runs/ holds run outputs and is read-only; put elsewhere."
            if in_runs(target.rel)
            else "These credentials are read-only, or their upload lease has ended; ask the transfer route "
            "for put credentials."
        )
        raise S3Error(403, "AccessDenied", why)
    return target


def _may_list(grant: Grant, rel: str) -> bool:
    """A listing may not show names beside what the grant reaches (``datasets/x`` would list ``datasets/x2``)."""
    if not grant.base and grant.entries is None:
        return True
    if grant.base:
        return rel.startswith(grant.base + "/")
    head, sep, _ = rel.partition("/")
    return bool(sep) and grant.entries is not None and head in grant.entries


def _root(storage: Storage, grant: Grant) -> Path:
    row = storage.state.store.get_volume(*split_volume_key(grant.volume))
    if row is None:
        raise S3Error(404, "NoSuchKey", f"Volume '{volume_name_of(grant.volume)}' no longer exists.")
    return storage.state.volume_dir(grant.volume)


async def _route(storage: Storage, grant: Grant, request: Request, key: str, query: dict[str, str]) -> Response:
    method = request.method
    if not key:
        if method == "GET" and query.get("list-type") == "2":
            return await _list(storage, grant, query)
        raise S3Error(501, "NotImplemented", "Only ListObjectsV2 is served on the bucket.")
    reading = method in ("GET", "HEAD")
    rel = _decide(storage, grant, key, write=not reading).key
    if reading:
        return await _get(storage, grant, request, rel)
    storage.drop_lapsed_uploads()
    if method == "PUT" and "uploadId" in query:
        return await _upload_part(storage, grant, request, rel, query)
    if method == "PUT":
        if request.headers.get("x-amz-copy-source"):
            raise S3Error(501, "NotImplemented", "CopyObject is not served; upload the data instead.")
        return await _put(storage, grant, request, rel)
    if method == "POST" and "uploads" in query:
        return _create_upload(storage, grant, request, rel)
    if method == "POST" and "uploadId" in query:
        return await _complete(storage, grant, request, rel, query)
    if method == "DELETE" and "uploadId" in query:
        upload = storage.uploads.get(query["uploadId"])
        if upload is not None and upload.volume == grant.volume:
            storage.drop_upload(upload.id)
        return Response(status_code=204)
    raise S3Error(501, "NotImplemented", f"{method} is not served on objects here.")


# --- reads ----------------------------------------------------------------------------------------


def _enc(text: str, url: bool) -> str:
    return escape(quote(text, safe="/") if url else text)


async def _list(storage: Storage, grant: Grant, query: dict[str, str]) -> Response:
    prefix = query.get("prefix", "")
    delimiter = query.get("delimiter", "")
    if delimiter not in ("", "/"):
        raise S3Error(501, "NotImplemented", "Only the '/' delimiter is served.")
    url = query.get("encoding-type") == "url"
    try:
        max_keys = max(0, min(1000, int(query.get("max-keys", "1000"))))
    except ValueError:
        raise S3Error(400, "InvalidArgument", "max-keys must be a whole number.") from None
    token = query.get("continuation-token")
    after = query.get("start-after", "")
    if token:
        try:
            after = max(after, base64.b64decode(token.encode(), altchars=b"-_", validate=True).decode("utf-8"))
        except (ValueError, UnicodeDecodeError):
            raise S3Error(400, "InvalidArgument", "The continuation token is not one this endpoint gave.") from None
    rel_prefix = _volume_key(storage, grant, prefix or grant.volume + "/", listing=True).key
    rel_after = after[len(grant.volume) + 1 :] if after.startswith(grant.volume + "/") else ""
    root = _root(storage, grant)

    def page() -> tuple[list[Entry], bool]:
        found: list[Entry] = []
        more = False
        for entry in list_keys(root, rel_prefix, delimiter=bool(delimiter), after=rel_after):
            if len(found) == max_keys:
                more = True
                break
            found.append(entry)
        return found, more

    entries, truncated = await asyncio.to_thread(page)
    db = storage.state.store.db
    vol = grant.volume + "/"
    parts = [
        f'<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult xmlns="{XMLNS}">',
        f"<Name>{BUCKET}</Name><Prefix>{_enc(prefix, url)}</Prefix><MaxKeys>{max_keys}</MaxKeys>",
        f"<KeyCount>{len(entries)}</KeyCount><IsTruncated>{'true' if truncated else 'false'}</IsTruncated>",
    ]
    if delimiter:
        parts.append(f"<Delimiter>{_enc(delimiter, url)}</Delimiter>")
    if url:
        parts.append("<EncodingType>url</EncodingType>")
    if token:
        parts.append(f"<ContinuationToken>{escape(token)}</ContinuationToken>")
    if query.get("start-after"):
        parts.append(f"<StartAfter>{_enc(query['start-after'], url)}</StartAfter>")
    if truncated and entries:
        nxt = base64.urlsafe_b64encode((vol + entries[-1].key).encode()).decode()
        parts.append(f"<NextContinuationToken>{nxt}</NextContinuationToken>")
    for entry in entries:
        if entry.size is None:
            parts.append(f"<CommonPrefixes><Prefix>{_enc(vol + entry.key, url)}</Prefix></CommonPrefixes>")
            continue
        etag = _etag_for(db, grant.volume, entry)
        modified = datetime.fromtimestamp(entry.mtime_ns / 1e9, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3]
        parts.append(
            f"<Contents><Key>{_enc(vol + entry.key, url)}</Key><LastModified>{modified}Z</LastModified>"
            f"<ETag>{escape(etag)}</ETag><Size>{entry.size}</Size><StorageClass>STANDARD</StorageClass>"
            "</Contents>"
        )
    parts.append("</ListBucketResult>")
    return Response("".join(parts), media_type="application/xml")


def _etag_for(db: Any, volume: str, entry: Any) -> str:
    row = db.execute(
        "SELECT size, mtime_ns, etag FROM storage_objects WHERE volume = ? AND key = ?", (volume, entry.key)
    ).fetchone()
    if row is not None and row[0] == entry.size and row[1] == entry.mtime_ns:
        return row[2]
    return f'"{entry.size:x}-{entry.mtime_ns:x}"'


def _object_headers(etag: str, metadata: dict[str, str], st: os.stat_result) -> dict[str, str]:
    headers = {
        "ETag": etag,
        "Last-Modified": meta.http_date(st.st_mtime_ns),
        "Accept-Ranges": "bytes",
        "Content-Type": "application/octet-stream",
    }
    headers.update({f"x-amz-meta-{k}": v for k, v in metadata.items()})
    return headers


async def _get(storage: Storage, grant: Grant, request: Request, rel: str) -> Response:
    root = _root(storage, grant)
    path = object_path(root, rel)
    if path is None:
        raise S3Error(404, "NoSuchKey", "The specified key does not exist.")
    st = path.stat()
    size = 0 if path.is_dir() else st.st_size
    etag, metadata = meta.describe(storage.state.store.db, grant.volume, rel, st)
    headers = _object_headers(etag, metadata, st)
    start, end, status = 0, size - 1, 200
    wanted = request.headers.get("range")
    if wanted:
        match = _RANGE.fullmatch(wanted.strip())
        if not match or match.groups() == ("", ""):
            raise S3Error(416, "InvalidRange", "Only one byte range of the form bytes=a-b is served.")
        first, last = match.groups()
        if first:
            start, end = int(first), min(int(last), size - 1) if last else size - 1
        else:
            start, end = max(0, size - int(last)), size - 1
        if start >= size or start > end:
            raise S3Error(416, "InvalidRange", f"The range is outside the object's {size} bytes.")
        status = 206
        headers["Content-Range"] = f"bytes {start}-{end}/{size}"
    length = max(0, end - start + 1)
    headers["Content-Length"] = str(length)
    if request.method == "HEAD" or length == 0:
        return Response(status_code=status, headers=headers)
    return StreamingResponse(_stream(path, start, length), status_code=status, headers=headers)


async def _stream(path: Path, start: int, length: int) -> AsyncIterator[bytes]:
    fh = await asyncio.to_thread(open, path, "rb")
    try:
        await asyncio.to_thread(fh.seek, start)
        while length > 0:
            chunk = await asyncio.to_thread(fh.read, min(READ_CHUNK, length))
            if not chunk:
                break  # the file shrank under us: the client sees a short body and retries
            length -= len(chunk)
            yield chunk
    finally:
        await asyncio.to_thread(fh.close)


# --- writes ---------------------------------------------------------------------------------------


def _metadata(request: Request) -> dict[str, str]:
    return {
        k[len("x-amz-meta-") :].lower(): v for k, v in request.headers.items() if k.lower().startswith("x-amz-meta-")
    }


def _declared(request: Request) -> int | None:
    raw = request.headers.get("x-amz-decoded-content-length") or (
        None
        if request.headers.get("x-amz-content-sha256", "").startswith("STREAMING")
        else request.headers.get("content-length")
    )
    try:
        return int(raw) if raw is not None else None
    except ValueError:
        raise S3Error(400, "InvalidArgument", "Content-Length is not a whole number.") from None


async def _receive_to(request: Request, folder: Path, room: Reservation | None) -> tuple[Path, int, str]:
    """Stream the body into a new file in ``folder``, taking room for it in ``room`` before accepting any bytes.

    The declared length is reserved before the body is read; a body of unknown length reserves each
    chunk as it comes. On any failure the file is removed and the room it took is given back; on
    success the room stays held until the caller lands the file (``None``: the body must be empty).
    """
    declared = _declared(request)
    limit = MAX_PART if room is not None else 0
    if declared is not None and declared > limit:
        raise S3Error(400, "EntityTooLarge", TOO_LARGE)
    taken = 0

    def take(total: int) -> None:
        nonlocal taken
        if total > taken and room is not None:
            if not room.add(total - taken):
                raise BodyError("EntityTooLarge", TOO_LARGE)
            taken = total

    try:
        if declared:
            take(declared)
        fd, name = tempfile.mkstemp(dir=folder, prefix=".incoming-")
        try:
            with os.fdopen(fd, "wb") as sink:
                size, md5 = await receive(
                    request.stream(),
                    sink,
                    request.headers.get("x-amz-content-sha256", ""),
                    declared,
                    limit,
                    request.headers.get("x-amz-trailer"),
                    take,
                )
        except BaseException:
            Path(name).unlink(missing_ok=True)
            raise
    except BaseException:
        if room is not None:
            room.sub(taken)
        raise
    return Path(name), size, md5


def _target(root: Path, rel: str) -> Path:
    """Where ``rel`` lands; refuses a key that needs a file to be a directory, or the reverse."""
    try:
        path = safe_join(root, rel)
    except PathEscapeError as exc:
        raise S3Error(400, "InvalidArgument", f"The key cannot be stored on the volume ({exc}).") from None
    parent = path if rel.endswith("/") else path.parent
    probe = parent
    while probe != root and not probe.exists():
        probe = probe.parent
    if probe.is_symlink() or not probe.is_dir():
        raise S3Error(
            409,
            "InvalidRequest",
            f"/{rel.rstrip('/')} would need /{probe.relative_to(root)} to be a "
            "directory, and it is a file on the volume; remove it or put elsewhere.",
        )
    if not rel.endswith("/") and (path.is_dir() and not path.is_symlink()):
        raise S3Error(409, "InvalidRequest", f"/{rel} is a directory on the volume; remove it or put elsewhere.")
    return path


def _settle(path: Path, incoming: Path, metadata: dict[str, str]) -> os.stat_result:
    """Move the received file into place and give it the mtime its ``mtime`` metadata names (as rclone does)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    os.replace(incoming, path)
    os.chmod(path, 0o644)
    try:
        from decimal import Decimal

        ns = int(Decimal(metadata["mtime"]) * 10**9)
        os.utime(path, ns=(ns, ns))
    except (KeyError, ArithmeticError, ValueError):
        pass
    return path.stat()


async def _put(storage: Storage, grant: Grant, request: Request, rel: str) -> Response:
    root = _root(storage, grant)
    path = _target(root, rel)
    metadata = _metadata(request)
    if rel.endswith("/"):  # an empty directory's marker
        incoming, size, md5 = await _receive_to(request, storage.staging, None)
        incoming.unlink(missing_ok=True)
        path.mkdir(parents=True, exist_ok=True)
        return Response(status_code=200, headers={"ETag": f'"{md5}"'})
    ledger = ledger_of(storage.state, grant.volume)
    await asyncio.to_thread(ledger.refresh)
    room = ledger.reservation(credit=await asyncio.to_thread(file_size, path))
    try:
        incoming, size, md5 = await _receive_to(request, storage.staging, room)
        try:
            target = _target(root, rel)
            st = await asyncio.to_thread(ledger.land, room, target, size, lambda: _settle(target, incoming, metadata))
        finally:
            incoming.unlink(missing_ok=True)
    except NoRoom:
        raise S3Error(400, "EntityTooLarge", TOO_LARGE) from None
    finally:
        room.release()  # a no-op once landed; on any failure, the room goes back
    etag = f'"{md5}"'
    meta.record(storage.state.store.db, grant.volume, rel, st, etag, metadata)
    return Response(status_code=200, headers={"ETag": etag})


def _create_upload(storage: Storage, grant: Grant, request: Request, rel: str) -> Response:
    path = _target(_root(storage, grant), rel)
    upload_id = secrets.token_urlsafe(24)
    folder = storage.staging / f"mpu-{upload_id}"
    folder.mkdir(mode=0o700)
    assert grant.lease is not None  # may_write checked it
    room = ledger_of(storage.state, grant.volume).reservation(credit=file_size(path))
    storage.uploads[upload_id] = Upload(upload_id, grant.volume, rel, _metadata(request), folder, grant.lease, room)
    body = (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<InitiateMultipartUploadResult xmlns="{XMLNS}">'
        f"<Bucket>{BUCKET}</Bucket><Key>{escape(grant.volume + '/' + rel)}</Key>"
        f"<UploadId>{upload_id}</UploadId></InitiateMultipartUploadResult>"
    )
    return Response(body, media_type="application/xml")


def _upload_of(storage: Storage, grant: Grant, rel: str, query: dict[str, str]) -> Upload:
    upload = storage.uploads.get(query.get("uploadId", ""))
    if upload is None or upload.volume != grant.volume or upload.key != rel:
        raise S3Error(
            404,
            "NoSuchUpload",
            "The multipart upload does not exist (completed, aborted, or ended with its lease or a restart).",
        )
    return upload


async def _upload_part(storage: Storage, grant: Grant, request: Request, rel: str, query: dict[str, str]) -> Response:
    upload = _upload_of(storage, grant, rel, query)
    try:
        number = int(query.get("partNumber", ""))
    except ValueError:
        number = 0
    if not 1 <= number <= 10000:
        raise S3Error(400, "InvalidArgument", "partNumber must be a whole number from 1 to 10000.")
    await asyncio.to_thread(upload.room.ledger.refresh)
    incoming, size, md5 = await _receive_to(request, upload.folder, upload.room)
    try:
        if storage.uploads.get(upload.id) is not upload:  # completed or aborted while this part streamed
            raise S3Error(
                404, "NoSuchUpload", "The multipart upload ended (completed or aborted) while this part was sent."
            )
        os.replace(incoming, upload.folder / f"part-{number:05d}")
    except BaseException:
        incoming.unlink(missing_ok=True)
        upload.room.sub(size)
        raise
    replaced = upload.parts.get(number)
    upload.parts[number] = (md5, size)
    if replaced is not None:
        upload.room.sub(replaced[1])  # the part sent again replaces the first one's bytes
    return Response(status_code=200, headers={"ETag": f'"{md5}"'})


def _parts_named(raw: bytes) -> list[tuple[int, str]]:
    try:
        tree = ElementTree.fromstring(raw)
    except ElementTree.ParseError:
        raise S3Error(400, "MalformedXML", "The CompleteMultipartUpload body is not well-formed XML.") from None
    named = []
    for part in tree.iter():
        if part.tag.rsplit("}", 1)[-1] != "Part":
            continue
        fields = {child.tag.rsplit("}", 1)[-1]: (child.text or "").strip() for child in part}
        try:
            named.append((int(fields.get("PartNumber", "")), fields.get("ETag", "").strip('"')))
        except ValueError:
            raise S3Error(400, "MalformedXML", "A Part without a whole PartNumber.") from None
    return named


async def _complete(storage: Storage, grant: Grant, request: Request, rel: str, query: dict[str, str]) -> Response:
    upload = _upload_of(storage, grant, rel, query)
    raw = b""
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > MAX_COMPLETE_BODY:
            raise S3Error(400, "MalformedXML", "The CompleteMultipartUpload body is too large.")
    named = _parts_named(raw)
    if not named or [n for n, _ in named] != sorted({n for n, _ in named}):
        raise S3Error(400, "InvalidPartOrder", "List the parts once each, in ascending PartNumber order.")
    for number, etag in named:
        if upload.parts.get(number, ("",))[0] != etag:
            raise S3Error(400, "InvalidPart", f"Part {number} was not uploaded, or its ETag differs.")
    root = _root(storage, grant)
    path = _target(root, rel)

    def join() -> os.stat_result:
        joined = upload.folder / "joined"
        with open(joined, "wb") as out:
            for number, _ in named:
                with open(upload.folder / f"part-{number:05d}", "rb") as part:
                    shutil.copyfileobj(part, out, 1 << 20)
        # The parts already hold room for these bytes: landing uses it up and asks for no more.
        return upload.room.ledger.land(
            upload.room, path, joined.stat().st_size, lambda: _settle(path, joined, upload.metadata)
        )

    try:
        st = await asyncio.to_thread(join)
    except NoRoom:
        storage.drop_upload(upload.id)
        raise S3Error(400, "EntityTooLarge", TOO_LARGE) from None
    digest = hashlib.md5(b"".join(bytes.fromhex(upload.parts[n][0]) for n, _ in named)).hexdigest()
    etag = f'"{digest}-{len(named)}"'
    meta.record(storage.state.store.db, grant.volume, rel, st, etag, upload.metadata)
    storage.drop_upload(upload.id)
    body = (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<CompleteMultipartUploadResult xmlns="{XMLNS}">'
        f"<Bucket>{BUCKET}</Bucket><Key>{escape(grant.volume + '/' + rel)}</Key>"
        f"<ETag>{escape(etag)}</ETag></CompleteMultipartUploadResult>"
    )
    return Response(body, media_type="application/xml")
