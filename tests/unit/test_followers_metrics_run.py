"""The metrics follower fetches only what is new; the run watcher reports status and step changes."""

from __future__ import annotations

from primetui.api import followers as f
from primetui.api.errors import error_from_response
from tests.unit.followers_fakes import FakeTime, Scripted, run_status

SERVER = error_from_response(500, '{"detail": "db"}', method="GET", url="http://127.0.0.1:9/x")
NO_PROGRESS = error_from_response(404, '{"detail": "Not Found"}', method="GET", url="http://127.0.0.1:9/x")


def rows(*steps, **extra):
    return [{"step": s, "loss/mean": 1.0 / (s + 1), **extra} for s in steps]


def _metrics(client, t, **kw):
    kw.setdefault("status_interval", 0)
    return f.MetricsFollower(
        client, "r1", interval=5.0, clock=t.clock, wall=t.wall, sleep=t.sleep, rng=lambda: 0.5, **kw
    )


def _rows(events, late=None):
    return [r for e in events if isinstance(e, f.MetricRows) and (late is None or e.late == late) for r in e.rows]


async def test_incremental_min_step_never_refetches():
    t = FakeTime()
    client = Scripted(metrics=[rows(1, 2, 3), [], rows(4, 5)], runs=[run_status("RUNNING")] * 3)
    fol = _metrics(client, t, late_every=0)
    got = []
    for _ in range(3):
        got += await fol.poll()
    assert [r["step"] for r in _rows(got)] == [1, 2, 3, 4, 5]
    assert [c["min_step"] for c in client.metric_calls] == [None, 4, 4]
    assert fol.last_step == 5 and fol.rows_received == 5


async def test_late_rows_of_the_last_step_are_caught_without_duplicates():
    t = FakeTime()
    eval_row = {"step": 3, "eval/reverse-text/avg@1": 0.4}
    client = Scripted(
        metrics=[rows(1, 2, 3), [], rows(3) + [eval_row] + rows(4)],
        runs=[run_status("RUNNING")] * 3,
    )
    fol = _metrics(client, t, late_every=3, late_window=0)
    got = []
    for _ in range(3):
        got += await fol.poll()
    # third poll re-reads from step 3 itself: the known train row is dropped, the eval row is late
    assert client.metric_calls[-1]["min_step"] == 3
    assert _rows(got, late=True) == [eval_row]
    assert [r["step"] for r in _rows(got, late=False)] == [1, 2, 3, 4]


async def test_merged_step_rows_that_grow_yield_only_new_keys():
    """The local platform merges a step's rows into one: a late eval makes that row grow."""
    t = FakeTime()
    train = {"step": 10, "time": 5.0, "loss/mean": 0.5}
    merged = {"step": 10, "time": 6.0, "loss/mean": 0.5, "eval/reverse-text/avg@1": 0.7}
    client = Scripted(metrics=[[train], [merged], [merged]], runs=[run_status("RUNNING")] * 3)
    fol = _metrics(client, t, late_every=1)
    got = []
    for _ in range(3):
        got += await fol.poll()
    assert _rows(got, late=False) == [train]
    assert _rows(got, late=True) == [{"step": 10, "time": 6.0, "eval/reverse-text/avg@1": 0.7}]


async def test_final_fetch_rereads_last_step_for_teardown_rows_then_stops():
    t = FakeTime()
    teardown = {"step": 2, "perf/throughput": 10.0}
    client = Scripted(metrics=[rows(1, 2), rows(2) + [teardown]], runs=[run_status("RUNNING"), run_status("COMPLETED")])
    fol = _metrics(client, t, late_every=0, late_window=0)
    got = []
    await fol.run(got.append)
    assert client.metric_calls[-1]["min_step"] == 2
    assert _rows(got, late=True) == [teardown]
    assert fol.done and isinstance(got[-1], f.Stopped) and t.slept == [5.0]


async def test_big_histories_arrive_in_pages_split_inside_a_step():
    t = FakeTime()
    page1 = rows(1, 2) + [{"step": 3, "a": 1}]
    page2 = [{"step": 3, "a": 1}, {"step": 3, "b": 2}, *rows(4)]  # full again: one more page
    page3 = rows(5)
    client = Scripted(metrics=[page1, page2, page3], runs=[run_status("RUNNING")])
    fol = _metrics(client, t, page_size=3, late_every=0)
    got = await fol.poll()
    assert [c["min_step"] for c in client.metric_calls] == [None, 3, 4]
    assert [c["limit"] for c in client.metric_calls] == [3, 3, 3]
    assert _rows(got) == page1 + page2[1:] + page3 and not _rows(got, late=True)


