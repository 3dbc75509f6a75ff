"""Memory held by one run's metric rows: the hub's replay, the run's RunProgress and the charts' series.

    uv run python bench/metric_rows_memory.py                         # 28,800 and 86,400 rows
    uv run python bench/metric_rows_memory.py --baseline /tmp/old/src # the same against another tree

A run writing a row a second for 8 hours has 28,800 metric rows. Each tree runs in a process of
its own: a ``FollowerHub`` over a stand-in client that makes the rows as they are asked for (20
keys a row, the local SFT trainer's: loss, perplexity, NaN count, lr, grad norm, throughput, MFU,
times...) follows the run to its end; its subscriber keeps a ``RunProgress`` (what the runs list
and the run screen share) and a ``MetricTable`` (a Charts tab), and a second subscriber joins
late (a chart opened later: the hub's replay). The figure is what tracemalloc counts as held
once all is read and garbage is collected (the stand-in client holds no rows). At most 99,980
rows: the metrics follower's final fetch of an ended run reads 20 pages of 5,000 and stops.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import asyncio, gc, json, math, sys, tracemalloc
from primetui.api.followers import MetricRows
from primetui.api.hub import FollowerHub
from primetui.api.models import MetricsResponse, RLRun
from primetui.monitor_core.metrics import MetricTable
from primetui.viewmodel.progress import RunProgress

N = int(sys.argv[1])
KEYS = ["loss/perplexity", "loss/nan_count", "optim/lr", "optim/grad_norm", "perf/throughput",
        "perf/throughput_per_gpu", "perf/peak_memory", "perf/mfu", "time/step", "time/forward_backward",
        "time/save_ckpt", "time/broadcast_weights", "progress/num_samples", "progress/num_tokens",
        "progress/epoch", "data/seq_len", "data/padding", "entropy/mean"]

def row(s):
    out = {"step": s, "time": 1.7e9 + s, "loss/mean": 2.0 + math.sin(s / 50.0) / (1 + s / 1000.0)}
    for i, k in enumerate(KEYS):
        out[k] = (s * 0.001 + i) * 1.0001
    return out

class Client:
    async def get_run(self, run_id):
        return RLRun.model_validate({"id": run_id, "userId": "u", "name": "r", "status": "COMPLETED",
            "createdAt": "2026-01-01T00:00:00Z", "updatedAt": "2026-01-01T00:00:00Z"})
    async def get_progress(self, run_id):
        from primetui.api.errors import NotFoundError
        raise NotFoundError("no progress", status_code=404)
    async def get_metrics(self, run_id, min_step=None, limit=5000, **kw):
        lo = max(1, min_step or 0)
        return MetricsResponse(metrics=[row(s) for s in range(lo, min(N, lo + limit - 1) + 1)])

async def main():
    tracemalloc.start()
    gc.collect()
    base = tracemalloc.get_traced_memory()[0]
    hub = FollowerHub(Client())
    progress, table, seen = RunProgress(), MetricTable(), []
    def first(e):
        if isinstance(e, MetricRows):
            progress.extend(e.rows); table.add_rows(e.rows); seen.append(e.rows[-1]["step"])
    sub = hub.metrics("r1", first, status="COMPLETED")
    while not seen or seen[-1] < N:
        await asyncio.sleep(0.01)
    late_table, late = MetricTable(), []
    sub2 = hub.metrics("r1", lambda e: late.append(late_table.add_rows(e.rows)) if isinstance(e, MetricRows) else None,
                       status="COMPLETED")
    gc.collect()
    held = tracemalloc.get_traced_memory()[0] - base
    print(json.dumps({"held_mb": held / 2**20, "progress_rows": len(progress.rows),
                      "series_points": len(table.get("loss/mean")), "last_loss": progress.last_loss[1],
                      "exact_last": progress.last_loss[1] == row(N)["loss/mean"]}))
    sub.close(); sub2.close()

asyncio.run(main())
"""


def measure(src: Path, rows: int) -> dict:
    env = dict(os.environ, PYTHONPATH=str(src))
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(rows)], env=env, capture_output=True, text=True, timeout=1800, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, nargs="*", default=[28_800, 86_400])
    ap.add_argument("--baseline", type=Path, default=None, help="a src directory to measure as the baseline")
    args = ap.parse_args()
    trees = [("this tree", ROOT / "src")] + ([("baseline", args.baseline)] if args.baseline else [])
    print("| Metric rows | " + " | ".join(f"{name}: held / rows kept / chart points" for name, _ in trees) + " |")
    print("|---|" + "---|" * len(trees))
    for n in args.rows:
        cells = []
        for _, src in trees:
            m = measure(src, n)
            cells.append(
                f"{m['held_mb']:.1f} MB / {m['progress_rows']:,} / {m['series_points']:,}"
                + ("" if m["exact_last"] else " (last loss NOT exact)")
            )
        print(f"| {n:,} | " + " | ".join(cells) + " |")
    load = os.getloadavg()
    print(f"\n{os.cpu_count()} cores, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} at the end.")


if __name__ == "__main__":
    main()
