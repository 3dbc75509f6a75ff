"""One follower per platform resource, shared by every screen and pane that shows it.

Without this, each screen and each monitor pane polled on its own: a run screen with its log,
chart and components tabs read the same run (R2) four times and its metrics (R10) three times.
A :class:`FollowerHub` (one per client, :func:`hub_for`) owns at most one follower per resource
key and fans its events out to every subscriber, so the platform sees one request stream per
resource however many screens are open.

- :meth:`FollowerHub.watch`, :meth:`FollowerHub.metrics`, :meth:`FollowerHub.logs` share the
  followers of :mod:`primetui.api.followers` (the run's status, its metrics, one log stream).
  A late subscriber first gets the history the follower already produced (metric rows, log
  lines and gaps, the latest run snapshot and state), then live events: it sees what the first
  subscriber saw.
- :meth:`FollowerHub.resource` shares a plain polled list (every run, volumes, models,
  checkpoints): one loop at the shortest interval any subscriber asked for, each reply handed to
  every subscriber, with backoff on failure, a longer interval while the replies do not change,
  and a poke for "refresh now". :meth:`FollowerHub.all_runs` is one whose fetch reads every run
  page by page (:mod:`primetui.api.followers.allruns`): the next page at once while any is left.

A follower or resource whose last subscriber leaves is stopped and forgotten. Nothing here
imports a UI toolkit; callbacks run on the event loop that subscribed.

Delivery, and what a subscriber's exception becomes: a subscriber is a *sink*, a callable that
takes each event. The dashboard's sinks (:mod:`primetui.ui.hub_sink`) post each event to the
subscribing widget as a Textual message: Textual delivers it in that widget's message pump, in
order, drops it once the widget is gone, and an exception in the handler reaches the app's crash
guard like any other bug. A plain callback (a test, a command) is called here: an exception it
raises, or an async callback's task raises, is never swallowed and never stops the other
subscribers' feed; it is reported by :func:`report_subscriber_error` (logged with its traceback
on ``primetui.api.hub`` the first time each callback fails that way, and counted every time in
:data:`SUBSCRIBER_ERRORS`).
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import logging
import random
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

from primetui.api.followers.allruns import AllRuns
from primetui.monitor_core.row_budget import compact_rows
from primetui.api.followers import (
    MAX_TAIL_LINES,
    DataNotes,
    FollowerEvent,
    LogFollower,
    LogGap,
    LogLines,
    MetricRows,
    MetricsFollower,
    PollFailed,
    RunUpdate,
    RunWatcher,
    StateChanged,
    Stopped,
    TransfersFollower,
    TransfersUpdate,
)
from primetui.api.followers.rl import (
    DistributionRows,
    DistributionsFollower,
    ProgressFollower,
    ProgressUpdate,
    SamplePage,
    StepSamplesFollower,
)

Callback = Callable[[Any], Any]
"""A subscriber's sink: called with each event (see the module docstring for what its errors become)."""

log = logging.getLogger("primetui.api.hub")

RETRY_FIRST, RETRY_CAP = 0.5, 4.0
"""A failed resource poll is retried after about 0.5 s, 1 s, 2 s, then every 4 s, until one succeeds."""

QUIET_CAP = 15.0
"""A resource whose replies stop changing is polled less often: its interval doubles per unchanged
reply up to this (below the header's 20 s staleness mark); a changed reply or a poke restores it."""

_REPLAYED = (MetricRows, LogLines, LogGap, DataNotes, SamplePage, DistributionRows)
"""Events a late subscriber must see again (the data itself); the rest is replaced by the latest."""


class Subscription:
    """A handle on one subscriber; ``close()`` unsubscribes (idempotent)."""

    def __init__(self, owner: _Shared | Resource, callback: Callback, interval: float = 0.0) -> None:
        self.owner = owner
        self.callback = callback
        self.interval = interval
        self.closed = False

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.owner._leave(self)

    def refresh(self) -> None:
        """Poll the shared resource now (the user pressed refresh)."""
        self.owner.poke()


_IN_FLIGHT: set[asyncio.Future[Any]] = set()
"""Subscriber coroutines still running: the loop keeps only weak references to tasks, so without
this set a subscriber's coroutine could be garbage-collected mid-flight."""


SUBSCRIBER_ERRORS: Counter[str] = Counter()
"""How many times each failing subscriber raised (``"<callback>: <exception type>"``), for tests and
for anyone asking why a view is stale."""


def _name_of(callback: Callback) -> str:
    return getattr(callback, "__qualname__", None) or type(callback).__qualname__


