"""A download reads no more than a file's listed size and keeps only what arrived whole.

A hostile S3 endpoint on 127.0.0.1 (the direct route, real HTTP) and the hostile SFTP server (a
session) list one size and send another: 50 MiB of zeros for a file listed at 4 bytes (announced
in the Content-Length, or not), a body with no end for a file listed at 1 MiB, a body shorter than
listed, a read answered with twice the bytes asked, a file listed without a size, with a garbled
one or with more than the local disk holds. Nothing past the listed size is written (the progress
callback counts every byte written), the file is not kept, the result says why, and the rest of
the get goes on. The endless bodies stop after 64 MiB only so that a client without the ceiling
fails quickly instead of filling the disk.
"""

from __future__ import annotations

import stat
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from urllib.parse import parse_qs, quote, unquote, urlsplit

import asyncssh
import pytest
from hostile_sftp import Tree, attrs, hostile_connection

from primetui.api.volume_storage import StorageError, VolumeStorage
from primetui.shell import direct
from primetui.shell.transfer import get
from tests.api.s3_helpers import s3_storage

pytestmark = pytest.mark.timeout(60)

MiB = 1024 * 1024
GUARD = 64 * MiB
PREFIX = "vol/"


def _zeros(total: int) -> Callable[[], Iterator[bytes]]:
    def chunks() -> Iterator[bytes]:
        block = bytes(MiB)
        for start in range(0, total, MiB):
            yield block[: total - start]

    return chunks


def _once(data: bytes) -> Callable[[], Iterator[bytes]]:
    return lambda: iter([data])


# key -> (Size as listed (None: no Size element), Content-Length sent (None: none, the body ends at close), body)
OBJECTS: dict[str, tuple[str | None, int | None, Callable[[], Iterator[bytes]]]] = {
    "d/announced.bin": ("4", 50 * MiB, _zeros(50 * MiB)),
    "d/cut.bin": ("4", None, _zeros(50 * MiB)),
    "d/endless.bin": (str(MiB), None, _zeros(GUARD)),
    "d/short.bin": ("10", None, _once(b"four")),
    "d/short-announced.bin": ("10", 4, _once(b"four")),
    "d/unsized.bin": (None, 4, _once(b"four")),
    "d/garbled.bin": ("4 bytes", 4, _once(b"four")),
    "d/huge.bin": (str(2**62), None, _zeros(GUARD)),
    "d/good.txt": ("4", 4, _once(b"good")),
    "d/new\nline.txt": ("7", 7, _once(b"newline")),
    "d/twin\x1b": ("5", 5, _once(b"first")),
    "d/twin␛": ("6", 6, _once(b"second")),
}
DIRECT_REASONS = {
    "d/announced.bin": "not kept: the server announced 52,428,800 bytes, but it was listed at 4",
    "d/cut.bin": "not kept: it sent more than the 4 bytes it was listed at (cut at 4)",
    "d/endless.bin": "not kept: it sent more than the 1,048,576 bytes it was listed at (cut at 1,048,576)",
    "d/short.bin": "not kept: it ended after 4 of the 10 bytes it was listed at",
    "d/short-announced.bin": "not kept: the server announced 4 bytes, but it was listed at 10",
    "d/unsized.bin": "listed without a size; not fetched (a get reads no more than a file's listed size)",
    "d/garbled.bin": "listed without a size; not fetched (a get reads no more than a file's listed size)",
}
WRITTEN = {"d/cut.bin": 4, "d/endless.bin": MiB, "d/short.bin": 4}  # bytes written before the file was dropped


class _LyingS3(BaseHTTPRequestHandler):
    """Answers any signature; lists OBJECTS at their listed sizes and sends their bodies (HTTP/1.0: a body
    without a Content-Length ends when the connection closes)."""

    def log_message(self, *args: object) -> None:  # quiet test output
        pass

    def _key(self) -> str:
        return unquote(urlsplit(self.path).path.split("/", 3)[3])[len(PREFIX) :]

    def do_HEAD(self) -> None:  # noqa: N802 - http.server's name
        found = OBJECTS.get(self._key())
        self.send_response(200 if found else 404)
        if found and (found[0] or "").isdigit():  # a garbled size is not a valid HTTP header: none is sent
            self.send_header("content-length", found[0])
        self.end_headers()

    def do_GET(self) -> None:  # noqa: N802
        query = parse_qs(urlsplit(self.path).query)
        if "list-type" in query and query["prefix"][0].startswith(PREFIX + "loop"):
            self._endless_listing(query)
            return
        if "list-type" in query:
            rows = "".join(
                f"<Contents><Key>{quote(PREFIX + key)}</Key>"
                + (f"<Size>{listed}</Size>" if listed else "")
                + "</Contents>"
                for key, (listed, _, _) in OBJECTS.items()
            )
            body = f"<ListBucketResult><IsTruncated>false</IsTruncated>{rows}</ListBucketResult>".encode()
            self.send_response(200)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        _, length, chunks = OBJECTS[self._key()]
        self.send_response(200)
        if length is not None:
            self.send_header("content-length", str(length))
        self.end_headers()
        try:
            for chunk in chunks():
                self.wfile.write(chunk)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client stopped reading: what a download with a ceiling does

    def _endless_listing(self, query: dict[str, list[str]]) -> None:
        """Pages that list nothing and always say more follows: with a new token each time under loop-new/,
        the same two tokens in turn under loop-two/."""
        page = int(query.get("continuation-token", ["0"])[0]) + 1
        token = page if query["prefix"][0].startswith(PREFIX + "loop-new") else page % 2
        body = (
            f"<ListBucketResult><IsTruncated>true</IsTruncated><NextContinuationToken>{token}"
            "</NextContinuationToken></ListBucketResult>"
        ).encode()
        self.send_response(200)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def storage() -> Iterator[VolumeStorage]:
    with s3_storage(_LyingS3, PREFIX) as s:
        yield s


