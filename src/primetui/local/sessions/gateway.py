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

_CHUNK = 64 * 1024

Resolver = Callable[[str], int | None]
"""Maps an SNI alias to the loopback port of that session's SSH endpoint (None: no such session)."""


class Gateway:
    """The SNI-routing TLS listener. ``await start()``, then ``port``; ``await close()``."""

    def __init__(self, cert: GatewayCert, resolve: Resolver):
        self._cert = cert
        self._resolve = resolve
        self._server: asyncio.base_events.Server | None = None
        # keyed by the connection's SSLObject; weak so a failed handshake leaves nothing behind
        self._sni: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self._streams: set[asyncio.StreamWriter] = set()

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
        self._server = await asyncio.start_server(
            self._handle, "127.0.0.1", 0, ssl=self._context(), ssl_handshake_timeout=10
        )

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._streams.add(writer)
        sslobj = writer.get_extra_info("ssl_object")
        alias = self._sni.pop(sslobj, "") if sslobj is not None else ""
        try:
            port = self._resolve(alias.split(".")[0]) if alias else None
            if port is None:
                log.info("gateway: no live session for SNI %r; closing", alias)
                return
            try:
                up_reader, up_writer = await asyncio.open_connection("127.0.0.1", port)
            except OSError:
                log.info("gateway: the endpoint of %s is gone", alias)
                return
            self._streams.add(up_writer)
            try:
                await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))
            finally:
                self._streams.discard(up_writer)
                up_writer.close()
        finally:
            self._streams.discard(writer)
            with contextlib.suppress(Exception):
                writer.close()

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        for stream in list(self._streams):  # closing the streams ends each relay on its own
            stream.transport.abort()
        if self._server is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 5)


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(_CHUNK):
            writer.write(data)
            await writer.drain()
        if writer.can_write_eof():
            writer.write_eof()
    except (ConnectionError, ssl.SSLError, OSError):
        pass
    finally:
        if not writer.can_write_eof():
            writer.close()
