"""The local platform's and `primetui serve`'s listening sockets send each reply at once (TCP_NODELAY).

uvicorn writes a response's head and its body in two writes; on a connection with Nagle's algorithm on,
the second waits for the client's delayed ACK, about 40 ms per request on Linux. asyncio turns Nagle off
only on sockets made with ``IPPROTO_TCP``, which ``socket(family, SOCK_STREAM)`` is not, so the listening
socket (``primetui.local.connwall.ListeningSocket``) does it for each connection it accepts. What is checked
is the option on the connection as the server's protocol gets it, not a time.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable

import pytest

from primetui.commands.serve import listen
from primetui.local.server import bind_socket


class _Probe(asyncio.Protocol):
    def __init__(self, seen: asyncio.Future[int]) -> None:
        self.seen = seen

    def connection_made(self, transport: asyncio.BaseTransport) -> None:  # type: ignore[override]
        sock = transport.get_extra_info("socket")
        self.seen.set_result(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
        transport.close()


async def _nodelay_of_an_accepted_connection(sock: socket.socket) -> int:
    loop = asyncio.get_running_loop()
    seen: asyncio.Future[int] = loop.create_future()
    server = await loop.create_server(lambda: _Probe(seen), sock=sock)  # as uvicorn and aiohttp's site do
    try:
        host, port = sock.getsockname()[:2]
        _reader, writer = await asyncio.open_connection(host, port)
        try:
            return await asyncio.wait_for(seen, 30)  # a bound on a hang
        finally:
            writer.close()
    finally:
        server.close()
        await server.wait_closed()


@pytest.mark.parametrize(
    "make",
    [lambda: bind_socket(None), lambda: listen("127.0.0.1", 0)],
    ids=["local-platform", "primetui-serve"],
)
async def test_an_accepted_connection_has_nagle_off(make: Callable[[], socket.socket]):
    assert await _nodelay_of_an_accepted_connection(make()) != 0
