"""FollowerHub: one follower per resource, fanned out to every subscriber, stopped with the last one."""

from __future__ import annotations

import asyncio

from primetui.api.followers import MetricRows, RunUpdate
from primetui.api.hub import FollowerHub, hub_for
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
        return RLRun.model_validate({"id": run_id, "userId": "u", "name": "r", "status": self.status,
                                     "createdAt": "2026-01-01T00:00:00Z", "updatedAt": "2026-01-01T00:00:00Z"})

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
    for _ in range(50):
        await asyncio.sleep(0.01)
        if any(isinstance(e, RunUpdate) for e in seen_b):
            break
    assert client.calls["get_run"] == 1  # one request stream, not one per subscriber
    assert any(isinstance(e, RunUpdate) for e in seen_a) and any(isinstance(e, RunUpdate) for e in seen_b)
    late: list[object] = []
    c = hub.watch("r1", late.append)  # after the watcher stopped: the latest snapshot is replayed
    assert any(isinstance(e, RunUpdate) and e.run.status == "COMPLETED" for e in late)
    for sub in (a, b, c):
        sub.close()
    assert hub.live_keys() == []


async def test_a_late_metrics_subscriber_gets_every_row_once_without_a_new_request():
    client = FakeClient(status="COMPLETED", steps=5)
    hub = FollowerHub(client)
    first: list[dict] = []
    sub1 = hub.metrics("r1", lambda e: first.extend(e.rows) if isinstance(e, MetricRows) else None, status="COMPLETED")
    for _ in range(100):
        await asyncio.sleep(0.01)
        if len(first) == 5:
            break
    requests = client.calls.get("get_metrics", 0)
    second: list[dict] = []
    sub2 = hub.metrics("r1", lambda e: second.extend(e.rows) if isinstance(e, MetricRows) else None, status="COMPLETED")
    await asyncio.sleep(0.05)
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
    await asyncio.sleep(0.32)
    calls = client.calls["list_volumes"]
    assert 3 <= calls <= 10, calls  # ~0.32/0.05 polls plus the joins' pokes, not three streams
    assert all(r.ok for r in got)
    for sub in subs:
        sub.close()
    await asyncio.sleep(0.1)
    assert client.calls["list_volumes"] == calls  # nobody left: no more requests
    assert hub.live_keys() == []


async def test_a_failing_resource_retries_soon_with_a_growing_capped_delay():
    class Broken(FakeClient):
        async def list_volumes(self):
            self._count("list_volumes")
            raise OSError("down")

    client = Broken()
    hub = FollowerHub(client)
    got: list[object] = []
    # A 60 s interval: a failure is retried after ~0.5 s, ~1 s, ~2 s, not after 60 s (a flaky
    # platform still fills the screen in seconds), yet not in a tight loop either.
    sub = hub.resource(("volumes",), client.list_volumes, got.append, interval=60.0)
    await asyncio.sleep(1.6)
    sub.close()
    assert got and all(not r.ok and isinstance(r.error, OSError) for r in got)
    assert 3 <= client.calls["list_volumes"] <= 5, client.calls


def test_one_hub_per_client():
    a, b = FakeClient(), FakeClient()
    assert hub_for(a) is hub_for(a)
    assert hub_for(a) is not hub_for(b)
