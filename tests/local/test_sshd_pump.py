"""The platform's pty -> channel pump reads no further than the client's window lets it send.

Output read ahead of that credit would wait in the server, in front of a key's echo; it stays in
the pty instead (a full pty makes the program wait, as on a terminal of its own).
"""

from __future__ import annotations

import fcntl
import os

import pytest

from primetui.local.sessions.sshd import _READ_LEAST, _pump_fd_to_channel


class _Channel:
    def __init__(self, window: int) -> None:
        self._send_window = window
        self.buffered = 0
        self.limits: tuple[int | None, int | None] | None = None

    def get_write_buffer_size(self) -> int:
        return self.buffered

    def set_write_buffer_limits(self, high: int | None = None, low: int | None = None) -> None:
        self.limits = (high, low)


class _Writer:
    """Stands in for asyncssh's SSHWriter: each write is what the channel would send at once."""

    def __init__(self, window: int) -> None:
        self.channel = _Channel(window)
        self.writes: list[int] = []

    def write(self, data: bytes) -> None:
        self.writes.append(len(data))

    async def drain(self) -> None:
        pass


def _pipe_with(nbytes: int) -> int:
    read_fd, write_fd = os.pipe()
    fcntl.fcntl(write_fd, fcntl.F_SETPIPE_SZ, 1 << 20)  # the whole output fits before the reader starts
    os.write(write_fd, b"x" * nbytes)
    os.close(write_fd)  # EOF once read: the pump returns
    os.set_blocking(read_fd, False)
    return read_fd


@pytest.mark.parametrize("window", [10_000, 64 * 1024, 0])
async def test_each_send_is_at_most_the_clients_credit(window: int) -> None:
    fd = _pipe_with(600_000)
    writer = _Writer(window)
    try:
        await _pump_fd_to_channel(fd, writer, lambda: None)
    finally:
        os.close(fd)
    assert sum(writer.writes) == 600_000
    assert max(writer.writes) <= max(window, _READ_LEAST)  # spent credit: one pty read, sent when credit comes
    assert writer.channel.limits == (0, None)  # drain waits until everything written is on the wire


async def test_nothing_more_is_read_while_written_output_still_waits() -> None:
    fd = _pipe_with(50_000)
    writer = _Writer(1 << 20)
    writer.channel.buffered = 1  # the last write is not on the wire yet (no credit since)
    try:
        await _pump_fd_to_channel(fd, writer, lambda: None)
    finally:
        os.close(fd)
    assert max(writer.writes) <= _READ_LEAST
