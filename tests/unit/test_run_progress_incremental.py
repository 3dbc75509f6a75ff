"""RunProgress keeps its steps and losses in step order as rows arrive (issue 30): no sort per poll."""

from __future__ import annotations

from primetui.viewmodel.progress import RunProgress

import math
import random


def reference(rows: dict[int, dict]) -> tuple[list[tuple[int, float]], int | None]:
    pts = [(s, r["loss/mean"]) for s, r in sorted(rows.items()) if isinstance(r.get("loss/mean"), (int, float))]
    return pts, (max(rows) if rows else None)


def test_late_and_replaced_rows_keep_step_order():
    rng = random.Random(3)
    p = RunProgress()
    for _ in range(400):
        step = rng.randrange(60)
        row: dict = {"step": step}
        kind = rng.random()
        if kind < 0.6:
            row["loss/mean"] = rng.random()
        elif kind < 0.7:
            row["loss/mean"] = None  # a loss dropped at the boundary
        elif kind < 0.75:
            row["loss/mean"] = math.nan
        else:
            row["eval/x"] = 1.0  # an eval row for a step: leaves its loss alone
        p.extend([row])
        pts, top = reference(p.rows)
        assert p.step == top
        assert [s for s, _ in p.loss_points()] == [s for s, _ in pts]
        assert [v for _, v in p.loss_points()] == [v for _, v in pts] or any(math.isnan(v) for _, v in pts)
        assert p.loss_points(5) == p.loss_points()[-5:]
        assert len(p.last_losses(7)) == min(7, len(pts))
        last = p.last_loss
        assert (last is None) == (not pts) and (last is None or last[0] == pts[-1][0])


def test_built_from_rows_directly():
    p = RunProgress(rows={3: {"step": 3, "loss/mean": 0.3}, 1: {"step": 1, "loss/mean": 0.1}, 2: {"step": 2}})
    assert p.step == 3 and p.losses == [0.1, 0.3] and p.last_loss == (3, 0.3)


def test_last_losses_do_not_copy_the_whole_series():
    p = RunProgress.from_metric_rows({"step": s, "loss/mean": float(s)} for s in range(100_000))
    assert p.last_losses(3) == [99_997.0, 99_998.0, 99_999.0]
    assert p.loss_points(2) == [(99_998, 99_998.0), (99_999, 99_999.0)]
