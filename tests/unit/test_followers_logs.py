"""The log follower: windows that repeat, overlap, shift, jump and restart; waiting; backoff; stop."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from primetui.api import followers as f
from primetui.api.errors import error_from_response
from primetui.api.models import LogsResponse, RLRun
from tests.unit.followers_fakes import FakeTime, Scripted, run_status

NOT_STARTED = error_from_response(
    404,
    '{"detail": "Logs are not available yet (run is PENDING)"}',
    method="GET",
    url="http://127.0.0.1:9/api/v1/rft/runs/r1/logs",
)
RATE_LIMITED = error_from_response(
    429, '{"detail": "slow down"}', method="GET", url="http://127.0.0.1:9/x", retry_after="12"
)
RATE_LIMITED_NO_HINT = error_from_response(429, "{}", method="GET", url="http://127.0.0.1:9/x")
SERVER = error_from_response(503, '{"detail": "busy"}', method="GET", url="http://127.0.0.1:9/x")
UNAUTHORIZED = error_from_response(401, "{}", method="GET", url="http://127.0.0.1:9/x")
GONE = error_from_response(404, '{"detail": "Run not found"}', method="GET", url="http://127.0.0.1:9/x")


def L(*lines: str) -> list[str]:
    return list(lines)


# ---------------------------------------------------------------------------------------------
# diff_windows: the pure rule
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "last,cur,full,new,gap",
    [
        (L(), L("a", "b"), True, L("a", "b"), None),  # first window
        (L("a", "b"), L(), True, L(), None),  # nothing in the lookback
        (L("a", "b", "c"), L("a", "b", "c"), True, L(), None),  # duplicated window
        (L("a", "b", "c"), L("a", "b", "c", "d", "e"), False, L("d", "e"), None),  # growing
        (L("a", "b", "c", "d"), L("b", "c", "d", "e"), True, L("e"), None),  # shifted by one
        (L("a", "b", "c", "d", "e"), L("c", "d", "e", "f", "g"), True, L("f", "g"), None),  # shifted by two
        (L("a", "b", "c", "d"), L("d", "e", "f", "g"), True, L("e", "f", "g"), "uncertain"),  # 1-line overlap
        (L("a", "b", "c", "d"), L("d", "e", "f", "g"), False, L("e", "f", "g"), None),  # not full: proven
        (L("a", "b", "c"), L("x", "y", "z"), True, L("x", "y", "z"), "overflow"),  # jumped past a window
        (L("c", "d", "e"), L("a", "b", "c", "d", "e", "f"), True, L("a", "b", "c", "d", "e", "f"), "overflow"),
        (L("a", "b", "c"), L("x", "y"), False, L("x", "y"), "restart"),  # log started over
        (L("a", "b", "c", "d"), L("b", "c"), False, L(), None),  # stale snapshot inside the last one
        (L("a", "b", "c", "d", "e"), L("b", "c", "d"), True, L(), None),  # same, full window
        (L("a", "b", "c", "d"), L("b", "c"), True, L("b", "c"), "overflow"),  # too short to call stale
        (L("a", "b", "c", "d"), L("c", "d"), True, L(), None),  # shrunk by lookback, nothing new
        # repeated lines: the longest overlap wins, so no line is printed twice
        (L("tick", "tick", "tick"), L("tick", "tick", "tick", "done"), False, L("done"), None),
        (L("x", "", "", "y", ""), L("", "y", "", "z"), True, L("z"), None),
        (L("a", "b", "a", "b"), L("a", "b", "a", "b", "c"), False, L("c"), None),
    ],
)
def test_diff_windows(last, cur, full, new, gap):
    diff = f.diff_windows(last, cur, full=full)
    assert diff.new == new
    assert diff.gap == gap


def test_a_bigger_window_starts_earlier_in_the_log():
    log = [f"l{i}" for i in range(20)]
    diff = f.diff_windows(log[10:13], log[7:14], full=True, grown=True)
    assert diff.new == ["l13"] and diff.gap is None
    # repeated lines: only a whole previous window of 3+ lines is trusted as the anchor
    diff = f.diff_windows(["m0"], ["m1", "m0", "m0", "m0", "m0"], full=True, grown=True)
    assert diff.new == ["m1", "m0", "m0", "m0", "m0"] and diff.gap == "overflow"


def _windows(total: int, ends: list[int], width: int) -> list[list[str]]:
    log = [f"{i:05d} step {i}" for i in range(total)]
    return [log[max(0, e - width) : e] for e in ends]


@settings(max_examples=120, deadline=None, derandomize=True)
@given(
    width=st.integers(min_value=1, max_value=30),
    steps=st.lists(st.integers(min_value=0, max_value=40), min_size=1, max_size=25),
)
def test_sliding_windows_never_duplicate_and_flag_every_loss(width, steps):
    """A unique-line log read through a sliding window: output == log exactly, or a gap says where."""
    ends = []
    end = 0
    for s in steps:
        end += s
        ends.append(end)
    log = [f"{i:05d} step {i}" for i in range(end)]
    out: list[str] = []
    gaps = 0
    last: list[str] = []
    for e in ends:
        cur = log[max(0, e - width) : e]
        diff = f.diff_windows(last, cur, full=len(cur) == width)
        if diff.gap:
            gaps += 1
        out.extend(diff.new)
        if not diff.stale:
            last = cur if cur else last
    assert len(out) == len(set(out)), "a line was emitted twice"
    assert out == sorted(out), "lines out of order"
    if gaps == 0:
        # with no gap reported, nothing is missing after the start of the first non-empty window
        first = next((e for e in ends if e > 0), None)
        assert out == (log[max(0, first - width) :] if first else [])


@settings(max_examples=120, deadline=None, derandomize=True)
@given(
    polls=st.lists(
        st.tuples(st.integers(min_value=0, max_value=30), st.integers(min_value=f.MIN_PROOF, max_value=40)),
        min_size=1,
        max_size=25,
    ),
)
def test_windows_of_changing_size_never_duplicate_and_flag_every_loss(polls):
    """The follower asks for bigger or smaller windows over time; a bigger one starts earlier.

    Windows are at least MIN_PROOF lines, as the follower's always are (hundreds in practice).
    """
    log: list[str] = []
    out: list[str] = []
    last: list[str] = []
    gaps = 0
    first_start = None
    previous_width = 0
    for added, width in polls:
        start = len(log)
        log.extend(f"{start + i:05d} line" for i in range(added))
        cur = log[-width:] if log else []
        diff = f.diff_windows(last, cur, full=len(cur) == width, grown=width > previous_width)
        previous_width = width
        gaps += diff.gap is not None
        if first_start is None and cur:
            first_start = len(log) - len(cur)
        out.extend(diff.new)
        if cur and not diff.stale:
            last = cur
    assert len(out) == len(set(out)) and out == sorted(out)
    if gaps == 0:
        assert out == (log[first_start:] if first_start is not None else [])


@settings(max_examples=120, deadline=None, derandomize=True)
@given(
    alphabet=st.integers(min_value=1, max_value=3),
    chunks=st.lists(st.lists(st.integers(min_value=0, max_value=2), max_size=6), min_size=1, max_size=12),
)
def test_whole_log_windows_are_exact_even_with_repeated_lines(alphabet, chunks):
    """When the platform returns the whole (growing) log, repeated lines never confuse the diff."""
    log: list[str] = []
    out: list[str] = []
    last: list[str] = []
    for chunk in chunks:
        log.extend(f"line {c % alphabet}" for c in chunk)
        diff = f.diff_windows(last, list(log), full=False)
        assert diff.gap is None
        out.extend(diff.new)
        last = list(log)
    assert out == log


def _cli_new_lines(last: list[str], cur: list[str]) -> tuple[list[str], int]:
    """`prime train logs -f` 0.18.0's dedupe, as the contract records it (commands/rl.py)."""
    if cur == last:
        return [], len(cur)
    if not last:
        return list(cur), 0
    k = 0
    for i in range(1, min(len(last), len(cur)) + 1):
        if last[-i:] == cur[:i]:
            k = i
    return list(cur[k:]), k


