"""The connection wall's rules 1 to 3 in uvicorn's h11 protocol (``primetui.local.connwall`` has the rules).

Apart from ``connwall`` because it imports uvicorn, which only the ``[local]`` extra installs:
``primetui serve`` uses the rest of the wall without it.
"""

from __future__ import annotations

import asyncio
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from primetui.local.connwall import ConnectionWall, REPLY_408, REPLY_503, client_key, log


class HoldingProtocol(H11Protocol):
    """uvicorn's h11 protocol with rules 1 to 3 (see the module's docstring); ``wall`` is set per server."""

    wall: ConnectionWall

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.client_key = "local"
        self.counted = False
        self.trusted = False
        """A request on this connection carried the token: it is shed only after every other idle one."""
        self._head_timer: asyncio.TimerHandle | None = None
        self._body_timer: asyncio.TimerHandle | None = None

    # rule 3: admission ---------------------------------------------------------------------------
    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.client_key = client_key(transport)
        if not self.wall.admit(self):
            transport.write(REPLY_503)
            transport.close()
            return
        self._head_timer = self.loop.call_later(self.wall.limits.head_timeout, self._head_late)

    def shed(self) -> None:
        """Close this connection to make room (it has no request in progress)."""
        self.wall.gone(self)
        self._stop_timers()
        if not self.transport.is_closing():
            self.transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_timers()
        self.wall.gone(self)
        super().connection_lost(exc)

    # rules 1 and 2: timers, following h11's view of the client -------------------------------
    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._follow()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._follow()

    def _follow(self) -> None:
        if self.transport.is_closing():
            self._stop_timers()
            self.wall.gone(self)
            return
        state = self.conn.their_state
        if state is h11.IDLE:
            if self.cycle is None or self.cycle.response_complete:
                self.wall.idle(self)
            if self._head_timer is None and self.conn.trailing_data[0]:  # part of the next head came
                self._head_timer = self.loop.call_later(self.wall.limits.head_timeout, self._head_late)
            return
        self.wall.busy(self)
        if not self.trusted and self.headers is not None:
            self.trusted = self.wall.trusts(_header(self.headers, b"authorization"))
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None
        if self._body_timer is not None:
            self._body_timer.cancel()
            self._body_timer = None
        if state is h11.SEND_BODY:
            self._body_timer = self.loop.call_later(self.wall.limits.body_timeout, self._body_stalled)

    def _head_late(self) -> None:
        self._head_timer = None
        if self.transport.is_closing() or self.conn.their_state is not h11.IDLE:
            return
        if self.cycle is not None and not self.cycle.response_complete:
            return  # a response is still being written; the next head's clock starts with its first byte
        log.warning(
            "closed a connection from %s: no whole request head within %g s",
            self.client_key,
            self.wall.limits.head_timeout,
        )
        self.wall.gone(self)
        self.transport.write(REPLY_408)
        self.transport.close()

    def _body_stalled(self) -> None:
        self._body_timer = None
        if self.transport.is_closing() or self.conn.their_state is not h11.SEND_BODY:
            return
        if self.flow.read_paused:  # the route is not reading: the wait is ours, not the client's
            self._body_timer = self.loop.call_later(self.wall.limits.body_timeout, self._body_stalled)
            return
        log.warning(
            "closed a connection from %s: its request body sent nothing for %g s",
            self.client_key,
            self.wall.limits.body_timeout,
        )
        self.wall.gone(self)
        self.transport.close()

    def _stop_timers(self) -> None:
        for timer in (self._head_timer, self._body_timer):
            if timer is not None:
                timer.cancel()
        self._head_timer = self._body_timer = None


def _header(headers: list[tuple[bytes, bytes]], name: bytes) -> str | None:
    for key, value in headers:
        if key == name:
            return value.decode("latin-1")
    return None


def protocol_class(wall: ConnectionWall) -> type[HoldingProtocol]:
    """The protocol class uvicorn builds each connection with, bound to ``wall``."""
    return type("HoldingProtocol", (HoldingProtocol,), {"wall": wall})
