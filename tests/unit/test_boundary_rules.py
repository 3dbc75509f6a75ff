"""The wire boundary's rules, exact and in process: caps, decoding, JSON shape, pages and numbers.

tests/api/test_wire_boundary.py proves them end to end against a hostile server over HTTP; these pin
each rule's edge so a mutation of any of them fails (docs/testing.md, "Mutation testing").
"""

from __future__ import annotations

import gzip
import json
import math
import zlib

import pytest

from primetui.api import boundary as b


def test_seconds_takes_a_positive_finite_number_from_the_environment(monkeypatch) -> None:
    for raw, expected in [
        ("", 7.0),
        ("abc", 7.0),
        ("0", 7.0),
        ("-3", 7.0),
        ("inf", 7.0),
        ("nan", 7.0),
        ("2.5", 2.5),
        ("0.5", 0.5),
    ]:
        monkeypatch.setenv("PRIMETUI_TEST_SECONDS", raw)
        assert b.seconds(7.0, "PRIMETUI_TEST_SECONDS") == expected, raw
    monkeypatch.delenv("PRIMETUI_REPLY_DEADLINE", raising=False)
    assert b.reply_deadline() == b.REPLY_DEADLINE == 60.0 and b.reply_deadline(150.0) == 150.0
    monkeypatch.setenv("PRIMETUI_REPLY_DEADLINE", "300")
    assert b.reply_deadline() == 300.0


def test_caps_by_route_and_how_they_read() -> None:
    assert b.reply_cap("/rft/runs/r1/metrics") == b.METRICS_REPLY_CAP == 32 * b.MiB
    assert b.reply_cap("/rft/runs/r1/logs") == b.LOGS_REPLY_CAP == 16 * b.MiB
    assert b.reply_cap("/rft/runs/r1") == b.reply_cap("/volumes/metrics") == b.DEFAULT_REPLY_CAP == 8 * b.MiB
    assert b.fmt_cap(8 * b.MiB) == "8 MiB" and b.fmt_cap(b.MiB) == "1 MiB" and b.fmt_cap(64 * 1024) == "64 KiB"
    assert b.fmt_cap(b.MiB - 1024) == "1023 KiB"
    error = b.ReplyTooLarge(2 * b.MiB)
    assert error.cap == 2 * b.MiB and str(error) == "the reply is larger than 2 MiB"


@pytest.mark.parametrize("encoding", ["", "identity", " Identity "])
def test_a_plain_body_is_kept_up_to_its_cap_exactly(encoding: str) -> None:
    reader = b.BodyReader(encoding, cap=10)
    reader.feed(b"12345")
    reader.feed(b"")
    reader.feed(b"67890")
    assert reader.body() == b"1234567890" and reader.size == 10
    with pytest.raises(b.ReplyTooLarge):
        reader.feed(b"x")
    assert reader.partial() == b"1234567890"


@pytest.mark.parametrize("encoding", ["gzip", "x-gzip", "GZIP"])
def test_gzip_decodes_and_stops_one_byte_past_the_cap(encoding: str) -> None:
    body = gzip.compress(b"a" * 1000)
    fits = b.BodyReader(encoding, cap=1000)
    for i in range(0, len(body), 7):
        fits.feed(body[i : i + 7])
    assert fits.body() == b"a" * 1000
    import random

    bomb = gzip.compress(b"a" * 100_000)
    noise = gzip.compress(random.Random(1).randbytes(5000))  # incompressible: the cap is passed after many chunks
    for body, step in ((bomb, len(bomb)), (bomb, 5), (noise, 11)):
        over = b.BodyReader(encoding, cap=999)
        with pytest.raises(b.ReplyTooLarge) as refused:
            for i in range(0, len(body), step):
                over.feed(body[i : i + step])
        assert refused.value.cap == 999 and over.size == 1000  # asked zlib for the room left plus one, no more


def test_deflate_with_or_without_its_zlib_header() -> None:
    wrapped = zlib.compress(b"hello" * 100)
    raw = zlib.compressobj(wbits=-zlib.MAX_WBITS)
    bare = raw.compress(b"hello" * 100) + raw.flush()
    for body in (wrapped, bare):
        reader = b.BodyReader("deflate", cap=10_000)
        reader.feed(body)
        assert reader.body() == b"hello" * 100


