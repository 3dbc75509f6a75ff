"""Where to reach a session: ``sshConnection``, ``gateway`` and ``hostPublicKey`` parsed as the prime CLI does.

Reads :class:`primetui.api.models.VolumeSession` as the wire boundary validated it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from primetui.shell.errors import InvalidEndpoint, SessionNotReady

# commands/volumes.py:187-189 and 211-230 of prime 0.18.0
_SSH_CONNECTION = re.compile(r"(?P<user>[a-zA-Z_][a-zA-Z0-9_-]*)@(?P<host>[a-zA-Z0-9.-]+)(?: -p (?P<port>[0-9]{1,5}))?")
_GATEWAY_HOST = re.compile(r"[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9-]+)*")
_SHA256 = re.compile(r"[0-9a-fA-F]{64}")

if TYPE_CHECKING:
    from primetui.api.models import VolumeSession, VolumeSessionGateway


@dataclass(frozen=True)
class Gateway:
    """The TLS gateway: host, port and the pinned SHA-256 of its certificate (lowercase hex)."""

    host: str
    port: int
    cert_sha256: str


@dataclass(frozen=True)
class Endpoint:
    """A session's SSH endpoint as published by the platform."""

    session_id: str
    volume_name: str
    read_only: bool
    user: str
    host: str
    port: int
    gateway: Gateway | None
    host_public_key: str | None

    @property
    def alias(self) -> str:
        """The short host name the gateway routes on (SNI), e.g. ``vol-ssh-1a2b3c``."""
        return self.host.split(".")[0]


def parse_gateway(raw: VolumeSessionGateway | None) -> Gateway | None:
    """The session's gateway if it is valid; None when absent or invalid (the CLI then connects directly)."""
    return gateway_of(raw.host, raw.port, raw.cert_sha256) if raw is not None else None


def gateway_of(host: str, port: int, sha: str) -> Gateway | None:
    """A gateway from its parts (a session's, or the proxy command's arguments); None when invalid."""
    if not _GATEWAY_HOST.fullmatch(host) or not 1 <= port <= 65535:
        return None
    sha = sha.replace(":", "").lower()
    if not _SHA256.fullmatch(sha):
        return None
    return Gateway(host, port, sha)


def endpoint_of(session: VolumeSession) -> Endpoint:
    """Parse a session's SSH endpoint; raises SessionNotReady / InvalidEndpoint."""
    sid = session.id or "?"
    volume = session.volume_name or "?"
    conn = session.ssh_connection
    if not conn:
        phase = session.phase or (session.status or "").lower() or "starting"
        raise SessionNotReady(f"Session {sid} has no SSH endpoint yet (phase {phase}); wait until it is ready.")
    match = _SSH_CONNECTION.fullmatch(conn.strip())
    if not match:
        raise InvalidEndpoint(
            f"The platform sent an SSH address this client cannot use ({conn!r}); report it to the platform."
        )
    port = int(match["port"] or 22)
    if not 1 <= port <= 65535:
        raise InvalidEndpoint(f"The platform sent an SSH port out of range ({port}); report it to the platform.")
    return Endpoint(
        session_id=sid,
        volume_name=volume,
        read_only=session.read_only,
        user=match["user"],
        host=match["host"],
        port=port,
        gateway=parse_gateway(session.gateway),
        host_public_key=session.host_public_key or None,
    )
