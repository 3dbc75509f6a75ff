"""Downloads stay inside the chosen folder whatever the server lists; put and get share the rules.

A hostile SFTP server (tests/api/hostile_sftp.py) lists ``../../x``, ``sub/../../../x``, absolute
paths, NUL bytes, setuid modes, symlinks and FIFOs; nothing may land outside the target, modes
keep only safe permission bits, existing files are replaced only when asked, and the result says
what was skipped and why.
"""

from __future__ import annotations

import os
import stat

import pytest
from hostile_sftp import CONTENT, Tree, attrs, hostile_connection, outside

from primetui.shell.confine import EXISTS_REASON, REPLACE_ALL, SKIP
from primetui.shell.errors import RemotePathError
from primetui.shell.transfer import get, put

pytestmark = pytest.mark.timeout(60)


def _reasons(result) -> dict[str, str]:
    return {s.path: s.reason for s in result.skipped}


async def test_hostile_names_are_refused_and_nothing_lands_outside(tmp_path):
    area = tmp_path / "area"  # everything here but the target must stay as it was
    abs_target = str(area / "abs-x").encode()
    tree = Tree(
        listings={
            b"/volume/d": [
                (b"../../x", attrs()),
                (b"sub/../../../x", attrs()),
                (abs_target, attrs()),
                (b"nul\x00name", attrs()),
                (b"..", attrs("dir")),
                (b"", attrs()),
                (b"setuid.bin", attrs("file", 0o4777)),
                (b"link", attrs("link", 0o777)),
                (b"fifo", attrs("fifo")),
                (b"sock", attrs("socket")),
                (b"sub", attrs("dir", 0o7777)),
                (b"setuid.bin", attrs("file", 0o644)),  # listed twice
            ],
            b"/volume/d/sub": [(b"inner.txt", attrs("file", 0o2666)), (b"../../../../y", attrs())],
        }
    )
    target = area / "a" / "b" / "dl"
    target.mkdir(parents=True)
    (area / "x").write_bytes(b"mine")
    before = outside(area, target)
    async with hostile_connection(tree, tmp_path / "server") as conn:
        result = await get(conn, "d", target)
    assert outside(area, target) == before
    got = sorted(str(p.relative_to(target)) for p in target.rglob("*"))
    assert got == ["d", "d/setuid.bin", "d/sub", "d/sub/inner.txt"]
    assert result.files == 2
    assert (target / "d" / "setuid.bin").read_bytes() == CONTENT
    # Only permission bits, and no group/world write: 0o4777 -> 0o755, 0o2666 -> 0o644.
    assert stat.S_IMODE((target / "d" / "setuid.bin").stat().st_mode) == 0o755
    assert stat.S_IMODE((target / "d" / "sub" / "inner.txt").stat().st_mode) == 0o644
    reasons = _reasons(result)
    assert reasons["d/../../x"] == "refused name: it holds a /"
    assert reasons["d/sub/../../../x"] == "refused name: it holds a /"
    assert reasons["d/sub/../../../../y"] == "refused name: it holds a /"
    assert reasons["d/" + abs_target.decode()] == "refused name: it is an absolute path"
    assert reasons["d/nul\x00name"] == "refused name: it holds a NUL byte"
    assert reasons['d/""'] == "refused name: it is empty"
    assert reasons["d/link"] == "a symlink, not followed"
    assert reasons["d/fifo"] == "a FIFO (named pipe), not a regular file"
    assert reasons["d/sock"] == "a socket, not a regular file"
    assert "listed twice" in [s.reason for s in result.skipped if s.path == "d/setuid.bin"][0]
    assert "d/.." not in reasons  # every listing holds . and ..: not worth a word


