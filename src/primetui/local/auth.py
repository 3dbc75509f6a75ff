"""The local platform's bearer token: generated on first start, kept 0600 in the data dir.

It is a local-only credential: ``primetui local serve`` prints it because the user needs it to point
the official CLI here, but it is never written to logs or error messages.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from primetui.config.fileio import atomic_write

TOKEN_FILE = "token"


def load_or_create_token(data_dir: Path) -> str:
    """Read ``<data_dir>/token``, creating it (mode 0600) with a fresh random token if missing or empty."""
    path = data_dir / TOKEN_FILE
    try:
        token = path.read_text(encoding="utf-8").strip()
        if token:
            if path.stat().st_mode & 0o077:
                os.chmod(path, 0o600)
            return token
    except FileNotFoundError:
        pass
    token = "local-" + secrets.token_urlsafe(32)
    atomic_write(path, token + "\n", mode=0o600)
    return token


def token_matches(header_value: str | None, token: str) -> bool:
    """True when an ``Authorization`` header carries exactly ``Bearer <token>`` (constant-time compare)."""
    if not header_value:
        return False
    scheme, _, value = header_value.partition(" ")
    if scheme.lower() != "bearer":
        return False
    return secrets.compare_digest(value.strip().encode(), token.encode())
