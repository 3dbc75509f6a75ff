"""The TLS gateway's relay in one process: SNI routing, bytes both ways, back-pressure, close."""

from __future__ import annotations

import asyncio
import hashlib
import os
import ssl

from primetui.local.sessions.gateway import _HIGH_WATER, Gateway
from primetui.local.sessions.keys import load_gateway_cert
from primetui.shell.endpoint import Gateway as GatewayAddress
from primetui.shell.gateway import open_verified_tls
from tests.waiting import wait_for


def _client_context() -> ssl.SSLContext:
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    return ctx


async def test_relay_routes_by_sni_keeps_order_and_holds_back_a_flood(tmp_path):
    # more than every kernel buffer on the way can take (loopback send and receive buffers grow to a
    # few MiB each), so the relay itself must stop reading the endpoint
    flood = os.urandom(32 * 1024 * 1024)
    got_upload = asyncio.get_running_loop().create_future()

    async def endpoint(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        got_upload.set_result(await reader.readexactly(6))  # sent before the relay was connected
        writer.write(flood)  # far more than the relay may hold while the client does not read
        await writer.drain()
        writer.close()

    upstream = await asyncio.start_server(endpoint, "127.0.0.1", 0)
    port = upstream.sockets[0].getsockname()[1]
    cert = load_gateway_cert(tmp_path)
    gw = Gateway(cert, lambda alias: port if alias == "vol-ssh-known" else None)
    await gw.start()
    try:
        # an unknown name: the gateway closes the connection without a byte
        reader, writer = await asyncio.open_connection(
            "127.0.0.1", gw.port, ssl=_client_context(), server_hostname="vol-ssh-nobody.localhost"
        )
        assert await reader.read() == b""
        writer.close()

        address = GatewayAddress("127.0.0.1", gw.port, cert.sha256)
        reader, writer = await open_verified_tls(address, "vol-ssh-known.localhost")
        writer.write(b"hello\n")
        assert await got_upload == b"hello\n"
        # the endpoint writes on while nobody reads here, until the relay pauses reading it
        await wait_for(
            lambda: any(not t.is_reading() for t in list(gw._transports)),
            "the relay to stop reading the endpoint (its outgoing buffer reached the high-water mark)",
        )
        held = sum(t.get_write_buffer_size() for t in list(gw._transports))
        assert held <= 2 * _HIGH_WATER  # the relay stopped reading the endpoint instead of buffering it all
        received = bytearray()
        while data := await reader.read(1 << 20):
            received += data
        assert hashlib.sha256(received).digest() == hashlib.sha256(flood).digest()  # every byte, in order
        writer.close()
    finally:
        await gw.close()
        upstream.close()
