"""The one atomic-write helper: symlinks, modes, owners, read-only files, CRLF, failures."""

from __future__ import annotations

import os
import stat

import pytest

from primetui.config import fileio
from primetui.config.fileio import ReadOnlyFileError, atomic_write, read_text_file


def _mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_a_symlink_stays_a_link_and_its_target_is_written(tmp_path):
    real = tmp_path / "real" / "sft.toml"
    real.parent.mkdir()
    real.write_text("old\n")
    link = tmp_path / "sft.toml"
    link.symlink_to(real)
    written = atomic_write(link, "new\n")
    assert link.is_symlink() and written == real.resolve()
    assert real.read_text() == "new\n"


def test_an_existing_file_keeps_its_mode_and_owner(tmp_path):
    path = tmp_path / "f"
    path.write_text("x")
    os.chmod(path, 0o640)
    if os.getuid() == 0:
        os.chown(path, 1234, 4321)
    atomic_write(path, "y")
    assert _mode(path) == 0o640 and path.read_text() == "y"
    if os.getuid() == 0:
        assert (os.stat(path).st_uid, os.stat(path).st_gid) == (1234, 4321)


def test_a_new_file_gets_the_umask_default_and_secrets_ask_for_0600(tmp_path):
    old = os.umask(0o022)
    try:
        atomic_write(tmp_path / "plain", "x")
        atomic_write(tmp_path / "secret", "x", mode=0o600)
    finally:
        os.umask(old)
    assert _mode(tmp_path / "plain") == 0o644
    assert _mode(tmp_path / "secret") == 0o600


def test_a_read_only_file_is_refused_with_a_sentence_and_left_alone(tmp_path):
    path = tmp_path / "sft.toml"
    path.write_text("keep\n")
    os.chmod(path, 0o444)
    with pytest.raises(ReadOnlyFileError, match="read-only; it was not changed"):
        atomic_write(path, "lost\n")
    assert path.read_text() == "keep\n" and _mode(path) == 0o444
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sft.toml"]


def test_crlf_and_a_missing_final_newline_survive_a_round_trip(tmp_path):
    path = tmp_path / "sft.toml"
    path.write_bytes(b"max_steps = 1\r\n[ckpt]\r\ninterval = 5")
    loaded = read_text_file(path)
    assert loaded.text == "max_steps = 1\n[ckpt]\ninterval = 5" and loaded.newline == "\r\n"
    atomic_write(path, loaded.text.replace("1", "2"), newline=loaded.newline)
    assert path.read_bytes() == b"max_steps = 2\r\n[ckpt]\r\ninterval = 5"


def test_a_failed_write_leaves_no_temporary_file(tmp_path, monkeypatch):
    path = tmp_path / "sft.toml"
    path.write_text("keep\n")

    def fail(*_a, **_k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(fileio.os, "replace", fail)
    with pytest.raises(OSError, match="No space"):
        atomic_write(path, "new\n")
    assert path.read_text() == "keep\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sft.toml"]


def test_no_writer_replaces_files_by_hand():
    """Every writer goes through fileio.atomic_write. Four stream bodies of any size to a partial file of
    their own: transfers (descriptor-relative, confined), session staging, the storage route's uploads and
    S3 imports (s3transfer writes each object to a staging file, renamed into the volume when whole).
    Log rotation (config/logcap.py) renames whole log files aside; it writes no file's content by hand."""
    import pathlib

    src = pathlib.Path(fileio.__file__).parents[1]
    allowed = {
        "config/fileio.py",
        "shell/transfer.py",
        "local/sessions/staging.py",
        "local/storage/s3.py",
        "config/logcap.py",
        "local/transfers/jobs.py",
    }
    offenders = []
    for p in src.rglob("*.py"):
        rel = p.relative_to(src).as_posix()
        text = p.read_text(encoding="utf-8")
        if rel not in allowed and any(s in text for s in ("os.replace(", "mkstemp(", "NamedTemporaryFile(")):
            offenders.append(rel)
    assert offenders == []
