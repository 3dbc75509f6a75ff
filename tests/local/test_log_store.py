"""The log store behind R7: stream-keyed log rows, the chunk parse, and data dirs from before streams."""

from __future__ import annotations

import re
import sqlite3
import time
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from primetui.local.ingest import local_midnight, log_columns, log_rows, parse_line
from primetui.local.store import Store

NOW = time.time()
MIDNIGHT = local_midnight(NOW)


def per_line(lines: list[str], last: str | None) -> tuple[list[tuple[float, str | None, str]], str | None]:
    """The parse line by line, as the log API defines it: what the chunk parse must reproduce."""
    if any("\r" in line for line in lines):
        lines = [line.rstrip("\r") for line in lines]
    rows = []
    for line in lines:
        level, stamp = parse_line(line, NOW, MIDNIGHT)
        if level is None:
            rows.append((NOW, last if line.strip() else None, line))
        else:
            last = level
            rows.append((NOW if stamp is None else stamp, level, line))
    return rows, last


SPACE = st.sampled_from(["", " ", "  ", "    ", "\t", " \x0b", "         ", "\u3000"])
CLOCK = st.sampled_from(
    [
        "12:00:00",
        "12:00:01",
        "23:59:59",
        "00:00:00",
        "35:47",
        "99:99:99",
        "1:00:00",
        "12:00:0",
        "\u0661\u0662:\u0660\u0660:\u0660\u0660",
        "12:60:00",
    ]
)
LEVEL = st.sampled_from(
    [
        "TRACE",
        "DEBUG",
        "INFO",
        "SUCCESS",
        "WARNING",
        "ERROR",
        "CRITICAL",
        "INF",
        "info",
        "SUCCESSX",
        "[INFO]",
        "[ERROR",
        "WARNING]",
    ]
)
AFTER = st.sampled_from(["", " ", "\t", "x", "]", "] ", "\r", "\x1b[0m "])
REST = st.sampled_from(["", "Step 1 | Loss 2.5", "Saving checkpoint", "INFO again", "\x1b[1mbold\x1b[0m", "  File x"])


@st.composite
def console_line(draw: st.DrawFn) -> str:
    if draw(st.integers(0, 5)) == 0:
        return draw(
            st.sampled_from(
                [
                    "",
                    "   ",
                    "Traceback (most recent call last):",
                    "\r",
                    "[trainer0]:",
                    "\x1b[2m12:00:00\x1b[0m \x1b[1m WARNING\x1b[0m careful",
                    "12:00:00",
                ]
            )
        )
    prefix = draw(st.sampled_from(["", "", "", "[trainer0]:", "[x]:", "[ab12]:", "\x1b[2m"]))
    return prefix + draw(SPACE) + draw(CLOCK) + draw(SPACE) + draw(LEVEL) + draw(AFTER) + draw(REST)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.lists(console_line(), max_size=6), min_size=1, max_size=8),
    st.lists(st.integers(0, 47), max_size=60),
    st.sampled_from([None, "DEBUG", "ERROR"]),
)
def test_the_chunk_parse_gives_the_per_line_answers(pool, picks, last) -> None:
    flat = [line for group in pool for line in group] or [""]
    lines = [flat[i % len(flat)] for i in picks]  # repeats: lines sharing a head, as a real log has
    assert log_rows(lines, last, NOW, MIDNIGHT) == per_line(lines, last)


def test_lines_sharing_a_head_with_a_longer_prefix_are_matched_whole() -> None:
    lines = [
        "[trainer0]:12:00:00    INFO a",
        "[trainer0]:12:00:00    INFO b",
        "12:00:00             INFO far",
        "12:00:00 CRITICAL 8 letters",
        "12:00:00 SUCCESS Step 1",
        "12:00:00 SUCCESSful?",
        "Traceback",
    ]
    ts, levels, texts, last = log_columns(lines, None, NOW, MIDNIGHT)
    assert levels == ["INFO", "INFO", "INFO", "CRITICAL", "SUCCESS", "SUCCESS", "SUCCESS"]
    assert texts == lines and last == "SUCCESS"
    assert (list(zip(ts, levels, texts)), last) == per_line(lines, None)


def fill(store: Store, run_id: str, component: str, pod: int, texts: list[str]) -> None:
    with store.tx() as db:
        store.add_log_lines(db, run_id, component, pod, [(NOW, "INFO", t) for t in texts])


