"""Receive an S3 request body into a file, chunk by chunk, checking what the signature promised.

Handles the payload forms boto3 sends: a signed SHA-256 (checked once the body is in), an
``UNSIGNED-PAYLOAD``, and ``STREAMING-UNSIGNED-PAYLOAD-TRAILER`` (aws-chunked framing with a
checksum trailer; CRC32, SHA-1 and SHA-256 trailers are checked, others are taken as sent).
Signed chunk streams (``STREAMING-AWS4-HMAC-SHA256-PAYLOAD``) are refused as not implemented.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import zlib
from collections.abc import AsyncIterator, Callable
from typing import BinaryIO, Protocol

MAX_PART = 5 * 1024**3
"""The largest object one PUT (or one multipart part) carries, as in S3."""

STREAMING_TRAILER = "STREAMING-UNSIGNED-PAYLOAD-TRAILER"
SIGNED_STREAMING = (
    "STREAMING-AWS4-HMAC-SHA256-PAYLOAD",
    "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER",
    "STREAMING-AWS4-ECDSA-P256-SHA256-PAYLOAD",
    "STREAMING-AWS4-ECDSA-P256-SHA256-PAYLOAD-TRAILER",
)
TOO_LARGE = (
    "The upload is larger than the room left on the volume (or than 5 GiB for one part); expand the volume "
    "or send less."
)
"""The refusal of bytes the volume has no room for (S3's ``EntityTooLarge``), whoever notices it."""
WRITE_BATCH = 1 << 20
MAX_LINE = 4096


class BodyError(Exception):
    """The body does not match its headers: ``code`` and ``message`` are the S3 error's."""

    def __init__(self, code: str, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.code, self.message, self.status = code, message, status


class _Crc32:
    def __init__(self) -> None:
        self.value = 0

    def update(self, data: bytes) -> None:
        self.value = zlib.crc32(data, self.value)

    def digest(self) -> bytes:
        return self.value.to_bytes(4, "big")


class _Hasher(Protocol):
    def update(self, data: bytes, /) -> None: ...

    def digest(self) -> bytes: ...


_TRAILER_HASHERS: dict[str, Callable[[], _Hasher]] = {
    "x-amz-checksum-crc32": _Crc32,
    "x-amz-checksum-sha1": hashlib.sha1,
    "x-amz-checksum-sha256": hashlib.sha256,
}


def _trailer_hasher(name: str) -> _Hasher | None:
    make = _TRAILER_HASHERS.get(name)
    return make() if make is not None else None


async def _dechunk(stream: AsyncIterator[bytes]) -> AsyncIterator[bytes | tuple[str, str]]:
    """aws-chunked framing -> data chunks, then each trailer as (name, value)."""
    buf = bytearray()
    it = stream.__aiter__()

    async def fill() -> bool:
        try:
            buf.extend(await it.__anext__())
            return True
        except StopAsyncIteration:
            return False

    async def line() -> bytes:
        while (end := buf.find(b"\r\n")) < 0:
            if len(buf) > MAX_LINE or not await fill():
                raise BodyError("IncompleteBody", "The aws-chunked body ended inside a chunk header.")
        out = bytes(buf[:end])
        del buf[: end + 2]
        return out

    while True:
        header = await line()
        try:
            size = int(header.split(b";", 1)[0], 16)
        except ValueError:
            raise BodyError("InvalidRequest", "The aws-chunked body has a malformed chunk size.") from None
        if size == 0:
            break
        while size:
            if not buf and not await fill():
                raise BodyError("IncompleteBody", "The aws-chunked body ended inside a chunk.")
            take = min(size, len(buf))
            yield bytes(buf[:take])
            del buf[:take]
            size -= take
        if await line() != b"":
            raise BodyError("InvalidRequest", "An aws-chunked chunk is longer than its declared size.")
    while (trailer := await line()) != b"":
        name, _, value = trailer.decode("latin-1").partition(":")
        yield (name.strip().lower(), value.strip())


async def receive(
    stream: AsyncIterator[bytes],
    sink: BinaryIO,
    payload_hash: str,
    declared: int | None,
    limit: int,
    trailer: str | None = None,
    take: Callable[[int], None] | None = None,
) -> tuple[int, str]:
    """Write the body to ``sink``; return (bytes, MD5 hex). Raises BodyError on any mismatch or past ``limit``.

    ``trailer`` is the ``x-amz-trailer`` header: the checksum the aws-chunked body ends with.
    ``take(total)`` runs before each chunk is accepted, with the bytes received so far: it makes room
    for them on the volume, or raises.
    """
    if payload_hash in SIGNED_STREAMING:
        raise BodyError(
            "NotImplemented",
            "Signed chunk streams are not supported; send an unsigned payload (boto3's default) or a signed SHA-256.",
            501,
        )
    md5 = hashlib.md5()
    sha = hashlib.sha256() if payload_hash not in ("UNSIGNED-PAYLOAD", STREAMING_TRAILER) else None
    checksum = _trailer_hasher(trailer.strip().lower()) if trailer else None
    trailers: dict[str, str] = {}
    total = 0
    pending: list[bytes] = []
    pending_size = 0
    source = _dechunk(stream) if payload_hash == STREAMING_TRAILER else stream
    async for piece in source:
        if isinstance(piece, tuple):
            trailers[piece[0]] = piece[1]
            continue
        if not piece:
            continue
        total += len(piece)
        if total > limit:
            raise BodyError("EntityTooLarge", TOO_LARGE)
        if take is not None:
            take(total)
        md5.update(piece)
        for hasher in (sha, checksum):
            if hasher is not None:
                hasher.update(piece)
        pending.append(piece)
        pending_size += len(piece)
        if pending_size >= WRITE_BATCH:
            await asyncio.to_thread(sink.write, b"".join(pending))
            pending, pending_size = [], 0
    if pending:
        await asyncio.to_thread(sink.write, b"".join(pending))
    if declared is not None and total != declared:
        raise BodyError("IncompleteBody", f"The body had {total} bytes where its headers declared {declared}.")
    if sha is not None and sha.hexdigest() != payload_hash:
        raise BodyError("XAmzContentSHA256Mismatch", "The body's SHA-256 does not match x-amz-content-sha256.")
    if checksum is not None and trailer:
        sent = trailers.get(trailer.strip().lower())
        if sent is not None and base64.b64encode(checksum.digest()).decode() != sent:
            raise BodyError("BadDigest", f"The body does not match its {trailer} trailer.")
    return total, md5.hexdigest()
