"""Staging and the final sync between directories: progress lines, symlink containment, runs/ untouched."""

from __future__ import annotations

import os
from pathlib import Path

from primetui.local.sessions.staging import sync_back, stage


def _tree(root: Path) -> dict[str, bytes | str]:
    out: dict[str, bytes | str] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            p = Path(dirpath) / name
            rel = str(p.relative_to(root))
            if p.is_symlink():
                out[rel] = "-> " + os.readlink(p)
            elif p.is_file():
                out[rel] = p.read_bytes()
    return out


def test_stage_copies_everything_but_escaping_links(tmp_path):
    vol, work = tmp_path / "vol", tmp_path / "work"
    (vol / "data").mkdir(parents=True)
    (vol / "data" / "x.bin").write_bytes(b"x" * 3000)
    (vol / "runs" / "r1").mkdir(parents=True)
    (vol / "runs" / "r1" / "log.txt").write_text("log")
    (vol / "rel-link").symlink_to("data/x.bin")
    (vol / "abs-link").symlink_to(vol / "data" / "x.bin")  # absolute: would write into the volume
    (vol / "data" / "up-link").symlink_to("../../outside")
    lines: list[str] = []
    final = stage(vol, work, lines.append)
    tree = _tree(work)
    assert tree["data/x.bin"] == b"x" * 3000 and tree["runs/r1/log.txt"] == b"log"
    assert tree["rel-link"] == "-> data/x.bin"
    assert "abs-link" not in tree and "data/up-link" not in tree
    assert lines[0].startswith("Transferred: 0 B / 2.933 KiB, 0%")
    assert "100%" in final and "(2/2 files)" in final and "2 symlink(s) leaving the volume skipped" in final


def test_sync_back_mirrors_changes_and_leaves_runs_alone(tmp_path):
    vol, work = tmp_path / "vol", tmp_path / "work"
    (vol / "keep").mkdir(parents=True)
    (vol / "keep" / "same.txt").write_text("same")
    (vol / "gone.txt").write_text("deleted in the session")
    (vol / "becomes-dir").write_text("file first")
    (vol / "runs" / "r1").mkdir(parents=True)
    (vol / "runs" / "r1" / "ckpt").write_text("checkpoint")
    stage(vol, work, lambda line: None)
    (work / "gone.txt").unlink()
    (work / "becomes-dir").unlink()
    (work / "becomes-dir").mkdir()
    (work / "becomes-dir" / "inner.txt").write_text("inner")
    (work / "new.txt").write_text("new")
    (work / "runs" / "r1" / "ckpt").write_text("clobbered")
    (work / "runs" / "r2").mkdir()
    (work / "evil").symlink_to("/etc")
    (work / ".upload.bin.primetui-partial").write_bytes(b"half a file")  # a put cut off by the stop
    final = sync_back(work, vol, lambda line: None)
    tree = _tree(vol)
    assert "gone.txt" not in tree
    assert tree["becomes-dir/inner.txt"] == b"inner" and tree["new.txt"] == b"new"
    assert tree["keep/same.txt"] == b"same"
    assert tree["runs/r1/ckpt"] == b"checkpoint" and "runs/r2" not in tree
    assert "evil" not in tree and ".upload.bin.primetui-partial" not in tree
    assert "(2/2 files)" in final  # only the two changed files were copied


def test_read_only_copy_has_no_write_bits_and_can_still_be_removed(tmp_path):
    import stat

    from primetui.local.sessions.staging import make_read_only, remove_tree

    vol, work = tmp_path / "vol", tmp_path / "work"
    (vol / "a" / "b").mkdir(parents=True)
    (vol / "a" / "b" / "f.txt").write_text("x")
    (vol / "top.txt").write_text("y")
    stage(vol, work, lambda line: None)
    make_read_only(work)
    for path in [work, work / "a", work / "a" / "b", work / "a" / "b" / "f.txt", work / "top.txt"]:
        assert stat.S_IMODE(path.stat().st_mode) & 0o222 == 0, path
    remove_tree(work)
    assert not work.exists()
    assert (vol / "top.txt").read_text() == "y"  # the volume itself keeps its modes and files
    assert stat.S_IMODE((vol / "top.txt").stat().st_mode) & 0o200
