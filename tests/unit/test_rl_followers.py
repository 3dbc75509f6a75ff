"""The RL followers: one step's samples page by page, each step's histogram once, progress changes."""

from __future__ import annotations

import asyncio
from typing import Any

from primetui.api.errors import ServerError
from primetui.api.followers import Stopped
from primetui.api.followers.rl import (
    DistributionRows,
    DistributionsFollower,
    ProgressFollower,
    ProgressUpdate,
    SamplePage,
    StepSamplesFollower,
    strip_steps,
)
from primetui.api.models import Progress
from primetui.api.rl import distribution_of, sample_rows
from tests.unit.followers_fakes import FakeTime, run_status


class Platform:
    """Samples of one step in pages, histograms per step, a progress reply; records every call."""

    def __init__(self, rows: int, steps: list[int], fail_first_page: bool = False) -> None:
        self.rows = rows
        self.steps = steps
        self.calls: list[tuple[str, Any]] = []
        self.fail = fail_first_page
        self.status = "RUNNING"

    async def get_samples(self, run_id: str, step: int, *, page: int, limit: int) -> Any:
        self.calls.append(("samples", page))
        if self.fail:
            self.fail = False
            raise ServerError("The platform failed (503).", status_code=503)
        from primetui.api.rl import SamplesPage

        start = (page - 1) * limit
        raw = [
            {"step": step, "problem_id": i // 4, "sample_id": i, "reward": 0.5}
            for i in range(start, min(start + limit, self.rows))
        ]
        samples, _ = sample_rows(raw)
        pages = -(-self.rows // limit)
        return SamplesPage.model_construct(samples=samples, total=self.rows, page=page, limit=limit, total_pages=pages)

    async def get_progress(self, run_id: str) -> Progress:
        self.calls.append(("progress", None))
        return Progress(
            latest_step=max(self.steps),
            steps_with_samples=[s for s in self.steps if s % 10 == 0],
            steps_with_distributions=self.steps,
        )

    async def get_distribution(self, run_id: str, kind: str, step: int | None = None) -> Any:
        self.calls.append(("distribution", step))
        return distribution_of({"bins": [{"binStart": 0, "binEnd": 1, "count": step}], "step": step}, kind)

    async def get_run(self, run_id: str) -> Any:
        return run_status(self.status)


def drain(follower: Any) -> list[Any]:
    async def go() -> list[Any]:
        return [event async for event in follower]

    return asyncio.run(go())


def test_a_step_is_read_page_by_page_then_the_follower_stops() -> None:
    platform, clock = Platform(rows=250, steps=[10]), FakeTime()
    events = drain(StepSamplesFollower(platform, "r1", 10, page_size=100, clock=clock.clock, sleep=clock.sleep))
    pages = [e for e in events if isinstance(e, SamplePage)]
    assert [(p.page, len(p.samples), p.done) for p in pages] == [(1, 100, False), (2, 100, False), (3, 50, True)]
    assert [c for c in platform.calls] == [("samples", 1), ("samples", 2), ("samples", 3)]
    assert clock.slept == [0.0, 0.0] and isinstance(events[-1], Stopped)


def test_a_failed_page_is_retried_with_backoff() -> None:
    platform, clock = Platform(rows=5, steps=[10], fail_first_page=True), FakeTime()
    events = drain(StepSamplesFollower(platform, "r1", 10, clock=clock.clock, sleep=clock.sleep, rng=lambda: 0.0))
    assert platform.calls == [("samples", 1), ("samples", 1)] and clock.slept[0] > 0
    assert [len(e.samples) for e in events if isinstance(e, SamplePage)] == [5]


def test_histograms_each_step_once_newest_first_then_stop_when_terminal() -> None:
    platform, clock = Platform(rows=0, steps=list(range(1, 21))), FakeTime()
    follower = DistributionsFollower(
        platform, "r1", "rewards", per_poll=8, clock=clock.clock, sleep=clock.sleep, status_interval=0.0
    )

    async def go() -> list[Any]:
        out = []
        async for event in follower:
            out.append(event)
            if isinstance(event, DistributionRows) and len(follower.have) == 20:
                platform.status = "COMPLETED"
        return out

    events = asyncio.run(go())
    got = [d.step for e in events if isinstance(e, DistributionRows) for d in e.distributions]
    assert got[:8] == list(range(20, 12, -1)) and sorted(got) == list(range(1, 21))
    assert [c[1] for c in platform.calls if c[0] == "distribution"].count(5) == 1
    assert isinstance(events[-1], Stopped)


def test_a_terminal_run_reads_every_step_before_it_stops() -> None:
    platform, clock = Platform(rows=0, steps=list(range(1, 41))), FakeTime()
    platform.status = "COMPLETED"
    follower = DistributionsFollower(platform, "r1", "advantages", per_poll=16, clock=clock.clock, sleep=clock.sleep)
    events = drain(follower)
    assert sorted(d.step for e in events if isinstance(e, DistributionRows) for d in e.distributions) == list(
        range(1, 41)
    )


def test_progress_updates_only_on_change() -> None:
    platform, clock = Platform(rows=0, steps=[1, 2]), FakeTime()
    follower = ProgressFollower(platform, "r1", clock=clock.clock, sleep=clock.sleep, status_interval=1e9)

    async def go() -> list[Any]:
        out = []
        for _ in range(3):
            out += await follower.poll()
            if len(out) and platform.steps == [1, 2]:
                pass
        platform.steps = [1, 2, 3]
        out += await follower.poll()
        return out

    updates = [e for e in asyncio.run(go()) if isinstance(e, ProgressUpdate)]
    assert [u.progress.latest_step for u in updates] == [2, 3]


def test_strip_steps_spreads_a_long_run() -> None:
    assert strip_steps([3, 1, 2], 10) == [1, 2, 3]
    picked = strip_steps(list(range(10_000)), 400)
    assert len(picked) == 400 and picked[0] == 0 and picked[-1] == 9_999
