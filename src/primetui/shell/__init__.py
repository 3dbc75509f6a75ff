"""SSH to a volume session: connect (gateway or direct, everything pinned), shell, SFTP put/get.

No textual here; the terminal emulator lives in ``primetui.shell.term`` and the pane in
``primetui.ui.terminal``. Typical use from the UI::

    from primetui.shell import open_session_connection, open_shell, ShellError

    key = resolve_key_path(settings.ssh_key_path, local_platform=on_local)  # the key the platform accepts
    conn = await open_session_connection(session, key)   # a ready VolumeSession (model or wire dict)
    proc = await open_shell(conn, "xterm-256color", cols, rows)
    proc.write(b"ls\\r")                 # keys / paste, bytes
    proc.resize(cols, rows)               # on every pane resize
    while data := await proc.read():      # output chunks (bytes); b"" at the end
        screen.feed(data)
    end = await proc.wait()               # ShellEnd(exit_status, error)
    if end.error:                         # ConnectionDropped / SessionStopped: offer "reconnect"
        show(str(end.error))
    await conn.close()

    await put(conn, "./data.jsonl", "datasets/", progress)   # progress(done_bytes, total_bytes, name)
    result = await get(conn, "runs/r1/checkpoints/step_10/", "./ckpt", progress, overwrite=ask)
    # run put/get in a task; task.cancel() stops it and removes the half-written file.
    # An existing file is replaced only if overwrite is True or ask(path) answers "replace"/"all"
    # (primetui.shell.confine); result.skipped names what was left alone (links, FIFOs, refused
    # names, kept files) and why.

For a real terminal (or scp/rsync), ``write_ssh_config(session, key_path)`` writes the session's
block into ``~/.prime/volume-ssh/config`` (the prime CLI's format, pinned host key, primetui's
own TLS ProxyCommand) and returns ``.argv`` = ``["ssh", "-F", config, alias]``.

Errors are :class:`ShellError` subclasses with a one-sentence ``str()``:
``SessionNotReady``, ``InvalidEndpoint``, ``KeyFileError``, ``AuthenticationRefused``,
``GatewayCertificateMismatch``, ``HostKeyMismatch``, ``ConnectFailed``, ``ConnectionDropped``
(``SessionStopped`` when the platform stopped or reaped the session), ``RemotePathError``,
``TransferError``. ``conn.wait_closed()`` resolves with the reason when a connection goes.

Names are imported lazily so ``import primetui.shell`` stays cheap (asyncssh loads on first use).
"""

from __future__ import annotations

from typing import Any

_EXPORTS = {
    "open_session_connection": "primetui.shell.connect",
    "open_shell": "primetui.shell.connect",
    "load_client_key": "primetui.shell.connect",
    "SessionConnection": "primetui.shell.connect",
    "ShellProcess": "primetui.shell.connect",
    "ShellEnd": "primetui.shell.connect",
    "resolve_key_path": "primetui.shell.keys",
    "write_ssh_config": "primetui.shell.openssh",
    "SshCommand": "primetui.shell.openssh",
    "put": "primetui.shell.transfer",
    "get": "primetui.shell.transfer",
    "remote_path": "primetui.shell.paths",
    "Endpoint": "primetui.shell.endpoint",
    "endpoint_of": "primetui.shell.endpoint",
    "ShellError": "primetui.shell.errors",
    "SessionNotReady": "primetui.shell.errors",
    "InvalidEndpoint": "primetui.shell.errors",
    "KeyFileError": "primetui.shell.errors",
    "AuthenticationRefused": "primetui.shell.errors",
    "GatewayCertificateMismatch": "primetui.shell.errors",
    "HostKeyMismatch": "primetui.shell.errors",
    "ConnectFailed": "primetui.shell.errors",
    "ConnectionDropped": "primetui.shell.errors",
    "SessionStopped": "primetui.shell.errors",
    "RemotePathError": "primetui.shell.errors",
    "TransferError": "primetui.shell.errors",
}

__all__ = list(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'primetui.shell' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
