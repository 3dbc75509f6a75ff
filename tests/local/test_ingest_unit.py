"""The log-line reader behind R7: levels and write times from prime-rl console lines."""

from __future__ import annotations

import time

from primetui.local.ingest import line_level, line_time


def test_levels_of_prime_rl_lines_with_and_without_colour_and_prefixes() -> None:
    assert line_level("15:02:08 SUCCESS Step 1 |   754ms | Loss 5.5984") == "SUCCESS"
    assert line_level("15:02:07    INFO Starting training loop (max_steps=10)") == "INFO"
    assert line_level("\x1b[2m15:02:07\x1b[0m \x1b[1m WARNING\x1b[0m careful") == "WARNING"
    assert line_level("[trainer0]:15:02:07   ERROR boom") == "ERROR"
    assert line_level("35:47 [SUCCESS] Step 1 | 8.5s") == "SUCCESS"  # the seed's re-rendered form
    assert line_level("Traceback (most recent call last):") is None
    assert line_level("Generating train split: 100%|████| 1000/1000") is None


def test_write_time_comes_from_the_stamp_not_from_when_it_was_read() -> None:
    now = time.time()
    written = now - 125
    line = time.strftime("%H:%M:%S", time.localtime(written)) + "    INFO hello"
    assert abs(line_time(line, now) - int(written)) <= 1
    assert line_time("35:47 [SUCCESS] Step 1", now) is None  # mm:ss only: no reliable time
    assert line_time("99:99:99    INFO nonsense", now) is None


def test_log_queries_tail_and_filter_in_the_store(tmp_path) -> None:
    import re

    from primetui.local.store import Store

    store = Store(tmp_path / "s.sqlite3")
    lines = [(float(i), "SUCCESS" if i % 2 else "INFO", f"line {i}") for i in range(1000)]
    with store.tx() as db:
        store.add_log_lines(db, "r", "trainer", 0, lines)
    assert store.query_logs("r", "trainer", None, None, None, limit=3) == ["line 997", "line 998", "line 999"]
    assert store.query_logs("r", "trainer", None, 995.0, "SUCCESS") == ["line 995", "line 997", "line 999"]
    assert store.query_logs("r", "trainer", None, None, None, search="line 99", limit=2) == ["line 998", "line 999"]
    assert store.query_logs("r", "trainer", None, None, None, pattern=re.compile(r"^line 1\d$")) == [
        f"line {i}" for i in range(10, 20)
    ]
    assert store.query_logs("r", "orchestrator", None, None, None) == []
    assert store.query_logs("r", "trainer", 1, None, None) == []


def test_chunk_parse_gives_the_per_line_answers_and_carries_levels_to_tracebacks() -> None:
    from primetui.local.ingest import local_midnight, log_rows, parse_line

    now = time.time()
    midnight = local_midnight(now)
    clock = time.strftime("%H:%M:%S", time.localtime(now - 30))
    lines = [
        "plain text before any level",
        f"{clock}    INFO Starting training loop\r",
        f"{clock} SUCCESS Step 1 |   754ms | Loss 5.5984",
        f"\x1b[2m{clock}\x1b[0m \x1b[1m WARNING\x1b[0m careful",
        "Traceback (most recent call last):",
        "",
        '  File "train.py", line 3, in <module>',
        "35:47 [SUCCESS] Step 1 | 8.5s",
        "99:99:99   ERROR bad clock",
    ]
    rows, last = log_rows(lines, "DEBUG", now, midnight)
    assert [r[2] for r in rows][1] == f"{clock}    INFO Starting training loop"  # CR dropped
    assert [r[1] for r in rows] == [
        "DEBUG",
        "INFO",
        "SUCCESS",
        "WARNING",
        "WARNING",
        None,
        "WARNING",
        "SUCCESS",
        "ERROR",
    ]
    assert last == "ERROR"
    for ts, level, line in rows:
        want_level, want_ts = parse_line(line, now, midnight)
        if want_level is not None:
            assert (level, ts) == (want_level, want_ts if want_ts is not None else now)
        else:
            assert ts == now
    assert rows[1][0] == rows[2][0] == parse_line(lines[2], now, midnight)[1]  # one clock, one write time
    assert abs(rows[2][0] - (now - 30)) <= 1


def test_a_same_size_rewrite_of_components_within_one_timestamp_tick_is_ingested(tmp_path) -> None:
    """The trainer's stop rewrites ``running`` as ``stopped`` (same size); a filesystem whose clock
    is coarser than the two writes gives both files the same mtime. The store must follow anyway."""
    import os

    from primetui.local.ingest import RunIngestor
    from primetui.local.store import Store
    from primetui.local.trainer.runfiles import Component, RunFiles

    store = Store(tmp_path / "s.sqlite3")
    files = RunFiles(tmp_path / "run", run_id="r")
    trainer = files.add_component(Component("trainer", "r-trainer-0", "running", 4242))
    env = files.add_component(
        Component("env-server", "r-env-reverse-text-0", "running", 4243, env_name="reverse-text", env_index=0)
    )
    ingestor = RunIngestor(store, "r", files.run_dir)
    ingestor.ingest()
    path = files.run_dir / "components.json"
    first = path.stat()
    trainer.status = env.status = "stopped"
    files.write_components()
    os.utime(path, ns=(first.st_atime_ns, first.st_mtime_ns))  # one tick of a coarse clock
    assert path.stat().st_size == first.st_size

    ingestor.ingest()
    assert [(c["component"], c["status"]) for c in store.get_components("r")] == [
        ("trainer", "stopped"),
        ("env-server", "stopped"),
    ]
