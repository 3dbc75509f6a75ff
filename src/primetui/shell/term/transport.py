"""Byte pipes between a terminal screen and a program: a local pty, or an SSH channel.

Both expose the same small interface (:class:`Transport`), so the pane, the full-terminal mode,
the tests and the bench drive either one the same way:

- ``await start(cols, rows)`` opens the program with that terminal size;
- ``await read()`` returns the next output bytes (everything available, coalesced), ``b""`` at end;
- ``write(data)`` sends input, ``resize(cols, rows)`` passes a new size on;
- ``await close()`` ends it; ``exit_reason`` then says why it ended, in one sentence.
"""

from __future__ import annotations

import asyncio
import errno
import fcntl
import os
import pty
import signal
import struct
import termios
from collections.abc import Sequence
from typing import Any, Protocol

from primetui.shell.childsig import default_signals

_READ_SIZE = 1 << 16
_MAX_COALESCE = 1 << 16  # hand the screen at most 64 KiB at once so keys get in between chunks
_MAX_QUEUED = 2  # chunks read ahead before we stop reading: back-pressure keeps an echo close behind


class Transport(Protocol):
    exit_reason: str | None

    async def start(self, cols: int, rows: int) -> None: ...

    async def read(self) -> bytes: ...

    def write(self, data: bytes) -> None: ...

    def resize(self, cols: int, rows: int) -> None: ...

    async def close(self) -> None: ...


def set_winsize(fd: int, cols: int, rows: int) -> None:
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))


class PtyTransport:
    """A local program on a new pseudo-terminal (the tests' and bench's stand-in for SSH)."""

    def __init__(self, argv: Sequence[str], *, env: dict[str, str] | None = None, cwd: str | None = None) -> None:
        self.argv = list(argv)
        self.env = {**os.environ, **(env or {}), "TERM": "xterm-256color"}
        self.cwd = cwd
        self.exit_reason: str | None = None
        self.exit_status: int | None = None
        self._master = -1
        self._proc: asyncio.subprocess.Process | None = None
        self._queue: asyncio.Queue[bytes] = asyncio.Queue()
        self._reading = False
        self._eof = False

    async def start(self, cols: int, rows: int) -> None:
        master, slave = pty.openpty()
        set_winsize(slave, cols, rows)
        self._master = master
        os.set_blocking(master, False)
        try:
            self._proc = await asyncio.create_subprocess_exec(
                *self.argv,
                stdin=slave,
                stdout=slave,
                stderr=slave,
                env=self.env,
                cwd=self.cwd,
                start_new_session=True,
                preexec_fn=_make_controlling_tty,
            )
        finally:
            os.close(slave)
        self._resume_reading()

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc else None

    def _resume_reading(self) -> None:
        if not self._reading and not self._eof and self._master >= 0:
            asyncio.get_running_loop().add_reader(self._master, self._on_readable)
            self._reading = True

    def _pause_reading(self) -> None:
        if self._reading:
            asyncio.get_running_loop().remove_reader(self._master)
            self._reading = False

    def _on_readable(self) -> None:
        chunks = []
        size = 0
        while size < _MAX_COALESCE:
            try:
                data = os.read(self._master, _READ_SIZE)
            except BlockingIOError:
                break
            except OSError as exc:  # EIO: the program closed its side
                if exc.errno != errno.EIO:
                    self.exit_reason = f"The terminal failed: {exc.strerror}."
                data = b""
            if not data:
                self._eof = True
                self._pause_reading()
                break
            chunks.append(data)
            size += len(data)
        if chunks:
            self._queue.put_nowait(b"".join(chunks))
        if self._eof:
            self._queue.put_nowait(b"")
        elif self._queue.qsize() >= _MAX_QUEUED:
            self._pause_reading()

    async def read(self) -> bytes:
        data = await self._queue.get()
        if data:
            more: list[bytes] = []
            while not self._queue.empty() and len(data) + sum(map(len, more)) < _MAX_COALESCE:
                nxt = self._queue.get_nowait()
                if not nxt:
                    self._queue.put_nowait(b"")  # keep the end marker for the next read
                    break
                more.append(nxt)
            if more:
                data = data + b"".join(more)
            if self._queue.qsize() < _MAX_QUEUED // 2:
                self._resume_reading()
            return data
        await self._finish()
        return b""

    async def _finish(self) -> None:
        if self._proc is not None and self.exit_status is None:
            try:
                self.exit_status = await asyncio.wait_for(self._proc.wait(), 2)
            except asyncio.TimeoutError:
                self.exit_status = None
        if self.exit_reason is None:
            self.exit_reason = f"The shell exited with status {self.exit_status}."

    def write(self, data: bytes) -> None:
        if self._master < 0 or self._eof:
            return
        view = memoryview(data)
        while view:
            try:
                n = os.write(self._master, view)
            except BlockingIOError:
                # The program is not reading; finish the write from the loop instead of blocking.
                rest = bytes(view)
                asyncio.get_running_loop().call_later(0.01, self.write, rest)
                return
            except OSError:
                return
            view = view[n:]

    def resize(self, cols: int, rows: int) -> None:
        if self._master >= 0 and not self._eof:
            try:
                set_winsize(self._master, cols, rows)
            except OSError:
                pass

    async def close(self) -> None:
        self._pause_reading()
        if self._proc is not None and self._proc.returncode is None:
            try:
                os.killpg(self._proc.pid, signal.SIGHUP)
            except (ProcessLookupError, PermissionError):
                pass
            try:
                await asyncio.wait_for(self._proc.wait(), 2)
            except asyncio.TimeoutError:
                try:
                    os.killpg(self._proc.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
                await self._proc.wait()
        if self._master >= 0:
            os.close(self._master)
            self._master = -1
        if not self._eof:
            self._eof = True
            self._queue.put_nowait(b"")  # the end marker: a pending read() returns, as over SSH


def _make_controlling_tty() -> None:
    # The program's signals at their default actions, whatever the dashboard inherited (started with
    # `&`, it ignores SIGINT, and ^C would not stop the program); start_new_session made us a session
    # leader: make stdin (the pty slave) our controlling terminal so job control and ctrl+c reach it.
    default_signals()
    try:
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)
    except OSError:
        pass


