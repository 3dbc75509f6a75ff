"""The shared polling core: one loop per follower (state, staleness clock, backoff with jitter, the
terminal stop after a final good fetch) and the typed events every follower yields."""

from __future__ import annotations

import asyncio
import inspect
import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from primetui.api.errors import (
    ForbiddenError,
    MissingApiKeyError,
    NotFoundError,
    PaymentRequiredError,
    PrimeAPIError,
    RateLimitedError,
    RequestRejectedError,
    UnauthorizedError,
    ValidationError,
)
from primetui.api.wire import is_terminal_run_status

if TYPE_CHECKING:  # the wire models (pydantic) load with the client, not with the followers
    from primetui.api.models import RLRun


# Events
class FollowerState:
    """Values of `Follower.state`."""

    STARTING = "starting"
    FOLLOWING = "following"
    WAITING = "waiting"  # the run has not started yet (logs 404 with a startup marker)
    RETRYING = "retrying"  # a transient failure; backing off
    STOPPED = "stopped"  # the run is terminal and the final fetch is done, or stop() was called
    ERROR = "error"  # a failure that retrying cannot fix (bad key, run deleted, bad filter)


class PollStamp(NamedTuple):
    """When a poll succeeded: `monotonic` for ages, `wall` (unix seconds) for display."""

    monotonic: float
    wall: float


@dataclass(frozen=True)
class FollowerEvent:
    """Base of every event a follower yields."""


@dataclass(frozen=True)
class StateChanged(FollowerEvent):
    """The follower's state changed (see FollowerState); `detail` is one sentence or ''."""

    state: str
    previous: str
    detail: str = ""


@dataclass(frozen=True)
class PollFailed(FollowerEvent):
    """A poll failed; the follower retries in `retry_in` seconds (None: it gave up)."""

    error: PrimeAPIError
    retry_in: float | None
    attempt: int


@dataclass(frozen=True)
class Stopped(FollowerEvent):
    """The follower finished; it yields nothing more."""

    reason: str


@dataclass(frozen=True)
class RunUpdate(FollowerEvent):
    """The run changed: its status, its latest step, or any other field."""

    run: RLRun
    previous: RLRun | None
    step: int | None
    previous_step: int | None

    @property
    def status_changed(self) -> bool:
        """True when the status differs from the previous poll's (or this is the first)."""
        return self.previous is None or self.previous.status != self.run.status

    @property
    def step_changed(self) -> bool:
        """True when the latest step differs from the previous poll's."""
        return self.step != self.previous_step


@dataclass(frozen=True)
class MetricRows(FollowerEvent):
    """New metric rows (opaque dicts with a `step`), in step order.

    `late` is True when the rows belong to steps already seen (e.g. an eval row that landed
    after the training row of its step, or a row written during teardown).
    """

    rows: tuple[dict[str, Any], ...]
    late: bool = False


@dataclass(frozen=True)
class DataNotes(FollowerEvent):
    """What the wire boundary dropped from replies (``"2 rows ignored: non-finite step"``), each said once."""

    notes: tuple[str, ...]


@dataclass(frozen=True)
class LogLines(FollowerEvent):
    """New raw log lines of one stream, oldest first."""

    stream: str
    lines: tuple[str, ...]


@dataclass(frozen=True)
class LogGap(FollowerEvent):
    """Lines may be missing here: continuity with the previous window could not be proved.

    `reason` is `overflow` (more new lines than one window held), `uncertain` (the windows
    overlap by too few lines to be sure) or `restart` (the log started over, e.g. a pod
    restart). `message` is one sentence for the screen.
    """

    stream: str
    reason: str
    message: str


Sleep = Callable[[float], Awaitable[Any]]

_FATAL = (
    UnauthorizedError,
    PaymentRequiredError,
    ForbiddenError,
    MissingApiKeyError,
    RequestRejectedError,
    ValidationError,
)


