"""FollowerHub: one follower per resource, fanned out to every subscriber, stopped with the last one."""

from __future__ import annotations

import asyncio

from primetui.api.followers import MetricRows, RunUpdate
from primetui.api.hub import RETRY_CAP, RETRY_FIRST, FollowerHub, hub_for
from tests.waiting import wait_for
from primetui.api.models import MetricsResponse, RLRun


class FakeClient:
    def __init__(self, status: str = "RUNNING", steps: int = 3) -> None:
        self.calls: dict[str, int] = {}
        self.status = status
        self.rows = [{"step": s, "loss/mean": 1.0 / s} for s in range(1, steps + 1)]

    def _count(self, name: str) -> None:
        self.calls[name] = self.calls.get(name, 0) + 1

    async def get_run(self, run_id: str) -> RLRun:
        self._count("get_run")
        return RLRun.model_validate(
            {
                "id": run_id,
                "userId": "u",
                "name": "r",
                "status": self.status,
                "createdAt": "2026-01-01T00:00:00Z",
                "updatedAt": "2026-01-01T00:00:00Z",
            }
        )

    async def get_progress(self, run_id: str):
        from primetui.api.errors import NotFoundError

        self._count("get_progress")
        raise NotFoundError("no progress", status_code=404)

    async def get_metrics(self, run_id: str, min_step: int | None = None, **kw):
        self._count("get_metrics")
        lo = min_step or 0
        return MetricsResponse(metrics=[r for r in self.rows if r["step"] >= lo])

    async def list_volumes(self):
        self._count("list_volumes")
        return {"volumes": [{"name": "v"}]}


async def test_two_subscribers_share_one_watcher_and_both_see_the_run():
    client = FakeClient(status="COMPLETED")
    hub = FollowerHub(client)
    seen_a: list[object] = []
    seen_b: list[object] = []
    a = hub.watch("r1", seen_a.append)
    b = hub.watch("r1", seen_b.append)
    await wait_for(lambda: any(isinstance(e, RunUpdate) for e in seen_b), "the second subscriber's first run update")
    assert client.calls["get_run"] == 1  # one request stream, not one per subscriber
    assert any(isinstance(e, RunUpdate) for e in seen_a) and any(isinstance(e, RunUpdate) for e in seen_b)
    late: list[object] = []
    c = hub.watch("r1", late.append)  # after the watcher stopped: the latest snapshot is replayed
    assert any(isinstance(e, RunUpdate) and e.run.status == "COMPLETED" for e in late)
    for sub in (a, b, c):
        sub.close()
    assert hub.live_keys() == []


async def test_a_late_progress_subscriber_gets_the_latest_progress_without_a_new_request():
    """An RL run's screen follows its progress for the sample steps it measures; the Rollouts tab, shown
    later, subscribed after the follower's one read and got nothing: no steps, an empty tab."""
    from primetui.api.followers.rl import ProgressUpdate
    from primetui.api.models import Progress

    class WithProgress(FakeClient):
        async def get_progress(self, run_id: str):
            self._count("get_progress")
            return Progress.model_validate(
                {"latestStep": 20, "stepsWithSamples": [10, 20], "stepsWithDistributions": []}
            )

    client = WithProgress(status="COMPLETED")
    hub = FollowerHub(client)
    first: list[object] = []
    a = hub.progress("r1", first.append)
    await wait_for(lambda: any(isinstance(e, ProgressUpdate) for e in first), "the first subscriber's progress")
    late: list[object] = []
    b = hub.progress("r1", late.append)
    assert [e.progress.steps_with_samples for e in late if isinstance(e, ProgressUpdate)] == [[10, 20]]
    assert client.calls["get_progress"] == 1
    for sub in (a, b):
        sub.close()


async def test_a_late_metrics_subscriber_gets_every_row_once_without_a_new_request():
    client = FakeClient(status="COMPLETED", steps=5)
    hub = FollowerHub(client)
    first: list[dict] = []
    sub1 = hub.metrics("r1", lambda e: first.extend(e.rows) if isinstance(e, MetricRows) else None, status="COMPLETED")
    await wait_for(lambda: len(first) == 5, "the first subscriber's five metric rows")
    requests = client.calls.get("get_metrics", 0)
    second: list[dict] = []
    sub2 = hub.metrics("r1", lambda e: second.extend(e.rows) if isinstance(e, MetricRows) else None, status="COMPLETED")
    await wait_for(lambda: len(second) >= 5, "the late subscriber's replayed rows")
    assert [r["step"] for r in second] == [1, 2, 3, 4, 5]
    assert client.calls.get("get_metrics", 0) == requests
    sub1.close()
    sub2.close()
    assert hub.live_keys() == []  # the status feed on the watcher went with the last data follower


