"""Confinement, exact: the lexical rules of ``canonical_parts`` and the on-disk decision of
``resolve_volume_path``, with their sentences; the volume keys of owners; the size of a folder.

tests/local/test_path_property.py is the property (whatever a client writes stays inside); these pin
each rule's edge and message so a mutation of any of them fails (docs/testing.md, "Mutation testing").
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from primetui.local import paths
from primetui.local.paths import PathEscapeError, VolumePath, canonical_parts, resolve_volume_path, safe_join


def test_volume_keys_name_the_owner() -> None:
    assert paths.volume_key(None, "data") == "data"
    assert paths.volume_key("t1", "data") == "_teams/t1/data"
    assert paths.split_volume_key("_teams/t1/data") == ("t1", "data")
    assert paths.split_volume_key("data") == (None, "data")
    assert paths.split_volume_key("other/t1/data") == (None, "other/t1/data")
    assert paths.split_volume_key("_teams/t1") == (None, "_teams/t1")
    assert paths.volume_name_of("_teams/t1/data") == "data" and paths.volume_name_of("data") == "data"


def test_the_data_dir_is_the_flag_then_the_environment_then_the_default(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv(paths.DATA_DIR_ENV, str(tmp_path / "env"))
    assert paths.resolve_data_dir(tmp_path / "flag") == (tmp_path / "flag").resolve()
    assert paths.resolve_data_dir() == (tmp_path / "env").resolve()
    monkeypatch.delenv(paths.DATA_DIR_ENV)
    assert paths.resolve_data_dir() == paths.default_data_dir().resolve()
    assert paths.default_data_dir().name == "local" and paths.default_data_dir().parent.name == "primetui"


@pytest.mark.parametrize(
    "raw,parts,trailing",
    [
        ("", [], False),
        ("/", [], False),
        ("a/b/", ["a", "b"], True),
        ("a\\b\\", ["a", "b"], True),
        ("./a//./b", ["a", "b"], False),
        ("a/../b", ["b"], False),
        ("a/..", [], False),
        (b"caf\xc3\xa9", ["café"], False),
        ("e\u0301", ["\u00e9"], False),
        ("runs/x", ["runs", "x"], False),
        ("...", ["..."], False),
        ("x" * 255, ["x" * 255], False),
    ],
)
def test_canonical_parts(raw: str | bytes, parts: list[str], trailing: bool) -> None:
    assert canonical_parts(raw) == (parts, trailing)


@pytest.mark.parametrize(
    "raw,parts",
    [
        ("/volume/a", ["a"]),
        ("volume", []),
        ("/..", []),
        ("/../volume/a", ["a"]),
        ("/data/volume", ["data", "volume"]),
        ("a\x1bb", ["a\x1bb"]),  # a control is a legal name inside a session
    ],
)
def test_the_mount_form_is_seen_from_inside_a_session(raw: str, parts: list[str]) -> None:
    assert canonical_parts(raw, mount=True) == (parts, False)


@pytest.mark.parametrize(
    "raw,message",
    [
        (b"\xff", "the path is not UTF-8; volume paths are UTF-8 names"),
        ("a\x00b", "the path contains a NUL byte"),
        ("a\x1bb", "the path 'a\\x1bb' contains a control character or a lone surrogate"),
        ("a\ud800", "the path 'a\\ud800' contains a control character or a lone surrogate"),
        ("..", "the path '..' climbs above the volume root"),
        ("a/../../b", "the path 'a/../../b' climbs above the volume root"),
        ("．．/x", "the path '．．/x' has a part that reads as '..' (a look-alike of a dot or a separator)"),
        ("a\u2024", None),  # NFKC of ONE DOT LEADER is "." only alone: "a." is a name
        ("\u2024", "the path '\u2024' has a part that reads as '.' (a look-alike of a dot or a separator)"),
        ("a／b", "the path 'a／b' has a part that reads as 'a/b' (a look-alike of a dot or a separator)"),
        ("a＼b", "the path 'a＼b' has a part that reads as 'a\\\\b' (a look-alike of a dot or a separator)"),
        ("x" * 256, "a part of the path is longer than 255 bytes (the file system limit)"),
        ("é" * 128, "a part of the path is longer than 255 bytes (the file system limit)"),
        ("ｒｕｎｓ/x", "the path 'ｒｕｎｓ/x' starts with a look-alike of runs/; write runs exactly"),
        ("Runs", "the path 'Runs' starts with a look-alike of runs/; write runs exactly"),
    ],
)
def test_refusals_say_what_is_wrong(raw: str | bytes, message: str | None) -> None:
    if message is None:
        assert canonical_parts(raw)[0] == [raw]
        return
    with pytest.raises(PathEscapeError) as refused:
        canonical_parts(raw)
    assert str(refused.value) == message


def test_a_long_path_is_shown_cut_to_80_characters() -> None:
    raw = "a/" * 60 + ".." + "/.." * 61
    with pytest.raises(PathEscapeError) as refused:
        canonical_parts(raw)
    assert str(refused.value) == f"the path {raw[:80]!r} climbs above the volume root"


def test_look_alikes_below_the_top_and_runs_in_a_session_are_names(tmp_path: Path) -> None:
    assert canonical_parts("data/Runs") == (["data", "Runs"], False)
    assert canonical_parts("/volume/runs", mount=True) == (["runs"], False)
    with pytest.raises(PathEscapeError, match="look-alike of runs/"):
        canonical_parts("/volume/Runs", mount=True)


@pytest.fixture
def volume(tmp_path: Path) -> Path:
    root = tmp_path / "vol"
    (root / "data" / "a").mkdir(parents=True)
    (root / "data" / "a" / "f.txt").write_text("x")
    (root / "data" / "inner").symlink_to(root / "data" / "a")
    (root / "data" / "out").symlink_to(tmp_path)
    (root / "data" / "out-file").symlink_to(tmp_path / "secret")
    (tmp_path / "secret").write_text("s")
    return root


def test_a_path_resolves_on_disk_inside_the_volume(volume: Path) -> None:
    assert resolve_volume_path(volume, "data/inner/f.txt") == VolumePath("data/a/f.txt", volume / "data/a/f.txt")
    assert resolve_volume_path(volume, "") == VolumePath("", volume)
    assert resolve_volume_path(volume, "/") == VolumePath("", volume)
    found = resolve_volume_path(volume, b"data/new/")
    assert found == VolumePath("data/new", volume / "data/new", True) and found.key == "data/new/"
    assert found.top == "data" and resolve_volume_path(volume, "data/x").key == "data/x"
    assert resolve_volume_path(volume, "/").key == "" and VolumePath("", volume, True).key == ""
    assert resolve_volume_path(volume, "/volume/data", mount=True).rel == "data"


def test_the_last_link_is_the_object_when_not_followed(volume: Path) -> None:
    link = resolve_volume_path(volume, "data/inner", follow_last=False)
    assert link == VolumePath("data/inner", volume / "data/inner")
    assert safe_join(volume, "/data/inner") == volume / "data/inner"
    assert safe_join(volume, "data/new-file") == volume / "data/new-file"


@pytest.mark.parametrize("raw", ["data/out", "data/out/secret", "data/out-file"])
def test_a_symlink_out_of_the_volume_is_refused(volume: Path, raw: str) -> None:
    with pytest.raises(PathEscapeError) as refused:
        resolve_volume_path(volume, raw)
    assert str(refused.value) == f"the path {raw!r} leads outside the volume (through a symlink)"


def test_a_link_that_leads_out_is_refused_as_the_object_too(volume: Path) -> None:
    with pytest.raises(PathEscapeError, match="leads outside the volume"):
        resolve_volume_path(volume, "data/out-file", follow_last=False)
    with pytest.raises(PathEscapeError, match="leads outside the volume"):
        safe_join(volume, "data/out")


def test_a_path_too_long_for_the_file_system_is_refused_or_stays_inside(volume: Path) -> None:
    deep = "/".join(["d" * 250] * 40)  # past PATH_MAX in total
    try:
        decided = resolve_volume_path(volume, deep)
    except PathEscapeError as refused:
        assert str(refused).startswith(f"the path {deep[:80]!r} cannot be used (")
    else:
        assert decided.rel == deep  # a resolver that does not mind long paths: still inside


def test_a_folder_size_counts_regular_files_only(tmp_path: Path) -> None:
    (tmp_path / "d" / "e").mkdir(parents=True)
    (tmp_path / "d" / "one").write_bytes(b"x" * 10)
    (tmp_path / "d" / "e" / "two").write_bytes(b"y" * 5)
    (tmp_path / "d" / "link").symlink_to(tmp_path / "d" / "one")
    (tmp_path / "d" / "dirlink").symlink_to(tmp_path / "d" / "e")
    os.mkfifo(tmp_path / "d" / "fifo")
    assert paths.dir_size_bytes(tmp_path / "d") == 15
    assert paths.dir_size_bytes(tmp_path / "missing") == 0
    assert paths.dir_size_bytes(tmp_path / "d" / "one") == 0  # not a folder


def test_a_trailing_separator_is_a_slash_only_and_the_last_link_is_followed_by_default(volume: Path) -> None:
    assert canonical_parts("data/bX") == (["data", "bX"], False)
    assert resolve_volume_path(volume, "data/inner").rel == "data/a"
    with pytest.raises(PathEscapeError) as refused:
        resolve_volume_path(volume, b"data/out")
    assert str(refused.value) == "the path 'data/out' leads outside the volume (through a symlink)"