@settings(max_examples=150, deadline=None, derandomize=True)
@given(
    width=st.integers(min_value=1, max_value=12),
    alphabet=st.integers(min_value=1, max_value=4),
    chunks=st.lists(st.lists(st.integers(min_value=0, max_value=3), max_size=15), min_size=2, max_size=10),
)
def test_never_worse_than_the_cli(width, alphabet, chunks):
    """Same lines as the CLI's rule wherever the CLI can tell; a gap wherever it silently guesses."""
    log: list[str] = []
    last: list[str] = []
    for chunk in chunks:
        log.extend(f"msg {c % alphabet}" for c in chunk)
        cur = log[-width:] if log else []
        ours = f.diff_windows(last, cur, full=len(cur) == width)
        cli_new, k = _cli_new_lines(last, cur)
        if ours.stale:
            assert cli_new == cur  # the CLI would print the whole window again
            continue
        assert ours.new == cli_new
        if last and cur and k == 0 and cur != last:
            assert ours.gap is not None  # the CLI prints these lines as if nothing was lost
        last = cur if cur else last


# ---------------------------------------------------------------------------------------------
# LogFollower against a scripted platform
# ---------------------------------------------------------------------------------------------


def _follower(client, t: FakeTime, **kw) -> f.LogFollower:
    kw.setdefault("interval", 3.0)
    return f.LogFollower(
        client, "r1", kw.pop("component", "trainer"), clock=t.clock, wall=t.wall, sleep=t.sleep, rng=lambda: 0.5, **kw
    )


