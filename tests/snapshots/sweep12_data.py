"""A recorded-shape sweep of 12 runs (40 steps each), as ``run_data.collect`` returns it: more runs
than the 8 run colours, for the compare legend (numbers 1..12, a glyph and a colour each)."""

from __future__ import annotations

import math

from primetui.viewmodel.run_data import diff_json, series, summarize

LRS = ["1e-6", "2e-6", "5e-6", "1e-5", "2e-5", "5e-5", "1e-4", "2e-4", "5e-4", "1e-3", "2e-3", "5e-3"]
IDS = [f"s12{n:02d}" + "abcdefghijkl"[n] * 19 for n in range(12)]
T0 = 1_790_000_000.0


def loss(n: int, step: int) -> float:
    """Run n's loss at ``step``: each run falls at its own rate to its own floor, so 12 curves stay apart."""
    return 1.0 + 0.15 * n + 4.0 * math.exp(-(0.02 + 0.012 * n) * step)


def data() -> dict:
    runs = []
    for n, (run_id, lr) in enumerate(zip(IDS, LRS)):
        rows = [{"step": s, "time": T0 + 60.0 * n + 2.0 * s, "loss/mean": loss(n, s)} for s in range(1, 41)]
        runs.append(
            {
                "id": run_id,
                "name": f"lr-lr={lr}",
                "status": "COMPLETED",
                "model": "PrimeIntellect/Qwen3-0.6B",
                "duration_seconds": 80.0,
                "duration": "1m20s",
                **summarize(rows).to_json(),
                "anomalies": [],
                "series": series(rows),
                "config": {"optim": {"lr": float(lr)}, "max_steps": 40},
            }
        )
    return {"runs": runs, "config_diff": diff_json([r["id"] for r in runs], [r["config"] for r in runs])}
