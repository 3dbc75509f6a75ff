"""The SSH endpoint of one session: an asyncssh server on 127.0.0.1 with a login shell, exec and SFTP.

A shell request with a PTY runs the user's login shell on a local pseudo-terminal in the session's
working dir; window-size changes from the client are applied to that pty (the kernel then sends
SIGWINCH to the shell). Exec requests run ``$SHELL -c CMD`` (on a pty when the client asked for
one). SFTP and scp go to :class:`ContainedSFTPServer`. A pty's output is read only as far as the
client's window lets the channel send it at once (``_pump_fd_to_channel``): the rest waits in the
pty, so a flood cannot grow memory, and a key's echo never queues behind output read ahead here.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import fcntl
import logging
import os
import pty
import re
import shlex
import shutil
import signal
import struct
import tempfile
import termios
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any
from pathlib import Path

import asyncssh

from primetui.local.environ import account_environment
from primetui.local.sessions import sandbox
from primetui.local.sessions.keys import authorized_keys
from primetui.local.sessions.mountns import MOUNT_POINT
from primetui.local.sessions.sftp_server import ContainedSFTPServer
from primetui.shell.algorithms import COMPRESSION_ALGS, ENCRYPTION_ALGS
from primetui.shell.childsig import default_signals

log = logging.getLogger("primetui.local.sessions")

_READ = 64 * 1024
_BATCH = 256 * 1024
_READ_LEAST = 4096  # read while the client's credit is spent: one pty read, sent once credit comes

# The hosted pod mounts the volume at /volume and clients aim commands there (the prime CLI runs
# `find /volume/x -type l` and rsync/scp to /volume/...). Where the platform cannot give a session
# a sandbox (see sandbox), an exec command's /volume prefix is rewritten to the working dir.
_VOLUME_PREFIX = re.compile(r"(?<![\w/.~-])/volume(?=/|\s|$|[;|&)'\"])")


def map_volume_prefix(command: str, root: Path) -> str:
    """``find /volume/x`` -> ``find '<working dir>'/x`` (only whole ``/volume`` path prefixes)."""
    return _VOLUME_PREFIX.sub(lambda _m: shlex.quote(str(root)), command)


@dataclass
class EndpointConfig:
    """What one session's SSH server needs to know."""

    session_id: str
    volume_name: str
    root: Path
    read_only: bool
    data_dir: Path
    on_activity: Callable[[], None] = lambda: None
    connections: set = field(default_factory=set)
    processes: set = field(default_factory=set)
    namespaces: bool = False
    """Processes run in a bubblewrap sandbox that has the working copy at /volume (see sandbox)."""
    no_namespace_why: str = ""
    hf_endpoint: str | None = None
    """HF_ENDPOINT for the session (the local platform's Hub endpoint)."""
    bin_dir: Path | None = None
    """Put first on PATH (holds the `hf` launcher)."""
    disk_line: Callable[[], str] = lambda: ""
    """"1.2 MiB used, 99.9 GiB free" when the session's disk has the volume's size, measured when
    each shell opens (a figure taken once at start-up went stale as soon as files were written)."""
    tmux_dir: Path | None = None
    """The session's own TMUX_TMPDIR (0700): ``tmux`` in a session starts its server here."""

    @property
    def volume_dir(self) -> str:
        """Where the session's processes see the volume."""
        return MOUNT_POINT if self.namespaces else str(self.root)


def _login_shell() -> str:
    shell = os.environ.get("SHELL") or "/bin/bash"
    return shell if os.path.exists(shell) else "/bin/sh"


def _set_winsize(fd: int, cols: int, rows: int) -> None:
    if cols > 0 and rows > 0:
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))


def _take_controlling_tty() -> None:  # runs in the child after setsid()
    default_signals()  # as sshd gives them: the server may have been started with some ignored or blocked
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


