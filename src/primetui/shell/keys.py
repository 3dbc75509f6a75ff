"""Which private key the dashboard offers a session, as the prime CLI chooses it."""

from __future__ import annotations

import os
from pathlib import Path


def local_platform_key_path() -> Path:
    """The key primetui creates for the embedded local platform when the user has none."""
    return Path.home() / ".prime" / "local" / "id_ed25519"


def resolve_key_path(ssh_key_path: str | os.PathLike[str] | None, *, local_platform: bool = False) -> Path:
    """``ssh_key_path`` (from settings) when that file exists; on the local platform, otherwise the
    key primetui created for it. The returned path may not exist: ``open_session_connection``
    then raises a KeyFileError that says what to set."""
    configured = Path(ssh_key_path).expanduser() if ssh_key_path else Path.home() / ".ssh" / "id_rsa"
    if not local_platform:
        return configured
    fallback = local_platform_key_path()
    if configured.exists() and (Path(str(configured) + ".pub").exists() or not fallback.exists()):
        return configured
    # The local platform accepts the configured key only when it can see its public half; when it
    # could not (no .pub, passphrase), it made ~/.prime/local/id_ed25519 for us instead.
    return fallback if fallback.exists() else configured
