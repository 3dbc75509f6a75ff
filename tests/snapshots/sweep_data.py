"""A recorded-shape learning-rate sweep of 4 runs (80 steps), as ``run_data.collect`` returns it.

lr 1e-1 blows up early (loss 5.6 → 13.9 over steps 2-6, then on up to ~1e3), which flattens the
other three on a linear axis: the case log-Y is for.
"""

from __future__ import annotations

import math

from primetui.viewmodel.run_data import diff_json, series, summarize

LRS = ["1e-5", "3e-5", "1e-4", "1e-1"]
IDS = ["sw1aaaaaaaaaaaaaaaaaaaaa", "sw2bbbbbbbbbbbbbbbbbbbbb", "sw3ccccccccccccccccccccc", "sw4ddddddddddddddddddddd"]
T0 = 1_790_000_000.0


def _loss(lr: str, step: int) -> float:
    if lr == "1e-1":
        return 5.6 * math.exp(0.15 * step) if step > 1 else 5.6
    rate = {"1e-5": 0.01, "3e-5": 0.025, "1e-4": 0.045}[lr]
    return 2.0 + 3.6 * math.exp(-rate * step)


def rows(lr: str, offset: float) -> list[dict]:
    return [
        {"step": s, "time": T0 + offset + 2.5 * s, "loss/mean": _loss(lr, s), "optim/grad_norm": 0.5 + 0.01 * s}
        for s in range(1, 81)
    ]


def data() -> dict:
    runs = []
    for n, (run_id, lr) in enumerate(zip(IDS, LRS)):
        r = rows(lr, 300.0 * n)
        runs.append(
            {
                "id": run_id,
                "name": f"lr-lr={lr}",
                "status": "COMPLETED",
                "model": "PrimeIntellect/Qwen3-0.6B",
                "duration_seconds": 200.0,
                "duration": "3m20s",
                **summarize(r).to_json(),
                "anomalies": [],
                "series": series(r),
                "config": {
                    "optim": {"lr": float(lr)},
                    "max_steps": 80,
                    "data": {"seq_len": 2048, "batch_size": 16 if lr == "1e-1" else 8},
                },
            }
        )
    return {"runs": runs, "config_diff": diff_json([r["id"] for r in runs], [r["config"] for r in runs])}