class _Server(asyncssh.SSHServer):
    def __init__(self, cfg: EndpointConfig):
        self._cfg = cfg
        self._conn: asyncssh.SSHServerConnection | None = None

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self._conn = conn
        self._cfg.connections.add(conn)
        self._cfg.on_activity()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cfg.connections.discard(self._conn)
        self._cfg.on_activity()

    # No forwarding of any kind: a session is a shell, commands and file transfer on one volume.
    def connection_requested(self, *_args, **_kwargs) -> bool:
        return False

    def server_requested(self, *_args, **_kwargs) -> bool:
        return False

    def unix_connection_requested(self, *_args, **_kwargs) -> bool:
        return False

    def unix_server_requested(self, *_args, **_kwargs) -> bool:
        return False

    def begin_auth(self, username: str) -> bool:
        return True

    def password_auth_supported(self) -> bool:
        return False

    def public_key_auth_supported(self) -> bool:
        return True

    def validate_public_key(self, username: str, key: asyncssh.SSHKey) -> bool:
        keys = authorized_keys(self._cfg.data_dir)
        if keys is None:
            log.warning("session %s: no client keys are configured; refusing %s", self._cfg.session_id, username)
            return False
        ok = keys.validate(key, "127.0.0.1", "127.0.0.1") is not None
        if not ok:
            log.info("session %s: refused a key that is not authorized", self._cfg.session_id)
        return ok


_ACCEPTED_CLIENT_ENV = ("LANG", "LC_", "COLORTERM")  # like sshd's usual AcceptEnv LANG LC_*


def _environment(cfg: EndpointConfig, term: str | None, client_env=None) -> dict[str, str]:
    """The session's environment, built up from an allowlist as sshd does (see docs/security.md).

    Nothing else of the platform's environment gets in: not the user's API keys or cloud secrets,
    not ``SSH_AUTH_SOCK`` (no agent is forwarded), not ``TMUX`` (``tmux`` typed in the session must
    start a server of the session's own, in ``TMUX_TMPDIR``, not attach to the user's).
    """
    env = account_environment()
    for key, value in (client_env or {}).items():
        key = key.decode() if isinstance(key, bytes) else str(key)
        value = value.decode(errors="replace") if isinstance(value, bytes) else str(value)
        if key.startswith(_ACCEPTED_CLIENT_ENV) and "\0" not in value:
            env[key] = value
    if cfg.namespaces:  # the sandbox has the session's `hf` in /usr/local/bin, and no bin_dir
        env["PATH"] = os.pathsep.join(
            [
                "/usr/local/bin",
                *(p for p in (env.get("PATH") or os.defpath).split(os.pathsep) if p and p != "/usr/local/bin"),
            ]
        )
    elif cfg.bin_dir is not None:
        env["PATH"] = os.pathsep.join([str(cfg.bin_dir), env.get("PATH") or os.defpath])
    env.setdefault("PATH", os.defpath)
    if cfg.hf_endpoint:
        env.update(HF_ENDPOINT=cfg.hf_endpoint, HF_HUB_DISABLE_TELEMETRY="1", HF_HUB_DISABLE_UPDATE_CHECK="1")
    if cfg.tmux_dir is not None:
        env["TMUX_TMPDIR"] = str(cfg.tmux_dir)
    env.update(
        TERM=term or "dumb",
        PWD=cfg.volume_dir,
        VOLUME=cfg.volume_dir,
        PRIMETUI_SESSION_ID=cfg.session_id,
        PRIMETUI_VOLUME=cfg.volume_name,
        PRIMETUI_SESSION_MODE="read-only" if cfg.read_only else "read-write",
    )
    return env


def _banner(cfg: EndpointConfig) -> bytes:
    disk = cfg.disk_line()
    where = f"mounted at {cfg.volume_dir}" + (f" ({disk})" if disk else "")
    if cfg.read_only:
        text = f"primetui: READ-ONLY session {cfg.session_id} on volume '{cfg.volume_name}', {where}. " + (
            "Nothing here can be changed.\r\n" if cfg.namespaces else "Changes made here never reach the volume.\r\n"
        )
    else:
        text = (
            f"primetui: read-write session {cfg.session_id} on volume '{cfg.volume_name}', {where}. "
            "Changes are saved to the volume when the session stops (runs/ is left alone).\r\n"
        )
    if not cfg.namespaces:
        text += (
            f"primetui: /volume is not available here ({cfg.no_namespace_why}); this shell starts in the "
            "working copy, whose path is also in $VOLUME.\r\n"
            "primetui: NOT SANDBOXED: this shell reaches every file, process and socket the platform's user "
            "can, the platform's token and other volumes included (see docs/security.md).\r\n"
        )
        if cfg.read_only:
            text += (
                "primetui: read-only is enforced by file permissions only, which is weaker than a read-only mount.\r\n"
            )
    return text.encode()


