"""A fuzz of get against a hostile SFTP server: generated listings, names, types, sizes and attributes.

Seeds are fixed and the number of cases is fixed, so a failure reproduces (the case's seed is in
the assertion message). Each case plants a symlink out of the target and files beside it, and an
oracle (:func:`expect`) works out from the generated tree alone, by the rules of
docs/security.md, what the get must do:

- whether it is refused as a whole (only a volume name that cannot be a local name is);
- which entries are skipped and named in ``skipped`` (a refused name, a second entry of a local
  name, a path too long, a symlink, FIFO, socket, device or untyped entry, a file without a usable
  size or whose body is not its listed size, a file in the way of the planted link, the planted
  link as a folder);
- which files arrive, under which local name (as the screen shows it), with which bytes and mode.

Then the case checks exactly that: the result's counts and skipped paths, every file and folder
under the target, and that nothing outside the target changed. A get that aborts where one
entry should have been skipped, or loses a file it should have kept, fails the case.
"""

from __future__ import annotations

import asyncio
import os
import random
import resource
import stat
from dataclasses import dataclass, field

import pytest
from hostile_sftp import Tree, attrs, hostile_connection, outside

from primetui.monitor_core.escapes import clean
from primetui.shell.errors import ShellError
from primetui.shell.transfer import get

pytestmark = pytest.mark.timeout(300)

SEEDS = range(150)
HANG_S = 60.0
"""A bound on a hung case, not a speed check."""
MAX_SEGMENT, MAX_KEY = 255, 1024  # the platform's limits on a name and on a volume path (docs/security.md)
MAX_DEPTH = 3

_NAMES = [
    b"ok",
    b"data.jsonl",
    b"x",
    b"sub",
    b"..",
    b".",
    b"../x",
    b"../../x",
    b"sub/../../../x",
    b"a/b",
    b"/etc/passwd",
    b"/",
    b"",
    b"nul\x00x",
    b"\x00",
    b"out",
    b"\xff\xfe",
    b"\x1b[31mred",
    b"\x1b]52;c;aGk=\x07",
    "e\u0301".encode(),
    b"\xe2\x80\x8bzw",
    b"n" * 255,
    b"n" * 256,
    b"-rf",
    b"~",
    b"$(id)",
    b".primetui-partial",
    b".ok.primetui-partial",
    "\x1b".encode() * 100 + b"long",
]  # ESC shown as its 3-byte symbol: 300 bytes made visible
_KINDS = ["file", "file", "file", "dir", "dir", "link", "fifo", "socket", "chr", "blk", "none"]
_MODES = [0o644, 0o4777, 0o2777, 0o1777, 0o7777, 0o666, 0o000, 0o177777, 0o222]
_TYPES = {stat.S_IFDIR: "dir", stat.S_IFREG: "file"}


def _kind(entry) -> str:
    """The entry's type as the client reads it (from the mode bits, SFTPv3); "other" for the rest."""
    return "other" if entry.permissions is None else _TYPES.get(stat.S_IFMT(entry.permissions), "other")


def _entry(rng: random.Random, content: bytes) -> tuple[bytes, object]:
    name = rng.choice(_NAMES) if rng.random() < 0.8 else bytes(rng.randrange(256) for _ in range(rng.randrange(1, 12)))
    kind = rng.choice(_KINDS)
    extra = {}
    if rng.random() < 0.5:
        extra["mtime"] = rng.choice([0, 1, 2**31 - 1, 2**32 - 1, rng.randrange(2**32)])
        extra["atime"] = rng.choice([0, 2**32 - 1, rng.randrange(2**32)])
    entry = attrs(kind, rng.choice(_MODES) & 0o7777, **extra)
    if kind == "file":  # most listed at the body's true size, so files arrive; the rest lie
        n = len(content)
        entry.size = rng.choice([n, n, n, n, 0, n + 1, max(0, n - 1), 2**63 - 1, None])
    return name, entry


