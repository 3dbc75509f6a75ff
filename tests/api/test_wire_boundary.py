"""Issue 23 item 1: one boundary for the wire, proven over real HTTP on 127.0.0.1.

Each test is one bullet of the issue: a gzip bomb stops at the decoded-size cap, a trickled reply
stops at the whole-reply deadline, deep JSON gets a sentence instead of RecursionError, a page
longer than asked is cut with a note, the client has a few requests open at a time, and metric
rows with non-finite, out-of-range or non-numeric steps, times and values are dropped at the
boundary with a count.
"""

from __future__ import annotations

import asyncio
import json
import tracemalloc
from concurrent.futures import ThreadPoolExecutor

import pytest

from primetui.api.client import PrimeClient
from primetui.api.errors import APITimeoutError, MalformedResponseError, PrimeAPIError, ServerError
from primetui.viewmodel.fmt import fmt_age, fmt_time
from tests.wire_platform import RUN_ID, Reply, WirePlatform, baseline, default_reply, gzip_bomb, gzipped

HANG = 60.0
"""A bound on a hang, not a speed check: the limits under test are 1 and 2 s."""


def serve(**routes: Reply):
    """A WirePlatform answering ``routes`` (by path suffix) and the baseline elsewhere."""

    def reply_for(method: str, path: str, query: dict[str, str]) -> Reply:
        for suffix, reply in routes.items():
            if path.endswith(suffix.replace("__", "/")):
                return reply
        return default_reply(method, path, query)

    return WirePlatform(reply_for)


async def test_a_gzip_bomb_stops_at_the_decoded_cap():
    bomb = Reply(200, gzip_bomb(256), {"Content-Type": "application/json", "Content-Encoding": "gzip"})
    with serve(**{"/rft/runs": bomb}) as wp:
        async with PrimeClient(wp.base_url, "k") as client:
            tracemalloc.start()
            try:
                with pytest.raises(MalformedResponseError) as caught:
                    await client.list_runs()
                peak = tracemalloc.get_traced_memory()[1]
            finally:
                tracemalloc.stop()
    assert "larger than 8 MiB" in str(caught.value) and "stopped reading" in str(caught.value)
    from primetui.api import boundary

    assert peak < 4 * boundary.DEFAULT_REPLY_CAP, (
        f"{peak / 2**20:.0f} MiB held for a {boundary.fmt_cap(boundary.DEFAULT_REPLY_CAP)} cap"
    )


async def test_a_compressed_reply_within_the_cap_reads_as_usual():
    with serve(**{"/rft/runs": gzipped(Reply.json(baseline("GET", "/api/v1/rft/runs", {})))}) as wp:
        async with PrimeClient(wp.base_url, "k") as client:
            page = await client.list_runs()
    assert [r.id for r in page.runs] == [RUN_ID, "run1fuzz"]


async def test_an_error_reply_is_read_only_for_its_detail():
    bomb = Reply(500, gzip_bomb(64), {"Content-Type": "application/json", "Content-Encoding": "gzip"})
    with serve(**{"/rft/runs": bomb}) as wp:
        async with PrimeClient(wp.base_url, "k") as client:
            with pytest.raises(ServerError):
                await client.list_runs()


async def test_a_trickled_reply_stops_at_the_whole_reply_deadline(monkeypatch):
    monkeypatch.setenv("PRIMETUI_REPLY_DEADLINE", "2")
    body = json.dumps(baseline("GET", "/api/v1/rft/runs", {})).encode()
    with serve(**{"/rft/runs": Reply(200, body, trickle=0.2)}) as wp:
        async with PrimeClient(wp.base_url, "k") as client:
            with pytest.raises(APITimeoutError) as caught:  # a hang bound, not a speed check: the deadline is 2 s
                await asyncio.wait_for(client.list_runs(), HANG)
    assert "did not finish answering GET /rft/runs within 2 s" in str(caught.value)