def report_subscriber_error(callback: Callback, exc: BaseException) -> None:
    """The non-fatal report of a subscriber's exception: the traceback once per callback and
    exception type, a count every time (one broken subscriber must not stop the others' feed)."""
    site = f"{_name_of(callback)}: {type(exc).__name__}"
    SUBSCRIBER_ERRORS[site] += 1
    if SUBSCRIBER_ERRORS[site] == 1:
        log.error(
            "hub subscriber %s raised %s; what it shows may be stale",
            _name_of(callback),
            type(exc).__name__,
            exc_info=(type(exc), exc, exc.__traceback__),
        )
    else:
        log.debug(
            "hub subscriber %s raised %s again (%d times)",
            _name_of(callback),
            type(exc).__name__,
            SUBSCRIBER_ERRORS[site],
        )


def _retrieve(callback: Callback, task: asyncio.Future[Any]) -> None:
    _IN_FLIGHT.discard(task)
    if not task.cancelled() and task.exception() is not None:
        report_subscriber_error(callback, task.exception())  # type: ignore[arg-type]


def _deliver(callback: Callback, item: Any) -> None:
    try:
        result = callback(item)
    except Exception as exc:  # noqa: BLE001 - reported (never swallowed); the other subscribers still get the event
        report_subscriber_error(callback, exc)
        return
    if inspect.isawaitable(result):
        task = asyncio.ensure_future(result)
        _IN_FLIGHT.add(task)
        task.add_done_callback(lambda done: _retrieve(callback, done))


def _fan_out(subscribers: list[Subscription], item: Any) -> None:
    """Hand ``item`` to every open subscriber.

    A function of its own, not a loop in the poll loop: the loop variable would stay bound in the
    poll loop's frame while it sleeps, so the last subscriber's callback (a screen's bound method)
    was held until the next poll, also after that screen closed."""
    for sub in list(subscribers):
        if not sub.closed:
            _deliver(sub.callback, item)


class _Shared:
    """A follower of :mod:`primetui.api.followers` whose events go to many subscribers."""

    def __init__(self, hub: FollowerHub, key: Hashable, make: Callable[[], Any], *, replay: bool = True) -> None:
        self.hub = hub
        self.key = key
        self.make = make
        self.follower = make()
        self.replay = replay
        """Keep the data events for late subscribers (metrics: yes; logs: no, a log is too big to hold twice)."""
        self.produced = False
        self.subscribers: list[Subscription] = []
        self.history: list[FollowerEvent] = []
        self.metric_rows: dict[int, dict[str, Any]] = {}
        """Metric rows for a late subscriber, merged by step and bounded (:func:`compact_rows`): the newest
        rows exact, older ones min/max per bucket. Not the events themselves: an all-day run's history."""
        self.latest: dict[type, FollowerEvent] = {}
        self.task: asyncio.Task[None] | None = None

    def subscribe(self, callback: Callback) -> Subscription:
        sub = Subscription(self, callback)
        for event in self._replay():
            _deliver(callback, event)
        self.subscribers.append(sub)
        if self.task is None:
            self.task = self.hub._spawn(self._pump())
        return sub

    def _replay(self) -> list[FollowerEvent]:
        out: list[FollowerEvent] = []
        if self.metric_rows:
            out.append(MetricRows(tuple(self.metric_rows[step] for step in sorted(self.metric_rows))))
        out.extend(self.history)
        for kind in (RunUpdate, TransfersUpdate, ProgressUpdate, StateChanged, PollFailed, Stopped):
            if kind in self.latest:
                out.append(self.latest[kind])
        return out

    async def _pump(self) -> None:
        async for event in self.follower:
            if isinstance(event, _REPLAYED):
                self.produced = True
                if isinstance(event, MetricRows) and self.replay:
                    self._keep_rows(event.rows)
                elif self.replay:
                    self.history.append(event)
            else:
                self.latest[type(event)] = event
                if isinstance(event, StateChanged):
                    self.latest.pop(PollFailed, None)
            _fan_out(self.subscribers, event)

    def _keep_rows(self, rows: Any) -> None:
        kept = self.metric_rows
        for row in rows:
            known = kept.get(row["step"])
            kept[row["step"]] = row if known is None else {**known, **row}  # the row itself: subscribers share it
        self.metric_rows = compact_rows(kept)

    def poke(self) -> None:
        self.follower.poke()

    def revive(self) -> None:
        """Follow again after the follower stopped (a terminal run was restarted or resumed in place)."""
        if self.follower.done and self.subscribers:
            self.follower = self.make()
            self.latest.pop(Stopped, None)
            self.task = self.hub._spawn(self._pump())

    def _leave(self, sub: Subscription) -> None:
        if sub in self.subscribers:
            self.subscribers.remove(sub)
        if not self.subscribers:
            self.follower.stop()
            if self.task is not None:
                self.task.cancel()
            self.hub._forget(self.key, self)