def _tree(rng: random.Random) -> Tree:
    content = bytes(rng.randrange(256) for _ in range(rng.randrange(0, 300)))
    listings: dict[bytes, list] = {}
    pending = [(b"/volume/d", 0)]
    while pending:
        path, depth = pending.pop()
        # Every folder the client may open is listed (empty below the depth limit).
        entries = [_entry(rng, content) for _ in range(rng.randrange(0, 14))] if depth < MAX_DEPTH else []
        listings[path] = entries
        for name, entry in entries:
            if _kind(entry) == "dir" and b"/" not in name and b"\0" not in name and name not in (b"", b".", b".."):
                pending.append((path + b"/" + name, depth + 1))
    return Tree(listings=listings, content=content)


# ---- the oracle: the rules of docs/security.md, applied to the generated tree --------------------


def _refused(name: bytes) -> bool:
    return (
        not name
        or b"\0" in name
        or b"/" in name
        or name in (b".", b"..")
        or len(name) > MAX_SEGMENT
        or (name.startswith(b".") and name.endswith(b".primetui-partial"))
    )  # another file's partial while it is written


def landing(name: bytes) -> bytes | None:
    """The local name a listed name lands under (the text the screen shows, in UTF-8), or None if refused."""
    if _refused(name):
        return None
    local = clean(name.decode("utf-8", "replace")).encode()
    return None if _refused(local) else local


@dataclass
class Expected:
    refused: bool = False  # the whole get is refused before anything is written
    skipped: set[str] = field(default_factory=set)  # paths named in TransferResult.skipped
    files: dict[tuple[bytes, ...], tuple[bytes, int]] = field(default_factory=dict)  # local parts -> (bytes, mode)
    dirs: set[tuple[bytes, ...]] = field(default_factory=set)  # local folders made

    def count(self) -> tuple[int, int]:
        return len(self.files), sum(len(body) for body, _ in self.files.values())


def _shown(raw: bytes) -> str:
    return raw.decode("utf-8", "backslashreplace")


def expect(
    tree: Tree, top: bytes, volume_rel: bytes, top_local: bytes | None, planted: bytes | None, overwrite: bool
) -> Expected:
    """What a get of ``top`` must do. ``volume_rel`` is ``top`` below /volume; ``top_local`` the folder it
    lands in under the target (None: the volume's name cannot be a local name); ``planted`` the
    target's folder holding the ``out`` symlink (None: none was planted)."""
    out = Expected()
    if top_local is None:
        out.refused = True
        return out
    blocked = (top_local, b"out") if planted == top_local else None  # the planted link, as a folder on the way
    files: list[tuple[tuple[bytes, ...], bytes, object]] = []
    stack: list[tuple[bytes, bytes, tuple[bytes, ...]]] = [(top, volume_rel, (top_local,))]
    while stack:
        path, rel_dir, parts = stack.pop()
        out.dirs.add(parts)
        seen: set[bytes] = set()
        for name, entry in tree.listings[path]:
            if name in (b".", b".."):
                continue  # every listing has them; not entries
            rel = rel_dir + b"/" + name if rel_dir else name
            local = landing(name)
            if local is None or len(rel) > MAX_KEY:
                out.skipped.add(_shown(rel if name else rel + b'""'))
                continue
            if local in seen:  # the first entry of a local name wins, whatever its type
                out.skipped.add(_shown(rel))
                continue
            seen.add(local)
            kind = _kind(entry)
            if kind == "dir":
                stack.append((path + b"/" + name, rel, parts + (local,)))
            elif kind == "file":
                files.append((parts + (local,), rel, entry))
            else:
                out.skipped.add(_shown(rel))
    link_in_the_way = blocked in out.dirs
    if link_in_the_way:  # named once; nothing below it lands
        out.skipped.add(_shown(b"/".join(blocked)))
        out.dirs = {d for d in out.dirs if d[: len(blocked)] != blocked}
    for parts, rel, entry in files:
        if link_in_the_way and parts[: len(blocked)] == blocked:
            continue
        if entry.size is None or entry.size != len(tree.content):  # no size, more than the disk, or a lying size
            out.skipped.add(_shown(rel))
            continue
        if parts == blocked and not overwrite:  # the planted link is an existing file: left as it was
            out.skipped.add(_shown(rel))
            continue
        out.files[parts] = (tree.content, stat.S_IMODE(entry.permissions) & 0o755)
    return out


# ---- the check ------------------------------------------------------------------------------------


