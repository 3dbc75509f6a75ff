"""A run's metric rows within a budget (issue 41, item 9): the hub's replay, RunProgress and the charts' series
each hold a bounded number of rows however long the run, the spike and the NaN of old steps stay visible, and
the newest rows (the latest loss) stay exact."""

from __future__ import annotations

import math

import numpy as np

from primetui.api.followers import MetricRows
from primetui.api.hub import FollowerHub
from primetui.monitor_core.metrics import SERIES_BUCKETS, SERIES_KEEP, MetricTable, decimate
from primetui.monitor_core.row_budget import KEEP_LAST, row_budget
from primetui.viewmodel.progress import RunProgress
from tests.unit.test_hub import FakeClient
from tests.waiting import wait_for

STEPS = 100_000
SPIKE = 1_234  # an old step whose loss jumped
NAN = 2_345  # an old step that was NaN (the trainer wrote only its count)
ROW_CAP = row_budget() + KEEP_LAST // 4
SERIES_CAP = SERIES_KEEP + 3 * SERIES_BUCKETS + SERIES_KEEP // 4


def rows(steps: int = STEPS) -> list[dict]:
    out = []
    for s in range(1, steps + 1):
        row = {"step": s, "time": 1.0e9 + s, "loss/mean": 2.0 + 1.0 / s, "lr": 1e-4}
        if s == SPIKE:
            row["loss/mean"] = 500.0
        if s % 1000 == 0:
            row["eval/reverse-text/reward/mean"] = s / 1e6  # an eval every 1,000 steps
        if s == NAN:
            del row["loss/mean"]
            row["loss/nan_count"] = 1
        out.append(row)
    return out


ROWS = rows()


def test_run_progress_keeps_a_bounded_number_of_rows_with_the_spike_the_nan_and_the_exact_latest_loss():
    progress = RunProgress()
    for start in range(0, STEPS, 500):  # as polls hand them in
        progress.extend(ROWS[start : start + 500])
    assert len(progress.rows) <= ROW_CAP
    assert progress.step == STEPS
    assert progress.last_loss == (STEPS, 2.0 + 1.0 / STEPS)
    assert progress.loss_points(3) == [(s, 2.0 + 1.0 / s) for s in range(STEPS - 2, STEPS + 1)]
    assert max(progress.losses) == 500.0  # the old spike is still in the series
    assert any(r.get("loss/nan_count") == 1 for r in progress.rows.values())  # and the NaN step
    evals = {
        s: r["eval/reverse-text/reward/mean"] for s, r in progress.rows.items() if "eval/reverse-text/reward/mean" in r
    }
    assert evals == {s: s / 1e6 for s in range(1000, STEPS + 1, 1000)}  # every eval at its own step, exact
    steps = sorted(progress.rows)
    assert steps[-KEEP_LAST:] == list(range(STEPS - KEEP_LAST + 1, STEPS + 1))  # the newest rows exact


def test_a_late_row_for_a_known_step_never_changes_the_row_handed_out():
    first = {"step": 1, "loss/mean": 1.0}
    progress = RunProgress.from_metric_rows([first])
    progress.extend([{"step": 1, "eval/acc": 0.5}])
    assert first == {"step": 1, "loss/mean": 1.0}
    assert progress.rows[1] == {"step": 1, "loss/mean": 1.0, "eval/acc": 0.5}


def test_the_chart_series_are_bounded_and_still_draw_the_spike_and_the_nan():
    table = MetricTable()
    for start in range(0, STEPS, 500):
        table.add_rows(ROWS[start : start + 500])
    loss = table.get("loss/mean")
    assert loss is not None and len(loss) <= SERIES_CAP
    assert len(table.get("lr")) <= SERIES_CAP
    assert loss.last == (float(STEPS), 2.0 + 1.0 / STEPS)
    cols = decimate(loss.steps, loss.values, 1.0, float(STEPS), 150)
    assert float(np.nanmax(cols.hi)) == 500.0  # the whole-run view still shows the spike
    assert cols.nonfinite >= 1  # and marks the NaN step
    assert any(math.isnan(v) and s == NAN for s, v in zip(loss.steps, loss.values))


async def test_a_late_hub_subscriber_gets_a_bounded_replay_ending_on_the_exact_rows():
    client = FakeClient(status="COMPLETED", steps=0)
    client.rows = ROWS
    hub = FollowerHub(client)
    first: list[dict] = []
    sub1 = hub.metrics("r1", lambda e: first.extend(e.rows) if isinstance(e, MetricRows) else None, status="COMPLETED")
    await wait_for(lambda: len(first) >= STEPS, "the first subscriber's 100,000 metric rows")
    late: list[dict] = []
    sub2 = hub.metrics("r1", lambda e: late.extend(e.rows) if isinstance(e, MetricRows) else None, status="COMPLETED")
    assert 0 < len(late) <= ROW_CAP
    assert late[-1] == ROWS[-1]
    assert max(r.get("loss/mean", 0.0) for r in late) == 500.0
    sub1.close()
    sub2.close()
