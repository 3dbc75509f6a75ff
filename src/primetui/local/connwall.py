"""The connection wall: what a TCP connection to the local platform meets before any HTTP request.

Any local user can connect to 127.0.0.1 without the token, so connections themselves are bounded
(the request wall, ``primetui.local.wall``, then checks each request):

1. **Request head**: a connection must send a complete request head within :attr:`Limits.head_timeout`
   seconds of opening (and a kept-alive one, of the first byte of its next request); else 408 and closed.
2. **Body**: a body the server is reading must move at least one byte every :attr:`Limits.body_timeout`
   seconds; else the connection is closed (the route sees the client go).
3. **Connections**: at most :attr:`Limits.max_connections` open at once, and
   :attr:`Limits.max_per_client` per client: on loopback the local user at the other end
   (:class:`PeerOwners`), else the peer address. At a cap, the connection that has waited longest
   without a request in progress (a half-sent head, or idle between requests) and never sent the
   token is closed to make room; when there is none, the new connection gets a 503 and is closed.
   So a client with the token is served while half-open connections pile up, and its own idle
   kept-alive connections are not closed under it.
4. **Out of file descriptors**: an accept that fails for lack of them (``EMFILE``) stops that round
   of accepts; asyncio tries again a second later, once connections have been shed.

Refusals are logged through ``primetui.local.connections``: the first of each kind as one line, the
rest counted (``primetui.config.logcap.RepeatFilter``).
"""

from __future__ import annotations

import asyncio
import errno
import logging
import os
import resource
import socket
import struct
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol


log = logging.getLogger("primetui.local.connections")


class HoldingProtocol(Protocol):
    """What the wall needs of a connection (``primetui.local.connwall_http.HoldingProtocol``, kept apart
    because it imports uvicorn, which only the ``[local]`` extra installs)."""

    trusted: bool
    counted: bool
    client_key: str

    def shed(self) -> None: ...


HEAD_TIMEOUT = 10.0
BODY_TIMEOUT = 30.0
MAX_CONNECTIONS = 1024
MAX_PER_CLIENT = 256
FD_RESERVE = 256
"""File descriptors kept for the platform's own files, database, trainers and sessions."""

REPLY_408 = (
    b"HTTP/1.1 408 Request Timeout\r\ncontent-type: text/plain; charset=utf-8\r\nconnection: close\r\n"
    b"content-length: 40\r\n\r\nThe request head did not arrive in time."
)
REPLY_503 = (
    b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\nconnection: close\r\n"
    b"retry-after: 1\r\ncontent-length: 47\r\n\r\nToo many connections are busy; try again soon.\n"
)

ENV = {
    "head_timeout": "PRIMETUI_LOCAL_HEAD_TIMEOUT",
    "body_timeout": "PRIMETUI_LOCAL_BODY_TIMEOUT",
    "max_connections": "PRIMETUI_LOCAL_MAX_CONNECTIONS",
    "max_per_client": "PRIMETUI_LOCAL_MAX_PER_CLIENT",
}
"""The environment variables that change a limit (tests shorten the timeouts)."""


