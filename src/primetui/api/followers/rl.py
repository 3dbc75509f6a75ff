"""Followers of an RL run's own routes: its progress (R12), one step's samples (R11, paged) and its
reward/advantage histograms (R13, one request per step, only the steps not read yet).

- :class:`ProgressFollower` polls R12 and yields a :class:`ProgressUpdate` when it changes (a new
  step with samples, a new latest step); it stops after a final fetch once the run is terminal.
- :class:`StepSamplesFollower` reads ONE step's samples page by page (never every step at once),
  a :class:`SamplePage` per page, then stops: a step's samples never change once listed.
- :class:`DistributionsFollower` reads the histogram of each step of ``stepsWithDistributions``
  once, at most ``per_poll`` steps a poll, newest first, as :class:`DistributionRows`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from primetui.api.errors import PrimeAPIError
from primetui.api.followers.polling import (
    DataNotes,
    FollowerEvent,
    FollowerState,
    _Follower,
    _RunBound,
    _say_notes,
    _unexpected,
)

if TYPE_CHECKING:  # the wire models (pydantic) load with the client, not with the followers
    from primetui.api.models import Progress
    from primetui.api.rl import Distribution, Sample


@dataclass(frozen=True)
class ProgressUpdate(FollowerEvent):
    """The run's progress (R12) changed: its latest step or its steps with samples or histograms."""

    progress: Progress


@dataclass(frozen=True)
class SamplePage(FollowerEvent):
    """One page of one step's samples; ``done`` on the step's last page."""

    step: int
    page: int
    samples: tuple[Sample, ...]
    total: int | None
    total_pages: int | None
    done: bool


@dataclass(frozen=True)
class DistributionRows(FollowerEvent):
    """Histograms of steps not delivered before, of one type."""

    kind: str
    distributions: tuple[Distribution, ...]


class ProgressFollower(_RunBound):
    """R12 every ``interval`` seconds; a :class:`ProgressUpdate` whenever the reply differs."""

    def __init__(self, client: Any, run_id: str, *, interval: float = 3.0, **kw: Any) -> None:
        super().__init__(client, run_id, interval=interval, **kw)
        self.progress: Progress | None = None
        """The latest progress read."""

    async def _fetch(self, events: list[FollowerEvent], final: bool) -> None:
        progress = await self.client.get_progress(self.run_id)
        if progress != self.progress:
            self.progress = progress
            events.append(ProgressUpdate(progress))
        self._succeeded(events)


class StepSamplesFollower(_Follower):
    """Every sample of one step, ``page_size`` rows a request, pages back to back; then it stops."""

    def __init__(
        self,
        client: Any,
        run_id: str,
        step: int,
        *,
        page_size: int = 100,
        max_pages: int = 200,
        interval: float = 1.0,
        **kw: Any,
    ) -> None:
        super().__init__(client, run_id, interval=interval, **kw)
        self.step = step
        self.page_size = page_size
        self.max_pages = max_pages
        """Pages read at most (20,000 rows at 100 a page): a platform whose pages never end cannot keep us reading."""
        self.next_page = 1
        self.received = 0
        self.notes: list[str] = []

    async def poll(self) -> list[FollowerEvent]:
        events: list[FollowerEvent] = []
        if self.done:
            return events
        try:
            self.polls += 1
            reply = await self.client.get_samples(self.run_id, self.step, page=self.next_page, limit=self.page_size)
        except PrimeAPIError as exc:
            self._failed(exc, events)
            return events
        except Exception as exc:  # noqa: BLE001 - a poll loop must never die silently in a worker
            self._failed(_unexpected(exc), events)
            return events
        _say_notes(self.notes, reply, events)
        samples = tuple(reply.samples)
        self.received += len(samples)
        total_pages = reply.total_pages
        done = (
            not samples
            or len(samples) < self.page_size
            or (total_pages is not None and self.next_page >= total_pages)
            or (reply.total is not None and self.received >= reply.total)
            or self.next_page >= self.max_pages
        )
        events.append(SamplePage(self.step, self.next_page, samples, reply.total, total_pages, done))
        self.next_page += 1
        self._succeeded(events)
        if done:
            if self.next_page > self.max_pages and not (total_pages and total_pages <= self.max_pages):
                events.append(DataNotes((f"step {self.step}: read the first {self.max_pages} pages of samples only",)))
            self._finish(f"Every sample of step {self.step} is read.", events)
        else:
            self.next_delay = 0.0  # the next page at once: only a failure waits
        return events


class DistributionsFollower(_RunBound):
    """The histogram of each listed step once (``kind`` rewards or advantages), newest steps first."""

    def __init__(
        self,
        client: Any,
        run_id: str,
        kind: str,
        *,
        progress: ProgressFollower | None = None,
        interval: float = 3.0,
        per_poll: int = 16,
        max_steps: int = 400,
        **kw: Any,
    ) -> None:
        super().__init__(client, run_id, interval=interval, **kw)
        self.kind = kind
        self.progress_source = progress
        """A shared progress follower to read the steps from (no request of its own), or None: read R12."""
        self.per_poll = per_poll
        self.max_steps = max_steps
        """Steps read at most (evenly spread over the run, :func:`strip_steps`)."""
        self._behind = False
        self.have: set[int] = set()
        self.notes: list[str] = []

    async def _steps(self) -> list[int]:
        source = self.progress_source
        progress = source.progress if source is not None and source.progress is not None else None
        if progress is None:
            progress = await self.client.get_progress(self.run_id)
        return strip_steps(progress.steps_with_distributions, self.max_steps)

    async def _fetch(self, events: list[FollowerEvent], final: bool) -> None:
        missing = [s for s in reversed(await self._steps()) if s not in self.have]
        got = []
        for step in missing[: self.per_poll]:
            dist = await self.client.get_distribution(self.run_id, self.kind, step)
            _say_notes(self.notes, dist, events)
            self.have.add(step)
            got.append(dist)
        if got:
            events.append(DistributionRows(self.kind, tuple(got)))
        self._succeeded(events)
        self._behind = len(missing) > self.per_poll
        if self._behind:
            self.next_delay = 0.2  # catching up on a long run: the next steps soon, still bounded

    def _finish(self, reason: str, events: list[FollowerEvent], state: str = FollowerState.STOPPED) -> None:
        if self._behind and state == FollowerState.STOPPED:
            return  # the run ended, but steps are still unread: the next polls read them, then it stops
        super()._finish(reason, events, state)


def strip_steps(steps: list[int] | tuple[int, ...], most: int) -> list[int]:
    """``steps`` in order, or ``most`` of them evenly spread (the first and the last kept) when there are more.

    A heat strip is as wide as the terminal: a run of 10,000 steps is read as its ``most`` columns, not
    10,000 requests.
    """
    ordered = sorted(set(steps))
    if len(ordered) <= most or most < 2:
        return ordered
    picks = {ordered[round(i * (len(ordered) - 1) / (most - 1))] for i in range(most)}
    return sorted(picks)
