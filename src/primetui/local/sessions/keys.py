"""The local platform's persistent SSH host key, gateway certificate, and the client keys it accepts.

Everything lives under ``<data_dir>/sessions/`` so it survives restarts: a host key that changed
on every start would make the pinned ``hostPublicKey`` (and the official CLI's known_hosts entry)
useless.

Accepted client keys (re-read on every login, so a key added later works without a restart):

1. the ``.pub`` beside ``ssh_key_path`` (``PRIME_SSH_KEY_PATH`` or the prime config), as the hosted
   platform accepts the account's registered key that matches it;
2. the key primetui creates for the local platform, ``~/.prime/local/id_ed25519`` (created on first
   start when step 1 finds no ``.pub``, so a fresh laptop can still open a shell);
3. any lines in ``<data_dir>/sessions/authorized_keys`` (OpenSSH format), for extra users and tests.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import logging
import os
from dataclasses import dataclass
from pathlib import Path

import asyncssh

from primetui.config.fileio import atomic_write

log = logging.getLogger("primetui.local.sessions")

HOST_KEY_FILE = "ssh_host_ed25519_key"
GATEWAY_CERT_FILE = "gateway.crt"
GATEWAY_KEY_FILE = "gateway.key"
AUTHORIZED_KEYS_FILE = "authorized_keys"


def sessions_dir(data_dir: Path) -> Path:
    """``<data_dir>/sessions``: keys, the session table's working dirs, the authorized_keys file."""
    path = Path(data_dir) / "sessions"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _write_private(path: Path, data: bytes) -> None:
    atomic_write(path, data, mode=0o600)


def load_host_key(data_dir: Path) -> asyncssh.SSHKey:
    """The platform's ed25519 host key, generated once and kept (0600) in the data dir."""
    path = sessions_dir(data_dir) / HOST_KEY_FILE
    if path.exists():
        return asyncssh.read_private_key(str(path))
    key = asyncssh.generate_private_key("ssh-ed25519", comment="primetui-local-host")
    _write_private(path, key.export_private_key())
    atomic_write(path.with_suffix(".pub"), key.export_public_key())
    return key


def host_public_key_line(key: asyncssh.SSHKey) -> str:
    """``ssh-ed25519 AAAA...`` without a comment: the ``hostPublicKey`` the API returns."""
    return " ".join(key.export_public_key("openssh").decode().split()[:2])


@dataclass(frozen=True)
class GatewayCert:
    """The gateway's self-signed certificate: PEM paths and the pinned SHA-256 of its DER form."""

    cert_path: Path
    key_path: Path
    sha256: str


def load_gateway_cert(data_dir: Path) -> GatewayCert:
    """The gateway's self-signed TLS certificate, generated once (ECDSA P-256, 10 years)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    folder = sessions_dir(data_dir)
    cert_path, key_path = folder / GATEWAY_CERT_FILE, folder / GATEWAY_KEY_FILE
    if not (cert_path.exists() and key_path.exists()):
        key = ec.generate_private_key(ec.SECP256R1())
        name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "primetui-local-gateway")])
        now = _dt.datetime.now(_dt.timezone.utc)
        cert = (
            x509.CertificateBuilder()
            .subject_name(name)
            .issuer_name(name)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - _dt.timedelta(days=1))
            .not_valid_after(now + _dt.timedelta(days=3650))
            .sign(key, hashes.SHA256())
        )
        _write_private(
            key_path,
            key.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption(),
            ),
        )
        atomic_write(cert_path, cert.public_bytes(serialization.Encoding.PEM))
    cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
    der = cert.public_bytes(serialization.Encoding.DER)
    return GatewayCert(cert_path, key_path, hashlib.sha256(der).hexdigest())


def local_client_key_path() -> Path:
    """``~/.prime/local/id_ed25519``: the key primetui makes when the user has none to offer."""
    return Path.home() / ".prime" / "local" / "id_ed25519"


def ensure_local_client_key() -> Path:
    """Create the local-platform client key pair if it is missing; return the private key path."""
    path = local_client_key_path()
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        key = asyncssh.generate_private_key("ssh-ed25519", comment="primetui-local")
        _write_private(path, key.export_private_key())
        atomic_write(Path(str(path) + ".pub"), key.export_public_key())
        log.info("created the local platform SSH key %s (no .pub beside ssh_key_path)", path)
    return path


def configured_key_path() -> Path | None:
    """``ssh_key_path`` as the prime CLI reads it (env ``PRIME_SSH_KEY_PATH``, then the config file)."""
    try:
        from primetui.config.settings import load_settings
    except ImportError:  # without the settings module, the env var alone
        raw = os.environ.get("PRIME_SSH_KEY_PATH")
        return Path(raw).expanduser() if raw else Path.home() / ".ssh" / "id_rsa"
    try:
        value = load_settings().ssh_key_path
    except Exception:  # a broken config file must not stop the SSH server; log and fall back
        log.warning("could not read ssh_key_path from the prime config; using only other keys")
        return None
    return Path(value).expanduser() if value else None


def public_half(private_key_path: Path) -> str | None:
    """The OpenSSH public line of an unencrypted private key, or None (missing, locked, unreadable)."""
    try:
        key = asyncssh.read_private_key(str(private_key_path))
    except (OSError, ValueError, asyncssh.KeyImportError):
        return None
    return key.export_public_key("openssh").decode().strip()


def has_usable_key(configured: Path | None) -> bool:
    """True when the configured key can be accepted: a .pub beside it, or an unencrypted private key."""
    if configured is None:
        return False
    return Path(str(configured) + ".pub").exists() or public_half(configured) is not None


def describe_accepted_keys(data_dir: Path) -> list[str]:
    """Human-readable list of where accepted keys come from (logged at start)."""
    sources = []
    configured = configured_key_path()
    if configured and Path(str(configured) + ".pub").exists():
        sources.append(f"{configured}.pub (beside ssh_key_path)")
    elif configured and public_half(configured):
        sources.append(f"{configured} (ssh_key_path; public half derived, no .pub beside it)")
    local = local_client_key_path()
    if Path(str(local) + ".pub").exists():
        sources.append(f"{local}.pub (primetui's local platform key)")
    extra = sessions_dir(data_dir) / AUTHORIZED_KEYS_FILE
    if extra.exists():
        sources.append(str(extra))
    return sources


def authorized_keys(data_dir: Path) -> asyncssh.SSHAuthorizedKeys | None:
    """All currently accepted client public keys, or None when there are none."""
    lines: list[str] = []
    configured = configured_key_path()
    candidates = []
    if configured:
        candidates.append(Path(str(configured) + ".pub"))
    candidates.append(Path(str(local_client_key_path()) + ".pub"))
    candidates.append(sessions_dir(data_dir) / AUTHORIZED_KEYS_FILE)
    if configured and not Path(str(configured) + ".pub").exists():
        derived = public_half(configured)  # a key without its .pub beside it (common with id_rsa)
        if derived:
            lines.append(derived)
    for path in candidates:
        try:
            text = path.read_text()
        except (OSError, UnicodeDecodeError):
            continue
        lines.extend(line for line in text.splitlines() if line.strip() and not line.startswith("#"))
    good: list[str] = []
    for line in lines:
        try:
            asyncssh.import_authorized_keys(line)
        except (ValueError, asyncssh.KeyImportError):
            log.warning("ignoring an unreadable authorized key line")
            continue
        good.append(line)
    return asyncssh.import_authorized_keys("\n".join(good)) if good else None