@dataclass
class ResourceResult:
    """What a :class:`Resource` hands its subscribers after each poll: a value or an error."""

    value: Any = None
    error: BaseException | None = None
    at: float = field(default_factory=time.monotonic)

    @property
    def ok(self) -> bool:
        return self.error is None


class Resource:
    """One polled platform resource (a list, a page) shared by all its subscribers."""

    def __init__(
        self,
        hub: FollowerHub,
        key: Hashable,
        fetch: Callable[[], Awaitable[Any]],
        *,
        rng: Callable[[], float] = random.random,
    ) -> None:
        self.hub = hub
        self.key = key
        self.fetch = fetch
        self._rng = rng
        self.subscribers: list[Subscription] = []
        self.last: ResourceResult | None = None
        self.polls = 0
        self.failures = 0
        self.unchanged = 0
        """Successful replies in a row equal to the one before (the backoff while nothing changes)."""
        self._wake = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    @property
    def interval(self) -> float:
        """The shortest positive interval a subscriber asked for; 0 when all asked for none."""
        wanted = [s.interval for s in self.subscribers if s.interval > 0]
        return min(wanted) if wanted else 0.0

    def subscribe(self, callback: Callback, interval: float = 0.0) -> Subscription:
        """Join; the resource is polled at once (a joining screen shows fresh data), then every interval."""
        sub = Subscription(self, callback, interval)
        if self.last is not None:
            _deliver(callback, self.last)
        self.subscribers.append(sub)
        if self.task is None:
            self.task = self.hub._spawn(self._loop())
        else:
            self.poke()
        return sub

    def poke(self) -> None:
        self.unchanged = 0
        self._wake.set()

    def quiet_interval(self) -> float:
        """The wait before the next poll: the interval, doubled per unchanged reply up to QUIET_CAP."""
        delay = self.interval
        if delay > 0 and self.unchanged:
            delay = max(delay, min(QUIET_CAP, delay * 2 ** min(self.unchanged, 16)))
        return delay

    def _same(self, result: ResourceResult) -> bool:
        last = self.last
        if last is None or not last.ok:
            return False
        try:
            return bool(result.value == last.value)
        except Exception:  # noqa: BLE001 - a value that cannot compare counts as changed
            return False

    async def _loop(self) -> None:
        while self.subscribers:
            self._wake.clear()
            self.polls += 1
            try:
                result = ResourceResult(await self.fetch())
                self.failures = 0
                self.unchanged = self.unchanged + 1 if self._same(result) else 0
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - every failure goes to the subscribers as a result
                result = ResourceResult(error=exc)
                self.failures += 1
            self.last = result
            _fan_out(self.subscribers, result)
            if result.ok and getattr(result.value, "loading", False) is True:
                await asyncio.sleep(0)  # a pager with more pages to read (``AllRuns``): the next one now
                continue
            delay = self.quiet_interval()
            if self.failures:
                # Transient faults are retried soon (0.5 s, 1 s, 2 s, then every 4 s, never later than
                # the interval), so a platform that answers half the time still fills the screen in
                # seconds; jitter keeps many clients from retrying in step.
                ceiling = min(RETRY_CAP, RETRY_FIRST * 2 ** (self.failures - 1))
                if delay > 0:
                    ceiling = min(ceiling, delay)
                delay = ceiling / 2 + self._rng() * ceiling / 2
            if delay > 0:
                try:
                    await asyncio.wait_for(self._wake.wait(), timeout=delay)
                except TimeoutError:
                    pass
            else:
                await self._wake.wait()

    def _leave(self, sub: Subscription) -> None:
        if sub in self.subscribers:
            self.subscribers.remove(sub)
        if not self.subscribers:
            if self.task is not None:
                self.task.cancel()
            self.hub._forget(self.key, self)


