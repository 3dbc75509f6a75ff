"""Which client keys the local platform accepts, and which one the dashboard offers."""

from __future__ import annotations

import os

import asyncssh

from primetui.local.sessions import keys
from primetui.shell.keys import resolve_key_path


def _write_key(path, *, pub: bool, passphrase: str | None = None):
    key = asyncssh.generate_private_key("ssh-ed25519")
    path.parent.mkdir(parents=True, exist_ok=True)
    # PKCS#8 for the locked key: OpenSSH-format encryption would need bcrypt, which is not installed
    fmt = "pkcs8-pem" if passphrase else "openssh"
    path.write_bytes(key.export_private_key(fmt, passphrase=passphrase))
    os.chmod(path, 0o600)
    if pub:
        path.with_name(path.name + ".pub").write_bytes(key.export_public_key())
    return key


def test_key_without_pub_is_accepted_through_its_public_half(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    key_path = tmp_path / "home" / ".ssh" / "id_rsa"
    monkeypatch.setenv("PRIME_SSH_KEY_PATH", str(key_path))
    key = _write_key(key_path, pub=False)
    accepted = keys.authorized_keys(tmp_path / "data")
    assert accepted is not None and accepted.validate(key.convert_to_public(), "127.0.0.1", "127.0.0.1") is not None
    assert keys.has_usable_key(key_path)
    assert "public half derived" in keys.describe_accepted_keys(tmp_path / "data")[0]
    assert resolve_key_path(key_path, local_platform=True) == key_path


def test_locked_key_without_pub_falls_back_to_the_local_platform_key(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    key_path = tmp_path / "home" / ".ssh" / "id_ed25519"
    monkeypatch.setenv("PRIME_SSH_KEY_PATH", str(key_path))
    locked = _write_key(key_path, pub=False, passphrase="secret")
    assert not keys.has_usable_key(key_path)
    made = keys.ensure_local_client_key()
    assert made == tmp_path / "home" / ".prime" / "local" / "id_ed25519"
    assert oct(made.stat().st_mode & 0o777) == "0o600"
    accepted = keys.authorized_keys(tmp_path / "data")
    local_pub = asyncssh.read_public_key(str(made) + ".pub")
    assert accepted.validate(local_pub, "127.0.0.1", "127.0.0.1") is not None
    assert accepted.validate(locked.convert_to_public(), "127.0.0.1", "127.0.0.1") is None
    assert resolve_key_path(key_path, local_platform=True) == made
    assert resolve_key_path(key_path, local_platform=False) == key_path  # hosted: always ssh_key_path


def test_host_key_and_gateway_cert_persist(tmp_path):
    first = keys.host_public_key_line(keys.load_host_key(tmp_path))
    assert first.startswith("ssh-ed25519 ") and len(first.split()) == 2
    assert keys.host_public_key_line(keys.load_host_key(tmp_path)) == first
    cert = keys.load_gateway_cert(tmp_path)
    assert len(cert.sha256) == 64 and keys.load_gateway_cert(tmp_path).sha256 == cert.sha256
    assert oct(cert.key_path.stat().st_mode & 0o777) == "0o600"