def _argv(cfg: EndpointConfig, argv: list[str], env: dict[str, str]) -> list[str]:
    """``argv`` in the session's sandbox. Built afresh for each process (a walk of /etc, ~30 ms, in a
    thread): a secret file added to /etc since the platform started is hidden too."""
    if not cfg.namespaces:
        return argv
    hf = cfg.bin_dir / "hf" if cfg.bin_dir is not None else None
    return sandbox.wrap(
        argv,
        work=cfg.root,
        read_only=cfg.read_only,
        home=env.get("HOME"),
        hf=hf,
        tmux_dir=cfg.tmux_dir,
        data_dir=cfg.data_dir,
    )


async def _fd_ready(add: Callable[..., Any], remove: Callable[[int], Any], fd: int) -> None:
    """Wait until the loop reports ``fd`` readable (``add_reader``) or writable (``add_writer``)."""
    ready = asyncio.get_running_loop().create_future()

    def wake() -> None:
        if not ready.done():
            ready.set_result(None)

    add(fd, wake)
    try:
        await ready
    finally:
        remove(fd)


def _sendable(writer: asyncssh.SSHWriter) -> int:
    """Bytes the channel would put on the wire at once: the client's credit (its window), or
    nothing while written data still waits in the channel."""
    chan = writer.channel
    if chan.get_write_buffer_size():
        return 0
    window = getattr(chan, "_send_window", None)  # asyncssh has no public view of the credit
    return _BATCH if window is None else int(window)


async def _pump_fd_to_channel(fd: int, writer: asyncssh.SSHWriter, on_activity) -> None:
    """Copy a non-blocking fd to the channel until EOF/EIO, reading no more than the channel sends.

    Output the channel cannot send yet stays in the pty, not in a buffer here: whatever is read
    ahead of the client's credit waits in front of a key's echo (the terminal sends the echo behind
    all of it), and a full pty makes the program wait, as on a terminal of its own.
    """
    loop = asyncio.get_running_loop()
    writer.channel.set_write_buffer_limits(high=0)  # drain() returns once all written is sent
    while True:
        await writer.drain()
        limit = min(_BATCH, max(_READ_LEAST, _sendable(writer)))
        try:
            data = os.read(fd, min(_READ, limit))
        except BlockingIOError:
            await _fd_ready(loop.add_reader, loop.remove_reader, fd)
            continue
        except OSError as exc:
            if exc.errno == errno.EIO:  # every slave fd closed: the shell and its children are gone
                return
            raise
        if not data:
            return
        # A pty hands out ~4 KiB per read; gather what is already there, up to what the channel
        # sends at once, so one SSH packet carries it (per-packet cost dominates a flood like
        # `seq 1 1500000`).
        if len(data) < limit:
            parts = [data]
            size = len(data)
            while size < limit:
                try:
                    more = os.read(fd, min(_READ, limit - size))
                except (BlockingIOError, OSError):
                    break
                if not more:
                    break
                parts.append(more)
                size += len(more)
            data = b"".join(parts)
        on_activity()
        writer.write(data)


async def _write_fd(fd: int, data: bytes) -> None:
    loop = asyncio.get_running_loop()
    view = memoryview(data)
    while view:
        try:
            view = view[os.write(fd, view) :]
        except BlockingIOError:
            await _fd_ready(loop.add_writer, loop.remove_writer, fd)


async def _pump_channel_to_pty(process: asyncssh.SSHServerProcess, master: int, on_activity) -> None:
    while True:
        try:
            data = await process.stdin.read(_READ)
        except asyncssh.TerminalSizeChanged as change:
            _set_winsize(master, change.width, change.height)
            continue
        except asyncssh.BreakReceived:
            await _write_fd(master, b"\x03")
            continue
        except asyncssh.SignalReceived:
            continue
        if not data:
            return
        on_activity()
        await _write_fd(master, data)


async def _run_on_pty(process: asyncssh.SSHServerProcess, cfg: EndpointConfig, argv: list[str]) -> int:
    cols, rows, _, _ = process.term_size
    master, slave = pty.openpty()
    _set_winsize(slave, cols or 80, rows or 24)
    env = _environment(cfg, process.term_type, process.env)
    try:
        child = await asyncio.create_subprocess_exec(
            *await asyncio.to_thread(_argv, cfg, argv, env),
            stdin=slave,
            stdout=slave,
            stderr=slave,
            cwd=cfg.root,
            env=env,
            start_new_session=True,
            preexec_fn=_take_controlling_tty,
        )
    finally:
        os.close(slave)
    os.set_blocking(master, False)
    cfg.processes.add(child)
    output = asyncio.create_task(_pump_fd_to_channel(master, process.stdout, cfg.on_activity))
    feeder = asyncio.create_task(_pump_channel_to_pty(process, master, cfg.on_activity))
    master_open = True

    async def release_pty() -> None:  # the pumps stop (dropping their fd watches) before the fd goes
        nonlocal master_open
        for task in (output, feeder):
            task.cancel()
        await asyncio.gather(output, feeder, return_exceptions=True)
        if master_open:
            master_open = False
            os.close(master)

    watcher = asyncio.create_task(_hang_up_when_closed(process, child, release_pty, cfg.namespaces))
    try:
        rc = await child.wait()
        # Background jobs may keep the pty open; give the last output a moment, then stop reading.
        await asyncio.wait({output}, timeout=1.0)
    finally:
        cfg.processes.discard(child)
        watcher.cancel()
        await asyncio.gather(watcher, return_exceptions=True)
        await release_pty()
    return rc


