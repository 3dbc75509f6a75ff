"""`LogFollower`: new lines of one log stream (R7), deduplicated across overlapping windows,
with an explicit `LogGap` whenever continuity cannot be proved."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from primetui.api.errors import (
    NotFoundError,
)
from primetui.api.wire import LogComponent
from primetui.api.followers.polling import FollowerEvent, FollowerState, LogGap, LogLines, _RunBound, _say_notes
from primetui.api.followers.windows import diff_windows

if TYPE_CHECKING:  # the wire models (pydantic) load with the client, not with the followers
    from primetui.api.models import LogsResponse


MAX_TAIL_LINES = 5000
"""R7's hard ceiling per request."""

PLAIN_SNAPSHOT_LINES = 200
"""A plain R7 fetch (no search, level or since) is served from a snapshot of this many lines."""

SEARCH_LOOKBACK_SECONDS = 86_400
"""R7's widest lookback (24 h): with it every fetch goes through the search backend."""

SHRINK_AFTER_CALM_POLLS = 10
"""Quiet polls after which a log window grown by a burst is halved again."""


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
    new lines is re-read at 5000 lines in the same poll. A run that has not started yet (404 with a startup marker) puts
    the follower
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
        reply: LogsResponse = await self.client.get_logs(
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


def _gap_message(reason: str) -> str:
    if reason == "restart":
        return "The log started over (the process restarted); earlier lines are above."
    if reason == "uncertain":
        return "Some lines may be missing here: too little overlap with the previous fetch to be sure."
    return "Some lines are missing here: more arrived between two fetches than one fetch returns."
