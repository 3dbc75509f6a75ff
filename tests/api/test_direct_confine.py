"""A direct get (straight from volume storage, no session) lands files under confine's rules, as the
SFTP get does: a hostile S3 endpoint on 127.0.0.1 lists keys that climb out, are absolute, hold a
NUL or are over-long, and nothing is written outside the folder the user chose."""

from __future__ import annotations

import os
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from urllib.parse import parse_qs, quote, unquote, urlsplit

import pytest

from primetui.api.volume_storage import VolumeStorage
from primetui.shell import direct
from primetui.shell.confine import REPLACE_ALL, SKIP
from tests.api.s3_helpers import s3_storage

pytestmark = pytest.mark.timeout(60)

PREFIX = "vol/"
HOSTILE = {
    "datasets/../../climb": "refused name: it is ..",
    "datasets/a/../../../climb2": "refused name: it is ..",
    "datasets//abs": "refused name: it is an absolute path",
    "datasets/n\0ul": "refused name: it holds a NUL byte",
    "datasets/" + "n" * 300: "refused name: it is 300 bytes",
    "datasets/./dot": "refused name: it is .",
}
GOOD = {"datasets/good.txt": b"good", "datasets/sub/fine.txt": b"fine"}


class _HostileS3(BaseHTTPRequestHandler):
    """Answers any signature; lists the hostile keys and serves every key's bytes."""

    def log_message(self, *args: object) -> None:  # quiet test output
        pass

    def _reply(self, status: int, body: bytes, kind: str = "application/xml") -> None:
        self.send_response(status)
        self.send_header("content-type", kind)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def do_HEAD(self) -> None:  # noqa: N802 - http.server's name
        self._reply(404, b"")

    def do_GET(self) -> None:  # noqa: N802
        url = urlsplit(self.path)
        query = parse_qs(url.query)
        if "list-type" in query:
            contents = "".join(
                f"<Contents><Key>{quote(PREFIX + key)}</Key><Size>{len(body)}</Size></Contents>"
                for key, body in {**{k: b"x" for k in HOSTILE}, **GOOD}.items()
            )
            self._reply(
                200, f"<ListBucketResult><IsTruncated>false</IsTruncated>{contents}</ListBucketResult>".encode()
            )
            return
        key = unquote(url.path.split("/", 3)[3])[len(PREFIX) :]
        self._reply(200, GOOD.get(key, b"escaped " + key.encode(errors="replace")), "application/octet-stream")


@pytest.fixture
def storage() -> Iterator[VolumeStorage]:
    with s3_storage(_HostileS3, PREFIX) as s:
        yield s


def _files(top: Path) -> dict[str, bytes]:
    return {str(p.relative_to(top)): p.read_bytes() for p in top.rglob("*") if p.is_file() or p.is_symlink()}


def test_hostile_keys_write_nothing_outside_the_target(storage: VolumeStorage, tmp_path: Path) -> None:
    dest = tmp_path / "in" / "deep" / "dest"
    dest.mkdir(parents=True)
    result = direct.get(storage, "datasets/", str(dest), "vol")
    assert _files(tmp_path) == {"in/deep/dest/good.txt": b"good", "in/deep/dest/sub/fine.txt": b"fine"}
    assert result.files == 2
    reasons = {s.path: s.reason for s in result.skipped}
    for key, reason in HOSTILE.items():
        assert reason in reasons[key], (key, reasons)
    assert oct((dest / "good.txt").stat().st_mode & 0o7777) == "0o644"


def test_a_local_symlink_on_the_way_is_not_followed(storage: VolumeStorage, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    dest = tmp_path / "dest"
    dest.mkdir()
    (dest / "sub").symlink_to(outside)
    result = direct.get(storage, "datasets/", str(dest), "vol")
    assert list(outside.iterdir()) == []
    assert (dest / "good.txt").read_bytes() == b"good"
    assert any(s.path == "datasets/sub/fine.txt" and "sub is a local symlink" in s.reason for s in result.skipped)


def test_an_existing_file_is_replaced_only_as_the_user_says(storage: VolumeStorage, tmp_path: Path) -> None:
    (tmp_path / "good.txt").write_bytes(b"mine")
    kept = direct.get(storage, "datasets/", str(tmp_path), "vol")
    assert (tmp_path / "good.txt").read_bytes() == b"mine"
    assert any(s.path == "datasets/good.txt" and "already exists" in s.reason for s in kept.skipped)

    asked: list[str] = []
    direct.get(storage, "datasets/", str(tmp_path), "vol", overwrite=lambda where: asked.append(where) or SKIP)
    assert asked == [os.path.join(str(tmp_path), "good.txt"), os.path.join(str(tmp_path), "sub/fine.txt")]
    assert (tmp_path / "good.txt").read_bytes() == b"mine"
    direct.get(storage, "datasets/", str(tmp_path), "vol", overwrite=lambda where: REPLACE_ALL)
    assert (tmp_path / "good.txt").read_bytes() == b"good"
