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
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol

_READ_SIZE = 1 << 16
_MAX_COALESCE = 1 << 18  # hand the screen at most 256 KiB at once so the UI keeps breathing
_MAX_QUEUED = 16  # chunks buffered before we stop reading (back-pressure to the program)


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
                *self.argv, stdin=slave, stdout=slave, stderr=slave, env=self.env, cwd=self.cwd, start_new_session=True,
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
            more = []
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
        self._eof = True


def _make_controlling_tty() -> None:
    # start_new_session made us a session leader; make stdin (the pty slave) our controlling
    # terminal so job control and ctrl+c reach the program.
    try:
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)
    except OSError:
        pass


class SSHTransport:
    """A login shell (or ``command``) on an SSH connection, with a PTY of the pane's size.

    ``connect`` is an async callable returning a connected ``asyncssh.SSHClientConnection``
    (the shell package's session connector: gateway, pinned host key, the user's key). When
    ``own_connection`` is true the connection is closed with the transport.
    """

    def __init__(
        self,
        connect: Callable[[], Awaitable[Any]],
        *,
        command: str | None = None,
        own_connection: bool = True,
        env: dict[str, str] | None = None,
    ) -> None:
        self._connect = connect
        self.command = command
        self.own_connection = own_connection
        self.env = env
        self.exit_reason: str | None = None
        self.exit_status: int | None = None
        self.connection: Any = None
        self._process: Any = None

    async def start(self, cols: int, rows: int) -> None:
        import asyncssh

        self.connection = await self._connect()
        try:
            self._process = await self.connection.create_process(
                self.command,
                term_type="xterm-256color",
                term_size=(cols, rows),
                encoding=None,
                env=self.env or (),
                stderr=asyncssh.STDOUT,
            )
        except asyncssh.Error as exc:
            if self.own_connection:
                self.connection.close()
            raise ConnectionError(f"The server refused a shell: {exc.reason}.") from exc

    async def read(self) -> bytes:
        import asyncssh

        if self._process is None:
            return b""
        try:
            data = await self._process.stdout.read(_READ_SIZE)
        except (asyncssh.Error, OSError) as exc:
            reason = getattr(exc, "reason", None) or str(exc) or type(exc).__name__
            self.exit_reason = f"The connection dropped: {reason.rstrip('.')}."
            return b""
        if data:
            return data
        await self._finish()
        return b""

    async def _finish(self) -> None:
        if self._process is None or self.exit_reason is not None:
            return
        try:
            await asyncio.wait_for(self._process.wait_closed(), 2)
        except (asyncio.TimeoutError, OSError):
            pass
        self.exit_status = self._process.exit_status
        if self.exit_status is None:
            self.exit_reason = "The connection closed without an exit status (the session may have been stopped)."
        else:
            self.exit_reason = f"The shell exited with status {self.exit_status}."

    def write(self, data: bytes) -> None:
        if self._process is not None and not self._process.stdin.is_closing():
            try:
                self._process.stdin.write(data)
            except (OSError, Exception):  # a write after the channel closed must not crash the pane
                pass

    def resize(self, cols: int, rows: int) -> None:
        if self._process is not None:
            try:
                self._process.change_terminal_size(cols, rows)
            except (OSError, Exception):
                pass

    async def close(self) -> None:
        if self._process is not None:
            self._process.close()
        if self.connection is not None and self.own_connection:
            self.connection.close()
            try:
                await asyncio.wait_for(self.connection.wait_closed(), 2)
            except (asyncio.TimeoutError, OSError):
                pass