def _lines(events) -> list[str]:
    return [line for e in events if isinstance(e, f.LogLines) for line in e.lines]


async def test_follows_overlapping_windows_without_duplicates():
    t = FakeTime()
    client = Scripted(
        logs=["a\nb\nc", "a\nb\nc", "b\nc\nd\ne", "c\nd\ne\nf"],
        runs=[run_status("RUNNING")] * 4,
    )
    fol = _follower(client, t, status_interval=0)
    events = []
    for _ in range(4):
        events += await fol.poll()
    assert _lines(events) == ["a", "b", "c", "d", "e", "f"]
    assert not [e for e in events if isinstance(e, f.LogGap)]
    assert fol.state == f.FollowerState.FOLLOWING and fol.lines_received == 6
    # since_seconds routes every fetch through the search backend (the plain fetch is a 200-line snapshot)
    assert client.log_calls[0] == (
        1000,
        {"component": "trainer", "pod_index": None, "env_name": None, "since_seconds": 86400},
    )
    assert [c[0] for c in client.log_calls[1:]] == [200, 200, 200]


async def test_a_jump_past_the_window_is_an_explicit_gap_and_grows_the_window():
    t = FakeTime()
    client = Scripted(logs=["1\n2\n3", "7\n8\n9", "8\n9\n10"], runs=[run_status("RUNNING")] * 3)
    fol = _follower(client, t, tail_lines=3, backlog_lines=3, status_interval=0)
    first = await fol.poll()
    second = await fol.poll()
    gap = [e for e in second if isinstance(e, f.LogGap)]
    assert len(gap) == 1 and gap[0].reason == "overflow" and gap[0].stream == "trainer"
    assert "missing" in gap[0].message
    # the gap comes before the lines after it
    assert isinstance(second[0], f.LogGap) and isinstance(second[1], f.LogLines)
    assert _lines(first + second) == ["1", "2", "3", "7", "8", "9"]
    assert fol.tail_lines == 6 and fol.gaps == 1
    third = await fol.poll()
    assert _lines(third) == ["10"] and client.log_calls[-1][0] == 6


