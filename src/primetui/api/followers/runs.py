"""`RunWatcher`: a run's status and step (R2), a `RunUpdate` whenever either changes."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from primetui.api.errors import (
    NotFoundError,
    PrimeAPIError,
)
from primetui.api.followers.polling import FollowerEvent, RunUpdate, _Follower, _unexpected

if TYPE_CHECKING:  # the wire models (pydantic) load with the client, not with the followers
    from primetui.api.models import RLRun


class RunWatcher(_Follower):
    """Polls R2 (and R12 for the latest step) and yields a RunUpdate whenever the run changes."""

    def __init__(self, client: Any, run_id: str, *, interval: float = 3.0, track_step: bool = True, **kw: Any):
        super().__init__(client, run_id, interval=interval, **kw)
        self.latest: RLRun | None = None
        """The latest run snapshot (not ``run``: that is the follower's ``run(callback)`` loop)."""
        self.step: int | None = None
        """The latest step the platform reports (R12 `latestStep`), if known."""
        self.track_step = track_step
        """Also read R12 for the step; switched off by itself if the platform lacks R12."""
        self.step_error: PrimeAPIError | None = None
        """Why the last read of the step failed (its poll kept the status and the step before); None after one
        that succeeded."""

    @property
    def status(self) -> str | None:
        """The latest run status, or None before the first poll."""
        return self.latest.status if self.latest is not None else None

    async def poll(self) -> list[FollowerEvent]:
        events: list[FollowerEvent] = []
        if self.done:
            return events
        try:
            self.polls += 1
            run = await self.client.get_run(self.run_id)
            step = self.step
            self.step_error = None
            if self.track_step:
                try:
                    step = (await self.client.get_progress(self.run_id)).latest_step
                except NotFoundError:
                    self.track_step = False  # the platform has no progress for this run
                except PrimeAPIError as exc:
                    # The status came through: a run that ended is not held back by a failed read of
                    # its step (on a flaky link, both in one poll succeeded a quarter of the time).
                    self.step_error = exc
        except PrimeAPIError as exc:
            self._failed(exc, events)
            return events
        except Exception as exc:  # noqa: BLE001 - a poll loop must never die silently in a worker
            self._failed(_unexpected(exc), events)
            return events
        previous, previous_step = self.latest, self.step
        self.latest, self.step = run, step
        if previous is None or previous != run or previous_step != step:
            events.append(RunUpdate(run, previous, step, previous_step))
        if self.step_error is not None:
            # The step is read again, paced as any failed read; an ended run is not done before its last step.
            self._failed(self.step_error, events)
            return events
        self._succeeded(events)
        if run.is_terminal:
            self._finish(f"The run is {run.status}.", events)
        return events
