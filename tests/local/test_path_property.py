"""Property: whatever a client writes, a path decided by ``paths.resolve_volume_path`` stays inside the
grant, and a writer never lands in ``runs/``.

Keys are built from the encodings that have fooled path checks: ``\\``, ``%2e%2e``, ``%2f``, ``%5c``,
a second layer of escapes, fullwidth and other NFKC dots and slashes, combining characters, NUL and
other controls, ``//``, ``./``, ``../``, and symlinks planted in a temporary volume (into the grant,
beside it, into ``runs/``, out of the volume, up to the root, a loop). Each key goes through the
storage route's own decision (one percent-decode, ``s3._volume_key``, ``Grant.may_write``) and
through SFTP's (``ContainedSFTPServer.map_path`` and ``_check_write``).

The oracle is computed apart from the code under test: controls from code points, look-alikes
from ``unicodedata.normalize("NFKC", ...)``, climbing from ``posixpath.normpath``, and where a path
lands from ``os.path.realpath`` on the real tree (the kernel's view), not from the decision's own
``rel``.
"""

from __future__ import annotations

import os
import posixpath
import time
import unicodedata
from pathlib import Path
from unittest import mock
from urllib.parse import unquote

import asyncssh
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from primetui.local.paths import PathEscapeError, resolve_volume_path
from primetui.local.sessions.sftp_server import ContainedSFTPServer
from primetui.local.storage import s3
from primetui.local.storage.grants import Grant, Lease
from primetui.local.storage.objects import list_keys

VOLUME = "research"
SEGMENTS = [
    "datasets",
    "a",
    "file.txt",
    "new.txt",
    "inner",
    "to-private",
    "to-runs",
    "to-outside",
    "up",
    "loop",
    "private",
    "secret.txt",
    "runs",
    "r1",
    "out.txt",
    "volume",
    "..",
    ".",
    "",
    "...",
    "%2e%2e",
    "%2e",
    "%2f",
    "%2F",
    "%5c",
    "%5C",
    "%252e%252e",
    "%252f",
    "%00",
    "%0a",
    "%1b",  # one decode, or two
    "．．",
    "．",
    "\u2024\u2024",
    "／",
    "＼",
    "\u2215",
    "ｒｕｎｓ",
    "Runs",
    "RUNS",
    "ʳᵘⁿˢ",  # NFKC look-alikes
    "e\u0301",
    "\u00e9",
    ".\u0301",
    "runs\u0301",
    "ru\u0308ns",  # combining characters (NFD and NFC)
    "\x00",
    "a\x00b",
    "\x1b[31m",
    "\x7f",
    "\u0085",
    "\t",
    "%c0%ae%c0%ae",  # controls, an overlong UTF-8 dot
]
SEPARATORS = ["/", "/", "\\", "//", "\\\\", "/./", "\\.\\", "/../", "\\..\\", "%2f", "%5c", "%2f..%2f"]


def _key() -> st.SearchStrategy[str]:
    piece = st.tuples(st.sampled_from(SEGMENTS), st.sampled_from(SEPARATORS)).map("".join)
    return st.tuples(
        st.sampled_from(["", "/", "\\", "datasets/", "datasets/a/"]),
        st.lists(piece, max_size=6),
        st.sampled_from(SEGMENTS),
    ).map(lambda t: t[0] + "".join(t[1]) + t[2])