async def test_platform_ignoring_min_step_causes_no_duplicates_and_odd_rows_are_skipped():
    t = FakeTime()
    client = Scripted(
        metrics=[rows(1, 2), rows(1, 2, 3) + [{"no": "step"}, {"step": True}]], runs=[run_status("RUNNING")] * 2
    )
    fol = _metrics(client, t, late_every=0)
    got = await fol.poll() + await fol.poll()
    assert [r["step"] for r in _rows(got)] == [1, 2, 3]
    assert fol.notes == ["1 row ignored: no step", "1 row ignored: step is not a number"]


async def test_rows_are_sorted_by_step():
    t = FakeTime()
    client = Scripted(metrics=[rows(3, 1, 2)], runs=[run_status("RUNNING")])
    got = await _metrics(client, t).poll()
    assert [r["step"] for r in _rows(got)] == [1, 2, 3]


async def test_metrics_errors_back_off_and_keep_the_cursor():
    t = FakeTime()
    client = Scripted(metrics=[rows(1), SERVER, rows(2)], runs=[run_status("RUNNING")] * 3)
    fol = _metrics(client, t, late_every=0)
    await fol.poll()
    ev = await fol.poll()
    assert fol.state == "retrying" and [type(e) for e in ev if isinstance(e, f.PollFailed)] == [f.PollFailed]
    ev = await fol.poll()
    assert [r["step"] for r in _rows(ev)] == [2] and client.metric_calls[-1]["min_step"] == 2
    assert fol.error is None


# ---------------------------------------------------------------------------------------------
# RunWatcher
# ---------------------------------------------------------------------------------------------


def _watcher(client, t, **kw):
    return f.RunWatcher(client, "r1", interval=3.0, clock=t.clock, wall=t.wall, sleep=t.sleep, rng=lambda: 0.5, **kw)


async def test_watcher_reports_status_and_step_changes_only():
    t = FakeTime()
    client = Scripted(
        runs=[
            run_status("PENDING"),
            run_status("CREATING"),
            run_status("CREATING"),
            run_status("RUNNING"),
            run_status("RUNNING"),
            run_status("COMPLETED"),
        ],
        progress=[None, None, None, 1, 2, 10],
    )
    w = _watcher(client, t)
    updates = []
    async for event in w:
        if isinstance(event, f.RunUpdate):
            updates.append((event.run.status, event.step, event.status_changed, event.step_changed))
    assert updates == [
        ("PENDING", None, True, False),
        ("CREATING", None, True, False),
        ("RUNNING", 1, True, True),
        ("RUNNING", 2, False, True),
        ("COMPLETED", 10, True, True),
    ]
    assert w.done and w.state == "stopped" and w.status == "COMPLETED" and t.slept == [3.0] * 5


async def test_a_watcher_runs_with_a_callback_like_every_follower():
    # Its latest snapshot was an attribute named ``run``, which hid the follower's ``run(callback)`` loop.
    t = FakeTime()
    w = _watcher(Scripted(runs=[run_status("RUNNING"), run_status("COMPLETED")], progress=[1, 2]), t)
    got: list = []
    await w.run(got.append)
    assert [e.run.status for e in got if isinstance(e, f.RunUpdate)] == ["RUNNING", "COMPLETED"]
    assert w.latest is not None and w.latest.status == "COMPLETED" and isinstance(got[-1], f.Stopped)


async def test_watcher_keeps_unknown_statuses_and_survives_missing_progress():
    t = FakeTime()
    client = Scripted(runs=[run_status("WARMING_UP"), run_status("WARMING_UP", name="x")], progress=[NO_PROGRESS])
    w = _watcher(client, t)
    first = await w.poll()
    second = await w.poll()
    assert not w.track_step and client.progress_calls == 1
    assert isinstance(first[0], f.RunUpdate) and first[0].run.status == "WARMING_UP"
    assert isinstance(second[0], f.RunUpdate) and not second[0].status_changed  # another field changed


async def test_watcher_backs_off_and_reports_staleness():
    t = FakeTime()
    client = Scripted(runs=[run_status("RUNNING"), SERVER, SERVER, run_status("RUNNING")], progress=[3, 3])
    w = _watcher(client, t)
    await w.poll()
    good = w.last_success
    t.now += 3
    await w.poll()
    t.now += w.next_delay
    await w.poll()
    assert w.state == "retrying" and w.failures == 2 and w.age() == t.now - good.monotonic
    assert await w.poll() == [f.StateChanged("following", "retrying")]  # nothing changed in the run
    assert w.error is None