async def test_a_local_symlink_in_the_target_is_never_followed(tmp_path):
    tree = Tree(
        listings={b"/volume/d": [(b"f.txt", attrs()), (b"sub", attrs("dir"))], b"/volume/d/sub": [(b"g.txt", attrs())]}
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    target = tmp_path / "dl"
    (target / "d").mkdir(parents=True)
    (target / "d" / "sub").symlink_to(elsewhere)  # planted: the folder the server's sub/ would go into
    (tmp_path / "secret").write_bytes(b"mine")
    (target / "d" / "f.txt").symlink_to(tmp_path / "secret")
    async with hostile_connection(tree, tmp_path / "server") as conn:
        kept = await get(conn, "d", target)
        assert list(elsewhere.iterdir()) == []
        assert "local symlink or file" in _reasons(kept)["d/sub"]
        assert "d/sub/g.txt" not in _reasons(kept)  # said once, for the folder in the way
        assert _reasons(kept)["d/f.txt"] == EXISTS_REASON
        assert (target / "d" / "f.txt").is_symlink()
        replaced = await get(conn, "d", target, overwrite=True)
    assert replaced.files == 1
    assert not (target / "d" / "f.txt").is_symlink() and (target / "d" / "f.txt").read_bytes() == CONTENT
    assert (tmp_path / "secret").read_bytes() == b"mine"  # the link was replaced, not written through
    assert list(elsewhere.iterdir()) == []


async def test_existing_files_are_replaced_only_when_asked_and_all_is_one_answer(tmp_path):
    tree = Tree(listings={b"/volume/d": [(n, attrs("file", 0o666)) for n in (b"a", b"b", b"c", b"new")]})
    target = tmp_path / "dl"
    (target / "d").mkdir(parents=True)
    for name, mode in (("a", 0o664), ("b", 0o600), ("c", 0o644)):
        (target / "d" / name).write_bytes(b"old")
        os.chmod(target / "d" / name, mode)
    asked: list[str] = []

    async def never(where: str) -> str:
        asked.append(where)
        return SKIP

    async def all_at_once(where: str) -> str:
        asked.append(where)
        return REPLACE_ALL

    async with hostile_connection(tree, tmp_path / "server") as conn:
        default = await get(conn, "d", target)
        assert default.files == 1 and {s.path for s in default.skipped} == {"d/a", "d/b", "d/c"}
        assert all((target / "d" / n).read_bytes() == b"old" for n in "abc")
        refused = await get(conn, "d", target, overwrite=never)
        assert len(asked) == 4 and all((target / "d" / n).read_bytes() == b"old" for n in "abc")
        assert _reasons(refused)["d/a"] == "already exists; kept, as you chose"
        asked.clear()
        await get(conn, "d", target, overwrite=all_at_once)
    assert len(asked) == 1 and asked[0].endswith("/a")
    assert all((target / "d" / n).read_bytes() == CONTENT for n in ("a", "b", "c", "new"))
    # Group write survives only where the replaced file already had it.
    assert stat.S_IMODE((target / "d" / "a").stat().st_mode) == 0o664
    assert stat.S_IMODE((target / "d" / "b").stat().st_mode) == 0o644
    assert stat.S_IMODE((target / "d" / "new").stat().st_mode) == 0o644


async def test_a_hostile_volume_name_or_top_entry_is_refused_with_a_sentence(tmp_path):
    tree = Tree(listings={b"/volume": [(b"f", attrs())]}, top={b"/volume/pipe": attrs("fifo")})
    async with hostile_connection(tree, tmp_path / "server", volume="../../evil") as conn:
        with pytest.raises(RemotePathError, match="Cannot use '../../evil' as a local name"):
            await get(conn, "", tmp_path / "dl")
        with pytest.raises(RemotePathError, match="pipe is a FIFO"):
            await get(conn, "pipe", tmp_path / "dl")
    assert not (tmp_path / "evil").exists()


async def test_a_listing_without_end_stops_at_the_limit_with_a_sentence(tmp_path, monkeypatch):
    import itertools

    import primetui.shell.transfer as transfer
    from primetui.shell.errors import TransferError

    monkeypatch.setattr(transfer, "MAX_LISTED", 3000)  # the mechanism, without reading 100,000 entries

    def endless():
        for n in itertools.count():
            yield b"f%d" % n, attrs("fifo")  # nothing to copy: only the listing grows

    target = tmp_path / "dl"
    async with hostile_connection(Tree(listings={b"/volume/d": endless}), tmp_path / "server") as conn:
        with pytest.raises(TransferError, match="d lists more than 3000 entries; get a smaller folder"):
            await get(conn, "d", target)
    assert not target.exists()  # refused while planning, before anything local was made


async def test_put_skips_links_and_fifos_and_strips_setuid_and_asks_before_replacing(tmp_path):
    src = tmp_path / "ds"
    src.mkdir()
    (src / "run.sh").write_bytes(b"#!/bin/sh\n")
    os.chmod(src / "run.sh", 0o4777)
    (src / "data.txt").write_bytes(b"new")
    (src / "link").symlink_to(tmp_path / "secret")
    (tmp_path / "secret").write_bytes(b"not for the volume")
    os.mkfifo(src / "pipe")
    server = tmp_path / "server"
    (server / "volume" / "ds").mkdir(parents=True)
    (server / "volume" / "ds" / "data.txt").write_bytes(b"old")
    async with hostile_connection(Tree(), server) as conn:
        result = await put(conn, str(src), "/")
        assert result.files == 1
        assert _reasons(result) == {
            "ds/link": "a symlink, not followed",
            "ds/pipe": "a FIFO (named pipe), not a regular file",
            "ds/data.txt": EXISTS_REASON,
        }
        assert (server / "volume" / "ds" / "data.txt").read_bytes() == b"old"
        assert stat.S_IMODE((server / "volume" / "ds" / "run.sh").stat().st_mode) == 0o755
        assert not (server / "volume" / "ds" / "link").exists()

        async def yes(where: str) -> str:
            assert where == "vol:/ds/data.txt"
            return REPLACE_ALL

        again = await put(conn, str(src), "/", overwrite=yes)
    assert again.files == 2 and (server / "volume" / "ds" / "data.txt").read_bytes() == b"new"


def test_the_dialog_and_put_run_one_target_check(tmp_path):
    from primetui.shell.transfer import check_get_target, check_put_target
    from primetui.ui.transfer import check_get, check_put

    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "f.txt").write_text("x")
    for local, remote in (
        ("", "datasets/"),
        (str(tmp_path / "pipe"), "datasets/"),
        (str(tmp_path / "nope"), "x"),
        (str(tmp_path / "f.txt"), "runs/x"),
        (str(tmp_path / "f.txt"), "../x"),
    ):
        with pytest.raises(RemotePathError) as caught:
            check_put_target(local, remote)
        assert check_put(local, remote) == str(caught.value)
    assert "is a FIFO" in check_put(str(tmp_path / "pipe"), "datasets/")
    with pytest.raises(RemotePathError) as caught:
        check_get_target("d", str(tmp_path / "f.txt"))
    assert check_get("d", str(tmp_path / "f.txt")) == str(caught.value)
