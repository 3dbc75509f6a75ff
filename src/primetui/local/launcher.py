"""``primetui --local``: reuse the local server already serving a data dir, or start one in the background."""

from __future__ import annotations

import functools
import json
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

from primetui.local.environ import platform_environment
from primetui.local.extra import missing_sentence
from primetui.local.paths import resolve_data_dir
from primetui.local.procs import pid_alive, wait_for_ready_file

SERVER_FILE = "server.json"
PORT_FILE = "last-port"  # written by ``primetui local serve`` (primetui.local.cli)


class LauncherError(RuntimeError):
    """The local platform could not be started; ``str()`` says why and what to do."""


def _answers(base_url: str, token: str) -> bool:
    """True when the server at ``base_url`` accepts ``token`` (it is ours and it is up)."""
    from primetui.api._httpx import httpx, shared_ssl_context

    try:
        reply = httpx.get(
            f"{base_url}/api/v1/training/volumes",
            headers={"Authorization": f"Bearer {token}"},
            timeout=3.0,
            verify=shared_ssl_context(),  # asked at each look for the server: no CA bundle load each time
        )
    except httpx.HTTPError:
        return False
    return reply.status_code == 200


def running_server(data_dir: Path) -> tuple[str, str] | None:
    """(base_url, token) of a healthy server serving ``data_dir``, or None."""
    try:
        info = json.loads((data_dir / SERVER_FILE).read_text(encoding="utf-8"))
        base_url, token, pid = info["base_url"], info["token"], int(info["pid"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not pid_alive(pid) or not _answers(base_url, token):
        return None
    return base_url, token


def following(data_dir: str | os.PathLike[str] | None = None) -> Callable[[], tuple[str, str] | None]:
    """What a ``--local`` client asks when its platform stops answering: where it serves now.

    Passed as ``PrimeClient(rediscover=...)``; it reads ``server.json`` again and starts nothing.
    """
    return functools.partial(running_server, resolve_data_dir(data_dir))


def previous_port(data_dir: Path) -> int | None:
    """The port the last server of ``data_dir`` took, when it is free again (else None: any free port)."""
    try:
        port = int((data_dir / PORT_FILE).read_text(encoding="utf-8").strip())
    except (OSError, ValueError):
        return None
    if not 1024 <= port <= 65535:
        return None
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server binds it
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return None
    return port


def _reap(proc: subprocess.Popen[bytes]) -> None:
    """Collect the started server's exit status whenever it ends, so it never lingers as a zombie
    under a long-lived parent (``primetui serve --local``, the dashboard)."""
    threading.Thread(target=proc.wait, name=f"reap-{proc.pid}", daemon=True).start()


def ensure_running(
    data_dir: str | os.PathLike[str] | None = None, demo: bool = True, timeout: float = 30.0
) -> tuple[str, str]:
    """Return (base_url, token) of the local platform for ``data_dir``, starting it detached if needed.

    The started server outlives the dashboard (it keeps runs going); its output goes to
    ``<data_dir>/server.log``. Stop it with ``kill <pid>`` (the pid is in ``<data_dir>/server.json``).
    """
    root = resolve_data_dir(data_dir)
    found = running_server(root)
    if found:
        return found
    try:
        root.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError as exc:
        raise LauncherError(
            f"Cannot create the local platform's data dir {root} ({exc.strerror}); "
            "set PRIMETUI_LOCAL_DATA_DIR to a writable directory."
        ) from exc
    absent = missing_sentence()
    if absent:  # a running server is reused above; starting one needs the extra
        raise LauncherError(absent[0].upper() + absent[1:] + ".")
    port = previous_port(root)
    proc, info = _start(root, demo, timeout, port)
    if info is None and port is not None and proc.poll() is not None and running_server(root) is None:
        # The old port was taken between the probe and the bind: any free port will do.
        proc, info = _start(root, demo, timeout, None)
    if info:
        return info["base_url"], info["token"]
    code = proc.poll()
    if code is not None:
        # Another server may have won the race for this data dir; use it if it answers.
        found = running_server(root)
        if found:
            return found
        raise LauncherError(f"The local platform exited at start (code {code}); see {root / 'server.log'}.")
    raise LauncherError(f"The local platform did not start within {timeout:.0f}s; see {root / 'server.log'}.")


def _start(root: Path, demo: bool, timeout: float, port: int | None) -> tuple[subprocess.Popen[bytes], dict | None]:
    ready = root / f".ready-{os.getpid()}.json"
    ready.unlink(missing_ok=True)
    # The server rotates its own log (--log-file); the redirect below keeps what it says before that.
    cmd = [
        sys.executable,
        "-m",
        "primetui",
        "local",
        "serve",
        "--data-dir",
        str(root),
        "--ready-file",
        str(ready),
        "--log-file",
        str(root / "server.log"),
    ]
    if port is not None:
        cmd += ["--port", str(port)]
    if demo:
        cmd.append("--demo")
    log_fd = os.open(root / "server.log", os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    with os.fdopen(log_fd, "ab") as log:
        # An allowlist, not the dashboard's environment: the hosted API key, cloud secrets and the
        # user's ssh-agent and tmux must not reach a server that outlives the dashboard.
        proc = subprocess.Popen(
            cmd,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            close_fds=True,
            env=platform_environment(),
        )
    _reap(proc)
    return proc, wait_for_ready_file(ready, proc, timeout)


def local_team(team_id: str | None) -> str | None:
    """The team `prime switch` chose when it is one of the local platform's teams, else None (personal).

    A hosted team id in ~/.prime/config.json means nothing here, so it falls back to the personal account.
    """
    from primetui.local.teams import MEMBERS

    return team_id if team_id in MEMBERS else None