async def test_not_started_waits_then_follows():
    t = FakeTime()
    client = Scripted(
        logs=[NOT_STARTED, NOT_STARTED, "hello"], runs=[run_status("PENDING")] * 2 + [run_status("RUNNING")]
    )
    fol = _follower(client, t, waiting_interval=10.0, status_interval=0)
    ev = await fol.poll()
    assert fol.state == "waiting" and fol.error is None and fol.next_delay == 10.0
    assert any(isinstance(e, f.StateChanged) and e.state == "waiting" for e in ev)
    assert fol.last_success is not None  # the platform answered
    await fol.poll()
    ev = await fol.poll()
    assert fol.state == "following" and _lines(ev) == ["hello"]
    assert client.log_calls[-1][0] == 1000  # the backlog fetch happens once logs exist


async def test_rate_limit_burst_backs_off_with_retry_after_then_recovers():
    t = FakeTime()
    client = Scripted(
        logs=["a", RATE_LIMITED, RATE_LIMITED_NO_HINT, RATE_LIMITED_NO_HINT, "a\nb"], runs=[run_status("RUNNING")] * 5
    )
    fol = _follower(client, t, status_interval=0)
    await fol.poll()
    stamp = fol.last_success
    delays = []
    for _ in range(3):
        ev = await fol.poll()
        failed = [e for e in ev if isinstance(e, f.PollFailed)]
        assert failed and failed[0].retry_in == fol.next_delay
        delays.append(fol.next_delay)
        assert fol.state == "retrying" and fol.error is not None and fol.last_success == stamp
    assert delays[0] == 12.5  # Retry-After 12 s plus jitter
    # 2nd and 3rd failures: exponential (3 s * 2^(n-1)) with equal jitter at rng=0.5
    assert delays[1:] == [3.0 * 2 * 0.75, 3.0 * 4 * 0.75]
    ev = await fol.poll()
    assert fol.state == "following" and fol.error is None and fol.failures == 0 and fol.next_delay == 3.0
    assert _lines(ev) == ["b"]


async def test_server_error_burst_is_capped_and_jittered():
    t = FakeTime()
    rolls = iter([0.0, 1.0] * 10)
    client = Scripted(logs=[SERVER] * 8, runs=[run_status("RUNNING")] * 8)
    fol = f.LogFollower(
        client,
        "r1",
        "trainer",
        interval=3.0,
        max_backoff=20.0,
        clock=t.clock,
        wall=t.wall,
        sleep=t.sleep,
        rng=lambda: next(rolls),
        status_interval=0,
    )
    delays = []
    for _ in range(8):
        await fol.poll()
        delays.append(fol.next_delay)
    ceilings = [3, 6, 12, 20, 20, 20, 20, 20]
    for d, c, r in zip(delays, ceilings, [0.0, 1.0] * 4):
        assert d == c / 2 + r * c / 2
    assert fol.state == "retrying" and "HTTP 503" in str(fol.error)


async def test_fatal_errors_stop_the_follower():
    for err in (UNAUTHORIZED, GONE):
        t = FakeTime()
        fol = _follower(Scripted(logs=[err], runs=[run_status("RUNNING")]), t, status_interval=0)
        ev = await fol.poll()
        assert fol.done and fol.state == "error" and fol.error is err
        assert isinstance(ev[-1], f.Stopped) and [e.retry_in for e in ev if isinstance(e, f.PollFailed)] == [None]


async def test_terminal_run_gets_one_final_fetch_then_stops():
    t = FakeTime()
    watcher = f.RunWatcher(
        Scripted(runs=[run_status("RUNNING"), run_status("COMPLETED")], progress=[None, None]),
        "r1",
        clock=t.clock,
        sleep=t.sleep,
    )
    client = Scripted(logs=["a", "a\nb", "a\nb\nc"])
    fol = _follower(client, t, watcher=watcher)
    await watcher.poll()
    assert _lines(await fol.poll()) == ["a"]
    await watcher.poll()  # now COMPLETED
    ev = await fol.poll()
    assert _lines(ev) == ["b"] and fol.done and fol.state == "stopped"
    assert ev[-1] == f.Stopped("The run is COMPLETED.")
    assert await fol.poll() == [] and len(client.log_calls) == 2