class _Follower:
    """One poll loop: state, staleness clock, backoff, terminal stop."""

    def __init__(
        self,
        client: Any,
        run_id: str,
        *,
        interval: float,
        max_backoff: float = 60.0,
        transient_backoff: float = 20.0,
        outage_after: float = 120.0,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
        sleep: Sleep | None = None,
        rng: Callable[[], float] = random.random,
    ) -> None:
        self.client = client
        self.run_id = run_id
        self.interval = float(interval)
        """Seconds between polls while all is well."""
        self.max_backoff = float(max_backoff)
        self.transient_backoff = float(transient_backoff)
        """Ceiling of the backoff while failures are transient (5xx, resets, cut or broken replies
        for less than `outage_after` seconds): a flaky platform is retried within seconds."""
        self.outage_after = float(outage_after)
        """After this long without a good poll the backoff may grow to `max_backoff`."""
        self._failing_since: float | None = None
        self._clock = clock
        self._wall = wall
        self._sleep = sleep
        self._rng = rng
        self.state: str = FollowerState.STARTING
        """What the follower is doing (see FollowerState)."""
        self.error: PrimeAPIError | None = None
        """The last error; None after a successful poll."""
        self.last_success: PollStamp | None = None
        """When the last poll succeeded; None before the first."""
        self.done = False
        """True once the follower has stopped; it yields nothing more."""
        self.next_delay: float = self.interval
        """Seconds until the next poll."""
        self.polls = 0
        """Requests made (successful or not)."""
        self.failures = 0
        """Consecutive failed polls."""
        self._wake = asyncio.Event()

    # --- staleness ---------------------------------------------------------------------------

    def age(self) -> float | None:
        """Seconds since the last successful poll (None before the first)."""
        if self.last_success is None:
            return None
        return max(0.0, self._clock() - self.last_success.monotonic)

    # --- control -----------------------------------------------------------------------------

    def stop(self) -> None:
        """Stop after the current poll; wakes a sleeping loop."""
        self.done = True
        self._wake.set()

    def poke(self) -> None:
        """Poll now instead of waiting for the interval (e.g. the user pressed refresh)."""
        self._wake.set()

    async def _pause(self, delay: float) -> None:
        if self._sleep is not None:
            await self._sleep(delay)
            return
        # A poke that arrived while the last poll was running counts: poll again at once.
        if not self._wake.is_set():
            try:
                await asyncio.wait_for(self._wake.wait(), timeout=max(0.0, delay))
            except TimeoutError:
                pass
        self._wake.clear()

    # --- iteration ---------------------------------------------------------------------------

    async def events(self) -> AsyncIterator[FollowerEvent]:
        """Poll until stopped, yielding events as they come."""
        while not self.done:
            for event in await self.poll():
                yield event
            if self.done:
                break
            await self._pause(self.next_delay)

    def __aiter__(self) -> AsyncIterator[FollowerEvent]:
        return self.events()

    async def run(self, callback: Callable[[FollowerEvent], Any]) -> None:
        """Poll until stopped, handing each event to `callback` (sync or async)."""
        async for event in self.events():
            result = callback(event)
            if inspect.isawaitable(result):
                await result

    async def poll(self) -> list[FollowerEvent]:
        """One poll cycle (no sleeping); returns its events."""
        raise NotImplementedError

    # --- bookkeeping -------------------------------------------------------------------------

    def _set_state(self, state: str, events: list[FollowerEvent], detail: str = "") -> None:
        if state != self.state:
            events.append(StateChanged(state, self.state, detail))
            self.state = state

    def _succeeded(self, events: list[FollowerEvent], state: str = FollowerState.FOLLOWING) -> None:
        self.last_success = PollStamp(self._clock(), self._wall())
        self.error = None
        self.failures = 0
        self._failing_since = None
        self.next_delay = self.interval
        self._set_state(state, events)

    def _backoff(self, cap: float | None = None) -> float:
        """Exponential backoff with equal jitter: half fixed, half random; at most `cap` (max_backoff)."""
        top = self.max_backoff if cap is None else min(cap, self.max_backoff)
        ceiling = min(top, self.interval * (2 ** min(self.failures - 1, 30)))
        ceiling = max(ceiling, min(self.interval, self.max_backoff))
        return float(ceiling / 2 + self._rng() * ceiling / 2)

    def _failed(self, exc: PrimeAPIError, events: list[FollowerEvent]) -> None:
        self.error = exc
        self.failures += 1
        if self._failing_since is None:
            self._failing_since = self._clock()
        if isinstance(exc, _FATAL) or (isinstance(exc, NotFoundError) and not exc.not_started):
            events.append(PollFailed(exc, None, self.failures))
            self._set_state(FollowerState.ERROR, events, str(exc))
            self._finish(str(exc), events, state=FollowerState.ERROR)
            return
        transient = self._clock() - (self._failing_since or self._clock()) < self.outage_after
        if isinstance(exc, RateLimitedError):
            # The server said how long to wait (or did not): honour it, never hammer it.
            delay = self._backoff()
            if exc.retry_after is not None:
                delay = max(delay, exc.retry_after + self._rng())
        else:
            delay = self._backoff(self.transient_backoff if transient else None)
        self.next_delay = delay
        events.append(PollFailed(exc, delay, self.failures))
        self._set_state(FollowerState.RETRYING, events, str(exc))

    def _finish(self, reason: str, events: list[FollowerEvent], state: str = FollowerState.STOPPED) -> None:
        self._set_state(state, events)
        self.done = True
        events.append(Stopped(reason))


