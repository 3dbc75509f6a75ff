"""A fuzz of get against a hostile SFTP server: generated listings, names, types and attributes.

Seeds are fixed and the number of cases is fixed, so a failure reproduces (the case's seed is in
the assertion message). Each case plants a symlink out of the target and files beside it, then
asserts: nothing outside the target changed, nothing in it is a symlink or has a setuid, setgid,
sticky or group/world-write bit, the call ended in bounded time with a result or a one-sentence
ShellError, every entry that is not a plain file or folder is named in ``skipped``, and the
whole run stays within bounded time and memory.
"""

from __future__ import annotations

import asyncio
import random
import resource
import stat
import time

import pytest
from hostile_sftp import Tree, attrs, hostile_connection, outside

from primetui.shell.errors import ShellError
from primetui.shell.transfer import get

pytestmark = pytest.mark.timeout(90)

SEEDS = range(150)
CASE_DEADLINE_S = 10.0

_NAMES = [b"ok", b"data.jsonl", b"x", b"sub", b"..", b".", b"../x", b"../../x", b"sub/../../../x", b"a/b", b"/etc/passwd",
          b"/", b"", b"nul\x00x", b"\x00", b"out", b"\xff\xfe", b"\x1b[31mred", b"\x1b]52;c;aGk=\x07", "e\u0301".encode(),
          b"\xe2\x80\x8bzw", b"n" * 255, b"n" * 256, b"-rf", b"~", b"$(id)", b".primetui-partial", b".ok.primetui-partial"]
_KINDS = ["file", "file", "file", "dir", "dir", "link", "fifo", "socket", "chr", "blk", "none"]
_MODES = [0o644, 0o4777, 0o2777, 0o1777, 0o7777, 0o666, 0o000, 0o177777, 0o222]


def _is(entry, test) -> bool:
    """The entry's type as the client reads it (from the mode bits, SFTPv3)."""
    return entry.permissions is not None and test(entry.permissions)


def _entry(rng: random.Random) -> tuple[bytes, object]:
    name = rng.choice(_NAMES) if rng.random() < 0.8 else bytes(rng.randrange(256) for _ in range(rng.randrange(1, 12)))
    kind = rng.choice(_KINDS)
    extra = {}
    if rng.random() < 0.5:
        extra["mtime"] = rng.choice([0, 1, 2**31 - 1, 2**32 - 1, rng.randrange(2**32)])
        extra["atime"] = rng.choice([0, 2**32 - 1, rng.randrange(2**32)])
    size = rng.choice([None, 0, 5, 2**63 - 1]) if kind == "file" else None
    return name, attrs(kind, rng.choice(_MODES) & 0o7777, size=size, **extra)


def _tree(rng: random.Random) -> Tree:
    listings: dict[bytes, list] = {}
    pending = [(b"/volume/d", 0)]
    while pending:
        path, depth = pending.pop()
        entries = [_entry(rng) for _ in range(rng.randrange(0, 14))]
        listings[path] = entries
        for name, entry in entries:
            if _is(entry, stat.S_ISDIR) and depth < 3 and b"/" not in name and b"\0" not in name and name not in (b"", b".", b".."):
                pending.append((path + b"/" + name, depth + 1))
    return Tree(listings=listings, content=bytes(rng.randrange(256) for _ in range(rng.randrange(0, 300))))


def _plain(name: bytes) -> bool:
    return name not in (b"", b".", b"..") and b"/" not in name and b"\0" not in name and len(name) <= 255


def _must_be_named(tree: Tree, top: bytes) -> set[str]:
    """Paths of the entries the client reaches that are not a plain file or folder: each must be in skipped."""
    expected: set[str] = set()
    stack = [top]
    while stack:
        path = stack.pop()
        seen: set[bytes] = set()
        for name, entry in tree.listings.get(path, ()):
            if name in (b".", b".."):
                continue
            rel = (path + b"/" + name + (b"" if name else b'""')).removeprefix(b"/volume/").decode("utf-8", "backslashreplace")
            first = _plain(name) and name not in seen  # the first of a name wins, whatever its type
            if _plain(name):
                seen.add(name)
            if not first or not (_is(entry, stat.S_ISDIR) or _is(entry, stat.S_ISREG)):
                expected.add(rel)
                continue
            if _is(entry, stat.S_ISDIR):
                stack.append(path + b"/" + name)
    return expected


def _check_target(target, seed: int) -> None:
    for path in target.rglob("*"):
        st = path.lstat()
        assert not stat.S_ISLNK(st.st_mode) or path.name == "out", f"seed {seed}: {path} is a symlink"
        if stat.S_ISREG(st.st_mode):
            mode = stat.S_IMODE(st.st_mode)
            assert not mode & (stat.S_ISUID | stat.S_ISGID | stat.S_ISVTX | 0o022), f"seed {seed}: {path} has mode {oct(mode)}"


async def test_get_against_generated_hostile_listings(tmp_path):
    holder = Tree()
    started = time.monotonic()
    peak_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    async with hostile_connection(holder, tmp_path / "server") as conn:
        for seed in SEEDS:
            rng = random.Random(seed)
            generated = _tree(rng)
            # A quarter of the cases get the whole volume, under a generated volume name.
            whole = rng.random() < 0.25
            top, remote, folder = b"/volume/d", "d", "d"
            if whole:
                top, remote = b"/volume", ""
                generated.listings = {top + k.removeprefix(b"/volume/d"): v for k, v in generated.listings.items()}
                folder = rng.choice(_NAMES).decode("utf-8", "replace")
            conn.endpoint.volume_name = folder
            holder.listings, holder.content = generated.listings, generated.content
            area = tmp_path / f"case{seed}"
            target = area / "a" / "dl"
            target.mkdir(parents=True)
            (area / "beside").mkdir()
            (area / "x").write_bytes(b"mine")
            if _plain(folder.encode()):
                (target / folder).mkdir(exist_ok=True)
                (target / folder / "out").symlink_to(area / "beside")  # a planted way out
            before = outside(area, target)
            try:
                result = await asyncio.wait_for(get(conn, remote, target, overwrite=rng.random() < 0.5), CASE_DEADLINE_S)
            except ShellError as exc:
                message = str(exc)
                assert message and "\n" not in message and "Traceback" not in message, f"seed {seed}: {message!r}"
                result = None
            assert outside(area, target) == before, f"seed {seed}: something outside the target changed"
            _check_target(target, seed)
            if result is not None:
                assert all(s.path and s.reason for s in result.skipped), f"seed {seed}: a skip without a reason"
                named = {s.path for s in result.skipped}
                missing = _must_be_named(generated, top) - named
                assert not missing, f"seed {seed}: left out without a word: {sorted(missing)[:3]}"
    assert time.monotonic() - started < 60, "the fuzz must stay within the suite's time budget"
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - peak_before
    assert grown < 200 * 1024, f"peak memory grew by {grown // 1024} MiB"
