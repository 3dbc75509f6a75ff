"""Followers under faults: the final fetch must succeed, transient backoff is capped, a plain window is a snapshot."""

from __future__ import annotations

from primetui.api import followers as f
from primetui.api.errors import MalformedResponseError, error_from_response
from tests.unit.followers_fakes import FakeTime, Scripted, run_status

GONE = error_from_response(404, '{"detail": "Run not found"}', method="GET", url="http://127.0.0.1:9/x")
SERVER = error_from_response(503, '{"detail": "busy"}', method="GET", url="http://127.0.0.1:9/x")
BROKEN = MalformedResponseError("The reply to GET /x is not what primetui expects (the reply is empty).")


def _follower(client, t, **kw):
    kw.setdefault("status_interval", 0)
    return f.LogFollower(
        client, "r1", "trainer", interval=2.0, clock=t.clock, wall=t.wall, sleep=t.sleep, rng=lambda: 1.0, **kw
    )


async def test_a_failed_final_fetch_is_retried_and_only_a_good_one_stops_the_follower():
    t = FakeTime()
    client = Scripted(logs=["a\nb", BROKEN, SERVER, "a\nb\nc"], runs=[run_status("RUNNING")])
    fol = _follower(client, t)
    await fol.poll()
    fol.notify_status("COMPLETED")
    for _ in range(2):
        events = await fol.poll()
        assert not fol.done and fol.state == f.FollowerState.RETRYING
        assert not [e for e in events if isinstance(e, f.LogLines)]
    events = await fol.poll()
    assert fol.done and fol.final_fetch_ok
    assert [ln for e in events if isinstance(e, f.LogLines) for ln in e.lines] == ["c"]


async def test_a_final_fetch_that_cannot_succeed_says_the_end_may_be_missing():
    t = FakeTime()
    client = Scripted(logs=["a\nb", GONE], runs=[run_status("RUNNING")])
    fol = _follower(client, t)
    await fol.poll()
    fol.notify_status("FAILED")
    events = await fol.poll()
    stopped = [e for e in events if isinstance(e, f.Stopped)]
    assert fol.done and not fol.final_fetch_ok and fol.state == f.FollowerState.ERROR
    assert "final fetch failed" in stopped[0].reason and "may be missing" in stopped[0].reason


async def test_transient_faults_keep_the_backoff_short_and_a_long_outage_lets_it_grow():
    t = FakeTime()
    client = Scripted(logs=[SERVER] * 12, runs=[run_status("RUNNING")] * 12)
    fol = _follower(client, t, max_backoff=60.0, transient_backoff=8.0, outage_after=30.0)
    delays = []
    for _ in range(12):
        await fol.poll()
        delays.append(fol.next_delay)
        t.now += fol.next_delay
    assert delays[:3] == [2.0, 4.0, 8.0] and max(d for d, at in zip(delays, range(12)) if at < 5) <= 8.0
    assert delays[-1] == 60.0  # past `outage_after` without a good poll: back off to max_backoff


async def test_a_plain_window_of_200_lines_is_a_snapshot_overflow_not_a_restart():
    t = FakeTime()
    first = "\n".join(f"l{i}" for i in range(200))
    second = "\n".join(f"l{i}" for i in range(1000, 1200))
    client = Scripted(logs=[first, second], runs=[run_status("RUNNING")] * 2)
    fol = _follower(client, t, search_backend=False, backlog_lines=1000, tail_lines=1000)
    await fol.poll()
    events = await fol.poll()
    assert [e.reason for e in events if isinstance(e, f.LogGap)] == ["overflow"]
    assert client.log_calls[0][1]["since_seconds"] is None