async def test_reads_status_itself_without_a_watcher_and_iterates_with_sleep():
    t = FakeTime()
    client = Scripted(logs=["a", "a\nb", "a\nb\nc"], runs=[run_status("RUNNING"), run_status("FAILED")])
    fol = _follower(client, t, status_interval=5.0)
    seen = []
    async for event in fol:
        seen.append(event)
    # polls at t=0 (status RUNNING), t=3 (status cached), t=6 (status re-read: FAILED -> final fetch)
    assert _lines(seen) == ["a", "b", "c"]
    assert t.slept == [3.0, 3.0] and len(client.run_calls) == 2
    assert isinstance(seen[-1], f.Stopped) and fol.state == "stopped"


async def test_already_terminal_run_fetches_the_backlog_once():
    t = FakeTime()
    client = Scripted(logs=["x\ny"], runs=[run_status("STOPPED")])
    fol = _follower(client, t)
    got = []
    await fol.run(got.append)
    assert _lines(got) == ["x", "y"] and len(client.log_calls) == 1 and fol.done


async def test_async_callback_and_stop():
    t = FakeTime()
    client = Scripted(logs=["a", "a\nb"] + ["a\nb"] * 50, runs=[run_status("RUNNING")] * 60)
    fol = _follower(client, t, status_interval=0)
    got = []

    async def cb(event):
        got.append(event)
        if isinstance(event, f.LogLines) and "b" in event.lines:
            fol.stop()

    await fol.run(cb)
    assert _lines(got) == ["a", "b"] and fol.done and len(client.log_calls) == 2


async def test_restart_is_reported():
    t = FakeTime()
    client = Scripted(logs=["a\nb\nc", "boot 1"], runs=[run_status("RUNNING")] * 2)
    fol = _follower(client, t, status_interval=0)
    await fol.poll()
    ev = await fol.poll()
    assert [e.reason for e in ev if isinstance(e, f.LogGap)] == ["restart"] and _lines(ev) == ["boot 1"]


async def test_learns_a_platform_window_cap():
    """Plain fetches come from a 200-line snapshot even when more is asked for."""
    t = FakeTime()
    log = [f"l{i}" for i in range(400)]
    windows = ["\n".join(log[:5]), "\n".join(log[1:6]), "\n".join(log[9:14])]
    client = Scripted(logs=windows, runs=[run_status("RUNNING")] * 3)
    fol = _follower(client, t, status_interval=0)
    await fol.poll()
    await fol.poll()  # grew by one line but stayed 5 long: the platform cuts at 5
    ev = await fol.poll()
    assert [e.reason for e in ev if isinstance(e, f.LogGap)] == ["overflow"]


async def test_an_empty_window_in_between_does_not_repeat_lines():
    t = FakeTime()
    client = Scripted(logs=["a\nb", "", "a\nb\nc"], runs=[run_status("RUNNING")] * 3)
    fol = _follower(client, t, status_interval=0)
    got = await fol.poll() + await fol.poll() + await fol.poll()
    assert _lines(got) == ["a", "b", "c"] and fol.gaps == 0


async def test_window_shrinks_back_after_a_burst():
    t = FakeTime()
    log = [f"l{i}" for i in range(2000)]
    windows, end = [], 3
    windows.append("\n".join(log[:end]))
    end += 50  # a burst: 50 new lines, more than a 3-line window holds
    windows.append("\n".join(log[end - 3 : end]))
    fol = _follower(Scripted(logs=[], runs=[]), t, backlog_lines=3, tail_lines=3, status_interval=0)
    client = fol.client
    for w in windows:
        client.logs.append(w)
        client.runs.append(run_status("RUNNING"))
        await fol.poll()
    grown = fol.tail_lines
    assert grown > 3
    for _ in range(40):  # calm: one new line per poll
        end += 1
        client.logs.append("\n".join(log[max(0, end - fol.tail_lines) : end]))
        client.runs.append(run_status("RUNNING"))
        await fol.poll()
    assert fol.tail_lines < grown and fol.tail_lines >= 4
    assert fol.gaps == 1  # only the burst