def test_gzip_is_gzip_only() -> None:
    """A body labelled gzip that is zlib or raw deflate is an error: only ``deflate`` gets the second try."""
    raw = zlib.compressobj(wbits=-zlib.MAX_WBITS)
    for body in (zlib.compress(b"hello" * 100), raw.compress(b"hello" * 100) + raw.flush()):
        with pytest.raises(zlib.error):
            b.BodyReader("gzip", cap=10_000).feed(body)


def test_deflate_that_is_neither_zlib_nor_raw_is_an_error() -> None:
    with pytest.raises(zlib.error):
        b.BodyReader("deflate", cap=10_000).feed(b"\xff" * 64)


def test_a_broken_stream_is_an_error_not_a_retry() -> None:
    reader = b.BodyReader("gzip", cap=10_000)
    with pytest.raises(zlib.error):
        reader.feed(b"not gzip at all")
    good = zlib.compress(b"x" * 50)
    half = b.BodyReader("deflate", cap=10_000)
    half.feed(good[:10])
    with pytest.raises(zlib.error):  # past the first bytes, a bad deflate stream is not retried as raw
        half.feed(b"\xff" * 20)


def test_an_encoding_primetui_did_not_ask_for_is_refused() -> None:
    with pytest.raises(b.UnsupportedEncoding, match="^br$"):
        b.BodyReader(" BR ", cap=10)
    assert b.ACCEPT_ENCODING == "gzip, deflate"


def test_depth_counts_levels_outside_strings() -> None:
    assert not b.too_deep(b"[[[]]]", limit=3) and b.too_deep(b"[[[]]]", limit=2)
    assert not b.too_deep(b'[{"a": "[[[[[["}]', limit=2)
    assert not b.too_deep(b"[[]" + b",[]" * 10 + b"]", limit=2)  # many pairs, two levels
    assert b.too_deep(b"[[],[[]],{}]" + b"[[[]]]", limit=2)
    assert not b.too_deep(b"[[[[", limit=2)  # unbalanced: json.loads names the fault
    assert not b.too_deep(b"[[]][[]]", limit=2) and b.too_deep(b"[[[]]][]", limit=2)
    assert b.too_deep(b'{"a": {"b": {}}}', limit=2)  # objects count as levels too
    assert b.too_deep(b"[[[1]]]", limit=2) and b.too_deep(b'[[["x", 2.5, null]]]', limit=2)


def test_loads_refuses_deep_or_huge_shapes_with_a_sentence() -> None:
    deep = "[" * (b.MAX_JSON_DEPTH + 1) + "]" * (b.MAX_JSON_DEPTH + 1)
    with pytest.raises(b.TooDeep, match=f"^the reply is JSON nested more than {b.MAX_JSON_DEPTH} levels deep$"):
        b.loads(deep)
    assert b.loads("[" * b.MAX_JSON_DEPTH + "]" * b.MAX_JSON_DEPTH) is not None
    many = b"[" + b",".join([b"{}"] * (b.MAX_JSON_CONTAINERS)) + b"]"  # one more than the limit with the list
    with pytest.raises(b.TooMany, match=f"more than {b.MAX_JSON_CONTAINERS:,} JSON arrays and objects"):
        b.loads(many)
    at_limit = b"[" + b",".join([b"{}"] * (b.MAX_JSON_CONTAINERS - 1)) + b"]"
    assert len(b.loads(at_limit)) == b.MAX_JSON_CONTAINERS - 1
    with_text = b'["{",' + at_limit[1:]  # one bracket more, inside a string: still at the limit
    assert len(b.loads(with_text)) == b.MAX_JSON_CONTAINERS
    in_strings = json.dumps(["[{" * b.MAX_JSON_CONTAINERS]).encode()  # brackets in a string are text
    assert b.loads(in_strings) == ["[{" * b.MAX_JSON_CONTAINERS]
    assert b.loads('{"a": "\\ud800"}') == {"a": "\ud800"} and b.loads(b'{"n": 1}') == {"n": 1}
    assert b.loads('["\ud800"]') == ["\ud800"]  # a lone surrogate in text already decoded: kept, not an error


