"""``primetui local serve``: run the local platform in the foreground until Ctrl+C / SIGTERM."""

from __future__ import annotations

import argparse
import asyncio
import fcntl
import json
import logging
import os
import sqlite3
import sys
from pathlib import Path
from typing import IO

from primetui.config.fileio import atomic_write
from primetui.local.paths import resolve_data_dir

SERVER_FILE = "server.json"
LOCK_FILE = "server.lock"
PORT_FILE = "last-port"
"""The port the last server of this data dir took: the launcher asks for it again, so clients that
still hold the old address find the platform there after a restart."""


def _err(message: str) -> None:
    print(f"primetui local serve: {message}", file=sys.stderr, flush=True)


def acquire_lock(data_dir: Path) -> IO[str] | None:
    """An exclusive lock on the data dir (one server per data dir), or None when another server holds it."""
    fh = open(data_dir / LOCK_FILE, "a+", encoding="utf-8")
    try:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        fh.close()
        return None
    return fh


def read_server_file(data_dir: Path) -> dict | None:
    try:
        data = json.loads((data_dir / SERVER_FILE).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None
    return data if isinstance(data, dict) else None


SSH_KEYGEN = 'ssh-keygen -t rsa -b 4096 -N "" -f ~/.ssh/id_rsa'
"""The one command that creates the key `prime volumes ssh` looks for by default (~/.ssh/id_rsa)."""


def ssh_key_line(key: Path | None) -> str:
    """The banner's SSH line: which key sessions accept, and how to make one when it is missing."""
    from primetui.local.sessions.keys import has_usable_key

    if key is not None and has_usable_key(key):
        return f"SSH (prime volumes ssh, session put/get): your key {key} is accepted\n"
    where = f"{key}" if key is not None else "~/.ssh/id_rsa"
    return f"SSH (prime volumes ssh): no key at {where}; create the one the prime CLI uses with:\n  {SSH_KEYGEN}\n"


def banner(base_url: str, token: str, data_dir: Path, show_token: bool, ssh_line: str = "") -> str:
    """What ``serve`` prints once it accepts requests.

    The token is printed only to a terminal: when the output goes to a file (the launcher's
    server.log, a CI log) the lines read the token file instead, so no log ever holds it.
    """
    token_file = data_dir / "token"
    shown = token if show_token else f'"$(cat {token_file})"'
    return (
        f"primetui local platform serving {base_url}  (data: {data_dir})\n"
        + (f"Token: {token}\n" if show_token else f"Token: in {token_file} (not printed: output is not a terminal)\n")
        + "Point the official prime CLI at it:\n"
        f"  export PRIME_BASE_URL={base_url}\n"
        f"  export PRIME_API_KEY={shown}\n"
        "  export PRIME_DISABLE_VERSION_CHECK=1\n"
        + ssh_line
        + "Open the dashboard on it: primetui --local   (Ctrl+C stops the server)"
    )


def _capture_log(path: str) -> str | None:
    """Send this process's output to the capped ``path``; the reason it could not, else None."""
    from primetui.config.logcap import capture_output

    try:
        capture_output(Path(path))
    except OSError as exc:
        return f"cannot write the log file {path} ({exc.strerror}); pass a writable --log-file."
    return None


def serve(args: argparse.Namespace) -> int:
    """Entry point of ``primetui local serve``; returns the process exit code."""
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    data_dir = resolve_data_dir(getattr(args, "data_dir", None))
    try:
        if not data_dir.exists():
            data_dir.mkdir(parents=True)
            os.chmod(data_dir, 0o700)
    except OSError as exc:
        _err(f"cannot create the data dir {data_dir} ({exc.strerror}); pass a writable one with --data-dir.")
        return 2
    chart = getattr(args, "chart_version", None)
    if chart is not None:
        from primetui.local.cluster import CHART_ENV, parse_version

        if parse_version(chart) is None:
            _err(f"--chart-version {chart!r} is not a version like 0.24.0.")
            return 2
        os.environ[CHART_ENV] = chart  # the supervisor and the routes read it from the environment
    lock = acquire_lock(data_dir)
    if lock is None:
        other = read_server_file(data_dir) or {}
        where = f" (pid {other.get('pid')}, {other.get('base_url')})" if other else ""
        _err(f"another local server{where} already serves {data_dir}; stop it first or pass another --data-dir.")
        return 1
    state = None
    try:
        # Only the server holding the lock writes the log: a start refused above leaves it alone.
        log_file = getattr(args, "log_file", None)
        problem = _capture_log(log_file) if log_file else None
        if problem:
            _err(problem)
            return 2
        # Imported only now: a refused start (data dir busy) answers before FastAPI loads.
        from primetui.config.fileio import write_json_atomic
        from primetui.local.server import bind_socket, serve as serve_app
        from primetui.local.state import LocalState
        from primetui.config.logcap import install_repeat_filter
        from primetui.local.connwall import ACCEPT_FAILED, Limits, raise_fd_limit

        repeats = install_repeat_filter(quiet=(ACCEPT_FAILED,))
        try:
            limits = Limits.from_environment(fd_limit=raise_fd_limit())
        except ValueError as exc:
            _err(str(exc))
            return 2
        try:
            sock = bind_socket(getattr(args, "port", None))
        except OSError as exc:
            _err(exc.strerror or str(exc))
            return 2
        try:
            state = LocalState.open(data_dir)
        except sqlite3.DatabaseError as exc:
            _err(
                f"the state database {data_dir / 'state.sqlite3'} cannot be read ({exc}); move it aside to start "
                "with an empty platform (volume contents under volumes/ stay where they are)."
            )
            return 2
        except OSError as exc:
            _err(f"cannot set up the data dir {data_dir} ({exc.strerror}); pass a writable one with --data-dir.")
            return 2
        faithful = getattr(args, "faithful", None)
        if faithful is not None:
            from primetui.local.log_windows import parse_bool

            try:
                state.faithful_logs = parse_bool(faithful)
            except ValueError as exc:
                _err(f"--faithful: {exc}.")
                return 2
        rate_limit = getattr(args, "rate_limit", None)
        if rate_limit is not None:
            if rate_limit < 0:
                _err("--rate-limit must be 0 (no limit) or a positive number of requests per minute.")
                return 2
            state.rate_limit = rate_limit or None
        state.extras["allow_private_endpoints"] = bool(getattr(args, "allow_private_endpoints", False))
        if getattr(args, "demo", False):
            from primetui.local.demo import seed_demo

            seed_demo(state)
        ready_file = getattr(args, "ready_file", None)

        def on_ready(base_url: str) -> None:
            info = {"base_url": base_url, "token": state.token, "pid": os.getpid(), "data_dir": str(data_dir)}
            write_json_atomic(data_dir / SERVER_FILE, info, mode=0o600)  # holds the token
            try:
                atomic_write(data_dir / PORT_FILE, base_url.rsplit(":", 1)[-1].strip("/") + "\n")
            except OSError:
                pass  # only a preference for the next start
            if ready_file:
                write_json_atomic(Path(ready_file), info, mode=0o600)
            from primetui.local.sessions.keys import configured_key_path

            print(
                banner(
                    base_url,
                    state.token,
                    data_dir,
                    show_token=sys.stdout.isatty(),
                    ssh_line=ssh_key_line(configured_key_path()),
                ),
                flush=True,
            )

        asyncio.run(serve_app(state, sock, on_ready, limits=limits, repeats=repeats))
        return 0
    finally:
        info = read_server_file(data_dir)
        if info and info.get("pid") == os.getpid():
            (data_dir / SERVER_FILE).unlink(missing_ok=True)
        if state is not None:
            state.store.close()
        lock.close()
