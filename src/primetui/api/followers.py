"""Followers: UI-free poll loops that turn the platform's snapshots into streams of new things.

The platform has no streaming endpoints: run status (R2), metrics (R10) and logs (R7) are polled.
A follower owns one poll loop and its cursor, and yields only what is new, as typed events:

- `RunWatcher`: the run's status and step; `RunUpdate` whenever either (or the run) changes.
- `MetricsFollower`: new metric rows, fetched incrementally with `min_step`.
- `LogFollower`: new log lines of one (component, pod_index, env_name), deduplicated across
  overlapping windows, with an explicit `LogGap` whenever continuity cannot be proved.

Every follower exposes `state`, `last_success` (monotonic and wall time of its last good poll,
for staleness in the UI), `error` (the last error, cleared on success), backs off on 429/5xx/
network trouble with exponential backoff and jitter (at most `transient_backoff`, 20 s, until
`outage_after` seconds pass without a good poll), and stops by itself only after a final fetch
that succeeded once the run is terminal (COMPLETED, FAILED, STOPPED, PAUSED). Consume one with

    async for event in follower: ...          # e.g. inside a Textual worker
    await follower.run(callback)              # or push events to a (sync or async) callback

Clock, sleep and randomness are injectable so tests run instantly and deterministically.
"""

from __future__ import annotations

import asyncio
import inspect
import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

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
from primetui.api.wire import LogComponent, is_terminal_run_status

if TYPE_CHECKING:  # the wire models (pydantic) load with the client, not with the followers
    from primetui.api.models import RLRun

__all__ = [
    "DataNotes",
    "FollowerEvent",
    "FollowerState",
    "LogFollower",
    "LogGap",
    "LogLines",
    "MetricRows",
    "MetricsFollower",
    "PollFailed",
    "PollStamp",
    "RunUpdate",
    "RunWatcher",
    "StateChanged",
    "Stopped",
    "UnexpectedPollError",
    "WindowDiff",
    "diff_windows",
]

MAX_TAIL_LINES = 5000
"""R7's hard ceiling per request."""

PLAIN_SNAPSHOT_LINES = 200
"""A plain R7 fetch (no search, level or since) is served from a snapshot of this many lines."""

SEARCH_LOOKBACK_SECONDS = 86_400
"""R7's widest lookback (24 h): with it every fetch goes through the search backend."""

MIN_PROOF = 3
"""Overlapping lines needed to trust that a full log window continues the previous one."""

SHRINK_AFTER_CALM_POLLS = 10
"""Quiet polls after which a log window grown by a burst is halved again."""


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


# --------------------------------------------------------------------------------------------
# Events
# --------------------------------------------------------------------------------------------


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


# --------------------------------------------------------------------------------------------
# Base loop
# --------------------------------------------------------------------------------------------

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
        return ceiling / 2 + self._rng() * ceiling / 2

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
        watcher: RunWatcher | None = None,
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


# --------------------------------------------------------------------------------------------
# RunWatcher
# --------------------------------------------------------------------------------------------


class RunWatcher(_Follower):
    """Polls R2 (and R12 for the latest step) and yields a RunUpdate whenever the run changes."""

    def __init__(self, client: Any, run_id: str, *, interval: float = 3.0, track_step: bool = True, **kw: Any):
        super().__init__(client, run_id, interval=interval, **kw)
        self.run: RLRun | None = None
        """The latest run snapshot."""
        self.step: int | None = None
        """The latest step the platform reports (R12 `latestStep`), if known."""
        self.track_step = track_step
        """Also read R12 for the step; switched off by itself if the platform lacks R12."""

    @property
    def status(self) -> str | None:
        """The latest run status, or None before the first poll."""
        return self.run.status if self.run is not None else None

    async def poll(self) -> list[FollowerEvent]:
        events: list[FollowerEvent] = []
        if self.done:
            return events
        try:
            self.polls += 1
            run = await self.client.get_run(self.run_id)
            step = self.step
            if self.track_step:
                try:
                    step = (await self.client.get_progress(self.run_id)).latest_step
                except NotFoundError:
                    self.track_step = False  # the platform has no progress for this run
        except PrimeAPIError as exc:
            self._failed(exc, events)
            return events
        except Exception as exc:  # noqa: BLE001 - a poll loop must never die silently in a worker
            self._failed(_unexpected(exc), events)
            return events
        previous, previous_step = self.run, self.step
        self.run, self.step = run, step
        if previous is None or previous != run or previous_step != step:
            events.append(RunUpdate(run, previous, step, previous_step))
        self._succeeded(events)
        if run.is_terminal:
            self._finish(f"The run is {run.status}.", events)
        return events


