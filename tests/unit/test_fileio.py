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


# ---- exact behaviour, so a mutation of any rule fails (docs/testing.md, "Mutation testing") --------------


def test_read_only_means_no_write_bit_and_a_missing_file_is_not_read_only(tmp_path):
    path = tmp_path / "f"
    assert not fileio.is_read_only(path)  # missing: a new file may be written
    path.write_text("x")
    os.chmod(path, 0o555)  # readable and executable, writable by no one (root included, by our rule)
    assert fileio.is_read_only(path)
    os.chmod(path, 0o200)
    assert not fileio.is_read_only(path)


def test_a_path_that_is_not_a_link_is_written_where_it_is_named(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "via").symlink_to(tmp_path / "real")
    named = tmp_path / "via" / "sft.toml"
    assert fileio.write_target(named) == named  # only the file's own link is followed, not its folders


def test_the_read_only_refusal_is_eacces_naming_the_file(tmp_path):
    import errno

    path = tmp_path / "sft.toml"
    path.write_text("keep\n")
    os.chmod(path, 0o444)
    with pytest.raises(ReadOnlyFileError) as refused:
        atomic_write(path, "lost\n")
    assert refused.value.errno == errno.EACCES and refused.value.filename == str(path)
    assert refused.value.strerror == f"{path} is read-only; it was not changed"


def test_modes_are_exact_whatever_the_umask(tmp_path):
    old = os.umask(0o022)
    try:
        kept = tmp_path / "group-writable"
        kept.write_text("x")
        os.chmod(kept, 0o666)
        atomic_write(kept, "y")
        atomic_write(tmp_path / "asked", "x", mode=0o664)
    finally:
        os.umask(old)
    assert _mode(kept) == 0o666 and _mode(tmp_path / "asked") == 0o664


def test_the_temporary_file_sits_beside_the_target_with_a_short_random_name(tmp_path, monkeypatch):
    renamed: list[tuple[str, str]] = []
    real_replace = os.replace
    monkeypatch.setattr(fileio.os, "replace", lambda a, b: (renamed.append((str(a), str(b))), real_replace(a, b)))
    target = tmp_path / "sft.toml"
    atomic_write(target, "x")
    ((tmp, dest),) = renamed
    name = os.path.basename(tmp)
    assert os.path.dirname(tmp) == str(tmp_path) and dest == str(target)
    assert name.startswith(".sft.toml.") and name.endswith(".tmp") and len(name) == len(".sft.toml..tmp") + 8


def test_a_temporary_name_already_taken_is_skipped_for_another(tmp_path, monkeypatch):
    names = iter(["aaaaaaaa", "bbbbbbbb"])
    monkeypatch.setattr(fileio.secrets, "token_hex", lambda _n: next(names))
    taken = tmp_path / ".f.aaaaaaaa.tmp"
    taken.write_text("someone else's")
    atomic_write(tmp_path / "f", "mine")
    assert (tmp_path / "f").read_text() == "mine" and taken.read_text() == "someone else's"


@pytest.mark.parametrize("where", ["fchmod", "fsync"])
def test_a_failure_closes_only_its_own_descriptor_and_raises_what_failed(tmp_path, monkeypatch, where):
    path = tmp_path / "f"
    path.write_text("keep")
    closed: list[object] = []
    real_close = os.close

    def close(fd):
        closed.append(fd)
        if isinstance(fd, int) and fd > 2:
            real_close(fd)

    def fail(*_a, **_k):
        raise OSError(5, f"{where} failed")

    monkeypatch.setattr(fileio.os, "close", close)
    monkeypatch.setattr(fileio.os, where, fail)
    with pytest.raises(OSError, match=f"{where} failed"):
        atomic_write(path, "new")
    # before fdopen the descriptor is closed by hand; after it, the file object closed it
    assert all(isinstance(fd, int) and fd > 2 for fd in closed) and len(closed) == (1 if where == "fchmod" else 0)
    assert path.read_text() == "keep" and sorted(p.name for p in tmp_path.iterdir()) == ["f"]


def test_when_the_owner_cannot_be_kept_the_group_is(tmp_path, monkeypatch):
    path = tmp_path / "f"
    path.write_text("x")
    st = os.stat(path)
    calls: list[tuple[int, int, int]] = []

    def fchown(fd, uid, gid):
        calls.append((fd, uid, gid))
        if uid != -1:
            raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(fileio.os, "fchown", fchown)
    monkeypatch.setattr(fileio.os, "getuid", lambda: st.st_uid + 1)  # as if someone else owned the file
    atomic_write(path, "y")
    assert [c[1:] for c in calls] == [(st.st_uid, st.st_gid), (-1, st.st_gid)] and calls[0][0] == calls[1][0] > 2
    assert path.read_text() == "y"


def test_the_text_and_json_writers_and_the_digest(tmp_path):
    import hashlib
    import json

    assert fileio.atomic_write_text(tmp_path / "t", "a\nb", mode=0o600) == tmp_path / "t"
    assert (tmp_path / "t").read_bytes() == b"a\nb" and _mode(tmp_path / "t") == 0o600
    nested = tmp_path / "new" / "dir" / "state.json"
    fileio.write_json_atomic(nested, {"a": [1]}, mode=0o600)
    fileio.write_json_atomic(nested, {"a": [2]}, mode=0o600)  # the folder exists now: no error
    assert json.loads(nested.read_text()) == {"a": [2]} and _mode(nested) == 0o600
    assert fileio.file_digest(nested) == hashlib.sha256(nested.read_bytes()).hexdigest()
    assert fileio.file_digest(tmp_path / "missing") is None


def test_a_file_with_lf_ends_reads_back_as_lf_with_its_digest(tmp_path):
    import hashlib

    path = tmp_path / "sft.toml"
    path.write_bytes(b"a = 1\nb = 2\n")
    loaded = read_text_file(path)
    assert loaded == fileio.LoadedText("a = 1\nb = 2\n", "\n", hashlib.sha256(b"a = 1\nb = 2\n").hexdigest())
