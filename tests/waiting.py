"""The one way tests wait: on a named condition, never on time.

- :func:`until` lets a Textual app run until a condition holds; :func:`wait_for` does the same for
  plain asyncio code (a platform, a subprocess). Both raise ``AssertionError`` naming the
  condition when it never holds within ``timeout``: the timeout is a bound on a hang, not a speed
  check, so it is generous.
- :func:`input_applied` waits until every key already sent to the app has been handled by the
  widget it went to and by each of that widget's ancestors, so an assert after it sees the keys'
  effect, however loaded the machine is (Textual's own idle wait compares CPU and wall time and can
  return early under load).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

POLL = 0.05


def _screen_composed(app: Any) -> bool:
    """The active screen has composed and mounted its widgets (a pushed screen is active before)."""
    try:
        return app.screen.is_mounted
    except Exception:  # noqa: BLE001 - no screen (the app is ending): nothing left to query
        return True


async def until(pilot: Any, cond: Callable[[], Any], what: str, timeout: float = 60.0) -> Any:
    """Let the app behind ``pilot`` run until ``cond()`` is truthy, with the active screen composed
    (so ``isinstance(app.screen, X)`` is followed by queries that find X's widgets); return the value."""
    end = time.monotonic() + timeout
    while True:
        value = cond()
        if value and _screen_composed(pilot.app):
            return value
        if time.monotonic() > end:
            raise AssertionError(f"gave up after {timeout:g} s waiting for: {what}")
        await pilot.pause(POLL)


async def wait_for(cond: Callable[[], Any], what: str, timeout: float = 60.0) -> Any:
    """Like :func:`until`, without an app: ``cond`` is polled on the running event loop."""
    end = time.monotonic() + timeout
    while True:
        value = cond()
        if value:
            return value
        if time.monotonic() > end:
            raise AssertionError(f"gave up after {timeout:g} s waiting for: {what}")
        await asyncio.sleep(POLL)


async def eventually(fetch: Callable[[], Any], what: str, timeout: float = 60.0) -> Any:
    """Like :func:`wait_for` for a condition that must be fetched: ``await fetch()`` until it is truthy."""
    end = time.monotonic() + timeout
    while True:
        value = await fetch()
        if value:
            return value
        if time.monotonic() > end:
            raise AssertionError(f"gave up after {timeout:g} s waiting for: {what}")
        await asyncio.sleep(POLL)


def wait_for_sync(cond: Callable[[], Any], what: str, timeout: float = 60.0, slowest: float = POLL) -> Any:
    """:func:`wait_for` for synchronous tests (polling a subprocess or a file).

    ``slowest``: for a wait that may last minutes, the pause between polls doubles from :data:`POLL` up to
    this (a poll of a platform costs both processes CPU; a short wait still ends within a few POLLs)."""
    end = time.monotonic() + timeout
    pause = POLL
    while True:
        value = cond()
        if value:
            return value
        if time.monotonic() > end:
            raise AssertionError(f"gave up after {timeout:g} s waiting for: {what}")
        time.sleep(pause)
        pause = min(pause * 2, max(slowest, POLL))


async def input_applied(pilot: Any, timeout: float = 60.0) -> None:
    """Wait until every key sent so far was handled by its widget and bubbled up to the app.

    A callback queued behind the keys at each hop (the app forwards a key to the focused widget,
    which passes what it does not use to its parent, and so on) runs only after they are handled.
    """
    app = pilot.app
    done = asyncio.Event()

    def hop(path: list[Any]) -> None:
        if not path:
            done.set()
            return
        if not path[0].call_later(hop, path[1:]):
            done.set()  # that node is closing: nothing more will reach it

    def start() -> None:
        focused = app.focused or app.screen
        hop([focused, *focused.ancestors])

    app.call_later(start)
    await until(pilot, done.is_set, "the app and the focused widget's chain to handle every key sent", timeout)


async def quiet(pilot: Any, timeout: float = 60.0, *, workers: bool = False) -> None:
    """Wait until every key sent so far is applied and every widget of the screen has handled the
    messages queued so far (the repaint the last change asked for) and every animation has ended; with ``workers``, also
    until no
    worker runs (an app whose workers all end, as a snapshot's replayed one)."""
    await input_applied(pilot, timeout)
    if workers:
        await until(
            pilot, lambda: not any(w.is_running for w in pilot.app.workers), "the app's workers to finish", timeout
        )
    await pilot.wait_for_scheduled_animations()  # a tab's underline slides: the frame after it ends
    await pilot._wait_for_screen(timeout)  # noqa: SLF001 - Textual's own "queues drained" wait