@pytest.mark.parametrize(
    "text", ["[" * 100_000, '{"runs": ' + "[" * 100_000 + "]" * 100_000 + "}", '{"a":' * 5000 + "1" + "}" * 5000]
)
async def test_deep_json_is_one_sentence_not_a_recursion_error(text):
    with serve(**{"/rft/runs": Reply.raw_json(text)}) as wp:
        async with PrimeClient(wp.base_url, "k") as client:
            with pytest.raises(MalformedResponseError) as caught:
                await client.list_runs()
    assert "nested more than 64 levels deep" in str(caught.value) or "not JSON" in str(caught.value)
    assert isinstance(caught.value, PrimeAPIError)


def test_the_depth_check_ignores_brackets_in_strings_and_counts_real_ones():
    from primetui.api import boundary

    assert not boundary.too_deep(json.dumps({"name": "[" * 500 + "{" * 500}).encode())
    assert boundary.too_deep(b"[" * 65 + b"]" * 65)
    assert not boundary.too_deep(b"[" * 64 + b"]" * 64)
    assert boundary.too_deep(b"{[" * 33 + b"]}" * 33) and not boundary.too_deep(b"{[" * 32 + b"]}" * 32)
    with pytest.raises(boundary.TooMany):
        boundary.loads(b"[" + b"{}," * 300_000 + b"{}]")


async def test_a_page_longer_than_asked_is_cut_with_a_note():
    runs = [
        {"id": f"r{i}", "userId": "u", "status": "RUNNING", "createdAt": "x", "updatedAt": "x"} for i in range(50_000)
    ]
    with serve(**{"/rft/runs": Reply.json({"runs": runs, "total": 50_000})}) as wp:
        async with PrimeClient(wp.base_url, "k") as client:
            page = await client.list_runs(limit=20)
    assert len(page.runs) == 20
    assert page.notes == ["the platform sent 50,000 runs for a page of 20; showing the first 20"]


async def test_a_log_window_longer_than_asked_keeps_its_last_lines_with_a_note():
    logs = "\n".join(f"line {i}" for i in range(3000))
    with serve(**{"/logs": Reply.json({"logs": logs})}) as wp:
        async with PrimeClient(wp.base_url, "k") as client:
            reply = await client.get_logs(RUN_ID, 100)
    assert reply.lines() == [f"line {i}" for i in range(2900, 3000)]
    assert reply.notes == ["the platform sent 3,000 log lines for a window of 100; showing the last 100"]


async def test_metric_rows_that_fail_are_dropped_at_the_boundary_with_a_count():
    text = (
        '{"metrics": [{"step": 1e999, "loss/mean": 1.0}, {"step": -1e999}, {"step": -3}, {"step": 1e13},'
        ' {"step": "7"}, {"step": 2.5}, {"step": true}, {"nostep": 1}, [1, 2],'
        ' {"step": 1, "time": 1e999, "loss/mean": NaN, "x": "abc", "y": [1], "z": 1' + "0" * 400 + "},"
        ' {"step": 2.0, "time": 1767000000.5, "loss/mean": Infinity, "n": null}]}'
    )
    with serve(**{"/metrics": Reply.raw_json(text)}) as wp:
        async with PrimeClient(wp.base_url, "k") as client:
            reply = await client.get_metrics(RUN_ID)
    assert [r["step"] for r in reply.metrics] == [1, 2]
    assert all(type(r["step"]) is int for r in reply.metrics)
    first, second = reply.metrics
    assert first["loss/mean"] != first["loss/mean"] and "time" not in first and set(first) == {"step", "loss/mean"}
    assert second == {"step": 2, "time": 1767000000.5, "loss/mean": float("inf")}
    assert reply.notes == [
        "1 row ignored: no step",
        "2 rows ignored: non-finite step",
        "1 row ignored: not an object",
        "2 rows ignored: step is not a number",
        "1 row ignored: step is not a whole number",
        "2 rows ignored: step out of range",
        "3 values ignored: not a number",
        "1 value ignored: unreadable time",
    ]


