"""Local platform log path: ingest a long trainer.log into SQLite, then serve R7 windows from it.

    uv run python bench/local_logs.py [--lines 200000] [--repeat 3]

Two numbers, each next to its baseline in the same run:
1. Ingest: RunIngestor (whole lines, level + time parsed, one transaction per chunk, offsets stored)
   into a fresh database vs. the bare floor of reading the file and splitting it into lines; the two
   alternate ``--repeat`` times and the median of each (and of their ratios) is reported, in wall
   time and in CPU time (``time.process_time``: what a shared, loaded machine cannot inflate).
2. R7 window (tail 1000, and a search) answered inside SQLite (what the server does) vs. fetching
   every line of the component and filtering/slicing in Python (the naive server).
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from primetui.local.ingest import RunIngestor  # noqa: E402
from primetui.local.store import STREAM_SHIFT, Store  # noqa: E402


def write_log(path: Path, n: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        for i in range(1, n + 1):
            stamp = time.strftime("%H:%M:%S", time.localtime(time.time() - (n - i) * 0.01))
            if i % 50 == 0:
                fh.write(f"{stamp}    INFO Saving checkpoint at step {i}\n")
            else:
                fh.write(
                    f"{stamp} SUCCESS Step {i} |   754ms | Loss {5.0 / (1 + i / 1000):.4f} | Grad. Norm 0.9417 | "
                    "LR 2.00e-05 | Throughput 19788 tokens/s | MFU 13.0% | Peak Mem. 0.1/23.5 GiB (0.6%)\n"
                )


def best_of(fn, repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lines", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    n = args.lines
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        run_dir = root / "runs" / "r"
        write_log(run_dir / "logs" / "trainer.log", n)
        size_mb = (run_dir / "logs" / "trainer.log").stat().st_size / 1e6

        def floor() -> None:
            (run_dir / "logs" / "trainer.log").read_text(encoding="utf-8").split("\n")

        floors, ingests, floors_cpu, ingests_cpu = [], [], [], []
        for rep in range(args.repeat):
            t0, c0 = time.perf_counter(), time.process_time()
            floor()
            floors.append(time.perf_counter() - t0)
            floors_cpu.append(time.process_time() - c0)
            store = Store(root / f"state{rep}.sqlite3")
            ing = RunIngestor(store, "r", run_dir)
            t0, c0 = time.perf_counter(), time.process_time()
            while True:
                before = store.get_offset("r", "logs/trainer.log")
                ing.ingest()
                if store.get_offset("r", "logs/trainer.log") == before:
                    break
            ingests.append(time.perf_counter() - t0)
            ingests_cpu.append(time.process_time() - c0)
            if rep < args.repeat - 1:
                store.close()
        floor_s, ingest_s = statistics.median(floors), statistics.median(ingests)
        ratio = statistics.median(i / f for i, f in zip(ingests, floors))
        floor_cpu, ingest_cpu = statistics.median(floors_cpu), statistics.median(ingests_cpu)
        ratio_cpu = statistics.median(i / f for i, f in zip(ingests_cpu, floors_cpu))

        def sql_tail() -> None:
            store.query_logs("r", "trainer", None, None, None, limit=1000)

        def every_line() -> list[sqlite3.Row]:
            (stream,) = store.db.execute(
                "SELECT id FROM log_streams WHERE run_id = ? AND component = ?", ("r", "trainer")
            ).fetchone()
            return store.db.execute(
                "SELECT line FROM logs WHERE id BETWEEN ? AND ? ORDER BY id",
                (stream << STREAM_SHIFT, ((stream + 1) << STREAM_SHIFT) - 1),
            ).fetchall()

        def naive_tail() -> None:
            rows = every_line()
            [r["line"] for r in rows][-1000:]

        def sql_search() -> None:
            store.query_logs("r", "trainer", None, None, None, search="Saving checkpoint", limit=1000)

        def naive_search() -> None:
            rows = every_line()
            [r["line"] for r in rows if "Saving checkpoint" in r["line"]][-1000:]

        tail_sql, tail_naive = best_of(sql_tail), best_of(naive_tail)
        search_sql, search_naive = best_of(sql_search), best_of(naive_search)
        load = open("/proc/loadavg").read().split()[:3]
        print(
            f"{n:,} lines, {size_mb:.1f} MB trainer.log; median of {args.repeat}; "
            f"load average {' '.join(load)} on {os.cpu_count()} cores"
        )
        print("| step | primetui | baseline | ratio |")
        print("|---|---|---|---|")
        print(
            f"| ingest into SQLite (levels, times, offsets) vs read+split only | {ingest_s:.2f} s "
            f"({n / ingest_s:,.0f} lines/s) | {floor_s:.2f} s | {ratio:.1f}x the floor |"
        )
        print(
            f"| the same two in CPU time (this process, user + system) | {ingest_cpu:.2f} s | {floor_cpu:.2f} s "
            f"| {ratio_cpu:.1f}x the floor |"
        )
        print(
            f"| R7 tail 1000 in SQLite vs fetch all + slice | {tail_sql * 1e3:.1f} ms | {tail_naive * 1e3:.1f} ms "
            f"| {tail_naive / tail_sql:.0f}x faster |"
        )
        print(
            f"| R7 search + tail 1000 in SQLite vs fetch all + filter | {search_sql * 1e3:.1f} ms "
            f"| {search_naive * 1e3:.1f} ms | {search_naive / search_sql:.1f}x faster |"
        )
        store.close()


if __name__ == "__main__":
    main()