def _found(root, planted_link) -> tuple[dict[tuple[bytes, ...], tuple[bytes, int]], set[tuple[bytes, ...]]]:
    """Every file (its bytes and mode) and folder under ``root``, as local name parts."""
    files, dirs = {}, set()
    base = os.fsencode(root)
    for dirpath, dirnames, filenames in os.walk(base):
        here = tuple(p for p in os.path.relpath(dirpath, base).split(b"/") if p != b".")
        for d in dirnames:
            full = os.path.join(dirpath, d)
            if os.path.islink(full):
                assert full == planted_link, f"{full!r} is a symlink"
                continue
            dirs.add(here + (d,))
        for f in filenames:
            full = os.path.join(dirpath, f)
            st = os.lstat(full)
            if stat.S_ISLNK(st.st_mode):
                assert full == planted_link, f"{full!r} is a symlink"
                continue
            assert stat.S_ISREG(st.st_mode), f"{full!r} is not a regular file"
            os.chmod(full, 0o600)  # to read it whatever mode it landed with (the mode is recorded first)
            with open(full, "rb") as fh:
                files[here + (f,)] = (fh.read(), stat.S_IMODE(st.st_mode))
    return files, dirs


async def test_get_against_generated_hostile_listings(tmp_path):
    holder = Tree()
    peak_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    outcomes = {"refused": 0, "files": 0, "skipped": 0}
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
            overwrite = rng.random() < 0.5
            conn.endpoint.volume_name = folder
            holder.listings, holder.content = generated.listings, generated.content
            area = tmp_path / f"case{seed}"
            target = area / "a" / "dl"
            target.mkdir(parents=True)
            (area / "beside").mkdir()
            (area / "x").write_bytes(b"mine")
            planted = None
            if not _refused(folder.encode()):
                (target / folder).mkdir(exist_ok=True)
                (target / folder / "out").symlink_to(area / "beside")  # a planted way out
                planted = folder.encode()
            want = expect(generated, top, b"" if whole else b"d", landing(folder.encode()), planted, overwrite)
            before = outside(area, target)
            try:
                result = await asyncio.wait_for(get(conn, remote, target, overwrite=overwrite), HANG_S)
            except ShellError as exc:
                message = str(exc)
                assert message and "\n" not in message and "Traceback" not in message, f"seed {seed}: {message!r}"
                assert want.refused, (
                    f"seed {seed}: the whole get was aborted ({message}); expected it to skip "
                    f"{sorted(want.skipped)[:4]} and bring {len(want.files)} files"
                )
                result = None
            assert outside(area, target) == before, f"seed {seed}: something outside the target changed"
            planted_link = os.fsencode(target / folder / "out") if planted else None
            files, dirs = _found(target, planted_link)
            if result is None:
                assert files == {} and dirs <= {(planted,)}, f"seed {seed}: a refused get wrote {sorted(files)[:3]}"
                outcomes["refused"] += 1
                continue
            assert not want.refused, f"seed {seed}: the get went ahead under a volume name it must refuse"
            assert all(s.path and s.reason for s in result.skipped), f"seed {seed}: a skip without a reason"
            named = {s.path for s in result.skipped}
            assert named == want.skipped, (
                f"seed {seed}: skipped without a word: {sorted(want.skipped - named)[:3]}; "
                f"skipped but expected: {sorted(named - want.skipped)[:3]}"
            )
            assert files == want.files, (
                f"seed {seed}: missing {sorted(set(want.files) - set(files))[:3]}, unexpected "
                f"{sorted(set(files) - set(want.files))[:3]}, or other bytes or modes"
            )
            assert dirs == want.dirs | ({(planted,)} if planted else set()), f"seed {seed}: folders differ"
            assert (result.files, result.bytes) == want.count(), f"seed {seed}: the result's counts"
            outcomes["files"] += len(want.files)
            outcomes["skipped"] += len(want.skipped)
    # The generator reaches every outcome (a fuzz that never lands a file proves nothing about landing).
    assert outcomes["refused"] > 0 and outcomes["files"] > 100 and outcomes["skipped"] > 100, outcomes
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - peak_before
    assert grown < 200 * 1024, f"peak memory grew by {grown // 1024} MiB"