async def test_the_client_keeps_a_few_requests_open_at_a_time():
    open_now = 0
    most = 0

    class Counting(WirePlatform):
        async def _serve(self, reader, writer):  # type: ignore[override]
            nonlocal open_now, most
            open_now += 1
            most = max(most, open_now)
            await asyncio.sleep(0.05)
            try:
                await super()._serve(reader, writer)
            finally:
                open_now -= 1

    with Counting(default_reply) as wp:
        async with PrimeClient(wp.base_url, "k") as client:
            await asyncio.gather(*(client.get_run(f"r{i}") for i in range(40)))
    from primetui.api import boundary

    assert 1 < most <= boundary.IN_FLIGHT


async def test_headless_runs_ask_for_metrics_a_few_runs_at_a_time():
    from datetime import datetime, timezone

    from primetui.commands import headless
    from primetui.api import models as m

    open_now = most = calls = 0

    class Client:
        async def list_runs(self, page: int = 1, limit: int = 20) -> m.RLRunPage:
            return m.RLRunPage.model_validate(
                {
                    "runs": [
                        {"id": f"r{i}", "userId": "u", "status": "RUNNING", "createdAt": "x", "updatedAt": "x"}
                        for i in range(limit)
                    ]
                }
            )

        async def get_metrics(self, run_id: str) -> m.MetricsResponse:
            nonlocal open_now, most, calls
            open_now += 1
            calls += 1
            most = max(most, open_now)
            await asyncio.sleep(0.01)
            open_now -= 1
            return m.MetricsResponse.model_construct(metrics=[])

    rows, _meta = await headless.collect_runs(Client(), datetime.now(timezone.utc), limit=20)
    from primetui.api import boundary

    assert len(rows) == 20 and calls == 20 and most == boundary.FANOUT


def test_a_time_utc_cannot_hold_reads_as_unknown():
    from datetime import datetime, timezone

    assert fmt_time("0001-01-01T00:00:00+14:00") == "-"
    assert fmt_age("0001-01-01T00:00:00+14:00", datetime.now(timezone.utc)) == "-"


@pytest.mark.parametrize(
    "reply",
    [
        Reply(200, b'{"runs": [' + b" " * (9 * 2**20) + b"]}"),
        Reply(200, gzip_bomb(16), {"Content-Type": "application/json", "Content-Encoding": "gzip"}),
        Reply.raw_json("[" * 100_000),
        Reply(200, json.dumps(baseline("GET", "/api/v1/rft/runs", {})).encode(), trickle=0.2),
        Reply.json(
            {
                "runs": [
                    {"id": f"r{i}", "userId": "u", "status": "RUNNING", "createdAt": "x", "updatedAt": "x"}
                    for i in range(21)
                ]
            }
        ),
    ],
    ids=["over-the-cap", "gzip", "deep", "trickle", "longer-than-asked"],
)
def test_the_first_frame_prefetch_gives_up_on_what_the_boundary_refuses(reply, monkeypatch):
    from primetui.api import prefetch

    monkeypatch.setattr(prefetch, "TIMEOUT", 1.0)
    with serve(**{"/rft/runs": reply}) as wp, ThreadPoolExecutor(1) as pool:
        page = pool.submit(prefetch.fetch_runs_page, wp.base_url, "k", limit=20)
        assert page.result(timeout=HANG) is None  # a hang bound, not a speed check (its own limit is 1 s)


def test_the_first_frame_prefetch_still_takes_a_good_page():
    from primetui.api import prefetch

    with serve() as wp:
        page = prefetch.fetch_runs_page(wp.base_url, "k", limit=20)
    assert page is not None and [r["id"] for r in page["runs"]] == [RUN_ID, "run1fuzz"]