def test_stream_keys():
    assert f.stream_key(None) == "orchestrator"
    assert f.stream_key("env-server", None, "reverse-text") == "env-server:reverse-text"
    assert f.stream_key("trainer", 1) == "trainer/1"


async def test_age_uses_monotonic_clock():
    t = FakeTime()
    fol = _follower(Scripted(logs=["a"], runs=[run_status("RUNNING")]), t, status_interval=0)
    assert fol.age() is None
    await fol.poll()
    t.now += 7.5
    assert fol.age() == 7.5 and fol.last_success.wall == 1_700_000_000.0


def test_models_used_by_fakes():
    assert LogsResponse(logs="a\nb").lines() == ["a", "b"]
    assert isinstance(run_status("RUNNING"), RLRun)


async def test_poke_wakes_a_real_sleep_and_stop_ends_it():
    """Without an injected sleep the loop waits on the interval; poke() and stop() cut it short."""
    import asyncio

    client = Scripted(logs=["a", "a\nb"], runs=[run_status("RUNNING")] * 2)
    fol = f.LogFollower(client, "r1", "trainer", interval=3600.0, status_interval=0)
    got: list = []

    async def consume():
        async for event in fol:
            got.append(event)
            if isinstance(event, f.LogLines) and event.lines == ("a",):
                fol.poke()  # arrives while polling: must not be lost
            if isinstance(event, f.LogLines) and event.lines == ("b",):
                fol.stop()

    await asyncio.wait_for(consume(), timeout=30)
    assert _lines(got) == ["a", "b"] and fol.done


class _GrowingLog:
    """A platform whose log grows between polls and serves its last `tail_lines` (maybe capped)."""

    def __init__(self, bursts: list[int], cap: int | None) -> None:
        self.bursts = list(bursts)
        self.cap = cap
        self.log: list[str] = []

    async def get_logs(self, run_id, tail_lines=1000, **kw):
        added = self.bursts.pop(0) if self.bursts else 0
        start = len(self.log)
        self.log.extend(f"{start + i:06d} INFO step line" for i in range(added))
        n = min(tail_lines, self.cap) if self.cap else tail_lines
        return LogsResponse(logs="\n".join(self.log[-n:]))

    async def get_run(self, run_id):
        return run_status("RUNNING")


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    bursts=st.lists(st.integers(min_value=0, max_value=120), min_size=1, max_size=30),
    cap=st.one_of(st.none(), st.integers(min_value=5, max_value=40)),
    tail=st.integers(min_value=3, max_value=20),
)
async def test_follower_end_to_end_never_repeats_and_flags_every_loss(bursts, cap, tail):
    """The real LogFollower (adaptive window, learned cap) against a growing log."""
    platform = _GrowingLog(bursts, cap)
    t = FakeTime()
    fol = f.LogFollower(
        platform,
        "r1",
        "trainer",
        backlog_lines=tail,
        tail_lines=tail,
        status_interval=3600,
        clock=t.clock,
        wall=t.wall,
        sleep=t.sleep,
        rng=lambda: 0.5,
    )
    out: list[str] = []
    gaps = 0
    first_start = None
    for _ in range(len(bursts)):
        before = len(platform.log)
        for ev in await fol.poll():
            if isinstance(ev, f.LogLines):
                if first_start is None:
                    first_start = len(platform.log) - len(ev.lines)
                out.extend(ev.lines)
            elif isinstance(ev, f.LogGap):
                gaps += 1
        assert len(platform.log) >= before
    assert len(out) == len(set(out)) and out == sorted(out)
    if gaps == 0 and first_start is not None:
        assert out == platform.log[first_start:]
