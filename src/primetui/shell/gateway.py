"""The client end of the TLS gateway: TLS with SNI = the session alias, certificate pinned by SHA-256.

Same rules as the prime CLI's ``volumes proxy`` (volume_gateway.py): TLS 1.2 or newer, no CA or
host-name check, instead ``sha256(DER certificate)`` compared in constant time with ``certSha256``;
a mismatch is refused before a single SSH byte is sent. The verified TLS stream is then handed to
asyncssh as its transport (asyncssh's ``tunnel`` hook), so SSH runs end to end inside it.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import ssl

from primetui.shell.endpoint import Gateway
from primetui.shell.errors import ConnectFailed, GatewayCertificateMismatch


class _Holding(asyncio.Protocol):
    """Holds whatever arrives between the TLS handshake and the hand-over to SSH."""

    def __init__(self) -> None:
        self.buffer = bytearray()
        self.eof = False
        self.lost: Exception | None = None
        self.closed = False

    def data_received(self, data: bytes) -> None:
        self.buffer += data

    def eof_received(self) -> bool:
        self.eof = True
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self.lost = exc


def _context() -> ssl.SSLContext:
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE  # authenticated by the pinned SHA-256 below instead of a CA
    return ctx


class GatewayTunnel:
    """An asyncssh tunnel object: ``create_connection`` opens and verifies the TLS envelope."""

    def __init__(self, gateway: Gateway, sni: str, timeout: float = 10.0):
        self.gateway = gateway
        self.sni = sni
        self.timeout = timeout

    async def create_connection(self, session_factory, remote_host, remote_port):
        loop = asyncio.get_running_loop()
        gw = self.gateway
        holding = _Holding()
        try:
            transport, _ = await asyncio.wait_for(
                loop.create_connection(
                    lambda: holding,
                    gw.host,
                    gw.port,
                    ssl=_context(),
                    server_hostname=self.sni,
                    ssl_handshake_timeout=self.timeout,
                ),
                self.timeout,
            )
        except (OSError, ssl.SSLError, asyncio.TimeoutError) as exc:
            why = "timed out" if isinstance(exc, asyncio.TimeoutError) else (getattr(exc, "strerror", None) or str(exc))
            raise ConnectFailed(
                f"Cannot reach the session gateway {gw.host}:{gw.port} ({why}); check your network "
                "(outbound TCP to the gateway) and retry."
            ) from exc
        sslobj = transport.get_extra_info("ssl_object")
        der = sslobj.getpeercert(binary_form=True) if sslobj is not None else None
        actual = hashlib.sha256(der or b"").hexdigest()
        if not hmac.compare_digest(actual, gw.cert_sha256.replace(":", "").lower()):
            transport.abort()
            raise GatewayCertificateMismatch(
                f"the gateway {gw.host}:{gw.port} presented an unexpected certificate "
                f"(SHA-256 {actual}); refusing to connect"
            )
        protocol = session_factory()
        transport.set_protocol(protocol)
        protocol.connection_made(transport)
        if holding.buffer:
            protocol.data_received(bytes(holding.buffer))
        if holding.eof:
            protocol.eof_received()
        if holding.closed:
            protocol.connection_lost(holding.lost)
        return transport, protocol

    def close(self) -> None:  # asyncssh's tunnel interface; the TLS transport closes with the SSH one
        pass

    async def wait_closed(self) -> None:
        pass


async def open_verified_tls(
    gateway: Gateway, sni: str, timeout: float = 10.0
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A TLS stream to the gateway whose certificate matched the pin (for the ProxyCommand relay)."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=1 << 20)

    def factory():
        return asyncio.StreamReaderProtocol(reader)

    transport, protocol = await GatewayTunnel(gateway, sni, timeout).create_connection(
        factory, gateway.host, gateway.port
    )
    return reader, asyncio.StreamWriter(transport, protocol, reader, loop)