async def test_a_failed_step_read_does_not_hold_back_the_status_and_an_ended_run_waits_for_its_step():
    # Through a half-faulted link (tests/api/test_fault_soak.py) a poll needed both reads to succeed, a
    # quarter of the time: the run's end reached the screen and the log follower minutes late.
    t = FakeTime()
    client = Scripted(
        runs=[run_status("RUNNING"), run_status("COMPLETED"), run_status("COMPLETED")], progress=[3, SERVER, 10]
    )
    w = _watcher(client, t)
    await w.poll()
    ended = await w.poll()
    assert [(e.run.status, e.step) for e in ended if isinstance(e, f.RunUpdate)] == [("COMPLETED", 3)]
    assert w.status == "COMPLETED" and not w.done and w.state == "retrying" and w.step_error is SERVER
    assert w.next_delay > 0
    last = await w.poll()
    assert [(e.run.status, e.step) for e in last if isinstance(e, f.RunUpdate)] == [("COMPLETED", 10)]
    assert w.done and w.step_error is None and last[-1] == f.Stopped("The run is COMPLETED.")

    # A failed read, then a platform that has no progress for the run: the status alone ends it.
    w = _watcher(Scripted(runs=[run_status("COMPLETED"), run_status("COMPLETED")], progress=[SERVER, NO_PROGRESS]), t)
    await w.poll()
    assert not w.done
    await w.poll()
    assert w.done and not w.track_step and w.step_error is None


async def test_paused_is_terminal():
    t = FakeTime()
    w = _watcher(Scripted(runs=[run_status("PAUSED")], progress=[4]), t)
    ev = await w.poll()
    assert w.done and ev[-1] == f.Stopped("The run is PAUSED.")


async def test_unexpected_exceptions_become_retryable_errors():
    t = FakeTime()
    client = Scripted(runs=[KeyError("boom"), run_status("RUNNING")], progress=[1])
    w = _watcher(client, t)
    ev = await w.poll()
    assert w.state == "retrying" and isinstance(w.error, f.UnexpectedPollError)
    assert "KeyError" in str(w.error) and str(w.error).endswith("persists.")
    assert [e.retry_in is not None for e in ev if isinstance(e, f.PollFailed)] == [True]
    await w.poll()
    assert w.state == "following" and w.error is None


async def test_an_eval_row_for_a_step_the_trainer_has_passed_is_not_lost():
    """Issue 18 #4: the eval of step 285 finishes while the trainer is at 287 (merged rows)."""
    t = FakeTime()
    at285 = {"step": 285, "loss/mean": 0.5}
    with_eval = {**at285, "eval/reverse-text/avg@1": 0.7}
    client = Scripted(
        metrics=[[at285], rows(286, 287), [with_eval, *rows(286, 287)], rows(288)],
        runs=[run_status("RUNNING")] * 4,
    )
    fol = _metrics(client, t, late_every=3, late_window=8)
    got = []
    for _ in range(4):
        got += await fol.poll()
    assert client.metric_calls[2]["min_step"] == 279  # the recheck reaches back past the cursor
    assert _rows(got, late=True) == [{"step": 285, "eval/reverse-text/avg@1": 0.7}]
    assert [r["step"] for r in _rows(got, late=False)] == [285, 286, 287, 288]
    assert client.metric_calls[3]["min_step"] == 288


async def test_the_recheck_window_is_bounded():
    t = FakeTime()
    client = Scripted(metrics=[rows(*range(1, 101)), rows(*range(90, 101))], runs=[run_status("RUNNING")] * 2)
    fol = _metrics(client, t, late_every=2, late_window=10)
    got = await fol.poll() + await fol.poll()
    assert client.metric_calls[1]["min_step"] == 90
    assert [r["step"] for r in _rows(got)] == list(range(1, 101))


async def test_a_final_fetch_reads_past_the_poll_cap_but_stops_on_pages_that_never_end():
    """The final fetch has no per-poll cap (issue 41), so a platform that ignores ``min_step`` and
    sends the same full page every time must not keep it reading: the first page that gets no
    further than the last step ends it."""
    t = FakeTime()
    same = rows(1, 2, 3)
    client = Scripted(metrics=[same] * 5, runs=[run_status("COMPLETED")])
    fol = _metrics(client, t, page_size=3, max_pages_per_poll=1, late_every=0)
    got = await fol.poll()
    assert [c["min_step"] for c in client.metric_calls] == [None, 3]
    assert [r["step"] for r in _rows(got)] == [1, 2, 3] and fol.done
