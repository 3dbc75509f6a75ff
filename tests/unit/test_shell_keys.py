"""The client key: every way it can be unusable gives one sentence that says what to do."""

from __future__ import annotations

import os

import asyncssh
import pytest

from primetui.shell.connect import load_client_key
from primetui.shell.errors import KeyFileError


def test_missing_directory_garbage_and_locked_keys(tmp_path, monkeypatch):
    with pytest.raises(KeyFileError, match=r"SSH key not found at .*nope; set ssh_key_path"):
        load_client_key(tmp_path / "nope")
    with pytest.raises(KeyFileError, match="is a directory, not an SSH private key"):
        load_client_key(tmp_path)
    garbage = tmp_path / "garbage"
    garbage.write_text("not a key\n")
    with pytest.raises(KeyFileError, match="is not a readable SSH private key"):
        load_client_key(garbage)
    locked = tmp_path / "locked"
    locked.write_bytes(asyncssh.generate_private_key("ssh-ed25519").export_private_key("pkcs8-pem", passphrase="pw"))
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)
    with pytest.raises(KeyFileError, match=r"protected by a passphrase and no ssh-agent is running; .*ssh-add"):
        load_client_key(locked)
    monkeypatch.setenv("SSH_AUTH_SOCK", str(tmp_path / "agent.sock"))
    assert load_client_key(locked) is None  # with an agent, the agent's keys are offered instead
    good = tmp_path / "good"
    good.write_bytes(asyncssh.generate_private_key("ssh-ed25519").export_private_key())
    assert load_client_key(good) is not None
    if os.geteuid() != 0:  # root reads anything
        good.chmod(0)
        with pytest.raises(KeyFileError, match="permission denied"):
            load_client_key(good)