# --------------------------------------------------------------------------------------------
# MetricsFollower
# --------------------------------------------------------------------------------------------


def _say_notes(said: list[str], reply: Any, events: list[FollowerEvent]) -> None:
    """A `DataNotes` event for the reply's boundary notes not said before (``said`` keeps them)."""
    new = [n for n in getattr(reply, "notes", ()) if n not in said]
    if new:
        said += new
        events.append(DataNotes(tuple(new)))


class MetricsFollower(_RunBound):
    """Fetches only new metric rows (R10 with `min_step`), never re-downloading rows it has.

    Normal polls ask for `min_step = last_step + 1`. Rows that land late (an eval row, which
    finishes a few steps after the step it measures; a row written during teardown) are caught by
    re-reading the last `late_window` steps every `late_every` polls and at the final fetch;
    values already handed out for a step are dropped, so a platform that merges a step's rows
    into one yields just the new keys. Large histories arrive in pages of `page_size` rows.
    """

    def __init__(
        self,
        client: Any,
        run_id: str,
        *,
        interval: float = 5.0,
        page_size: int = 5000,
        max_pages_per_poll: int = 20,
        late_every: int = 6,
        late_window: int = 64,
        **kw: Any,
    ) -> None:
        super().__init__(client, run_id, interval=interval, **kw)
        self.page_size = page_size
        self.max_pages_per_poll = max_pages_per_poll
        self.late_every = late_every
        self.late_window = max(0, late_window)
        self.last_step: int | None = None
        """The highest step received so far."""
        self.rows_received = 0
        """Rows handed out so far (every row has an int `step`: the client's wire boundary saw to it)."""
        self.notes: list[str] = []
        """What the wire boundary dropped from this run's replies, each note once."""
        self._seen: dict[int, dict[str, Any]] = {}  # values handed out, per recent step

    async def _fetch(self, events: list[FollowerEvent], final: bool) -> None:
        recheck = final or (self.late_every > 0 and self.polls % self.late_every == 0)
        min_step = None
        if self.last_step is not None:
            min_step = max(0, self.last_step - self.late_window) if recheck else self.last_step + 1
        continuing = False
        for _ in range(self.max_pages_per_poll):
            reply = await self.client.get_metrics(self.run_id, min_step=min_step, limit=self.page_size)
            raw = reply.metrics
            _say_notes(self.notes, reply, events)
            fresh, late = self._take(raw, continuing)
            if late:
                events.append(MetricRows(tuple(late), late=True))
            if fresh:
                events.append(MetricRows(tuple(fresh)))
            # A full page may stop in the middle of a step: continue from that step, inclusive.
            if len(raw) < self.page_size or self.last_step is None:
                break
            min_step = self.last_step
            continuing = True
        self._succeeded(events)

    def _take(
        self, raw: Sequence[Any], continuing: bool = False
    ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """Split a reply into fresh rows and late rows, dropping rows already handed out.

        `continuing`: this reply continues a full page, so rows of the last step are still new.
        """
        rows = sorted(raw, key=lambda r: r["step"])
        fresh: list[dict[str, Any]] = []
        late: list[dict[str, Any]] = []
        for row in rows:
            step = row["step"]
            if self.last_step is None or step > self.last_step:
                self.last_step = step
                self._seen[step] = {k: v for k, v in row.items() if k != "step"}
                fresh.append(row)
                continue
            seen = self._seen.get(step)
            if seen is None:
                if step < self.last_step - self.late_window:
                    continue  # older than the steps we track: a platform that ignored min_step re-sent it
                seen = self._seen[step] = {}  # a step that first shows up late (the eval at step 0)
            # A step seen before: keep only values not handed out yet. This drops an exact
            # re-send and, when the platform merges a step's rows into one, reduces the grown
            # row to its new keys (e.g. the eval metrics of a step the trainer has passed), so
            # no point is ever added twice and none is lost.
            delta = {k: v for k, v in row.items() if k != "step" and (k not in seen or seen[k] != v)}
            if not delta or set(delta) <= {"time"}:
                continue
            seen.update(delta)
            if "time" in row:
                delta["time"] = row["time"]
            out = {"step": step, **delta}
            # New if it came in the same batch as the step's first row (or continues a page).
            same_batch = continuing or (fresh and fresh[-1]["step"] == step)
            (fresh if same_batch else late).append(out)
        if self.last_step is not None:
            floor = self.last_step - self.late_window
            for old in [k for k in self._seen if k < floor]:
                del self._seen[old]
        self.rows_received += len(fresh) + len(late)
        return fresh, late


# --------------------------------------------------------------------------------------------
# LogFollower
# --------------------------------------------------------------------------------------------


def _overlap(last: Sequence[int], cur: Sequence[int]) -> int:
    """Largest k with last[-k:] == cur[:k] (KMP prefix function over cur + sentinel + last)."""
    if not last or not cur:
        return 0
    seq = list(cur) + [-1] + list(last[-len(cur):] if len(last) > len(cur) else last)
    return _prefix_function(seq)[-1]


def _prefix_function(seq: Sequence[int]) -> list[int]:
    """KMP prefix function: pi[i] = length of the longest proper prefix of seq[:i+1] that is also its suffix."""
    pi = [0] * len(seq)
    for i in range(1, len(seq)):
        k = pi[i - 1]
        while k and seq[i] != seq[k]:
            k = pi[k - 1]
        if seq[i] == seq[k]:
            k += 1
        pi[i] = k
    return pi


def _suffix_inside(last: Sequence[int], cur: Sequence[int]) -> tuple[int, int]:
    """Longest suffix of `last` found anywhere in `cur`: (its length, where it ends in cur).

    Among equally long matches the earliest in `cur` wins (most lines count as new, as the
    CLI's rule prefers). KMP over the reversed sequences.
    """
    pattern = list(reversed(last[-len(cur):] if len(last) > len(cur) else last))
    text = list(reversed(cur))
    pi = _prefix_function(pattern)
    best, best_end, k = 0, 0, 0
    for j, item in enumerate(text):
        while k and (k == len(pattern) or item != pattern[k]):
            k = pi[k - 1]
        if item == pattern[k]:
            k += 1
        if k and k >= best:
            # the match covers text[j-k+1 .. j], i.e. cur[len(cur)-1-j .. len(cur)-1-(j-k+1)]
            best, best_end = k, len(cur) - (j - k + 1)
    return best, best_end


def _contains(haystack: Sequence[int], needle: Sequence[int]) -> bool:
    """True when needle occurs contiguously in haystack (KMP)."""
    if not needle:
        return True
    if len(needle) > len(haystack):
        return False
    pi = [0] * len(needle)
    for i in range(1, len(needle)):
        k = pi[i - 1]
        while k and needle[i] != needle[k]:
            k = pi[k - 1]
        if needle[i] == needle[k]:
            k += 1
        pi[i] = k
    k = 0
    for item in haystack:
        while k and item != needle[k]:
            k = pi[k - 1]
        if item == needle[k]:
            k += 1
            if k == len(needle):
                return True
    return False


@dataclass
class WindowDiff:
    """What a new log window adds to the previous one."""

    new: list[str] = field(default_factory=list)
    """Lines not seen before, oldest first."""
    gap: str | None = None
    """None when continuity is proved, else `overflow`, `uncertain` or `restart`."""
    overlap: int = 0
    """How many lines the windows share."""
    stale: bool = False
    """The window holds only lines already seen (an older or lagging snapshot)."""


def diff_windows(last: Sequence[str], cur: Sequence[str], *, full: bool, grown: bool = False) -> WindowDiff:
    """Compare two consecutive log windows (each: the tail of one growing log).

    `full` says the window may have been cut at the top (it is as long as the platform serves).
    `grown` says more lines were asked for than last time, so this window may start earlier.
    The rule is the CLI's suffix/prefix overlap, made safe: a window wholly inside the previous
    one adds nothing (no duplicates), and when no overlap proves continuity — none at all, or
    fewer than MIN_PROOF lines in a full window — a gap is reported instead of silently
    dropping or repeating lines.
    """
    if not cur:
        return WindowDiff()
    if not last:
        return WindowDiff(new=list(cur))
    if len(cur) == len(last) and list(cur) == list(last):
        return WindowDiff(overlap=len(cur))
    ids: dict[str, int] = {}
    a = [ids.setdefault(line, len(ids)) for line in last]
    b = [ids.setdefault(line, len(ids)) for line in cur]
    k = _overlap(a, b)
    if k == len(cur):
        return WindowDiff(overlap=k)
    weak = full and k < MIN_PROOF and k < len(last)
    if k > 0 and not weak:
        return WindowDiff(new=list(cur[k:]), overlap=k)
    if grown and len(cur) > len(last):
        # A longer window than last time (the follower asked for more lines) starts EARLIER
        # in the log, so the previous window's end sits inside it, not at its start. Only a
        # match of MIN_PROOF lines is trusted as the anchor.
        k2, end = _suffix_inside(a, b)
        if k2 > k and k2 >= MIN_PROOF:
            return WindowDiff(new=list(cur[end:]), overlap=k2)
    if k > 0:
        return WindowDiff(new=list(cur[k:]), gap="uncertain", overlap=k)
    # No overlap, but every line sits inside the previous window: an older snapshot (a lagging
    # replica) or a window that shrank. Only a tiny full window is too short to tell that from
    # a run of new lines that repeat older ones; that case is reported as a gap instead.
    if _contains(a, b) and (not full or len(cur) >= MIN_PROOF):
        return WindowDiff(stale=True, overlap=len(cur))
    return WindowDiff(new=list(cur), gap="overflow" if full else "restart")


def stream_key(component: str | None, pod_index: int | None = None, env_name: str | None = None) -> str:
    """A readable name for one log stream: `trainer`, `inference/1`, `env-server:reverse-text`."""
    name = component or LogComponent.ORCHESTRATOR
    if env_name:
        name += f":{env_name}"
    if pod_index is not None:
        name += f"/{pod_index}"
    return name


class LogFollower(_RunBound):
    """Follows one log stream (component, pod_index, env_name) of a run through R7 polling.

    The first poll reads a backlog of `backlog_lines`; later polls read `tail_lines`, which
    grows (up to 5000) whenever a window fills with new lines, so consecutive windows keep
    overlapping, and shrinks back slowly once the log is calm again. Every fetch sends
    `since_seconds` (24 h unless given), so the hosted search backend answers with up to 5000
    lines; a plain fetch would be the 200-line snapshot. With `catch_up`, a window that fills with
    new lines is re-read at 5000 lines in the same poll. A run that has not started yet (404 with a startup marker) puts the follower
    in the `waiting` state, polling every `waiting_interval` seconds.
    """

    def __init__(
        self,
        client: Any,
        run_id: str,
        component: str | None = None,
        *,
        pod_index: int | None = None,
        env_name: str | None = None,
        interval: float = 3.0,
        waiting_interval: float = 5.0,
        backlog_lines: int = 1000,
        tail_lines: int = 200,
        since_seconds: int | None = None,
        search_backend: bool = True,
        catch_up: bool = False,
        **kw: Any,
    ) -> None:
        super().__init__(client, run_id, interval=interval, **kw)
        self.search_backend = search_backend
        """Send `since_seconds` (24 h unless given) so the search backend serves up to 5000 lines;
        a plain fetch is served from the hosted 200-line snapshot."""
        self.catch_up = catch_up
        """When a follow window fills with new lines, read the widest window (5000) at once in the
        same poll, so a burst is caught before it scrolls out instead of being marked as a gap."""
        self.component = component
        self.pod_index = pod_index
        self.env_name = env_name
        self.stream = stream_key(component, pod_index, env_name)
        """This stream's name, carried by its events."""
        self.waiting_interval = waiting_interval
        self.backlog_lines = max(1, min(MAX_TAIL_LINES, backlog_lines))
        self.tail_lines = max(1, min(MAX_TAIL_LINES, tail_lines))
        """Window size of the next follow poll (adaptive)."""
        self.since_seconds = since_seconds
        self.lines_received = 0
        """Lines handed out so far."""
        self.gaps = 0
        """Gaps reported so far."""
        self._last: list[str] = []
        self._cap: int | None = None  # window size the platform seems to cap at
        self._first = True
        self._base_tail = self.tail_lines
        self._calm = 0  # consecutive polls whose new lines used under a quarter of the window
        self._calm_peak = 0  # most new lines in one poll during that calm stretch
        self._last_requested = self.backlog_lines
        self.notes: list[str] = []
        """What the wire boundary cut from this stream's windows, each note once."""
        self._reply: Any = None

    async def _get(self, requested: int) -> list[str]:
        since = self.since_seconds
        if since is None and self.search_backend:
            since = SEARCH_LOOKBACK_SECONDS
        if since is None and self._cap is None:
            # A plain fetch is the hosted 200-line snapshot: a window of 200 is full, so lines
            # past it are an overflow, not a log that started over.
            self._cap = PLAIN_SNAPSHOT_LINES
        reply = await self.client.get_logs(
            self.run_id,
            requested,
            component=self.component,
            pod_index=self.pod_index,
            env_name=self.env_name,
            since_seconds=since,
        )
        self._reply = reply
        return reply.lines()

    async def _fetch(self, events: list[FollowerEvent], final: bool) -> None:
        requested = self.backlog_lines if self._first else self.tail_lines
        try:
            cur = await self._get(requested)
            _say_notes(self.notes, self._reply, events)
        except NotFoundError as exc:
            if not exc.not_started:
                raise
            self._succeeded(events, FollowerState.WAITING)
            self.next_delay = self.waiting_interval
            return
        searched = self.search_backend or self.since_seconds is not None  # a snapshot never holds more
        if self.catch_up and searched and self._last and cur and requested < MAX_TAIL_LINES:
            full = len(cur) >= requested or (self._cap is not None and len(cur) >= self._cap)
            if full and diff_windows(self._last, cur, full=True).gap in ("overflow", "uncertain"):
                # More arrived than this window holds: read the widest window now, before the
                # lines scroll out, instead of reporting a gap the platform could still fill.
                self._last_requested = requested
                requested = MAX_TAIL_LINES
                cur = await self._get(requested)
        self._first = False
        self._apply(cur, requested, events)
        self._succeeded(events)

    def _apply(self, cur: list[str], requested: int, events: list[FollowerEvent]) -> None:
        full = len(cur) >= requested or (self._cap is not None and len(cur) >= self._cap)
        grown = requested > self._last_requested
        self._last_requested = requested
        if not cur:
            # An empty window (a hiccup, or everything aged out of the lookback) proves nothing;
            # keep the last real one so the next window is compared with it, not re-shown whole.
            return
        diff = diff_windows(self._last, cur, full=full, grown=grown)
        if diff.stale:
            return  # keep the newer window we already have as the reference
        if diff.new and diff.gap is None and self._last and len(cur) <= len(self._last) and len(cur) < requested:
            # New lines arrived but the window did not grow: the platform cuts it at this size.
            self._cap = len(cur)
        if diff.gap is not None:
            self.gaps += 1
            events.append(LogGap(self.stream, diff.gap, _gap_message(diff.gap)))
        if diff.new:
            self.lines_received += len(diff.new)
            events.append(LogLines(self.stream, tuple(diff.new)))
        # Keep the windows overlapping: grow when new lines filled most of a full window
        # (the first window is all new by definition, so it says nothing about the rate).
        if full and self._last and (diff.gap in ("overflow", "uncertain") or len(diff.new) * 2 > len(cur)):
            self.tail_lines = min(MAX_TAIL_LINES, max(self.tail_lines * 2, len(diff.new) * 2))
            self._calm = self._calm_peak = 0
        elif self.tail_lines > self._base_tail and len(diff.new) * 4 < self.tail_lines:
            # After a burst, shrink back slowly (every poll re-downloads the whole window).
            self._calm += 1
            self._calm_peak = max(self._calm_peak, len(diff.new))
            if self._calm >= SHRINK_AFTER_CALM_POLLS:
                self.tail_lines = max(self._base_tail, self.tail_lines // 2, self._calm_peak * 4)
                self._calm = self._calm_peak = 0
        self._last = cur


class UnexpectedPollError(PrimeAPIError):
    """A poll failed in a way the client does not classify (a bug); the follower keeps retrying."""


def _unexpected(exc: Exception) -> UnexpectedPollError:
    text = " ".join(str(exc).split())[:200] or type(exc).__name__
    return UnexpectedPollError(
        f"Polling failed unexpectedly ({type(exc).__name__}: {text.rstrip('.')}); primetui keeps "
        "retrying, please report this if it persists."
    )


def _gap_message(reason: str) -> str:
    if reason == "restart":
        return "The log started over (the process restarted); earlier lines are above."
    if reason == "uncertain":
        return "Some lines may be missing here: too little overlap with the previous fetch to be sure."
    return "Some lines are missing here: more arrived between two fetches than one fetch returns."