class FollowerHub:
    """The shared followers and resources of one client (see the module docstring)."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self._live: dict[Hashable, _Shared | Resource] = {}
        self.context: contextvars.Context | None = None
        """The context every loop of the hub runs in (a copy of it each); None: the subscriber's.

        A task keeps the context it was started in for as long as it runs: a loop started by a
        screen's first subscription ran in that screen's context (Textual's active message pump
        is the screen), so a follower shared on after the screen closed (the runs list still
        following the run) kept the closed screen alive. A UI sets its app's context here."""

    def _spawn(self, coro: Any) -> asyncio.Task[Any]:
        context = self.context.copy() if self.context is not None else None
        return asyncio.get_running_loop().create_task(coro, context=context)

    def _forget(self, key: Hashable, owner: Any) -> None:
        if self._live.get(key) is owner:
            del self._live[key]
        run_id = _run_of(key)
        if _kind_of(key) in ("metrics", "logs") and run_id is not None:
            if not any(_kind_of(k) in ("metrics", "logs") and _run_of(k) == run_id for k in self._live):
                # No data follower of the run is left: the watcher runs on only for real subscribers.
                watcher = self._live.get(("run", run_id))
                if isinstance(watcher, _Shared):
                    for sub in list(watcher.subscribers):
                        if getattr(sub.callback, "_hub_status_feed", False):
                            sub.close()

    def _shared(self, key: Hashable, make: Callable[[], Any], *, replay: bool = True) -> _Shared:
        found = self._live.get(key)
        if isinstance(found, _Shared) and not found.replay and found.produced:
            # A late subscriber to a stream that keeps no history gets a follower of its own.
            n = 1
            while (key, n) in self._live:
                n += 1
            key = (key, n)
            found = None
        if not isinstance(found, _Shared):
            found = _Shared(self, key, make, replay=replay)
            self._live[key] = found
        return found

    def watcher(self, run_id: str) -> RunWatcher:
        """The run's shared status follower (started by the first :meth:`watch`)."""
        watcher: RunWatcher = self._shared(
            ("run", run_id), lambda: RunWatcher(self.client, run_id, interval=3.0)
        ).follower
        return watcher

    def watch(self, run_id: str, callback: Callback) -> Subscription:
        """Run snapshots (R2 + R12) as :class:`RunUpdate` and state events."""
        self.watcher(run_id)
        return self._live[("run", run_id)].subscribe(callback)

    def transfers(self, volume: str, callback: Callback) -> Subscription:
        """A volume's S3 transfers as :class:`TransfersUpdate` (the latest list replays to a late subscriber)."""
        shared = self._shared(("transfers", volume), lambda: TransfersFollower(self.client, volume))
        return shared.subscribe(callback)

    def poke_transfers(self, volume: str) -> None:
        """Poll a volume's transfers now (a job was just started or cancelled here)."""
        found = self._live.get(("transfers", volume))
        if isinstance(found, _Shared):
            found.poke()

    def metrics(
        self, run_id: str, callback: Callback, *, status: str | None = None, watch: bool = True
    ) -> Subscription:
        """Every metric row of the run, once, as :class:`MetricRows`; stops after the final fetch.

        With ``watch`` the shared run watcher runs too and tells the follower when the run ends;
        without it (the runs list, which learns statuses from its own list) the caller passes
        statuses with :meth:`notify_status`.
        """
        watcher = self.watcher(run_id)

        def make() -> MetricsFollower:
            follower = MetricsFollower(self.client, run_id, interval=3.0, watcher=watcher)
            follower.notify_status(status)
            return follower

        shared = self._shared(("metrics", run_id), make)
        if watch:
            self._ensure_status_feed(run_id)
        return shared.subscribe(callback)

    def notify_status(self, run_id: str, status: str | None) -> None:
        """A run status learnt elsewhere (the runs list): the run's data followers hear it."""
        for key, other in list(self._live.items()):
            if isinstance(other, _Shared) and _run_of(key) == run_id and _kind_of(key) in ("metrics", "logs"):
                other.follower.notify_status(status)

    def logs(
        self,
        run_id: str,
        component: str,
        callback: Callback,
        *,
        pod_index: int | None = None,
        env_name: str | None = None,
        status: str | None = None,
    ) -> Subscription:
        """One log stream as :class:`LogLines` and :class:`LogGap` events."""
        watcher = self.watcher(run_id)

        def make() -> LogFollower:
            follower = LogFollower(
                self.client,
                run_id,
                component,
                pod_index=pod_index,
                env_name=env_name,
                interval=2.0,
                backlog_lines=MAX_TAIL_LINES,
                watcher=watcher,
                # a burst past the window is re-read at 5,000 lines at once, not marked lost
                catch_up=True,
            )
            follower.notify_status(watcher.status or status)
            return follower

        shared = self._shared(("logs", run_id, component, pod_index, env_name), make, replay=False)
        self._ensure_status_feed(run_id)
        return shared.subscribe(callback)

    def _ensure_status_feed(self, run_id: str) -> None:
        """Data followers learn the status from the shared watcher, which must be running for that."""
        shared = self._live[("run", run_id)]
        assert isinstance(shared, _Shared)
        if any(getattr(s.callback, "_hub_status_feed", False) for s in shared.subscribers):
            return

        def feed(event: Any) -> None:
            if isinstance(event, RunUpdate):
                for key, other in list(self._live.items()):
                    if isinstance(other, _Shared) and _kind_of(key) in ("metrics", "logs") and _run_of(key) == run_id:
                        other.follower.notify_status(event.run.status)
                        if event.run.is_terminal:
                            other.poke()  # the final fetch now rather than after the interval

        feed._hub_status_feed = True  # type: ignore[attr-defined]
        shared.subscribe(feed)

    # ---- RL routes (R11-R13) -------------------------------------------------------------------
    def progress_follower(self, run_id: str) -> ProgressFollower:
        """The run's shared progress follower (R12), started by the first :meth:`progress`."""
        watcher = self.watcher(run_id)
        follower: ProgressFollower = self._shared(
            ("progress", run_id), lambda: ProgressFollower(self.client, run_id, interval=3.0, watcher=watcher)
        ).follower
        return follower

    def progress(self, run_id: str, callback: Callback) -> Subscription:
        """The run's progress as :class:`ProgressUpdate` events (the latest to a late subscriber)."""
        self.progress_follower(run_id)
        return self._live[("progress", run_id)].subscribe(callback)

    def samples(self, run_id: str, step: int, callback: Callback) -> Subscription:
        """Every sample of one step as :class:`SamplePage` events (replayed to a late subscriber)."""
        shared = self._shared(("samples", run_id, step), lambda: StepSamplesFollower(self.client, run_id, step))
        return shared.subscribe(callback)

    def distributions(self, run_id: str, kind: str, callback: Callback) -> Subscription:
        """The run's ``kind`` histograms, each step once, as :class:`DistributionRows` (replayed)."""
        progress = self.progress_follower(run_id)
        watcher = self.watcher(run_id)
        shared = self._shared(
            ("distributions", run_id, kind),
            lambda: DistributionsFollower(self.client, run_id, kind, progress=progress, watcher=watcher),
        )
        return shared.subscribe(callback)

    def revive_run(self, run_id: str) -> None:
        """Poll the run's status again even if its watcher had stopped at a terminal status."""
        shared = self._live.get(("run", run_id))
        if isinstance(shared, _Shared):
            shared.revive()
            shared.poke()

    def resource(
        self, key: Hashable, fetch: Callable[[], Awaitable[Any]], callback: Callback, interval: float = 0.0
    ) -> Subscription:
        """Join the shared polled resource ``key`` (created with ``fetch`` by its first subscriber)."""
        found = self._live.get(key)
        if not isinstance(found, Resource):
            found = Resource(self, key, fetch)
            self._live[key] = found
        return found.subscribe(callback, interval)

    def all_runs(self, callback: Callback, interval: float = 0.0, *, first: int = 20) -> Subscription:
        """Every run, as a :class:`RunsSnapshot` after each page read (:class:`AllRuns`, shared)."""
        return self.resource(("runs", "all"), AllRuns(self.client, first=first).step, callback, interval)

    def live_keys(self) -> list[Hashable]:
        """The resources being followed now (for tests and the header)."""
        return list(self._live)

    def close(self) -> None:
        """Stop everything (the app is closing or the client changed)."""
        for owner in list(self._live.values()):
            for sub in list(owner.subscribers):
                sub.close()
        self._live.clear()


def _base_key(key: Hashable) -> Hashable:
    # A private log follower's key is (shared key, n).
    if isinstance(key, tuple) and len(key) == 2 and isinstance(key[0], tuple):
        return key[0]
    return key


def _kind_of(key: Hashable) -> str | None:
    key = _base_key(key)
    return key[0] if isinstance(key, tuple) and key and isinstance(key[0], str) else None


def _run_of(key: Hashable) -> str | None:
    key = _base_key(key)
    return key[1] if isinstance(key, tuple) and len(key) > 1 and _kind_of(key) in ("run", "metrics", "logs") else None


def hub_for(client: Any) -> FollowerHub:
    """The hub of ``client``: every screen and pane that shares a client shares its followers.

    The hub lives on the client object itself, so it lives exactly as long as the client. (A
    module-level weak map from client to hub kept every client alive for good: the hub, its value,
    holds the client, so the weak key never died, and with the client the app its callbacks name.)"""
    hub = getattr(client, "_primetui_hub", None)
    if hub is None:
        hub = FollowerHub(client)
        client._primetui_hub = hub
    return hub
