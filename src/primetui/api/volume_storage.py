"""Talk to a volume's storage directly with the credentials its transfer route (V9) gives.

The same S3 subset prime 0.18.0 uses (contract §3.3): list[Any] with a ``/`` delimiter, head, ranged
get, put (multipart above 64 MiB) with rclone's ``md5chksum``/``mtime`` metadata, SigV4 in region
``auto``. Synchronous (httpx.Client): callers run it in a thread. Keys are volume-relative here;
the route's prefix is added and removed inside. Nothing reads a whole file into memory, and every
reply is bounded: a listing page or an error body at 8 MiB, a download at the size the file was
listed at (:meth:`VolumeStorage.download`). Bodies are read as sent (``accept-encoding: identity``,
never decompressed), so a size counts the bytes that arrive.
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
from collections.abc import Callable, Iterator
from typing import Any
from dataclasses import dataclass
from datetime import datetime
from email.utils import parsedate_to_datetime
from pathlib import Path
from urllib.parse import quote, unquote, urlsplit
from xml.etree import ElementTree

from primetui.api import sigv4
from primetui.api._httpx import httpx, shared_ssl_context

PART_SIZE = 64 * 1024 * 1024
MAX_XML = 8 * 1024 * 1024
MAX_EMPTY_PAGES = 100
"""Listing pages in a row with no entry that still say more follows, before the listing is refused."""
CHUNK = 256 * 1024
Progress = Callable[[int], None]


class StorageError(Exception):
    """A storage request failed; ``str()`` is one sentence (S3's code and message when it sent them)."""


class SizeMismatch(StorageError):
    """A file's body was not the size it was listed at; nothing past that size was written.

    ``more``: it sent (or ``announced`` in its Content-Length) more; otherwise it ended after ``got``.
    """

    def __init__(self, rel: str, listed: int, got: int, *, more: bool = False, announced: int | None = None) -> None:
        self.listed, self.got, self.more, self.announced = listed, got, more, announced
        if announced is not None:
            why = f"announced {announced} bytes"
        else:
            why = f"sent more than {listed} bytes" if more else f"ended after {got} bytes"
        super().__init__(f"Volume storage {why} for /{rel}, listed at {listed} bytes; it was not kept.")


def _size(text: str | None) -> int | None:
    """A size as S3 writes it (decimal digits), or None when it is absent or anything else."""
    text = (text or "").strip()
    return int(text) if text.isdigit() and text.isascii() and len(text) <= 20 else None


@dataclass(frozen=True)
class Item:
    """One listing entry, volume-relative: a file (``size`` set) or a folder (``key`` ends in ``/``)."""

    key: str
    size: int | None
    modified: datetime | None = None

    @property
    def is_dir(self) -> bool:
        return self.key.endswith("/")


def _tag(el: ElementTree.Element) -> str:
    return el.tag.rsplit("}", 1)[-1]


def _text(el: ElementTree.Element, name: str) -> str | None:
    for child in el:
        if _tag(child) == name:
            return child.text or ""
    return None


class VolumeStorage:
    """A client for one route's credentials (``route``: the V9 reply with ``via == "r2"``)."""

    def __init__(self, route: object, timeout: float = 60.0) -> None:
        self.endpoint = str(getattr(route, "endpoint", "") or "").rstrip("/")
        self.bucket = str(getattr(route, "bucket", "") or "")
        self.prefix = str(getattr(route, "prefix", "") or "")
        self._key = str(getattr(route, "access_key_id", "") or "")
        self._secret = str(getattr(route, "secret_access_key", "") or "")
        self._token = getattr(route, "session_token", None)
        if not (self.endpoint and self.bucket and self.prefix.endswith("/") and self._key and self._secret):
            raise StorageError("The platform's storage route came without complete credentials; use a session instead.")
        self._base = urlsplit(self.endpoint)
        self._http = httpx.Client(timeout=timeout, verify=shared_ssl_context())

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> VolumeStorage:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- transport -------------------------------------------------------------------------------
    def _send(
        self,
        method: str,
        rel: str | None,
        query: str = "",
        headers: dict[str, str] | None = None,
        content: bytes | Iterator[bytes] | None = None,
        payload: str = sigv4.UNSIGNED,
        stream: bool = False,
    ) -> httpx.Response:
        path = self._base.path + "/" + quote(self.bucket, safe="")
        if rel is not None:
            path += "/" + quote(self.prefix + rel, safe="/-_.~")
        signed = sigv4.sign(
            method,
            path,
            query,
            {"host": self._base.netloc, **(headers or {})},
            access_key=self._key,
            secret=self._secret,
            session_token=self._token,
            payload_hash=payload,
        )
        url = f"{self._base.scheme}://{self._base.netloc}{path}" + (f"?{query}" if query else "")
        try:
            # Unsigned on purpose: bodies come as stored, so byte counts are the listed sizes.
            request = self._http.build_request(
                method, url, headers={**signed, "accept-encoding": "identity"}, content=content
            )
            reply = self._http.send(request, stream=stream)
        except httpx.HTTPError as exc:
            raise StorageError(
                f"Volume storage did not answer ({type(exc).__name__}); check the connection and retry."
            ) from exc
        if reply.status_code >= 400:
            detail = ""
            if method != "HEAD":
                body = (_bounded(reply, MAX_XML) or b"") if stream else reply.content[:MAX_XML]
                try:
                    root = ElementTree.fromstring(body)
                    detail = f"{_text(root, 'Code') or reply.status_code}: {_text(root, 'Message') or ''}".strip()
                except ElementTree.ParseError:
                    detail = f"HTTP {reply.status_code}"
            reply.close()
            raise StorageError(
                f"Volume storage refused {method} /{rel or ''} ({detail or f'HTTP {reply.status_code}'})."
            )
        return reply

    # -- reads -----------------------------------------------------------------------------------
    def list(self, prefix: str, *, recursive: bool = False, limit: int | None = None) -> Iterator[Item]:
        """Files and (unless ``recursive``) folders whose key starts with ``prefix``, in key order.

        A listing that never ends is stopped: a continuation token sent twice, or more than
        ``MAX_EMPTY_PAGES`` pages in a row that list nothing but say more follows, is a StorageError.
        """
        token, seen, empty, tokens = None, 0, 0, set[bytes]()
        while True:
            parts = [("list-type", "2"), ("prefix", self.prefix + prefix), ("encoding-type", "url")]
            if not recursive:
                parts.append(("delimiter", "/"))
            if token:
                parts.append(("continuation-token", token))
            query = "&".join(f"{quote(k, safe='')}={quote(v, safe='-_.~')}" for k, v in parts)
            reply = self._send("GET", None, query, stream=True)
            try:
                page = _bounded(reply, MAX_XML)
            finally:
                reply.close()
            if page is None:
                raise StorageError("A storage listing page was larger than 8 MiB; the storage is misbehaving.")
            try:
                root = ElementTree.fromstring(page)
            except ElementTree.ParseError as exc:
                raise StorageError("Volume storage sent a listing that is not XML.") from exc
            before = seen
            for el in root:
                name = _tag(el)
                if name not in ("Contents", "CommonPrefixes"):
                    continue
                key = unquote(_text(el, "Key" if name == "Contents" else "Prefix") or "")
                if not key.startswith(self.prefix):
                    raise StorageError("Volume storage listed a key outside this volume.")
                rel = key[len(self.prefix) :]
                if name == "Contents":
                    stamp = _text(el, "LastModified")
                    try:
                        when = datetime.fromisoformat(stamp.replace("Z", "+00:00")) if stamp else None
                    except ValueError:
                        when = None
                    item = Item(rel, _size(_text(el, "Size")) if not rel.endswith("/") else None, when)
                else:
                    item = Item(rel, None)
                yield item
                seen += 1
                if limit is not None and seen >= limit:
                    return
            if (_text(root, "IsTruncated") or "").lower() != "true":
                return
            token = _text(root, "NextContinuationToken")
            if not token:
                return
            empty = empty + 1 if seen == before else 0
            digest = hashlib.sha256(token.encode()).digest()  # a token's size is the server's choice: keep 32 bytes
            if digest in tokens or empty > MAX_EMPTY_PAGES:
                raise StorageError(
                    "Volume storage kept saying more of the listing follows without sending it; "
                    "the storage is misbehaving."
                )
            tokens.add(digest)

    def head(self, rel: str) -> dict[str, Any] | None:
        """``{"size", "modified", "metadata"}`` of the file at ``rel``, or None when there is none."""
        try:
            reply = self._send("HEAD", rel)
        except StorageError as exc:
            if "404" in str(exc):
                return None
            raise
        modified = reply.headers.get("last-modified")
        return {
            "size": _size(reply.headers.get("content-length")),
            "modified": parsedate_to_datetime(modified) if modified else None,
            "metadata": {k[len("x-amz-meta-") :]: v for k, v in reply.headers.items() if k.startswith("x-amz-meta-")},
        }

    def read(self, rel: str, start: int = 0, length: int = 64 * 1024) -> bytes:
        """At most ``length`` bytes of ``rel`` from ``start`` (b"" past its end)."""
        if length <= 0:
            return b""
        try:
            reply = self._send("GET", rel, headers={"range": f"bytes={start}-{start + length - 1}"}, stream=True)
        except StorageError as exc:
            if "InvalidRange" in str(exc):
                return b""
            raise
        try:
            out = bytearray()
            for chunk in reply.iter_raw(CHUNK):
                out.extend(chunk[: length - len(out)])
                if len(out) >= length:
                    break
            return bytes(out)
        except httpx.HTTPError as exc:
            raise StorageError(f"Volume storage stopped sending /{rel} ({type(exc).__name__}); retry.") from exc
        finally:
            reply.close()

    def ranged(self, rel: str, size: int) -> io.RawIOBase:
        """A seekable read-only file over ``rel`` (for pyarrow's footer reads)."""
        return _RangedFile(self, rel, size)

    def download(self, rel: str, fd: int, size: int, progress: Progress | None = None) -> int:
        """Stream ``rel``, listed at ``size`` bytes, into the open file ``fd`` (the caller owns where it
        lands); return ``size``.

        The listed size is the ceiling: no byte past it is written, and the body is not read further.
        A Content-Length other than ``size``, a body that goes on past it (a body that never ends is
        cut there) or one that ends sooner raises :class:`SizeMismatch`: the caller must not keep it.
        """
        done = 0
        reply = self._send("GET", rel, stream=True)
        try:
            announced = _size(reply.headers.get("content-length"))
            if announced is not None and announced != size:
                raise SizeMismatch(rel, size, 0, more=announced > size, announced=announced)
            for chunk in reply.iter_raw(CHUNK):
                keep = memoryview(chunk)[: size - done]
                kept = len(keep)
                while keep:
                    keep = keep[os.write(fd, keep) :]
                done += kept
                if progress and kept:
                    progress(kept)
                if kept < len(chunk):  # bytes past the listed size: cut here, the rest is never read
                    raise SizeMismatch(rel, size, done, more=True)
        except httpx.HTTPError as exc:
            raise StorageError(f"Volume storage stopped sending /{rel} ({type(exc).__name__}); retry.") from exc
        finally:
            reply.close()
        if done < size:
            raise SizeMismatch(rel, size, done)
        return done

    # -- writes ----------------------------------------------------------------------------------
    def make_dir(self, rel: str) -> None:
        """An empty folder: rclone's zero-byte ``name/`` marker."""
        self._send("PUT", rel.rstrip("/") + "/", content=b"", headers={"content-length": "0"}).close()

    def upload(self, path: Path, rel: str, progress: Progress | None = None) -> None:
        """Put the file at ``path`` as ``rel``, with the metadata rclone reads (md5chksum, mtime)."""
        st = path.stat()
        md5 = hashlib.md5()
        with open(path, "rb") as fh:
            while chunk := fh.read(1 << 20):
                md5.update(chunk)
        mtime = f"{st.st_mtime_ns // 10**9}.{st.st_mtime_ns % 10**9:09d}".rstrip("0").rstrip(".")
        meta = {"x-amz-meta-md5chksum": base64.b64encode(md5.digest()).decode(), "x-amz-meta-mtime": mtime}
        if st.st_size <= PART_SIZE:
            with open(path, "rb") as fh:
                self._send(
                    "PUT",
                    rel,
                    headers={**meta, "content-length": str(st.st_size)},
                    content=_chunks(fh, st.st_size, progress),
                ).close()
            return
        created = self._send("POST", rel, "uploads=", headers=meta)
        upload_id = _text(ElementTree.fromstring(created.content[:MAX_XML]), "UploadId") or ""
        query = f"uploadId={quote(upload_id, safe='')}"
        etags: list[tuple[int, str]] = []
        try:
            with open(path, "rb") as fh:
                for number, start in enumerate(range(0, st.st_size, PART_SIZE), 1):
                    size = min(PART_SIZE, st.st_size - start)
                    fh.seek(start)
                    reply = self._send(
                        "PUT",
                        rel,
                        f"partNumber={number}&{query}",
                        headers={"content-length": str(size)},
                        content=_chunks(fh, size, progress),
                    )
                    etags.append((number, reply.headers.get("etag", "")))
                    reply.close()
            body = (
                "<CompleteMultipartUpload>"
                + "".join(f"<Part><PartNumber>{n}</PartNumber><ETag>{e}</ETag></Part>" for n, e in etags)
                + "</CompleteMultipartUpload>"
            )
            self._send(
                "POST", rel, query, content=body.encode(), payload=hashlib.sha256(body.encode()).hexdigest()
            ).close()
        except BaseException:
            try:
                self._send("DELETE", rel, query).close()
            except StorageError:
                pass
            raise


def _chunks(fh: io.BufferedReader, size: int, progress: Progress | None) -> Iterator[bytes]:
    left = size
    while left > 0:
        chunk = fh.read(min(CHUNK, left))
        if not chunk:
            raise StorageError("A local file shrank while it was being uploaded; rerun the put.")
        left -= len(chunk)
        if progress:
            progress(len(chunk))
        yield chunk


class _RangedFile(io.RawIOBase):
    def __init__(self, storage: VolumeStorage, rel: str, size: int) -> None:
        self._storage, self._rel, self._size, self._pos = storage, rel, size, 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._pos

    def seek(self, offset: int, whence: int = 0) -> int:
        base = {0: 0, 1: self._pos, 2: self._size}[whence]
        self._pos = max(0, base + offset)
        return self._pos

    def readinto(self, buffer) -> int:  # type: ignore[no-untyped-def]
        want = min(len(buffer), self._size - self._pos)
        if want <= 0:
            return 0
        data = self._storage.read(self._rel, self._pos, want)
        buffer[: len(data)] = data
        self._pos += len(data)
        return len(data)


def _bounded(reply: httpx.Response, limit: int) -> bytes | None:
    """A streamed reply's body as sent, or None once it goes past ``limit`` bytes (the rest is not read)."""
    out = bytearray()
    try:
        for chunk in reply.iter_raw(CHUNK):
            out += chunk
            if len(out) > limit:
                return None
    except httpx.HTTPError as exc:
        raise StorageError(f"Volume storage stopped sending a reply ({type(exc).__name__}); retry.") from exc
    return bytes(out)