@dataclass(frozen=True)
class Limits:
    head_timeout: float = HEAD_TIMEOUT
    """Seconds a connection has to send a whole request head."""
    body_timeout: float = BODY_TIMEOUT
    """Seconds a body being read may go without a byte."""
    max_connections: int = MAX_CONNECTIONS
    """Connections open at once."""
    max_per_client: int = MAX_PER_CLIENT
    """Connections open at once from one client (on loopback one local user, else one address)."""

    @classmethod
    def from_environment(cls, env: Mapping[str, str] | None = None, fd_limit: int | None = None) -> Limits:
        """The defaults, with :data:`ENV` overrides; the connection cap stays under half of ``fd_limit``.

        Raises ValueError with one sentence naming the variable when a value is not a positive number
        (the words of ``primetui.config.mistakes``).
        """
        from primetui.config.mistakes import echo, seconds_problem

        env = os.environ if env is None else env
        values: dict[str, Any] = {}
        for field, name in ENV.items():
            raw = (env.get(name) or "").strip()
            if not raw:
                continue
            default = getattr(cls, field)
            if isinstance(default, float):
                problem = seconds_problem(raw)
                if problem:
                    raise ValueError(f"{name} {problem}; set it to seconds, like {default:g}, or unset it.")
                values[field] = float(raw)
            elif not (raw.isascii() and raw.isdigit()) or int(raw) <= 0:
                raise ValueError(
                    f"{name} is {echo(raw)}, not a positive whole number; set it to a count, "
                    f"like {default}, or unset it."
                )
            else:
                values[field] = int(raw)
        limits = cls(**values)
        if fd_limit is not None:
            room = max(16, (fd_limit - FD_RESERVE) // 2 if fd_limit > 2 * FD_RESERVE else fd_limit // 2)
            if "max_connections" not in values and limits.max_connections > room:
                limits = cls(**{**limits.__dict__, "max_connections": room})
        if limits.max_per_client > limits.max_connections:
            limits = cls(**{**limits.__dict__, "max_per_client": limits.max_connections})
        return limits


def raise_fd_limit() -> int:
    """Raise this process's soft limit on open files to its hard limit; returns the soft limit now."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = hard if hard != resource.RLIM_INFINITY else 1 << 16
    if soft == resource.RLIM_INFINITY:
        return target
    if soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            pass
    return soft


class IdleOrder:
    """Connections with no request in progress, oldest first: those that never showed the token, then the rest."""

    def __init__(self) -> None:
        self._plain: OrderedDict[HoldingProtocol, None] = OrderedDict()
        self._trusted: OrderedDict[HoldingProtocol, None] = OrderedDict()

    def add(self, proto: HoldingProtocol) -> None:
        """``proto`` is idle; one already idle keeps its place (more bytes of a head do not make it younger)."""
        order = self._trusted if proto.trusted else self._plain
        if proto not in order:
            self.remove(proto)
            order[proto] = None

    def remove(self, proto: HoldingProtocol) -> None:
        self._plain.pop(proto, None)
        self._trusted.pop(proto, None)

    def sheddable(self) -> HoldingProtocol | None:
        """The connection to close to make room: the oldest idle one that never sent the token.

        Idle connections that did send it are kept (a client reuses them, and a POST sent on one
        that was closed under it fails), so with only those left the new connection is refused.
        """
        return next(iter(self._plain), None)

    def __bool__(self) -> bool:
        return bool(self._plain or self._trusted)


class ConnectionWall:
    """The counts behind rule 3: open connections per client, and which may be shed, oldest first."""

    def __init__(self, limits: Limits, trusts: Callable[[str | None], bool] = lambda header: False) -> None:
        self.limits = limits
        self.trusts = trusts
        """Whether an Authorization header value holds the platform's token."""
        self.per_client: dict[str, int] = {}
        self.total = 0
        self._idle = IdleOrder()
        self._idle_by_client: dict[str, IdleOrder] = {}

    def admit(self, proto: HoldingProtocol) -> bool:
        """Count ``proto`` in, shedding an idle connection at a cap; False when it must be refused."""
        key = proto.client_key
        if self.per_client.get(key, 0) >= self.limits.max_per_client and not self._shed(self._idle_by_client.get(key)):
            log.warning(
                "refused a connection from %s: it has %d open, all with a request in progress or the token",
                key,
                self.per_client.get(key, 0),
            )
            return False
        if self.total >= self.limits.max_connections and not self._shed(self._idle):
            log.warning("refused a connection: %d open, all with a request in progress or the token", self.total)
            return False
        self.per_client[key] = self.per_client.get(key, 0) + 1
        self.total += 1
        proto.counted = True
        self.idle(proto)
        return True

    def _shed(self, idle: IdleOrder | None) -> bool:
        oldest = idle.sheddable() if idle is not None else None
        if oldest is None:
            return False
        log.warning(
            "closed the connection that waited longest without a request (from %s) to make room for a new one",
            oldest.client_key,
        )
        oldest.shed()
        return True

    def idle(self, proto: HoldingProtocol) -> None:
        """``proto`` has no request in progress: it may be shed, after those idle before it."""
        if not proto.counted:
            return
        self._idle.add(proto)
        self._idle_by_client.setdefault(proto.client_key, IdleOrder()).add(proto)

    def busy(self, proto: HoldingProtocol) -> None:
        """``proto`` has a request in progress: it is never shed."""
        self._idle.remove(proto)
        by_client = self._idle_by_client.get(proto.client_key)
        if by_client is not None:
            by_client.remove(proto)
            if not by_client:
                del self._idle_by_client[proto.client_key]

    def gone(self, proto: HoldingProtocol) -> None:
        """``proto`` is closed (or closing): count it out, once."""
        self.busy(proto)
        if not proto.counted:
            return
        proto.counted = False
        self.total -= 1
        left = self.per_client.get(proto.client_key, 1) - 1
        if left > 0:
            self.per_client[proto.client_key] = left
        else:
            self.per_client.pop(proto.client_key, None)


class PeerOwners:
    """Who owns the other end of a loopback TCP connection: its uid, asked of the kernel (sock_diag).

    On 127.0.0.1 every local user has the same address, so the per-client cap counts the user
    instead. Any user may ask the kernel this of any TCP socket (it is what ``ss -tne`` shows). Where
    it cannot be asked (no netlink, a sandbox), connections count by address.
    """

    NETLINK_SOCK_DIAG = 4
    SOCK_DIAG_BY_FAMILY = 20
    NLM_F_REQUEST = 1
    UID_OFFSET = 16 + 64  # nlmsghdr, then inet_diag_msg's family..retrans (4), sockid (48), expires..wqueue (12)

    def __init__(self) -> None:
        self._sock: socket.socket | None = None
        self.broken = False

    def uid(self, peer: tuple[str, int], local: tuple[str, int]) -> int | None:
        """The uid owning the socket at ``peer`` connected to ``local`` (IPv4), or None when unknown."""
        if self.broken:
            return None
        try:
            if self._sock is None:
                self._sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, self.NETLINK_SOCK_DIAG)
                self._sock.settimeout(0.2)
            # inet_diag_sockid of the peer's own socket: its port and address first, no cookie
            sockid = (
                struct.pack("!HH", peer[1], local[1])
                + socket.inet_aton(peer[0])
                + bytes(12)
                + socket.inet_aton(local[0])
                + bytes(12)
                + struct.pack("=III", 0, 0xFFFFFFFF, 0xFFFFFFFF)
            )
            request = struct.pack("=BBBBI", socket.AF_INET, socket.IPPROTO_TCP, 0, 0, 0xFFFFFFFF) + sockid
            self._sock.send(
                struct.pack("=IHHII", 16 + len(request), self.SOCK_DIAG_BY_FAMILY, self.NLM_F_REQUEST, 1, 0) + request
            )
            reply = self._sock.recv(8192)
        except OSError:
            self.broken = True
            if self._sock is not None:
                self._sock.close()
            log.warning("cannot ask the kernel who owns a connection (sock_diag); connections count by address")
            return None
        if len(reply) < self.UID_OFFSET + 4 or struct.unpack_from("=H", reply, 4)[0] != self.SOCK_DIAG_BY_FAMILY:
            return None  # an error reply: the peer is already gone
        return struct.unpack_from("=I", reply, self.UID_OFFSET)[0]