class StatusSource(Protocol):
    """What a run-bound follower reads a run's status from: a `RunWatcher` (no extra requests)."""

    @property
    def status(self) -> str | None: ...


class _RunBound(_Follower):
    """A follower of one run's data that stops after a final fetch once the run is terminal.

    It learns the run status from a `RunWatcher` (no extra requests) when given one, from
    `notify_status()`, or else by reading the run itself every `status_interval` seconds.
    """

    def __init__(
        self,
        client: Any,
        run_id: str,
        *,
        watcher: StatusSource | None = None,
        status_interval: float | None = None,
        **kw: Any,
    ) -> None:
        super().__init__(client, run_id, **kw)
        self.watcher = watcher
        self.status_interval = self.interval if status_interval is None else status_interval
        self.run_status: str | None = None
        """The latest known run status."""
        self.final_fetch_ok = False
        """True once the fetch made after the run turned terminal succeeded (nothing left unread)."""
        self._status_checked_at: float | None = None

    def notify_status(self, status: str | None) -> None:
        """Tell the follower the run's status (e.g. from a RunUpdate); terminal ends it."""
        if status:
            self.run_status = status

    async def _refresh_status(self) -> None:
        if self.watcher is not None:
            self.notify_status(self.watcher.status)
            return
        now = self._clock()
        if self._status_checked_at is not None and now - self._status_checked_at < self.status_interval:
            return
        if is_terminal_run_status(self.run_status):
            return
        run = await self.client.get_run(self.run_id)
        self._status_checked_at = now
        self.notify_status(run.status)

    async def poll(self) -> list[FollowerEvent]:
        events: list[FollowerEvent] = []
        if self.done:
            return events
        try:
            await self._refresh_status()
            # The status was terminal BEFORE this fetch, so this fetch is the final one.
            final = is_terminal_run_status(self.run_status)
            self.polls += 1
            await self._fetch(events, final)
        except PrimeAPIError as exc:
            self._failed_fetch(exc, events)
            return events
        except Exception as exc:  # noqa: BLE001 - a poll loop must never die silently in a worker
            self._failed_fetch(_unexpected(exc), events)
            return events
        if final and not self.done:
            # Only a final fetch that succeeded ends the follower: a failed one is retried above.
            self.final_fetch_ok = True
            self._finish(f"The run is {self.run_status}.", events)
        return events

    def _failed_fetch(self, exc: PrimeAPIError, events: list[FollowerEvent]) -> None:
        self._failed(exc, events)
        if self.done and is_terminal_run_status(self.run_status) and not self.final_fetch_ok:
            # Gave up on a failure retrying cannot fix: say that the end of the data is unread.
            for i, event in enumerate(events):
                if isinstance(event, Stopped):
                    events[i] = Stopped(
                        f"The run is {self.run_status}, but the final fetch failed ({exc}); "
                        "the last lines or rows may be missing."
                    )

    async def _fetch(self, events: list[FollowerEvent], final: bool) -> None:
        raise NotImplementedError


def _say_notes(said: list[str], reply: Any, events: list[FollowerEvent]) -> None:
    """A `DataNotes` event for the reply's boundary notes not said before (``said`` keeps them)."""
    new = [n for n in getattr(reply, "notes", ()) if n not in said]
    if new:
        said += new
        events.append(DataNotes(tuple(new)))


class UnexpectedPollError(PrimeAPIError):
    """A poll failed in a way the client does not classify (a bug); the follower keeps retrying."""


def _unexpected(exc: Exception) -> UnexpectedPollError:
    text = " ".join(str(exc).split())[:200] or type(exc).__name__
    return UnexpectedPollError(
        f"Polling failed unexpectedly ({type(exc).__name__}: {text.rstrip('.')}); primetui keeps "
        "retrying, please report this if it persists."
    )
