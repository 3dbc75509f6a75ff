"""The monitor's pure core: escapes, line recognition, the store, search/filter, metrics, charts."""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest

from tests.runs import wire_run
from primetui.monitor_core import lines as L
from primetui.monitor_core.canvas import rasterise
from primetui.monitor_core.chartframe import ChartView, compose
from primetui.monitor_core.components import log_specs
from primetui.monitor_core.escapes import is_safe, neutralise
from primetui.monitor_core.filters import LogQuery, QueryError, apply_filter, error_starts, text_matches
from primetui.monitor_core.metrics import MetricTable, Series, decimate, ema
from primetui.monitor_core.store import LogStore, MergedLog

STEP_LINE = (
    "\x1b[2m20:35:47\x1b[0m \x1b[32mSUCCESS\x1b[0m \x1b[32m\x1b[22mStep 1 |    8.5s | Loss 1.1080 | Grad. Norm "
    "12.9495 | "
    "LR 2.00e-05 | Throughput 0 tokens/s | MFU 0.0% | Peak Mem. 10.7/139.8 GiB (7.7%)\x1b[0m"
)


def parse(raw: list[str]) -> list[L.Parsed]:
    return L.LineParser().parse(raw)


# ---- escapes --------------------------------------------------------------------------------
def test_escape_sequences_become_visible_text_and_sgr_is_dropped():
    hostile = "a\x1b[31mred\x1b[0m \x1b]0;title\x07 \x1b]52;c;cHduZWQ=\x07 \x1b[2J\x1b[H\x9b1m \u202eevil\tx"
    out = neutralise(hostile)
    assert is_safe(out)
    assert "\x1b" not in out and "\x07" not in out and "\x9b" not in out and "\u202e" not in out
    assert "red" in out and "[31m" not in out  # colour codes removed, text kept
    assert "␛]0;title␇" in out and "␛]52;c;cHduZWQ=␇" in out and "␛[2J␛[H" in out


def test_parser_output_is_always_safe_for_every_kind_of_line():
    raw = [
        STEP_LINE,
        "\x1b]0;x\x07plain",
        json.dumps({"timestamp": "2026-01-01T10:00:00Z", "level": "ERROR", "message": "bad\x1b[2J"}),
        "50%|\x1b[Kbar|",
        "Traceback (most recent call last):\x1b[A",
    ]
    for p in parse(raw):
        assert is_safe(p.text), p.text


# ---- line recognition -----------------------------------------------------------------------
def test_prime_rl_step_line_level_step_and_clock():
    [p] = parse([STEP_LINE])
    assert p.level == L.SUCCESS and p.step == 1 and p.kind == L.TEXT
    assert p.t == 20 * 3600 + 35 * 60 + 47
    assert p.text.startswith("20:35:47 SUCCESS Step 1 |")


def test_seed_format_with_brackets_and_mm_ss_is_recognised():
    out = parse(
        [
            "35:38 [INFO] Initializing scheduler with 10 steps (type='constant')",
            "35:47 [SUCCESS] Step 3 |    2.4s | Loss 0.9996",
        ]
    )
    assert [p.level for p in out] == [L.INFO, L.SUCCESS]
    assert out[1].step == 3


def test_continuation_lines_inherit_level_so_tracebacks_stay_errors():
    out = parse(
        [
            "20:00:00    INFO starting",
            "20:00:01   ERROR Trainer failed with exit code 1",
            "  more detail",
            "20:00:02    INFO later",
            "Traceback (most recent call last):",
            '  File "x.py", line 3, in f',
            "ValueError: boom",
        ]
    )
    assert [p.level for p in out] == [L.INFO, L.ERROR, L.ERROR, L.INFO, L.ERROR, L.ERROR, L.ERROR]


def test_json_envelope_rendered_like_the_cli_with_extras_and_exception():
    line = "[rank0]: " + json.dumps(
        {
            "timestamp": "2026-09-28T20:35:47.123+00:00",
            "level": "warning",
            "message": "slow step",
            "tag": "perf",
            "module": "m",
            "gpu": 3,
            "exception": "Traceback...\nOOM",
        }
    )
    out = parse([line])
    assert out[0].text == "20:35:47 WARNING [[rank0]:] [perf] slow step"
    assert out[0].level == L.WARNING
    assert out[1].kind == L.EXTRA and out[1].text.strip() == "gpu=3"
    assert [p.text for p in out[2:]] == ["    Traceback...", "    OOM"] and all(p.level >= L.ERROR for p in out[2:])


def test_json_progress_entries_collapse_like_tqdm():
    store = LogStore()
    parser = L.LineParser()
    for pct in (10, 50, 100):
        store.append(
            parser.parse_batch(
                [json.dumps({"type": "progress", "desc": "download", "current": pct, "total": 100, "percent": pct})]
            )
        )
    assert len(store) == 1 and "100%" in store.text(0)