def test_streams_keep_their_own_windows_and_pods_merge_in_the_order_stored(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.sqlite3")
    fill(store, "r", "trainer", 0, ["t0 a", "t0 b"])
    fill(store, "r", "trainer", 1, ["t1 a"])
    fill(store, "r", "orchestrator", 0, ["o a"])
    fill(store, "r", "trainer", 0, ["t0 c"])
    fill(store, "q", "trainer", 0, ["other run"])
    assert store.query_logs("r", "trainer", 0, None, None) == ["t0 a", "t0 b", "t0 c"]
    assert store.query_logs("r", "trainer", 1, None, None) == ["t1 a"]
    assert store.query_logs("r", "trainer", None, None, None) == ["t0 a", "t0 b", "t1 a", "t0 c"]
    assert store.query_logs("r", "trainer", None, None, None, limit=2) == ["t1 a", "t0 c"]
    assert store.query_logs("r", "trainer", None, None, None, search=" a") == ["t0 a", "t1 a"]
    assert store.query_logs("r", "trainer", None, None, None, limit=0) == []
    assert store.log_components("r") == ["orchestrator", "trainer"]
    assert store.log_pods("r", "trainer") == [0, 1]
    with store.tx() as db:
        store.add_log_lines(db, "r", "router", 0, [])  # nothing to add: no stream either
    assert "router" not in store.log_components("r")
    view = store.db.execute("SELECT run_id, component, pod_index, line FROM log_lines ORDER BY seq").fetchall()
    assert [tuple(v) for v in view][:4] == [
        ("r", "trainer", 0, "t0 a"),
        ("r", "trainer", 0, "t0 b"),
        ("r", "trainer", 1, "t1 a"),
        ("r", "orchestrator", 0, "o a"),
    ]
    many = [f"line {i}" for i in range(253)]  # two full 100-row statements and a rest of 53
    fill(store, "big", "trainer", 0, many)
    fill(store, "big", "trainer", 0, ["one more"])
    assert store.query_logs("big", "trainer", 0, None, None) == many + ["one more"]
    assert store.query_logs("big", "trainer", 0, None, None, search="line 25") == ["line 25"] + [
        f"line {i}" for i in range(250, 253)
    ]
    store.delete_run("big")
    store.delete_run("r")
    assert store.log_components("r") == [] and store.query_logs("r", "trainer", None, None, None) == []
    assert store.query_logs("q", "trainer", 0, None, None) == ["other run"]
    assert store.db.execute("SELECT COUNT(*) FROM logs").fetchone()[0] == 1
    store.close()


OLD_LOGS = """
CREATE TABLE logs (
    id INTEGER PRIMARY KEY,
    run_id TEXT NOT NULL,
    component TEXT NOT NULL,
    pod_index INTEGER NOT NULL DEFAULT 0,
    ts REAL NOT NULL,
    level TEXT,
    line TEXT NOT NULL
);
CREATE INDEX logs_by_run ON logs (run_id, component, id);
"""


def test_a_data_dir_from_before_streams_is_migrated_on_open(tmp_path: Path) -> None:
    path = tmp_path / "state.sqlite3"
    old = sqlite3.connect(path)
    old.execute("PRAGMA journal_mode=WAL")
    old.executescript(OLD_LOGS)
    rows = [
        ("r", "trainer", 0, 100.0, "INFO", "12:00:00    INFO start"),
        ("r", "trainer", 1, 101.0, "SUCCESS", "pod 1 step"),
        ("r", "orchestrator", 0, 102.0, None, "plain"),
        ("r", "trainer", 0, 103.0, "ERROR", "12:00:03   ERROR boom"),
        ("q", "trainer", 0, 104.0, "INFO", "another run"),
    ]
    old.executemany("INSERT INTO logs (run_id, component, pod_index, ts, level, line) VALUES (?, ?, ?, ?, ?, ?)", rows)
    old.commit()
    old.close()

    store = Store(path)
    columns = {r["name"] for r in store.db.execute("PRAGMA table_info(logs)")}
    assert columns == {"id", "ts", "level", "line"}
    assert (
        store.db.execute(
            "SELECT name FROM sqlite_master WHERE name IN ('logs_by_run', 'logs_before_streams')"
        ).fetchall()
        == []
    )
    assert store.query_logs("r", "trainer", 0, None, None) == ["12:00:00    INFO start", "12:00:03   ERROR boom"]
    assert store.query_logs("r", "trainer", None, None, None) == [
        "12:00:00    INFO start",
        "pod 1 step",
        "12:00:03   ERROR boom",
    ]
    assert store.query_logs("r", "trainer", None, 101.0, None) == ["pod 1 step", "12:00:03   ERROR boom"]
    assert store.query_logs("r", "trainer", None, None, "ERROR") == ["12:00:03   ERROR boom"]
    assert store.query_logs("r", "orchestrator", 0, None, None, pattern=re.compile("^pl")) == ["plain"]
    assert store.log_components("r") == ["orchestrator", "trainer"]
    assert store.log_pods("r", "trainer") == [0, 1]
    fill(store, "r", "trainer", 1, ["after the upgrade"])
    assert store.query_logs("r", "trainer", None, None, None)[-2:] == ["12:00:03   ERROR boom", "after the upgrade"]
    store.close()

    again = Store(path)  # a second open finds the new layout and leaves it alone
    assert again.query_logs("q", "trainer", 0, None, None) == ["another run"]
    assert again.query_logs("r", "trainer", 1, None, None) == ["pod 1 step", "after the upgrade"]
    again.close()
