"""The pieces of the session sandbox that decide what is visible: /etc's secrets, the Python for `hf`,
the order of mounts, and the probe's reason when bwrap is missing (the shells say it on open)."""

from __future__ import annotations

import sys

from primetui.local.sessions import mountns, sandbox


def test_etc_hides_what_is_not_world_readable(tmp_path):
    etc = tmp_path / "etc"
    (etc / "ssl" / "private").mkdir(parents=True)
    (etc / "ssl" / "private" / "host.key").write_text("KEY")
    (etc / "ssl" / "private").chmod(0o700)
    (etc / "shadow").write_text("root:$6$hash")
    (etc / "shadow").chmod(0o640)
    (etc / "passwd").write_text("root:x:0:0")
    (etc / "link").symlink_to("shadow")
    args = sandbox.etc_masks(etc)
    pairs = list(zip(args[::3], args[1::3], args[2::3]))
    assert ("--ro-bind", "/dev/null", str(etc / "shadow")) in pairs
    assert args[args.index("--tmpfs") + 1] == str(etc / "ssl" / "private")
    assert str(etc / "passwd") not in args and str(etc / "link") not in args
    assert str(etc / "ssl" / "private" / "host.key") not in args  # its folder is hidden whole


def test_the_python_for_hf_never_brings_the_data_dir_the_home_or_the_current_folder(tmp_path, monkeypatch):
    home = tmp_path / "home"
    prefix = home / ".pyenv" / "3.11"
    site = prefix / "lib" / "site-packages"
    site.mkdir(parents=True)
    data_dir = tmp_path / "srv" / "primetui" / "data"
    data_dir.mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    for name in ("prefix", "exec_prefix", "base_prefix", "base_exec_prefix"):
        monkeypatch.setattr(sys, name, str(prefix))
    monkeypatch.setattr(sys, "path", [str(tmp_path), str(site), str(tmp_path / "srv"), str(home), "relative"])
    chosen = sandbox.python_paths(data_dir, str(home))
    assert str(prefix) in chosen
    assert str(site) not in chosen  # inside the prefix, which is bound whole
    for hidden in (tmp_path, tmp_path / "srv", home):  # the current folder, the data dir's parent, the home
        assert str(hidden) not in chosen
    # The home's tmpfs comes before the Python inside it, or it would hide it.
    argv = sandbox.wrap(["true"], work=tmp_path, read_only=True, home=str(home), data_dir=data_dir)
    assert argv.index(str(home)) < argv.index(str(prefix))
    assert argv[argv.index("/volume") - 2 : argv.index("/volume")] == ["--ro-bind", str(tmp_path)]
    assert "--cap-drop" in argv and argv[argv.index("--cap-drop") + 1] == "ALL"


def test_without_bwrap_the_probe_says_so(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # a PATH with no bwrap on it
    assert mountns._probe_sandbox(tmp_path) == "bubblewrap (bwrap) is not installed"
