"""An OpenSSH config for a session, in the prime CLI's own format, for ``ssh``, ``scp`` and ``rsync``.

``write_ssh_config(session, key_path)`` writes (or updates) the session's ``Host`` block in
``~/.prime/volume-ssh/config`` and its pinned host key in ``~/.prime/volume-ssh/known_hosts``,
exactly as ``prime volumes ssh`` does (commands/volumes.py:244-288), except that the
ProxyCommand is primetui's own relay, so the prime CLI need not be installed. Then
``ssh -F ~/.prime/volume-ssh/config vol-ssh-…`` works from any terminal, with
``StrictHostKeyChecking yes``.
"""

from __future__ import annotations

import os
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from primetui.config.fileio import atomic_write
from primetui.shell.endpoint import endpoint_of

if TYPE_CHECKING:
    from primetui.api.models import VolumeSession


@dataclass(frozen=True)
class SshCommand:
    """What to run: ``argv`` is ``ssh -F <config> <alias>``."""

    alias: str
    config_path: Path
    known_hosts_path: Path

    @property
    def argv(self) -> list[str]:
        return ["ssh", "-F", str(self.config_path), self.alias]

    @property
    def display(self) -> str:
        return shlex.join(self.argv)


def volume_ssh_dir() -> Path:
    return Path.home() / ".prime" / "volume-ssh"


def _quote(value: str) -> str:
    return '"' + value.replace('"', '\\"') + '"'


def _replace_block(text: str, alias: str, block: str) -> str:
    """Drop any existing ``Host <alias>`` block and append the new one."""
    out: list[str] = []
    skipping = False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.lower().startswith("host "):
            skipping = stripped.split(None, 1)[1].strip() == alias
        if not skipping:
            out.append(line)
    body = "\n".join(out).rstrip()
    return (body + "\n\n" if body else "") + block


def write_ssh_config(
    session: VolumeSession, key_path: str | os.PathLike[str], *, direct: bool = False, folder: Path | None = None
) -> SshCommand:
    """Write the session's Host block and known_hosts line; returns the command to connect."""
    ep = endpoint_of(session)
    folder = folder or volume_ssh_dir()
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    config, known = folder / "config", folder / "known_hosts"
    lines = [
        f"Host {ep.alias}",
        f"  HostName {ep.host}",
        f"  User {ep.user}",
        f"  Port {ep.port}",
        f"  IdentityFile {_quote(str(Path(key_path).expanduser()))}",
        "  IdentitiesOnly yes",
    ]
    if ep.gateway is not None and not direct:
        proxy = [
            sys.executable,
            "-m",
            "primetui.shell.proxy",
            "--gateway",
            f"{ep.gateway.host}:{ep.gateway.port}",
            "--cert-sha256",
            ep.gateway.cert_sha256,
            ep.alias,
        ]
        lines.append("  ProxyCommand " + shlex.join(proxy).replace("%", "%%"))
    if ep.host_public_key:
        lines.append(f"  UserKnownHostsFile {_quote(str(known))}")
        lines.append("  StrictHostKeyChecking yes")
        entry = ep.host if ep.port == 22 else f"[{ep.host}]:{ep.port}"
        kept = []
        if known.exists():
            kept = [ln for ln in known.read_text().splitlines() if ln.split(" ", 1)[0] != entry]
        atomic_write(known, "\n".join([*kept, f"{entry} {ep.host_public_key}"]) + "\n", mode=0o600)
    old = config.read_text() if config.exists() else ""
    atomic_write(config, _replace_block(old, ep.alias, "\n".join(lines) + "\n"), mode=0o600)
    return SshCommand(ep.alias, config, known)
