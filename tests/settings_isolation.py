"""Settings isolation for tests that run the real command line or dashboard: no PRIME_* or deadline
variable from outside leaks in, and HOME and every primetui folder live in a temporary directory."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

OUTSIDE = (
    "PRIME_API_KEY",
    "PRIME_TEAM_ID",
    "PRIME_BASE_URL",
    "PRIME_API_BASE_URL",
    "PRIME_FRONTEND_URL",
    "PRIME_CONTEXT",
    "PRIMETUI_HEADLESS_DEADLINE",
    "PRIMETUI_REPLY_DEADLINE",
)
"""Variables removed: each would change which platform, key or deadline the test sees."""
FOLDERS = (
    ("HOME", ""),
    ("PRIMETUI_CONFIG_DIR", "cfg"),
    ("PRIMETUI_CACHE_DIR", "cache"),
    ("PRIMETUI_LOG_DIR", "logs"),
    ("PRIMETUI_CRASH_DIR", "crashes"),
    ("PRIMETUI_DRAFTS_DIR", "drafts"),
)
"""(variable, sub-folder of the temporary directory) of HOME and the primetui folders."""


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def isolate_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Remove :data:`OUTSIDE` and point :data:`FOLDERS` into ``tmp_path``; returns ``tmp_path`` (the HOME)."""
    for name in OUTSIDE:
        monkeypatch.delenv(name, raising=False)
    for name, sub in FOLDERS:
        monkeypatch.setenv(name, str(tmp_path / sub))
    return tmp_path
