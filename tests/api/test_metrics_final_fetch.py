"""The final fetch of a run's metrics reads every row (issue 41): a poll reads at most
``max_pages_per_poll`` pages, but an ended run is read once, and a run with more rows than those
pages hold lost its tail (at the hub's 20 pages of 5,000 rows: every step past 100,000)."""

from __future__ import annotations

import pytest

from primetui.api import followers as f
from primetui.local.store import Store
from primetui.local.testing import LocalPlatform

pytestmark = pytest.mark.timeout(60)

STEPS = 47


@pytest.fixture(scope="module")
def long_run(tmp_path_factory: pytest.TempPathFactory):
    """An ended run with ``STEPS`` metric rows on a platform of its own."""
    with LocalPlatform.start(tmp_path_factory.mktemp("long-metrics"), demo=False) as lp:
        (run_id,) = lp.insert_runs(["long-history"])
        store = Store(lp.data_dir / "state.sqlite3")
        try:
            with store.tx() as db:
                rows = [{"step": s, "time": 1000.0 + s, "loss/mean": 1.0 / s} for s in range(1, STEPS + 1)]
                store.merge_metric_rows(db, run_id, rows)
        finally:
            store.close()
        yield lp, run_id


class Told:
    """The run's status as the runs list tells it (a ``StatusSource``; no request of its own)."""

    status = "RUNNING"


def rows_of(events) -> list[dict]:
    return [r for e in events if isinstance(e, f.MetricRows) for r in e.rows]


async def test_the_final_fetch_of_an_ended_run_reads_past_the_per_poll_page_cap(long_run):
    lp, run_id = long_run
    async with lp.client() as client:
        follower = f.MetricsFollower(client, run_id, page_size=5, max_pages_per_poll=2)
        follower.notify_status("COMPLETED")
        events = await follower.poll()
    assert [r["step"] for r in rows_of(events)] == list(range(1, STEPS + 1))  # every row, the tail too
    assert follower.done and follower.final_fetch_ok


async def test_a_poll_before_the_end_stops_at_the_cap_and_the_next_goes_on(long_run):
    lp, run_id = long_run
    async with lp.client() as client:
        told = Told()
        follower = f.MetricsFollower(client, run_id, page_size=5, max_pages_per_poll=2, late_every=0, watcher=told)
        first = rows_of(await follower.poll())
        assert [r["step"] for r in first] == list(range(1, 10))  # two pages of five (the second from step 5 on)
        told.status = "COMPLETED"
        rest = rows_of(await follower.poll())
    assert [r["step"] for r in first + rest] == list(range(1, STEPS + 1))  # each step once, none lost
    assert follower.done