def test_tqdm_bars_collapse_to_their_latest_state_across_batches():
    parser = L.LineParser()
    store = LogStore()
    store.append(parser.parse_batch(["20:00:00    INFO loading", "Generating train split: 10%|█         | 100/1000"]))
    store.append(
        parser.parse_batch(
            ["Generating train split: 50%|█████     | 500/1000", "Generating train split: 90%|█████████ | 900/1000"]
        )
    )
    store.append(
        parser.parse_batch(
            ["Generating train split: 95%|█████████ | 950/1000\rGenerating train split: 100%|██████████| 1000/1000"]
        )
    )
    store.append(parser.parse_batch(["\rMap: 20%|██        | 2/10\rMap: 60%|██████    | 6/10"]))
    texts = [store.text(g) for g in range(store.first, store.end)]
    # One line per bar, each at its latest state; a carriage return keeps what a terminal shows.
    assert texts == [
        "20:00:00    INFO loading",
        "Generating train split: 100%|██████████| 1000/1000",
        "Map: 60%|██████    | 6/10",
    ]


def _columns(batch) -> tuple:
    return (
        list(batch.texts),
        np.asarray(batch.levels).tolist(),
        np.asarray(batch.kinds).tolist(),
        np.asarray(batch.steps).tolist(),
        np.asarray(batch.times).tolist(),
        dict(batch.keys),
    )


def _one_by_one(raw: list[str]) -> tuple:
    parser = L.LineParser()
    parts = [_columns(parser.parse_batch([line])) for line in raw]
    out: tuple = ([], [], [], [], [], {})
    for part in parts:
        base = len(out[0])
        for column, values in zip(out[:5], part[:5]):
            column.extend(values)
        out[5].update({base + k: v for k, v in part[5].items()})
    return out


_PRIME_RL = [f"20:{i // 60 % 60:02d}:{i % 60:02d}    INFO Initializing data (batch={i})" for i in range(300)]


def test_batch_checks_give_what_each_line_alone_gives():
    # The whole-batch scans (control characters, literal rows, line heads, sparse colour codes)
    # must decide for each line what parsing that line on its own decides.
    odd = [
        "\x1b[31m20:00:01\x1b[0m WARNING red",
        "20:00:02   ERROR \u202eevil",
        "20:00:03    INFO c1 \x85 here",
        "20:00:04    INFO tab\there",
        "20:00:05    INFO emoji \U0001f600 Step 7 | x",
        "2\u0663:00:06    INFO arabic digit",
        "1 :2 :34    INFO odd clock",
        "ab:cd:ef    INFO no clock",
        "20:00:07 CRITICAL wide",
        "12:34 [WARNING] seed",
        "50%|\u2588\u2588   | 5/10",
        "Traceback (most recent call last):",
        '  File "x.py", line 1',
        '{"timestamp": "2026-01-01T10:00:00Z", "level": "info", "message": "a\\nb"}',
        "bom \ufeff",
        "del \x7f",
        "nbsp \u00a0 \u2014 dash",
        "short",
        "",
    ]
    for raw in (
        _PRIME_RL[:40] + odd + _PRIME_RL[40:],
        odd,
        _PRIME_RL + odd[:1],
        [line for pair in zip(_PRIME_RL, odd * 20) for line in pair],
    ):
        assert _columns(L.LineParser().parse_batch(raw)) == _one_by_one(raw)


def test_gap_line_is_a_visible_marker():
    store = LogStore()
    g = store.append_gap("Some lines are missing here")
    row = store.row(g)
    assert row.kind == L.GAP and "Some lines are missing here" in row.text


# ---- store ----------------------------------------------------------------------------------
def _fill(store: LogStore, n: int, parser: L.LineParser | None = None) -> None:
    parser = parser or L.LineParser()
    lines = [
        f"20:00:{i % 60:02d}    INFO line {i}" if i % 7 else f"20:00:{i % 60:02d}   ERROR failure {i}" for i in range(n)
    ]
    for i in range(0, n, 1000):
        store.append(parser.parse_batch(lines[i : i + 1000]))


def test_store_chunks_index_and_read_back():
    store = LogStore(chunk_lines=256)
    _fill(store, 3000)
    assert len(store) == 3000
    assert store.text(0) == "20:00:00   ERROR failure 0"
    assert store.text(2999).endswith("line 2999")
    assert store.row(7).level == L.ERROR
    assert list(store.levels(0, 10)) == [
        L.ERROR,
        L.INFO,
        L.INFO,
        L.INFO,
        L.INFO,
        L.INFO,
        L.INFO,
        L.ERROR,
        L.INFO,
        L.INFO,
    ]


