"""A local platform whose sessions accept a throwaway client key: shared by the shell and transfer tests."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import asyncssh
import httpx

from primetui.local.testing import LocalPlatform


def make_key(path: Path) -> Path:
    """Write an ed25519 key pair (private 0600, ``.pub`` beside it) and return the private key's path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    key = asyncssh.generate_private_key("ssh-ed25519", comment="primetui-test")
    path.write_bytes(key.export_private_key())
    os.chmod(path, 0o600)
    Path(str(path) + ".pub").write_bytes(key.export_public_key())
    return path


@contextmanager
def ssh_platform(tmp: Path) -> Iterator[tuple[LocalPlatform, Path]]:
    """A fresh local platform with HOME and PRIME_SSH_KEY_PATH in ``tmp``; yields (platform, key path)."""
    key = make_key(tmp / "home" / ".ssh" / "id_ed25519")
    with LocalPlatform.start(tmp, demo=False, env={"HOME": str(tmp / "home"), "PRIME_SSH_KEY_PATH": str(key)}) as lp:
        yield lp, key


def create_volume(lp: LocalPlatform, name: str, size: str = "10Gi") -> Path:
    """Create a volume over HTTP and return its directory on disk."""
    with httpx.Client(base_url=lp.api_url, headers=lp.headers, timeout=30) as c:
        reply = c.post("/training/volumes", json={"name": name, "size": size, "warm": False})
        assert reply.status_code == 200, reply.text
    return lp.data_dir / "volumes" / name