def _files(top: Path) -> dict[str, int]:
    return {str(p.relative_to(top)): p.stat().st_size for p in top.rglob("*") if p.is_file()}


@pytest.mark.parametrize("key", sorted(DIRECT_REASONS))
def test_a_direct_get_writes_no_more_than_the_listed_size(storage: VolumeStorage, tmp_path: Path, key: str) -> None:
    written: list[int] = []
    result = direct.get(storage, key, str(tmp_path), "vol", lambda done, total, name: written.append(done))
    assert result.files == 0 and [(s.path, s.reason) for s in result.skipped] == [(key, DIRECT_REASONS[key])]
    assert max(written, default=0) == WRITTEN.get(key, 0)
    assert _files(tmp_path) == {}  # not kept, and no partial file left behind


def test_a_file_listed_past_the_free_disk_is_not_fetched(storage: VolumeStorage, tmp_path: Path) -> None:
    result = direct.get(storage, "d/huge.bin", str(tmp_path), "vol")
    [skip] = result.skipped
    assert skip.path == "d/huge.bin"
    assert skip.reason.startswith("listed at 4,611,686,018,427,387,904 bytes, more than the ")
    assert skip.reason.endswith(" bytes free on the local disk; not fetched") and _files(tmp_path) == {}


def test_a_folder_get_keeps_what_arrived_whole_and_names_the_rest(storage: VolumeStorage, tmp_path: Path) -> None:
    result = direct.get(storage, "d/", str(tmp_path), "vol")
    assert _files(tmp_path) == {"good.txt": 4, "new␊line.txt": 7, "twin␛": 5}
    assert (tmp_path / "twin␛").read_bytes() == b"first"
    reasons = {s.path: s.reason for s in result.skipped}
    assert reasons == {
        **DIRECT_REASONS,
        "d/huge.bin": reasons["d/huge.bin"],
        "d/twin␛": "its local name twin␛ is an earlier entry's; the first was kept",
    }
    assert result.files == 3 and result.bytes == 16


def _zero_reads(end: int) -> Callable[[int, int], bytes]:
    return lambda offset, size: bytes(max(0, min(size, end - offset)))


SFTP_CASES = {
    # name: (listing size, what reads answer, what an open file's fstat claims, reason, bytes written)
    "fifty.bin": (
        4,
        _zero_reads(50 * MiB),
        50 * MiB,
        "not kept: it sent more than the 4 bytes it was listed at (cut at 4)",
        4,
    ),
    "endless.bin": (
        MiB,
        _zero_reads(GUARD),
        2**40,
        "not kept: it sent more than the 1,048,576 bytes it was listed at (cut at 1,048,576)",
        MiB,
    ),
    "doubled.bin": (
        100,
        lambda offset, size: bytes(2 * size) if offset < 100 else b"",
        100,
        "not kept: it sent more than the 100 bytes it was listed at (cut at 100)",
        100,
    ),
    "short.bin": (1000, _zero_reads(10), 1000, "not kept: it ended after 10 of the 1,000 bytes it was listed at", 10),
    "unsized.bin": (
        None,
        _zero_reads(10),
        10,
        "listed without a size; not fetched (a get reads no more than a file's listed size)",
        0,
    ),
}


@pytest.mark.parametrize("name", sorted(SFTP_CASES))
async def test_an_sftp_get_writes_no_more_than_the_listed_size(tmp_path: Path, name: str) -> None:
    listed, body, claimed, reason, expected = SFTP_CASES[name]
    entry = attrs(size=listed) if listed is not None else asyncssh.SFTPAttrs(permissions=stat.S_IFREG | 0o644)
    tree = Tree(
        listings={b"/volume/d": [(name.encode(), entry), (b"good.txt", attrs(size=10))]},
        body=_zero_reads(10) if name == "good.txt" else body,
        claimed=claimed,
    )
    dest = tmp_path / "dl"
    dest.mkdir()
    written: list[int] = []
    async with hostile_connection(tree, tmp_path / "server") as conn:
        result = await get(conn, f"d/{name}", dest, lambda done, total, _name: written.append(done))
    assert result.files == 0 and [(s.path, s.reason) for s in result.skipped] == [(f"d/{name}", reason)]
    assert max(written, default=0) == expected
    assert _files(dest) == {}


async def test_an_sftp_folder_get_goes_on_past_a_lying_file(tmp_path: Path) -> None:
    tree = Tree(
        listings={b"/volume/d": [(b"a-fifty.bin", attrs(size=4)), (b"b-good.bin", attrs(size=50 * MiB))]},
        body=_zero_reads(50 * MiB),
        claimed=50 * MiB,
    )
    dest = tmp_path / "dl"
    dest.mkdir()
    async with hostile_connection(tree, tmp_path / "server") as conn:
        result = await get(conn, "d", dest)
    assert _files(dest) == {"d/b-good.bin": 50 * MiB}
    assert [(s.path, s.reason) for s in result.skipped] == [
        ("d/a-fifty.bin", "not kept: it sent more than the 4 bytes it was listed at (cut at 4)")
    ]


@pytest.mark.timeout(30)
@pytest.mark.parametrize("folder", ["loop-new/", "loop-two/"])
def test_a_listing_that_never_ends_is_stopped(storage: VolumeStorage, tmp_path: Path, folder: str) -> None:
    with pytest.raises(StorageError, match="kept saying more of the listing follows without sending it"):
        direct.get(storage, folder, str(tmp_path), "vol")
    assert _files(tmp_path) == {}
