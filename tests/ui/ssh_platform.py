"""A local platform whose sessions accept a throwaway client key: shared by the shell and transfer tests."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


from primetui.local.testing import LocalPlatform
from tests.local.conftest import http
from tests.api.ssh_helpers import make_key

__all__ = ["create_volume", "make_key", "ssh_platform"]


@contextmanager
def ssh_platform(tmp: Path) -> Iterator[tuple[LocalPlatform, Path]]:
    """A fresh local platform with HOME and PRIME_SSH_KEY_PATH in ``tmp``; yields (platform, key path)."""
    key = make_key(tmp / "home" / ".ssh" / "id_ed25519")
    with LocalPlatform.start(tmp, demo=False, env={"HOME": str(tmp / "home"), "PRIME_SSH_KEY_PATH": str(key)}) as lp:
        yield lp, key


def create_volume(lp: LocalPlatform, name: str, size: str = "10Gi") -> Path:
    """Create a volume over HTTP and return its directory on disk."""
    with http(lp) as c:
        reply = c.post("/training/volumes", json={"name": name, "size": size, "warm": False})
        assert reply.status_code == 200, reply.text
    return lp.data_dir / "volumes" / name