@pytest.fixture(scope="module")
def volume(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("property")
    (base / "outside").mkdir()
    (base / "outside" / "secret.txt").write_bytes(b"outside\n")
    root = base / VOLUME
    for rel in ("datasets/a/file.txt", "datasets/%2e%2e/file.txt", "private/secret.txt", "runs/r1/out.txt"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(b"x\n")
    links = {
        "datasets/inner": "a",
        "datasets/to-private": "../private",
        "datasets/to-runs": "../runs",
        "datasets/to-outside": str(base / "outside"),
        "datasets/up": "..",
        "datasets/loop": "loop",
        "datasets/a/to-runs": "../../runs/r1",
    }
    for rel, target in links.items():
        (root / rel).symlink_to(target)
    return root.resolve()


GRANTS = {  # base, entries, mode: what V9 issues, plus writers it never issues (the wall must hold anyway)
    "get datasets": ("datasets", None, "get"),
    "get volume": ("", None, "get"),
    "put datasets": ("datasets", None, "put"),
    "put volume": ("", None, "put"),
    "put entries": ("", frozenset({"datasets", "runs", "private", "Runs", "ｒｕｎｓ"}), "put"),
}


def _grant(name: str) -> Grant:
    base, entries, mode = GRANTS[name]
    lease = Lease("lease_test", VOLUME, time.time() + 3600) if mode == "put" else None
    return Grant("LPTKTEST", "secret", "token", VOLUME, mode, base, entries, time.time() + 3600, lease)


# --- the oracle: computed from the standard library and the real tree, not from the decision ---------


def _controls(text: str) -> bool:
    return any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in text)


def _oracle(root: Path, key: str, mount: bool = False) -> tuple[str, Path | None]:
    """("refuse", None) for what no volume path may be, else ("place", where the kernel would land).

    ``mount``: a path as seen inside a session, where ``/`` is the root (``/..`` is ``/``) and
    ``/volume`` names it too.
    """
    if "\x00" in key or (_controls(key) and not mount):  # a session's names may hold controls; a key may not
        return "refuse", None
    text = unicodedata.normalize("NFC", key.replace("\\", "/"))  # the documented rule: '\\' is a separator
    for part in text.split("/"):
        compat = unicodedata.normalize("NFKC", part)
        if compat != part and (compat in (".", "..") or "/" in compat or "\\" in compat):
            return "refuse", None
    if mount:
        norm = posixpath.normpath("/" + text.lstrip("/"))  # (normpath keeps a leading "//")
        if norm == "/volume" or norm.startswith("/volume/"):
            norm = norm[len("/volume") :] or "/"
        norm = norm.lstrip("/") or "."
    else:
        norm = posixpath.normpath(text.lstrip("/")) if text.strip("/") else "."
    if norm == ".." or norm.startswith("../"):
        return "refuse", None
    top = norm.split("/", 1)[0]
    if unicodedata.normalize("NFKC", top).casefold() == "runs" and top != "runs":
        return "refuse", None
    return "place", Path(os.path.realpath(root / norm))


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _in_grant(root: Path, grant: Grant, real: Path) -> bool:
    if not _inside(real, root):
        return False
    if grant.base:
        return _inside(real, root / grant.base)
    if grant.entries is not None:
        return real != root and real.relative_to(root).parts[0] in grant.entries
    return True


def _in_runs(root: Path, real: Path) -> bool:
    if not _inside(real, root) or real == root:
        return False
    top = real.relative_to(root).parts[0]
    return unicodedata.normalize("NFKC", top).casefold() == "runs"


# --- the storage route ----------------------------------------------------------------------------


def _storage_decision(root: Path, grant: Grant, url_key: str, write: bool) -> Path | None:
    """What the route does with ``/s3/<bucket>/research/<url_key>``: the place it touches, or None when refused."""
    key = unquote(url_key)  # the endpoint's one decode of the request path
    with mock.patch.object(s3, "_root", lambda storage, g: root):
        try:
            target = s3._decide(None, grant, f"{VOLUME}/{key}", write=write)  # type: ignore[arg-type]
        except s3.S3Error as exc:
            assert exc.status in (400, 403) and exc.message.endswith("."), exc.message
            return None
    return target.path


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(url_key=_key(), grant_name=st.sampled_from(sorted(GRANTS)))
@example(url_key="datasets/up/ｒｕｎｓ", grant_name="put entries")  # a look-alike of runs/, through a symlink
def test_a_storage_key_lands_inside_its_grant_and_never_in_runs_for_a_writer(
    volume: Path, url_key: str, grant_name: str
) -> None:
    grant = _grant(grant_name)
    write = grant.mode == "put"
    landed = _storage_decision(volume, grant, url_key, write)
    verdict, place = _oracle(volume, unquote(url_key))
    if landed is not None:
        real = Path(os.path.realpath(landed))  # where the kernel goes, links and all
        assert verdict == "place", f"{url_key!r} should have been refused"
        assert real == place
        assert _in_grant(volume, grant, real), f"{url_key!r} reached {real} outside the grant {grant_name}"
        assert not (write and _in_runs(volume, real)), f"{url_key!r} lets a writer into runs/"
    elif verdict == "place" and place is not None:
        # refused: only because the kernel's place is outside what this grant may touch
        allowed = _in_grant(volume, grant, place) and not (write and _in_runs(volume, place))
        assert not allowed, f"{url_key!r} was refused though it lands at {place}, inside {grant_name}"


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(url_prefix=_key(), grant_name=st.sampled_from(["get datasets", "put entries"]))
def test_a_listing_shows_only_keys_inside_its_grant(volume: Path, url_prefix: str, grant_name: str) -> None:
    grant = _grant(grant_name)
    with mock.patch.object(s3, "_root", lambda storage, g: volume):
        try:
            prefix = s3._volume_key(None, grant, f"{VOLUME}/{unquote(url_prefix)}", listing=True)  # type: ignore[arg-type]
        except s3.S3Error:
            return
    for entry in list_keys(volume, prefix.key, delimiter=False):
        real = Path(os.path.realpath(volume / entry.key))
        assert _in_grant(volume, grant, real), f"listing {url_prefix!r} showed {entry.key}"


# --- SFTP -----------------------------------------------------------------------------------------


def _sftp(root: Path) -> ContainedSFTPServer:
    server = ContainedSFTPServer.__new__(ContainedSFTPServer)  # the path methods need no channel
    server._root, server._read_only, server._on_activity = root, False, None
    return server


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(path=_key(), lead=st.sampled_from(["", "/", "/volume/", "volume/", "/volume/../", "/../../"]))
@example(path="datasets/up/ｒｕｎｓ", lead="")  # a look-alike of runs/, through a symlink
def test_an_sftp_write_stays_in_the_volume_and_out_of_runs(volume: Path, path: str, lead: str) -> None:
    raw = lead + path
    server = _sftp(volume)
    try:
        server._check_write(raw.encode("utf-8"))
        mapped: bytes | None = server.map_path(raw.encode("utf-8"))
    except asyncssh.SFTPPermissionDenied:
        mapped = None
    verdict, place = _oracle(volume, raw, mount=True)  # SFTP carries bytes: nothing is percent-decoded
    if mapped is not None:
        real = Path(os.path.realpath(mapped.decode("utf-8")))
        assert verdict == "place" and real == place, f"SFTP {raw!r} should have been refused"
        assert _inside(real, volume), f"SFTP {raw!r} reached {real}"
        assert not _in_runs(volume, real), f"SFTP {raw!r} writes into runs/ at {real}"
    elif verdict == "place" and place is not None:
        assert not _inside(place, volume) or _in_runs(volume, place), f"SFTP refused {raw!r} though it lands at {place}"


# --- fixed points the property relies on ------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "rel"),
    [
        ("datasets/..\\private\\secret.txt", "private/secret.txt"),
        ("datasets//./a/file.txt", "datasets/a/file.txt"),
        ("datasets/%2e%2e/file.txt", "datasets/%2e%2e/file.txt"),  # decoded once already: a literal name
        ("datasets/inner/file.txt", "datasets/a/file.txt"),
        ("datasets/to-runs/r1", "runs/r1"),
        ("datasets/e\u0301", "datasets/\u00e9"),  # NFC
    ],
)
def test_fixed_points(volume: Path, raw: str, rel: str) -> None:
    assert resolve_volume_path(volume, raw).rel == rel


@pytest.mark.parametrize(
    "raw",
    [
        "..",
        "datasets/../../x",
        "a\x00b",
        "a\x1bb",
        "．．/x",
        "ｒｕｎｓ/x",
        "Runs",
        "datasets/to-outside/secret.txt",
        "datasets/up/datasets/to-outside/x",
    ],
)
def test_refused(volume: Path, raw: str) -> None:
    with pytest.raises(PathEscapeError):
        resolve_volume_path(volume, raw)