_OWNERS = PeerOwners()


def client_key(transport: asyncio.BaseTransport) -> str:
    """The client a connection counts against: on loopback, the user owning the other end; else its address."""
    peer = transport.get_extra_info("peername")
    local = transport.get_extra_info("sockname")
    if not (isinstance(peer, tuple) and peer):
        return "local"
    if isinstance(local, tuple) and str(peer[0]).startswith("127.") and len(peer) == 2:
        uid = _OWNERS.uid((str(peer[0]), int(peer[1])), (str(local[0]), int(local[1])))
        if uid is not None:
            return f"uid {uid}"
    return str(peer[0])


class FirstHeadGate:
    """Rules 1 and 3 for another server's protocol (aiohttp's, in ``primetui serve``), on the first request.

    A connection must send its first request head (up to its blank line) within ``head_timeout``
    seconds, else it is closed. At most ``max_waiting`` connections wait for theirs at once: a new one
    past that closes the one that has waited longest. A connection past its first head is that
    server's own (its keep-alive timeout, its websockets).
    """

    def __init__(self, head_timeout: float = HEAD_TIMEOUT, max_waiting: int = MAX_PER_CLIENT) -> None:
        self.head_timeout = head_timeout
        self.max_waiting = max_waiting
        self.waiting: OrderedDict[FirstHeadGuard, None] = OrderedDict()

    def wrap(self, factory: Callable[[], asyncio.Protocol]) -> Callable[[], asyncio.Protocol]:
        """A protocol factory for ``loop.create_server`` that puts each of ``factory``'s protocols behind the gate."""
        return lambda: FirstHeadGuard(factory(), self)