def test_store_is_bounded_and_drops_oldest_chunks():
    store = LogStore(max_lines=1000, chunk_lines=256)
    _fill(store, 5000)
    assert 1000 <= len(store) <= 1000 + 256 + 1
    assert store.first > 0 and store.text(store.first - 1) is None
    assert store.text(4999).endswith("line 4999")


def test_merged_view_interleaves_by_clock_and_keeps_each_component_in_order():
    a, b = LogStore("trainer"), LogStore("inference")
    merged = MergedLog([a, b])
    pa, pb = L.LineParser(), L.LineParser()
    a.append(pa.parse_batch(["10:00:01    INFO a1", "10:00:03    INFO a2", "  a2 cont"]))
    b.append(pb.parse_batch(["10:00:02    INFO b1", "10:00:04    INFO b2"]))
    merged.sync()
    rows = [merged.row(g) for g in range(merged.first, merged.end)]
    assert [(r.source, r.text.split()[-1]) for r in rows] == [(0, "a1"), (1, "b1"), (0, "a2"), (0, "cont"), (1, "b2")]


# ---- search and filter ----------------------------------------------------------------------
def test_smart_case_literal_regex_invert_and_level_filters():
    store = LogStore(chunk_lines=128)
    _fill(store, 2000)
    assert len(text_matches(store, LogQuery("failure"))) == len(range(0, 2000, 7))
    assert len(text_matches(store, LogQuery("FAILURE"))) == 0  # a capital makes it case-sensitive
    assert len(text_matches(store, LogQuery("error"))) == len(range(0, 2000, 7))  # lowercase: any case
    hits = apply_filter(store, LogQuery(r"line 1\d\d$", regex=True))
    assert sorted(hits.tolist()) == [g for g in range(100, 200) if g % 7]
    inverted = apply_filter(store, LogQuery("line", invert=True))
    assert inverted.tolist() == list(range(0, 2000, 7))
    assert apply_filter(store, LogQuery(min_level=L.ERROR)).tolist() == list(range(0, 2000, 7))
    assert error_starts(store).tolist() == list(range(0, 2000, 7))


def test_many_hits_use_the_bulk_path_and_agree_with_a_line_by_line_scan():
    store = LogStore(chunk_lines=512)
    _fill(store, 5000)
    for q in (LogQuery("INFO"), LogQuery("line 4"), LogQuery("0"), LogQuery(r"(?:failure|line) \d*5$", regex=True)):
        pattern = re.compile(q.text if q.regex else re.escape(q.text), 0 if q.case_sensitive else re.I)
        expect = [g for g in range(store.first, store.end) if pattern.search(store.text(g))]
        assert text_matches(store, q).tolist() == expect, q


def test_broken_regex_is_a_clear_error():
    with pytest.raises(QueryError, match="does not compile"):
        text_matches(LogStore(), LogQuery("(unclosed", regex=True))


# ---- metrics ----------------------------------------------------------------------------------
def test_ema_matches_the_recurrence_for_many_weights():
    x = np.random.default_rng(1).normal(size=3000)
    for w in (0.0001, 0.3, 0.9, 0.99, 0.999):
        acc, ref = 0.0, []
        for v in x:
            acc = w * acc + (1 - w) * v
            ref.append(acc)
        assert np.allclose(ema(x, w), ref, rtol=1e-7, atol=1e-9)


def test_smoothing_skips_nan_and_extends_incrementally():
    s = Series("loss")
    for i, v in enumerate([1.0, 2.0, math.nan, 3.0]):
        s.append(i, v)
    a = s.smoothed(0.5).copy()
    assert math.isclose(a[1], (0.5 * 0.5 * 1 + 0.5 * 2) / (1 - 0.25))
    assert a[2] == a[1]  # NaN does not move the average
    s.append(4, 4.0)
    b = s.smoothed(0.5)
    assert np.allclose(b[:4], a, equal_nan=True) and len(b) == 5


def test_metric_table_rows_eval_steps_and_nonfinite_strings():
    t = MetricTable()
    t.add_rows(
        [
            {"step": 1, "time": 1.0, "loss/mean": 1.1},
            {"step": 2, "loss/mean": "NaN"},
            {"step": 2, "eval/rt/reward/mean": 0.4},
            {"loss/mean": 5},
            {"step": True, "loss/mean": 1},
        ]
    )
    assert t.get("loss/mean").steps.tolist() == [1.0, 2.0]
    assert math.isnan(t.get("loss/mean").values[1])
    assert t.eval_steps == [2.0]


