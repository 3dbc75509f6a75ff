"""``python -m primetui.shell.proxy --gateway H:P --cert-sha256 HEX ALIAS``: an OpenSSH ProxyCommand.

Relays stdin/stdout through TLS to the session gateway with SNI = ALIAS and the certificate pinned
by SHA-256, exactly like ``prime volumes proxy`` (so configs written by either tool work), without
needing the prime CLI installed. Exit status 1 with one sentence on stderr when the gateway cannot
be reached or presents another certificate.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys

from primetui.shell.endpoint import gateway_of
from primetui.shell.errors import ShellError
from primetui.shell.gateway import open_verified_tls

_CHUNK = 64 * 1024


async def relay(host: str, port: int, cert_sha256: str, alias: str, stdin_fd: int = 0, stdout_fd: int = 1) -> None:
    """Pipe ``stdin_fd``/``stdout_fd`` through the verified TLS stream until either side closes."""
    gateway = gateway_of(host, port, cert_sha256)
    if gateway is None:
        raise ShellError(f"invalid gateway {host}:{port} or certificate hash; expected host:port and 64 hex digits")
    reader, writer = await open_verified_tls(gateway, alias)
    loop = asyncio.get_running_loop()
    stdin = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stdin), os.fdopen(stdin_fd, "rb", 0))
    out_transport, out_protocol = await loop.connect_write_pipe(
        asyncio.streams.FlowControlMixin, os.fdopen(stdout_fd, "wb", 0)
    )
    stdout = asyncio.StreamWriter(out_transport, out_protocol, None, loop)

    async def up() -> None:
        while data := await stdin.read(_CHUNK):
            writer.write(data)
            await writer.drain()
        # ssh closed our stdin: TLS has no half-close, so keep reading until the server closes.

    async def down() -> None:
        while data := await reader.read(_CHUNK):
            stdout.write(data)
            await stdout.drain()

    upward = asyncio.create_task(up())
    try:
        await down()
    finally:
        upward.cancel()
        writer.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m primetui.shell.proxy", description=__doc__.splitlines()[0])
    parser.add_argument("--gateway", required=True, help="HOST:PORT of the session gateway")
    parser.add_argument("--cert-sha256", required=True, help="SHA-256 of the gateway certificate (hex)")
    parser.add_argument("alias", help="the session's short host name (SNI)")
    args = parser.parse_args(argv)
    host, _, port = args.gateway.rpartition(":")
    if not host or not port.isdigit():
        print(f"primetui proxy: invalid gateway {args.gateway!r}; expected host:port", file=sys.stderr)
        return 1
    try:
        asyncio.run(relay(host, int(port), args.cert_sha256, args.alias))
    except ShellError as exc:
        print(f"primetui proxy: {exc}", file=sys.stderr)
        return 1
    except (ConnectionError, OSError):
        return 0  # the session closed the connection; ssh reports what it saw
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