async def _run_piped(process: asyncssh.SSHServerProcess, cfg: EndpointConfig, argv: list[str]) -> int:
    env = _environment(cfg, process.term_type, process.env)
    child = await asyncio.create_subprocess_exec(
        *await asyncio.to_thread(_argv, cfg, argv, env),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        cwd=cfg.root,
        env=env,
        start_new_session=True,
        preexec_fn=default_signals,
    )
    cfg.processes.add(child)

    async def copy_out(reader: asyncio.StreamReader, writer: asyncssh.SSHWriter) -> None:
        while data := await reader.read(_READ):
            cfg.on_activity()
            writer.write(data)
            await writer.drain()

    async def copy_in() -> None:
        assert child.stdin is not None
        try:
            while True:
                try:
                    data = await process.stdin.read(_READ)
                except (asyncssh.TerminalSizeChanged, asyncssh.BreakReceived, asyncssh.SignalReceived):
                    continue
                if not data:
                    break
                child.stdin.write(data)
                await child.stdin.drain()
        except (BrokenPipeError, ConnectionResetError):
            pass
        finally:
            with contextlib.suppress(Exception):
                child.stdin.close()

    feeder = asyncio.create_task(copy_in())
    watcher = asyncio.create_task(_hang_up_when_closed(process, child, sandboxed=cfg.namespaces))
    try:
        assert child.stdout is not None and child.stderr is not None  # both are pipes
        await asyncio.gather(copy_out(child.stdout, process.stdout), copy_out(child.stderr, process.stderr))
        rc = await child.wait()
    finally:
        cfg.processes.discard(child)
        feeder.cancel()
        watcher.cancel()
        await asyncio.gather(feeder, watcher, return_exceptions=True)
    return rc


def _exit_code(rc: int) -> int:
    return 128 - rc if rc < 0 else rc  # killed by signal N -> 128+N, as shells report it


def make_process_handler(cfg: EndpointConfig):
    async def handle(process: asyncssh.SSHServerProcess) -> None:
        shell = _login_shell()
        command = process.command
        if command is not None and not cfg.namespaces:
            command = map_volume_prefix(command, cfg.root)
        try:
            if command is None and process.term_type is None:
                # ssh with stdin not a terminal: a login shell reading commands from the channel
                rc = await _run_piped(process, cfg, [shell, "-l"])
            elif command is None:
                process.stdout.write(_banner(cfg))
                rc = await _run_on_pty(process, cfg, [shell, "-l"])
            elif process.term_type is not None:
                rc = await _run_on_pty(process, cfg, [shell, "-c", command])
            else:
                rc = await _run_piped(process, cfg, [shell, "-c", command])
        except (asyncssh.BreakReceived, asyncssh.ConnectionLost, BrokenPipeError):
            return
        except Exception as exc:  # a failed spawn is reported to the client, never crashes the server
            log.exception("session %s: command failed to start", cfg.session_id)
            with contextlib.suppress(Exception):
                process.stderr.write(f"primetui: could not start the command: {exc}\r\n".encode())
                process.exit(127)
            return
        with contextlib.suppress(Exception):
            process.exit(_exit_code(rc))

    return handle


