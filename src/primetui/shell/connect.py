"""Connecting to a volume session and running a shell on it (asyncssh; no UI code).

``open_session_connection`` goes through the TLS gateway when the session has one (unless
``direct=True``) and otherwise straight to ``sshConnection``. The host key is pinned to
``hostPublicKey``: nothing else is trusted, there is no trust-on-first-use, no known_hosts or
~/.ssh/config is read, no agent is consulted unless the key file needs one.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, overload

import asyncssh

from primetui.shell.algorithms import COMPRESSION_ALGS, ENCRYPTION_ALGS, SHELL_MAX_PKTSIZE
from primetui.shell.flow import START_WINDOW, ChannelCredit
from primetui.shell.endpoint import Endpoint, endpoint_of
from primetui.shell.errors import (
    AuthenticationRefused,
    ConnectFailed,
    ConnectionDropped,
    HostKeyMismatch,
    KeyFileError,
    SessionNotReady,
    SessionStopped,
    ShellError,
)
from primetui.shell.gateway import GatewayTunnel

if TYPE_CHECKING:
    from primetui.api.models import VolumeSession

CONNECT_TIMEOUT = 15.0
_READ = 64 * 1024


def load_client_key(key_path: str | os.PathLike[str]) -> asyncssh.SSHKey | None:
    """Read the private key at ``key_path``; None means "encrypted, use the ssh-agent"."""
    path = Path(key_path).expanduser()
    if not path.exists():
        raise KeyFileError(
            f"SSH key not found at {path}; set ssh_key_path (prime config set-ssh-key-path) "
            "or PRIME_SSH_KEY_PATH to your private key."
        )
    try:
        return asyncssh.read_private_key(str(path))
    except PermissionError:
        raise KeyFileError(
            f"Cannot read the SSH key {path} (permission denied); fix its permissions (chmod 600)."
        ) from None
    except IsADirectoryError:
        raise KeyFileError(
            f"{path} is a directory, not an SSH private key; point ssh_key_path at the key file."
        ) from None
    except asyncssh.KeyImportError as exc:
        if "passphrase" in str(exc).lower():
            if os.environ.get("SSH_AUTH_SOCK"):
                return None
            raise KeyFileError(
                f"The SSH key {path} is protected by a passphrase and no ssh-agent is running; "
                f"start one and run `ssh-add {path}`, then retry."
            ) from None
        raise KeyFileError(
            f"{path} is not a readable SSH private key ({exc}); point ssh_key_path at your private key."
        ) from None
    except OSError as exc:
        raise KeyFileError(f"Cannot read the SSH key {path} ({exc.strerror}); check the file.") from None


def local_host_address(host: str) -> str:
    """``*.localhost`` always means this machine (RFC 6761), even where the resolver disagrees."""
    return "127.0.0.1" if host == "localhost" or host.endswith(".localhost") else host


class _Client(asyncssh.SSHClient):
    def __init__(self) -> None:
        self.lost: Exception | None = None
        self.closed = asyncio.Event()

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost = exc
        self.closed.set()


@dataclass
class SessionConnection:
    """An open SSH connection to one session. Close it with ``await close()``."""

    endpoint: Endpoint
    conn: asyncssh.SSHClientConnection
    via_gateway: bool
    _client: _Client

    @property
    def closed(self) -> bool:
        return self._client.closed.is_set()

    def drop_reason(self) -> ShellError | None:
        """Why the connection ended, as a typed error (None while open or after a clean close)."""
        return classify_loss(self._client.lost) if self.closed else None

    async def wait_closed(self) -> ShellError | None:
        await self._client.closed.wait()
        return self.drop_reason()

    async def close(self) -> None:
        self.conn.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.conn.wait_closed(), 5)

    async def run(
        self, command: str, *, input: bytes | None = None, timeout: float | None = 60
    ) -> asyncssh.SSHCompletedProcess:
        """Run ``command`` without a terminal; stdout/stderr are bytes."""
        try:
            return await asyncio.wait_for(self.conn.run(command, input=input, encoding=None, check=False), timeout)
        except (asyncssh.Error, OSError) as exc:
            raise classify_loss(exc) from exc


@overload
def classify_loss(exc: BaseException) -> ShellError: ...
@overload
def classify_loss(exc: None) -> None: ...
@overload
def classify_loss(exc: BaseException | None) -> ShellError | None: ...
def classify_loss(exc: BaseException | None) -> ShellError | None:
    """Map how asyncssh saw a connection end to our typed errors."""
    if exc is None:
        return None
    if isinstance(exc, ShellError):
        return exc
    if isinstance(exc, asyncssh.DisconnectError) and exc.code == asyncssh.DISC_SERVICE_NOT_AVAILABLE and exc.reason:
        # How the platform says "this session is over" (stopped on request or by the idle reaper).
        reason = exc.reason.rstrip(".")
        return SessionStopped(f"The platform closed the connection: {reason}; open a new session to continue.")
    detail = getattr(exc, "reason", None) or str(exc) or type(exc).__name__
    return ConnectionDropped(f"The connection to the session dropped ({detail}); reconnect to continue.")


async def open_session_connection(
    session: VolumeSession,
    key_path: str | os.PathLike[str],
    *,
    direct: bool = False,
    timeout: float = CONNECT_TIMEOUT,
) -> SessionConnection:
    """Connect to a ready session (a VolumeSession model) with the key at ``key_path``.

    Raises SessionNotReady, InvalidEndpoint, KeyFileError, ConnectFailed,
    GatewayCertificateMismatch, HostKeyMismatch or AuthenticationRefused.
    """
    endpoint = endpoint_of(session)
    if not endpoint.host_public_key:
        raise SessionNotReady(
            f"Session {endpoint.session_id} did not publish its host key, so it cannot be verified; "
            "refusing to connect (wait for the platform to report hostPublicKey)."
        )
    try:
        pinned = asyncssh.import_public_key(endpoint.host_public_key)
    except (asyncssh.KeyImportError, ValueError):
        raise HostKeyMismatch(
            f"Session {endpoint.session_id} published a host key this client cannot read; refusing to connect."
        ) from None
    key = load_client_key(key_path)
    client = _Client()
    gateway = None if direct else endpoint.gateway
    use_gateway = gateway is not None
    options: dict[str, Any] = dict(
        username=endpoint.user,
        known_hosts=([pinned], [], []),
        client_keys=[key] if key is not None else None,
        agent_path=os.environ.get("SSH_AUTH_SOCK") if key is None else None,
        config=None,
        preferred_auth="publickey",
        connect_timeout=timeout,
        keepalive_interval=20,
        keepalive_count_max=3,
        encryption_algs=ENCRYPTION_ALGS,  # AES-GCM offered first (see primetui.shell.algorithms)
        compression_algs=COMPRESSION_ALGS,
    )
    where = f"{gateway.host}:{gateway.port}" if gateway is not None else f"{endpoint.host}:{endpoint.port}"
    try:
        if gateway is not None:
            conn = await asyncssh.connect(
                endpoint.host,
                endpoint.port,
                tunnel=GatewayTunnel(gateway, endpoint.alias, timeout),
                client_factory=lambda: client,
                **options,
            )
        else:
            conn = await asyncssh.connect(
                local_host_address(endpoint.host),
                endpoint.port,
                client_factory=lambda: client,
                **options,
            )
    except ShellError:
        raise
    except asyncssh.HostKeyNotVerifiable:
        raise HostKeyMismatch(
            f"The SSH server at {where} is not session {endpoint.session_id}: its host key differs from the "
            "hostPublicKey the platform published; refusing to connect."
        ) from None
    except asyncssh.PermissionDenied:
        raise AuthenticationRefused(
            f"Session {endpoint.session_id} refused the SSH key at {Path(key_path).expanduser()}; "
            "use the key registered with the platform (prime config set-ssh-key-path)."
        ) from None
    except (asyncio.TimeoutError, OSError, asyncssh.Error) as exc:
        why = (
            "timed out"
            if isinstance(exc, asyncio.TimeoutError)
            else (getattr(exc, "reason", None) or getattr(exc, "strerror", None) or str(exc))
        )
        raise ConnectFailed(
            f"Cannot connect to session {endpoint.session_id} at {where} ({why}); check that it is still ready and "
            f"retry."
        ) from None
    return SessionConnection(endpoint, conn, use_gateway, client)


@dataclass(frozen=True)
class ShellEnd:
    """How a shell ended: ``exit_status`` when the program exited, ``error`` when the link went."""

    exit_status: int | None
    error: ShellError | None

    @property
    def dropped(self) -> bool:
        return self.error is not None


class ShellProcess:
    """An interactive program on a PTY: bytes in, bytes out, resizable.

    ``await read()`` returns output chunks and ``b""`` once the program has ended or the
    connection is gone; then ``await wait()`` says which (:class:`ShellEnd`).
    """

    def __init__(self, session: SessionConnection, process: asyncssh.SSHClientProcess):
        self._session = session
        self._process = process
        self._end: ShellEnd | None = None
        self.credit = ChannelCredit(process)

    async def read(self, n: int = _READ) -> bytes:
        if self._end is not None:
            return b""
        self.credit.before_read()
        try:
            data = await self._process.stdout.read(n)
        except (asyncssh.Error, OSError, asyncio.IncompleteReadError) as exc:
            self._end = ShellEnd(None, classify_loss(exc))
            return b""
        self.credit.after_read(len(data))
        if not data:
            self._end = await self._finish()
        return data

    async def _finish(self) -> ShellEnd:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._process.wait_closed(), 2)
        status = self._process.exit_status
        if status is None or status < 0:
            if not self._session.closed:
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(self._session._client.closed.wait(), 1)
            error = self._session.drop_reason() or ConnectionDropped(
                "The shell ended without an exit status (the connection closed); reconnect to continue."
            )
            return ShellEnd(None, error)
        return ShellEnd(status, None)

    def write(self, data: bytes) -> None:
        """Send keystrokes/paste to the program; ignored once it has ended."""
        if self._end is None and not self._process.stdin.is_closing():
            with contextlib.suppress(asyncssh.Error, OSError):
                self._process.stdin.write(data)
            self.credit.typed()

    def resize(self, cols: int, rows: int) -> None:
        """Tell the remote PTY its new size (the program gets SIGWINCH)."""
        if self._end is None and cols > 0 and rows > 0:
            with contextlib.suppress(asyncssh.Error, OSError):
                self._process.change_terminal_size(cols, rows)

    async def wait(self) -> ShellEnd:
        while self._end is None:
            await self.read()
        return self._end

    async def close(self) -> None:
        """End the program (closes the channel; the remote shell gets SIGHUP)."""
        self._process.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._process.wait_closed(), 5)
        if self._end is None:
            self._end = ShellEnd(self._process.exit_status, None)


async def open_shell(
    session: SessionConnection,
    term_type: str = "xterm-256color",
    cols: int = 80,
    rows: int = 24,
    *,
    command: str | None = None,
) -> ShellProcess:
    """Start the login shell (or ``command``) on a PTY of ``cols`` x ``rows``."""
    try:
        # OpenSSH's default SendEnv: the locale, so UTF-8 in the remote shell matches this terminal
        locale = {k: v for k, v in os.environ.items() if k in ("LANG", "COLORTERM") or k.startswith("LC_")}
        process = await session.conn.create_process(
            command,
            term_type=term_type,
            term_size=(cols, rows),
            encoding=None,
            env=locale or (),
            max_pktsize=SHELL_MAX_PKTSIZE,
            window=START_WINDOW,
        )
    except (asyncssh.Error, OSError) as exc:
        raise classify_loss(exc) or ConnectionDropped("Could not start a shell; reconnect and retry.") from exc
    return ShellProcess(session, process)
