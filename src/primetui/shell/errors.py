"""Typed errors of the shell connection layer; ``str()`` is one sentence a user can act on."""

from __future__ import annotations


class ShellError(Exception):
    """Base class: anything that stops a shell or a transfer on a volume session."""


class SessionNotReady(ShellError):
    """The session has no SSH endpoint (yet, or any more)."""


class InvalidEndpoint(ShellError):
    """The platform sent an ``sshConnection`` this client cannot parse."""


class KeyFileError(ShellError):
    """The client key at ``ssh_key_path`` is missing, unreadable or locked."""


class AuthenticationRefused(ShellError):
    """The session's SSH server did not accept the client key."""


class GatewayCertificateMismatch(ShellError):
    """The TLS gateway presented a certificate other than the pinned ``certSha256``."""


class HostKeyMismatch(ShellError):
    """The session's SSH host key is not the ``hostPublicKey`` the platform published."""


class ConnectFailed(ShellError):
    """The gateway or the SSH endpoint could not be reached."""


class ConnectionDropped(ShellError):
    """An established connection ended without the shell exiting."""


class SessionStopped(ConnectionDropped):
    """The platform stopped the session (on request or by the idle reaper) and disconnected us."""


class RemotePathError(ShellError):
    """A volume path breaks the platform's rules (characters, length, ``..``, ``runs/``)."""


class TransferError(ShellError):
    """An SFTP put or get failed part way."""