async def start_endpoint(cfg: EndpointConfig, host_key: asyncssh.SSHKey) -> asyncssh.SSHAcceptor:
    """Listen on a free loopback port for this session; ``acceptor.sockets[0]`` has the port."""
    if cfg.tmux_dir is None:
        # Short and under the temp dir: a tmux socket path must fit in 108 bytes.
        cfg.tmux_dir = Path(tempfile.mkdtemp(prefix="primetui-tmux-"))
    return await asyncssh.create_server(
        lambda: _Server(cfg),
        "127.0.0.1",
        0,
        server_host_keys=[host_key],
        process_factory=make_process_handler(cfg),
        sftp_factory=lambda chan: ContainedSFTPServer(
            chan, root=cfg.root, read_only=cfg.read_only, on_activity=cfg.on_activity
        ),
        allow_scp=True,
        encoding=None,
        keepalive_interval=30,
        agent_forwarding=False,
        x11_forwarding=False,
        allow_pty=True,
        line_editor=False,  # the remote shell edits its own lines; asyncssh must not echo them too
        encryption_algs=ENCRYPTION_ALGS,  # AES-GCM first for clients that take the server's order
        compression_algs=COMPRESSION_ALGS,
    )


def session_members(sid: int) -> list[int]:
    """Pids of every live process in the terminal session ``sid`` (jobs such as vim have their own
    group). A zombie has already exited (only its reaping is left), so it is not counted."""
    found: list[int] = []
    try:
        entries = os.listdir("/proc")
    except OSError:  # no procfs (not Linux): the process group signal is all there is
        return found
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                fields = fh.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        if len(fields) > 3 and int(fields[3]) == sid and fields[0] != b"Z":  # after "comm)": state ppid pgrp session
            found.append(int(entry))
    return found


def _signal_session(pid: int, sig: int, spare_leader: bool = False) -> None:
    """``sig`` to every process of terminal session ``pid``. ``spare_leader``: the leader is bwrap
    outside a sandbox, which a hangup would kill, and the sandbox with it (SIGKILL, --die-with-parent)
    before the programs inside take their own hangup; it ends by itself when the sandbox's shell does."""
    if not spare_leader:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, sig)
    for member in session_members(pid):
        if spare_leader and member == pid:
            continue
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(member, sig)


async def _hang_up_when_closed(
    process: asyncssh.SSHServerProcess,
    child,
    release_pty: Callable[[], Awaitable[None]] | None = None,
    sandboxed: bool = False,
) -> None:
    """When the client's channel closes, hang up on what it started, as sshd does: the pty is
    released first (``release_pty``: its master closed, so a program writing to the terminal gets
    EIO instead of blocking on a terminal nobody reads), then SIGHUP to the shell's terminal
    session, its jobs in their own process groups included."""
    with contextlib.suppress(Exception):
        await process.channel.wait_closed()
    if child.returncode is not None:
        return
    log.info("channel closed: hanging up on process group %d", child.pid)
    if release_pty is not None:
        await release_pty()
    _signal_session(child.pid, signal.SIGHUP, sandboxed)
    _signal_session(child.pid, signal.SIGCONT, sandboxed)  # a stopped job must wake up to take the hangup


def kill_processes(cfg: EndpointConfig) -> None:
    """Hang up every process the session started (its whole terminal session), then kill what is left."""
    for child in list(cfg.processes):
        _signal_session(child.pid, signal.SIGHUP, cfg.namespaces)
        _signal_session(child.pid, signal.SIGKILL)


async def _end_private_tmux(cfg: EndpointConfig) -> None:
    """A tmux server started in the session leaves its terminal session (it daemonizes), so
    ``kill_processes`` cannot reach it: stop each one by its socket, then remove the folder."""
    folder, cfg.tmux_dir = cfg.tmux_dir, None
    if folder is None:
        return
    tmux = shutil.which("tmux", path=os.environ.get("PATH")) or ""
    sockets = [p for p in folder.glob("tmux-*/*") if p.is_socket()] if tmux else []
    for sock in sockets:
        with contextlib.suppress(OSError, asyncio.TimeoutError):
            proc = await asyncio.create_subprocess_exec(
                tmux,
                "-S",
                str(sock),
                "kill-server",
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.DEVNULL,
                env=account_environment(),
            )
            await asyncio.wait_for(proc.wait(), 5)
    await asyncio.to_thread(shutil.rmtree, folder, True)


async def close_endpoint(acceptor: asyncssh.SSHAcceptor, cfg: EndpointConfig, reason: str) -> None:
    """Stop accepting, disconnect every client with ``reason``, and end the session's processes."""
    acceptor.close()
    for conn in list(cfg.connections):
        with contextlib.suppress(Exception):
            # Not DISC_BY_APPLICATION: clients treat that as a clean close and drop the reason.
            conn.disconnect(asyncssh.DISC_SERVICE_NOT_AVAILABLE, reason)
    kill_processes(cfg)
    await _end_private_tmux(cfg)
    with contextlib.suppress(Exception):
        await asyncio.wait_for(acceptor.wait_closed(), 5)