async def test_a_resource_polls_once_per_interval_for_all_subscribers_and_stops_with_the_last():
    client = FakeClient()
    hub = FollowerHub(client)
    got: list[object] = []
    subs = [hub.resource(("volumes",), client.list_volumes, got.append, interval=0.05) for _ in range(3)]
    shared = hub._live[("volumes",)]
    await wait_for(lambda: len(got) >= 12, "four polls' replies to the three subscribers")
    calls = client.calls["list_volumes"]
    assert calls == shared.polls  # one request stream, not three
    assert len(got) // 3 in (calls - 1, calls)  # each reply went to all three
    assert all(r.ok for r in got)
    for sub in subs:
        sub.close()
    await wait_for(lambda: shared.task.done(), "the poll loop to end with its last subscriber")
    assert client.calls["list_volumes"] == calls  # nobody left: no more requests
    assert hub.live_keys() == []


async def test_a_failing_resource_retries_soon_with_a_growing_capped_delay():
    class Broken(FakeClient):
        async def list_volumes(self):
            self._count("list_volumes")
            attempts.append(asyncio.get_running_loop().time())
            raise OSError("down")

    attempts: list[float] = []

    client = Broken()
    hub = FollowerHub(client)
    got: list[object] = []
    # A 60 s interval: a failure is retried after ~0.5 s, ~1 s, ~2 s, not after 60 s (a flaky
    # platform still fills the screen in seconds), yet not in a tight loop either.
    sub = hub.resource(("volumes",), client.list_volumes, got.append, interval=60.0)
    # Three attempts well within the 60 s interval (a bound on a hang, so generous under load).
    await wait_for(lambda: len(attempts) >= 3, "two retries of the failing poll", timeout=30)
    sub.close()
    assert got and all(not r.ok and isinstance(r.error, OSError) for r in got)
    # Not a tight loop: retry k waits at least half its ceiling (0.5 s, 1 s, 2 s ... capped at 4 s);
    # a loaded machine only makes the gaps longer.
    gaps = [b - a for a, b in zip(attempts, attempts[1:])]
    assert all(gap >= min(RETRY_CAP, RETRY_FIRST * 2**k) / 2 for k, gap in enumerate(gaps)), gaps


def test_one_hub_per_client():
    a, b = FakeClient(), FakeClient()
    assert hub_for(a) is hub_for(a)
    assert hub_for(a) is not hub_for(b)


async def test_a_loop_runs_in_the_hubs_context_and_holds_no_closed_subscriber():
    """A screen that starts a shared follower and closes is not kept by the follower running on."""
    import contextvars
    import gc
    import weakref

    owner: contextvars.ContextVar[object] = contextvars.ContextVar("owner")

    class Screen:
        def __init__(self) -> None:
            self.seen: list[object] = []
            self.sub: object = None

        def on_event(self, event: object) -> None:
            self.seen.append(event)

    client = FakeClient(status="RUNNING")
    hub = FollowerHub(client)
    hub.context = contextvars.copy_context()  # the app's, taken before any screen subscribed
    first = Screen()

    def subscribe(screen: Screen) -> None:
        owner.set(screen)  # as Textual's active message pump is the screen in its handlers
        screen.sub = hub.watch("r1", screen.on_event)  # the first subscriber starts the loop

    contextvars.copy_context().run(subscribe, first)
    keeper = hub.watch("r1", lambda _event: None)  # another subscriber keeps the follower going
    seen = first.seen
    await wait_for(lambda: any(isinstance(e, RunUpdate) for e in seen), "the screen's first run update")
    first.sub.close()  # the screen closes
    gone = weakref.ref(first)
    del first
    polls = client.calls["get_run"]
    await wait_for(lambda: client.calls["get_run"] > polls, "another poll after the close", timeout=30)
    gc.collect()
    assert gone() is None, "the shared loop kept the closed subscriber"
    keeper.close()