class FirstHeadGuard(asyncio.Protocol):
    """One connection behind a :class:`FirstHeadGate`: passes everything to ``inner``, and watches for the head's
    end."""

    def __init__(self, inner: asyncio.Protocol, gate: FirstHeadGate) -> None:
        self.inner = inner
        self.gate = gate
        self.transport: asyncio.Transport | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._tail = b""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        if len(self.gate.waiting) >= self.gate.max_waiting:
            oldest = next(iter(self.gate.waiting))
            log.warning("closed the connection that waited longest for its first request head to make room")
            oldest.close()
        self.gate.waiting[self] = None
        self._timer = asyncio.get_running_loop().call_later(self.gate.head_timeout, self._late)
        self.inner.connection_made(transport)

    def data_received(self, data: bytes) -> None:
        if self._timer is not None:
            seen = self._tail + data
            if b"\r\n\r\n" in seen:
                self._through()
            else:
                self._tail = seen[-3:]
        self.inner.data_received(data)

    def _through(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self.gate.waiting.pop(self, None)

    def _late(self) -> None:
        self._timer = None
        log.warning("closed a connection: no whole request head within %g s", self.gate.head_timeout)
        self.close()

    def close(self) -> None:
        self._through()
        if self.transport is not None and not self.transport.is_closing():
            self.transport.close()

    def eof_received(self) -> bool | None:
        return self.inner.eof_received()

    def connection_lost(self, exc: Exception | None) -> None:
        self._through()
        self.inner.connection_lost(exc)

    def pause_writing(self) -> None:
        self.inner.pause_writing()

    def resume_writing(self) -> None:
        self.inner.resume_writing()


ACCEPT_RESOURCE_ERRORS = (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM)
ACCEPT_FAILED = "socket.accept() out of system resource"
"""How asyncio's loop logs an accept that failed for lack of resources (logger ``asyncio``)."""


class ListeningSocket(socket.socket):
    """A listening socket whose accepts stop for the round once one fails for lack of file descriptors.

    asyncio's accept loop goes on after such a failure (CPython gh-151615, fixed upstream by
    gh-151616): each further try fails again, is logged with its traceback, and schedules one more
    retry, so one burst logs thousands of tracebacks. Here the tries after a failure, within the
    same round, end it as an empty queue would; asyncio's single retry a second later starts the
    next round. Drop this class once the supported Pythons carry the fix.

    Each accepted TCP connection gets ``TCP_NODELAY``, as one asyncio accepts itself does: asyncio sets it
    only on sockets whose ``proto`` is ``IPPROTO_TCP``, and a socket made as ``socket(family, SOCK_STREAM)``
    (proto 0) passes its 0 to every accepted one. Without it a reply written in two parts (uvicorn writes a
    response's head, then its body) waits for the client's delayed ACK: about 40 ms per request on Linux.
    """

    _failed_at = 0.0

    def accept(self) -> tuple[socket.socket, Any]:
        if time.monotonic() - self._failed_at < 0.5:  # asyncio retries after 1 s (ACCEPT_RETRY_DELAY)
            raise BlockingIOError(errno.EAGAIN, "accepts paused after running out of file descriptors")
        try:
            conn, address = super().accept()
        except OSError as exc:
            if exc.errno in ACCEPT_RESOURCE_ERRORS:
                self._failed_at = time.monotonic()
            raise
        if conn.family in (socket.AF_INET, socket.AF_INET6):
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return conn, address


def listening_socket(family: int = socket.AF_INET) -> ListeningSocket:
    return ListeningSocket(family, socket.SOCK_STREAM)


__all__ = [
    "ACCEPT_FAILED",
    "BODY_TIMEOUT",
    "ENV",
    "HEAD_TIMEOUT",
    "MAX_CONNECTIONS",
    "MAX_PER_CLIENT",
    "ConnectionWall",
    "FirstHeadGate",
    "FirstHeadGuard",
    "Limits",
    "ListeningSocket",
    "listening_socket",
    "raise_fd_limit",
]