def test_decimate_never_returns_more_buckets_than_columns_and_keeps_extremes():
    x = np.arange(1_000_000, dtype=float)
    y = np.sin(x / 1000)
    y[123_456] = 50.0
    y[654_321] = math.nan
    c = decimate(x, y, 0, 999_999, 200)
    assert len(c.cols) <= 200
    assert c.hi.max() == 50.0 and c.nonfinite == 1 and len(c.nonfinite_cols) == 1


# ---- charts ---------------------------------------------------------------------------------
def test_rasterise_draws_a_rising_line_bottom_left_to_top_right():
    for mode, dots in (("ascii", 1), ("block", 2), ("braille", 2)):
        c = decimate(np.arange(10.0), np.arange(10.0), 0, 9, 10 * dots)
        r = rasterise(10, 4, [c], 0, 9, mode)
        assert r.rows[-1][0] != " " and r.rows[0][-1] != " " and r.rows[0][0] == " " and r.rows[-1][-1] == " ", mode


def test_chart_frame_cursor_nan_eval_marks_and_staleness():
    t = MetricTable()
    t.add_rows([{"step": i, "time": 1000.0 + i, "loss/mean": 2.0 / i} for i in range(1, 41)])
    t.add_rows([{"step": 20, "loss/mean": "nan"}, {"step": 20, "eval/rt/reward/mean": 0.5}])
    view = ChartView(cursor=10, eval_steps=t.eval_steps, live=True, now=2000.0)
    rows = compose("loss/mean", [t.get("loss/mean")], view, 60, 12)
    text = ["".join(s for s, _ in row) for row in rows]
    assert text[0].startswith("loss/mean  @ step 10: 0.2")
    assert "⚠ 1 NaN/Inf" in text[0] and "stale 16m" in text[0]
    styles = {k for row in rows for _, k in row}
    assert {"cursor", "marker", "nan"} <= styles
    assert len(rows) == 12 and all(sum(len(s) for s, _ in row) <= 60 for row in rows)


def test_log_specs_for_trainer_only_eval_and_multi_node_runs():
    assert [s.key for s in log_specs(wire_run(runConfig={}))] == ["trainer"]
    ev = wire_run(runConfig={"eval": {"source": [{"env": {"name": "reverse-text"}}]}})
    assert [s.title for s in log_specs(ev)] == ["trainer", "orchestrator", "inference", "env:reverse-text"]
    mn = wire_run(runConfig={"deployment": {"type": "multi_node", "num_train_nodes": 2}})
    assert [(s.title, s.pod_index) for s in log_specs(mn)] == [("trainer/0", 0), ("trainer/1", 1)]


# ---- robustness -------------------------------------------------------------------------------
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_line = st.one_of(
    st.text(max_size=120),
    st.text(alphabet=st.sampled_from(list('\x1b[]0123456789;:m\x07\r\t{}"%|█ abcINFOERRORStep')), max_size=80),
    st.builds(
        lambda d: json.dumps(d),
        st.dictionaries(
            st.sampled_from(["timestamp", "level", "message", "tag", "type", "exception", "x"]),
            st.one_of(st.text(max_size=20), st.integers(), st.none()),
            max_size=6,
        ),
    ),
)


_odd_line = st.text(
    alphabet=st.sampled_from(list("\x1b[0123456789;:m \t\x85\u202e\u2066\ufeff\x7f\u00a0\U0001f600█%|{}INFOWARNStep ")),
    max_size=40,
)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.one_of(_odd_line, st.sampled_from(_PRIME_RL)), max_size=60))
def test_any_batch_parses_as_its_lines_would_one_by_one(raw):
    assert _columns(L.LineParser().parse_batch(raw)) == _one_by_one(raw)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(_line, max_size=12), max_size=6))
def test_any_input_parses_stores_and_searches_without_error_and_stays_safe(batches):
    parser = L.LineParser()
    store = LogStore(chunk_lines=8)
    merged = MergedLog([store])
    for raw in batches:
        raw = [r.replace("\n", " ") for r in raw]
        store.append(parser.parse_batch(raw))
        merged.sync()
    for g in range(store.first, store.end):
        assert is_safe(store.text(g))
    for q in (
        LogQuery("a"),
        LogQuery("Step"),
        LogQuery("[", regex=False),
        LogQuery(r"\d+", regex=True),
        LogQuery("x", invert=True, min_level=3),
    ):
        expect = [
            g
            for g in range(store.first, store.end)
            if (
                re.search(q.text if q.regex else re.escape(q.text), store.text(g), 0 if q.case_sensitive else re.I)
                is None
            )
            == q.invert
            and store.row(g).level >= q.min_level
        ]
        assert apply_filter(store, q).tolist() == expect
    assert len(merged) == len(store)
