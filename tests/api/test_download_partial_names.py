"""A listed name shaped like another file's partial (``.NAME.primetui-partial``) is refused and listed:
landing it would let the write of ``NAME`` remove it (a file the get said it copied, gone) or, as a
folder, stop the whole get."""

from __future__ import annotations

from hostile_sftp import Tree, attrs, hostile_connection

from primetui.shell.transfer import get

BODY = b"twelve bytes"


async def _get(tmp_path, listing):
    tree = Tree(listings={b"/volume/d": listing, b"/volume/d/.ok.primetui-partial": []}, content=BODY)
    (tmp_path / "dl").mkdir()
    async with hostile_connection(tree, tmp_path / "server") as conn:
        return await get(conn, "d", tmp_path / "dl")


async def test_a_file_named_like_a_partial_is_refused_not_lost(tmp_path):
    result = await _get(
        tmp_path, [(b".ok.primetui-partial", attrs("file", size=len(BODY))), (b"ok", attrs("file", size=len(BODY)))]
    )
    landed = sorted(p.name for p in (tmp_path / "dl" / "d").iterdir())
    assert landed == ["ok"]
    assert (result.files, result.bytes) == (1, len(BODY))  # what it says it copied is what is there
    assert [(s.path, s.reason) for s in result.skipped] == [
        ("d/.ok.primetui-partial", "refused name: it is the name of a file being written (.NAME.primetui-partial)")
    ]


async def test_a_folder_named_like_a_partial_does_not_stop_the_get(tmp_path):
    result = await _get(
        tmp_path, [(b".ok.primetui-partial", attrs("dir", 0o755)), (b"ok", attrs("file", size=len(BODY)))]
    )
    assert (tmp_path / "dl" / "d" / "ok").read_bytes() == BODY
    assert result.files == 1
    assert [s.path for s in result.skipped] == ["d/.ok.primetui-partial"]