class SessionTransport:
    """A login shell on a volume session over SSH (gateway or direct, host key and certificate
    pinned), through :mod:`primetui.shell`'s connector. ``dropped`` tells a lost link (offer to
    reconnect) from a shell that exited."""

    def __init__(self, session: Any, key_path: str | os.PathLike[str], *, direct: bool = False) -> None:
        self.session = session
        self.key_path = key_path
        self.direct = direct
        self.exit_reason: str | None = None
        self.exit_status: int | None = None
        self.dropped = False
        self.stopped = False  # the platform stopped or reaped the session
        self.connection: Any = None
        self._process: Any = None

    async def start(self, cols: int, rows: int) -> None:
        from primetui.shell import open_session_connection, open_shell

        self.connection = await open_session_connection(self.session, self.key_path, direct=self.direct)
        try:
            self._process = await open_shell(self.connection, "xterm-256color", cols, rows)
        except Exception:
            await self.connection.close()
            raise

    async def read(self) -> bytes:
        if self._process is None:
            return b""
        data = await self._process.read(_READ_SIZE)
        if data:
            return data
        from primetui.shell import SessionStopped

        end = await self._process.wait()
        self.exit_status = end.exit_status
        if end.error is not None:
            self.dropped = True
            self.stopped = isinstance(end.error, SessionStopped)
            self.exit_reason = str(end.error)
        elif end.exit_status is None:
            self.exit_reason = "The shell was closed."  # hung up from here before it reported a status
        else:
            self.exit_reason = f"The shell exited with status {end.exit_status}."
        return b""

    def write(self, data: bytes) -> None:
        if self._process is not None:
            self._process.write(data)

    def resize(self, cols: int, rows: int) -> None:
        if self._process is not None:
            self._process.resize(cols, rows)

    async def close(self) -> None:
        if self._process is not None:
            await self._process.close()
        if self.connection is not None:
            await self.connection.close()
