"""Where to reach a session: ``sshConnection``, ``gateway`` and ``hostPublicKey`` parsed as the prime CLI does.

Works with :class:`primetui.api.models.VolumeSession` or a plain wire dict (camelCase).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from primetui.shell.errors import InvalidEndpoint, SessionNotReady

# commands/volumes.py:187-189 and 211-230 of prime 0.18.0
_SSH_CONNECTION = re.compile(r"(?P<user>[a-zA-Z_][a-zA-Z0-9_-]*)@(?P<host>[a-zA-Z0-9.-]+)(?: -p (?P<port>[0-9]{1,5}))?")
_GATEWAY_HOST = re.compile(r"[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9-]+)*")
_SHA256 = re.compile(r"[0-9a-fA-F]{64}")


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


def _get(obj: Any, snake: str, camel: str) -> Any:
    if isinstance(obj, dict):
        return obj.get(camel, obj.get(snake))
    return getattr(obj, snake, None)


def parse_gateway(raw: Any) -> Gateway | None:
    """The gateway if it is valid; None when absent or invalid (the CLI then connects directly)."""
    if raw is None:
        return None
    host = _get(raw, "host", "host")
    port = _get(raw, "port", "port")
    sha = _get(raw, "cert_sha256", "certSha256")
    if not isinstance(host, str) or not _GATEWAY_HOST.fullmatch(host):
        return None
    try:
        port = int(port)
    except (TypeError, ValueError):
        return None
    if not 1 <= port <= 65535 or not isinstance(sha, str):
        return None
    sha = sha.replace(":", "").lower()
    if not _SHA256.fullmatch(sha):
        return None
    return Gateway(host, port, sha)


def endpoint_of(session: Any) -> Endpoint:
    """Parse a VolumeSession (model or dict); raises SessionNotReady / InvalidEndpoint."""
    sid = _get(session, "id", "id") or "?"
    volume = _get(session, "volume_name", "volumeName") or "?"
    conn = _get(session, "ssh_connection", "sshConnection")
    if not conn:
        phase = _get(session, "phase", "phase") or (_get(session, "status", "status") or "").lower() or "starting"
        raise SessionNotReady(f"Session {sid} has no SSH endpoint yet (phase {phase}); wait until it is ready.")
    match = _SSH_CONNECTION.fullmatch(conn.strip())
    if not match:
        raise InvalidEndpoint(f"The platform sent an SSH address this client cannot use ({conn!r}); report it to the platform.")
    port = int(match["port"] or 22)
    if not 1 <= port <= 65535:
        raise InvalidEndpoint(f"The platform sent an SSH port out of range ({port}); report it to the platform.")
    return Endpoint(
        session_id=sid,
        volume_name=volume,
        read_only=bool(_get(session, "read_only", "readOnly")),
        user=match["user"],
        host=match["host"],
        port=port,
        gateway=parse_gateway(_get(session, "gateway", "gateway")),
        host_public_key=_get(session, "host_public_key", "hostPublicKey") or None,
    )
