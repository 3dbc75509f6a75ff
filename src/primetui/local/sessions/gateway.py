"""The TLS gateway: one listener on 127.0.0.1 that routes each connection by SNI to a session.

It is what the hosted platform's vol-bastion does: TLS is only an envelope carrying the session's
short host name (the first DNS label of the ``sshConnection`` host, e.g. ``vol-ssh-1a2b3c4d``); the
SSH inside stays end to end between the client and the session's endpoint. The certificate is
self-signed; clients pin the SHA-256 of its DER form (``gateway.certSha256``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import ssl
import weakref
from collections.abc import Callable

from primetui.local.sessions.keys import GatewayCert

log = logging.getLogger("primetui.local.sessions")

Resolver = Callable[[str], int | None]
"""Maps an SNI alias to the loopback port of that session's SSH endpoint (None: no such session)."""

# Bytes a relay lets queue towards a slow side before it stops reading the other (per direction).
_HIGH_WATER = 1 << 20
_LOW_WATER = 256 * 1024


class Gateway:
    """The SNI-routing TLS listener. ``await start()``, then ``port``; ``await close()``."""

    def __init__(self, cert: GatewayCert, resolve: Resolver):
        self._cert = cert
        self._resolve = resolve
        self._server: asyncio.base_events.Server | None = None
        # keyed by the connection's SSLObject; weak so a failed handshake leaves nothing behind
        self._sni: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self._transports: set[asyncio.Transport] = set()

    @property
    def port(self) -> int:
        assert self._server is not None
        return self._server.sockets[0].getsockname()[1]

    @property
    def cert_sha256(self) -> str:
        return self._cert.sha256

    def _context(self) -> ssl.SSLContext:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.minimum_version = ssl.TLSVersion.TLSv1_2
        ctx.load_cert_chain(self._cert.cert_path, self._cert.key_path)

        def remember_sni(sslobj, server_name, _ctx):
            if server_name:
                self._sni[sslobj] = server_name
            return None

        ctx.sni_callback = remember_sni
        return ctx

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        self._server = await loop.create_server(
            lambda: _Downstream(self), "127.0.0.1", 0, ssl=self._context(), ssl_handshake_timeout=10
        )

    def _sni_of(self, transport: asyncio.BaseTransport) -> str:
        sslobj = transport.get_extra_info("ssl_object")
        return self._sni.pop(sslobj, "") if sslobj is not None else ""

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        for transport in list(self._transports):  # aborting either side ends its relay
            # Python 3.11.2 (Debian 12's) raises AttributeError aborting an SSL transport already
            # closed (CPython fixed it in 3.11.3); that side is ending anyway.
            with contextlib.suppress(AttributeError):
                transport.abort()
        if self._server is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 5)


class _Side(asyncio.Protocol):
    """One end of a relay: what arrives here is written to ``peer``'s transport.

    The copy happens in ``data_received`` (no stream buffer, no task wake-up per chunk); flow
    control is the transports' own: when the peer's write buffer passes its high-water mark the
    peer protocol's ``pause_writing`` stops reading on this side until it drains."""

    def __init__(self, gateway: Gateway) -> None:
        self.gateway = gateway
        self.transport: asyncio.Transport | None = None
        self.peer: _Side | None = None
        self.closed = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        self.gateway._transports.add(transport)
        transport.set_write_buffer_limits(high=_HIGH_WATER, low=_LOW_WATER)

    def data_received(self, data: bytes) -> None:
        peer = self.peer
        if peer is not None and peer.transport is not None and not peer.closed:
            peer.transport.write(data)

    def pause_writing(self) -> None:  # our outgoing buffer is full: stop reading the other side
        if self.peer is not None and self.peer.transport is not None and not self.peer.closed:
            self.peer.transport.pause_reading()

    def resume_writing(self) -> None:
        if self.peer is not None and self.peer.transport is not None and not self.peer.closed:
            self.peer.transport.resume_reading()

    def eof_received(self) -> bool | None:
        peer = self.peer
        if peer is not None and peer.transport is not None and not peer.closed:
            if peer.transport.can_write_eof():
                peer.transport.write_eof()
                # half-close: the other direction goes on, where this side's transport allows it
                # (a TLS transport closes itself after EOF whatever we return)
                if self.transport is not None and self.transport.can_write_eof():
                    return True
            else:
                peer.transport.close()  # TLS cannot half-close: close once what is queued is sent
        return None

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if self.transport is not None:
            self.gateway._transports.discard(self.transport)
        peer = self.peer
        if peer is not None and peer.transport is not None and not peer.closed:
            peer.transport.close()  # flushes what is queued first


class _Downstream(_Side):
    """The client's TLS connection: routed by its SNI to the session's endpoint."""

    def __init__(self, gateway: Gateway) -> None:
        super().__init__(gateway)
        self._early: list[bytes] = []
        self._connecting: asyncio.Task | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        assert self.transport is not None
        alias = self.gateway._sni_of(transport)
        port = self.gateway._resolve(alias.split(".")[0]) if alias else None
        if port is None:
            log.info("gateway: no live session for SNI %r; closing", alias)
            self.transport.close()
            return
        self.transport.pause_reading()  # until the endpoint is connected
        self._connecting = asyncio.get_running_loop().create_task(self._connect(alias, port))

    def data_received(self, data: bytes) -> None:
        if self.peer is None:
            self._early.append(data)  # arrived before reading was paused
        else:
            super().data_received(data)

    async def _connect(self, alias: str, port: int) -> None:
        loop = asyncio.get_running_loop()
        up = _Side(self.gateway)
        try:
            await loop.create_connection(lambda: up, "127.0.0.1", port)
        except OSError:
            log.info("gateway: the endpoint of %s is gone", alias)
            if self.transport is not None:
                self.transport.close()
            return
        assert up.transport is not None and self.transport is not None
        if self.closed:  # the client left while we connected
            up.transport.close()
            return
        up.peer, self.peer = self, up
        for data in self._early:
            up.transport.write(data)
        self._early.clear()
        self.transport.resume_reading()