def test_an_unbalanced_reply_too_deep_for_the_interpreter_is_too_deep() -> None:
    with pytest.raises(b.TooDeep, match=f"^the reply is JSON nested more than {b.MAX_JSON_DEPTH} levels deep$"):
        b.loads("[" * 100_000)


async def test_gather_bounded_keeps_order_and_the_limit() -> None:
    import asyncio

    running = 0
    most = 0

    def factory(i: int):
        async def go() -> int:
            nonlocal running, most
            running += 1
            most = max(most, running)
            await asyncio.sleep(0)
            running -= 1
            return i * i

        return go

    assert await b.gather_bounded([factory(i) for i in range(10)], limit=3) == [i * i for i in range(10)]
    assert most == 3
    most = 0
    assert await b.gather_bounded(factory(i) for i in range(9)) == [i * i for i in range(9)]
    assert most == b.FANOUT == 4
    assert await b.gather_bounded([]) == []


def test_a_page_longer_than_asked_is_cut_with_a_note() -> None:
    assert b.cut([1, 2, 3], None, "runs") == ([1, 2, 3], None)
    assert b.cut([1, 2, 3], 3, "runs") == ([1, 2, 3], None)
    assert b.cut(list(range(1234)), 2, "runs") == (
        [0, 1],
        "the platform sent 1,234 runs for a page of 2; showing the first 2",
    )
    noted = b.NotedList([1], ["cut"])
    assert noted == [1] and noted.notes == ["cut"] and b.NotedList().notes == []


@pytest.mark.parametrize(
    "value,step",
    [
        (0, (0, "")),
        (b.STEP_MAX, (b.STEP_MAX, "")),
        (b.STEP_MAX + 1, (None, "step out of range")),
        (-1, (None, "step out of range")),
        (3.0, (3, "")),
        (3.5, (None, "step is not a whole number")),
        (math.inf, (None, "non-finite step")),
        (math.nan, (None, "non-finite step")),
        (None, (None, "no step")),
        (True, (None, "step is not a number")),
        ("3", (None, "step is not a number")),
    ],
)
def test_a_step_is_a_whole_number_in_range(value, step) -> None:
    assert b.step_of(value) == step
    if step[0] is not None:
        assert type(b.step_of(value)[0]) is int


def test_metric_rows_keep_numbers_and_say_what_they_dropped() -> None:
    rows, notes = b.metric_rows(
        [
            {"step": 1, "time": 0, "loss": 0.5, "lr": None, "name": "x", "ok": True, "big": 2**63, "low": -(2**63)},
            {"step": 2.0, "time": b.TIME_MAX, "loss": math.nan, "n": 2**63 - 1},
            {"step": 3, "time": -1, "loss": math.inf},
            {"step": 4, "time": b.TIME_MAX + 1},
            {"step": 5, "time": "soon"},
            {"step": 6, "lower": -(2**63) - 1},
            "not a row",
            [1],
            {"step": -1},
            {"step": b.STEP_MAX + 1},
            {"step": "x"},
            {"loss": 1},
            {"step": 7.5},
        ]
    )
    assert rows[0] == {"step": 1, "time": 0, "loss": 0.5, "low": -(2**63)}
    assert rows[1]["step"] == 2 and type(rows[1]["step"]) is int and rows[1]["time"] == b.TIME_MAX
    assert math.isnan(rows[1]["loss"]) and rows[1]["n"] == 2**63 - 1
    assert rows[2] == {"step": 3, "loss": math.inf} and rows[3] == {"step": 4} and rows[4] == {"step": 5}
    assert rows[5] == {"step": 6} and len(rows) == 6
    assert notes == [
        "1 row ignored: no step",
        "2 rows ignored: not an object",
        "1 row ignored: step is not a number",
        "1 row ignored: step is not a whole number",
        "2 rows ignored: step out of range",
        "4 values ignored: not a number",
        "3 values ignored: unreadable time",
    ]
    assert b.metric_rows({"step": 1}) == ([], []) and b.metric_rows(None) == ([], [])
    one = b.metric_rows([{"step": 1, "x": "a", "time": "t"}, {"step": None}])[1]
    assert one == ["1 row ignored: no step", "1 value ignored: not a number", "1 value ignored: unreadable time"]


def test_notes_join_into_one_sentence_once_each() -> None:
    assert b.join_notes([]) == ""
    assert b.join_notes(["a", "b", "a"]) == "a; b."
