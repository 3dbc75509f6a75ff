"""SSH-session test helpers shared by the API tests: a key pair, a platform with HOME and key (and the
module fixtures serving one and a client on it), a volume with files, waiting for a session phase,
reading a process until a pattern."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import asyncssh
import httpx
import pytest

from primetui.local.testing import LocalPlatform


def make_key(path: Path) -> Path:
    """An ed25519 key pair at ``path`` / ``path.pub`` (0600), as ``ssh-keygen`` would write it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    key = asyncssh.generate_private_key("ssh-ed25519", comment="test")
    path.write_bytes(key.export_private_key())
    os.chmod(path, 0o600)
    Path(str(path) + ".pub").write_bytes(key.export_public_key())
    return path


def start_platform(tmp: Path, **env: str) -> tuple[LocalPlatform, Path]:
    """A platform whose HOME is ``tmp/home`` and whose ssh_key_path has a ``.pub`` beside it."""
    home = tmp / "home"
    key = make_key(home / ".ssh" / "id_ed25519")
    lp = LocalPlatform.start(tmp, demo=False, env={"HOME": str(home), "PRIME_SSH_KEY_PATH": str(key), **env})
    return lp, key


def ssh_platform_fixture(name: str):
    """A module-scoped ``ssh_platform`` fixture: ``(platform, key)`` of :func:`start_platform` in a
    temporary folder named ``name``, stopped after the module. Use as ``ssh_platform = ssh_platform_fixture("x")``."""

    @pytest.fixture(scope="module")
    def ssh_platform(tmp_path_factory):
        lp, key = start_platform(tmp_path_factory.mktemp(name))
        try:
            yield lp, key
        finally:
            lp.stop()

    return ssh_platform


@pytest.fixture
async def api(ssh_platform):
    """An async client on the module's ``ssh_platform``, closed after the test (``api = ssh_helpers.api``)."""
    lp, _ = ssh_platform
    client = lp.client()
    try:
        yield client
    finally:
        await client.aclose()


def create_volume(lp: LocalPlatform, name: str, files: dict[str, bytes] | None = None, size: str = "10Gi") -> Path:
    with httpx.Client(base_url=lp.api_url, headers=lp.headers, timeout=30) as c:
        reply = c.post("/training/volumes", json={"name": name, "size": size, "warm": False})
        assert reply.status_code == 200, reply.text
    root = lp.data_dir / "volumes" / name
    for rel, data in (files or {}).items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    return root


async def wait_phase(
    client, volume: str, session_id: str, phases: set[str], timeout: float = 30.0, seen: list | None = None
):
    """Poll V6 until the session's phase is in ``phases``; record every phase seen in ``seen``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        s = await client.get_session(volume, session_id)
        if seen is not None and (not seen or seen[-1] != s.phase):
            seen.append(s.phase)
        if s.phase in phases:
            return s
        assert loop.time() < deadline, f"session {session_id} still {s.phase} after {timeout}s"
        await asyncio.sleep(0.02)


async def read_until(proc, pattern: bytes, timeout: float = 15.0) -> bytes:
    out = b""

    async def pump():
        nonlocal out
        while pattern not in out:
            chunk = await proc.read()
            if not chunk:
                break
            out += chunk

    await asyncio.wait_for(pump(), timeout)
    return out
