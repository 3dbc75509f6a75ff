"""The one function that decides a run's final loss: NaN from the count, the log line, or a gap.

Each source on its own, as a run's metrics really come: the local trainer writes no ``loss/mean``
for a NaN step (JSON has no NaN), only ``loss/nan_count``; prime-rl's platform monitor drops
non-finite values. The runs list, the run screen, compare and ``--json`` read it the same way.
"""

from __future__ import annotations

import json
import math
from datetime import datetime, timezone

from tests.runs import wire_run
from primetui.monitor_core.compare import summarize
from primetui.monitor_core.metrics import MetricTable
from primetui.viewmodel.progress import RunProgress
from primetui.viewmodel.run_rows import run_row
from primetui.viewmodel.run_data import series

NOW = datetime(2026, 1, 1, tzinfo=timezone.utc)
RUN = wire_run(id="nanrun000000000000000000", name="lr-lr=1e12", status="COMPLETED", maxSteps=5)


def _row(step: int, loss: float | None, count: int = 0) -> dict:
    """A metrics row as the local trainer writes it: no loss value for a non-finite step."""
    row = {"step": step, "optim/lr": 1e12, "loss/nan_count": count}
    if loss is not None:
        row["loss/mean"] = loss
    return row


# What the local trainer wrote for a run with lr = 1e12: steps 1-2 finite, 3-5 NaN (7000 NaN tokens each).
COUNT_ROWS = [_row(1, 5.5984), _row(2, 2.7262e13), _row(3, None, 7165), _row(4, None, 7316), _row(5, None, 6824)]


def test_count_makes_the_final_loss_nan_at_the_last_step():
    row = run_row(RUN, RunProgress.from_metric_rows(COUNT_ROWS), NOW)
    assert row.loss_text() == "NaN @5"  # not the last finite loss, 27.26e+12
    data = row.to_json()
    assert data["loss"] is None and data["loss_nonfinite"] == "NaN" and data["loss_step"] == 5
    json.dumps(data, allow_nan=False)
    entry = summarize(COUNT_ROWS).to_json()
    assert entry["final_loss"] is None and entry["final_loss_nonfinite"] == "NaN" and entry["final_loss_step"] == 5
    assert entry["best_loss"] == 5.5984
    from primetui.monitor_core.finalloss import final_loss_of_rows

    final = final_loss_of_rows(COUNT_ROWS)
    assert final is not None and final.nonfinite and final.mark == "NaN" and final.step == 5 and final.source == "count"


def test_count_arriving_row_by_row_in_the_runs_list():
    progress = RunProgress()
    for row in COUNT_ROWS[:2]:
        progress.extend([row])
    assert run_row(RUN, progress, NOW).loss_text() == "27.26e+12"
    progress.extend([COUNT_ROWS[2]])
    assert run_row(RUN, progress, NOW).loss_text() == "NaN @3"


def test_a_run_that_recovers_ends_on_its_finite_loss():
    from primetui.monitor_core.finalloss import final_loss_of_rows

    rows = [*COUNT_ROWS[:3], _row(4, 3.25)]
    final = final_loss_of_rows(rows)
    assert final is not None and not final.nonfinite and (final.step, final.value) == (4, 3.25)
    assert run_row(RUN, RunProgress.from_metric_rows(rows), NOW).loss_text() == "3.2500"


def test_a_count_beside_a_finite_loss_is_not_a_nan_loss():
    from primetui.monitor_core.finalloss import final_loss_of_rows

    # prime-rl can leave NaN micro-batches out of a finite mean: the mean is the loss
    final = final_loss_of_rows([_row(1, 5.0), _row(2, 4.0, 3)])
    assert final is not None and (final.step, final.value, final.source) == (2, 4.0, "metric")


def test_gap_the_count_explains():
    # a platform that dropped the NaN loss: step 3 carries the count, steps 4-5 only other metrics
    rows = [_row(1, 5.6), _row(2, 4.1), _row(3, None, 12), {"step": 4, "optim/lr": 1e12}, {"step": 5, "optim/lr": 1e12}]
    assert run_row(RUN, RunProgress.from_metric_rows(rows), NOW).loss_text() == "NaN @5"
    assert summarize(rows).to_json()["final_loss_step"] == 5
    from primetui.monitor_core.finalloss import final_loss_of_rows

    final = final_loss_of_rows(rows)
    assert final is not None and final.nonfinite and final.step == 5 and final.source == "gap"


def test_a_gap_with_no_count_is_not_nan():
    # a step whose loss row has not arrived yet (the progress row comes first): not NaN
    from primetui.monitor_core.finalloss import final_loss_of_rows

    rows = [_row(1, 5.6), _row(2, 4.1), {"step": 3, "progress/epoch": 0}]
    final = final_loss_of_rows(rows)
    assert final is not None and (final.step, final.value) == (2, 4.1)


LOG = [
    "06:14:35 SUCCESS Step 2 |   201ms | Loss 4.1000 | Grad. Norm 2.5345 | LR 1.00e+12",
    "06:14:35 WARNING Local loss is nan, excluding this micro step from backward (step 3)",
    "06:14:35 SUCCESS Step 3 |   230ms | Loss nan | Grad. Norm nan | LR 1.00e+12",
    "06:14:35 SUCCESS Validation | Step 3 | Loss 2.5000",
    "06:14:35 SUCCESS Step 3 |   1.2s | Node 0 | Local Loss 2.0 | Tokens 8",
]


def test_the_trainer_log_line_says_nan():
    from primetui.monitor_core.finalloss import final_loss_of_rows, step_loss_line

    assert step_loss_line(LOG[2])[0] == 3 and math.isnan(step_loss_line(LOG[2])[1])
    assert step_loss_line(LOG[0]) == (2, 4.1)
    assert step_loss_line(LOG[3]) is None and step_loss_line(LOG[4]) is None  # validation, a pod's local loss
    rows = [_row(1, 5.6), _row(2, 4.1)]  # metrics with no count at all (a platform that dropped it)
    final = final_loss_of_rows(rows, LOG)
    assert final is not None and final.nonfinite and final.step == 3 and final.source == "log"
    progress = RunProgress.from_metric_rows(rows)
    assert run_row(RUN, progress, NOW).loss_text() == "4.1000"
    progress.note_log_lines(LOG)
    assert run_row(RUN, progress, NOW).loss_text() == "NaN @3"
    assert summarize(rows, LOG).to_json()["final_loss_nonfinite"] == "NaN"


def test_a_log_line_older_than_the_metrics_changes_nothing():
    from primetui.monitor_core.finalloss import final_loss

    final = final_loss((4, 3.0), last_step=4, log=(3, math.nan))
    assert final is not None and (final.step, final.value) == (4, 3.0)


def test_nothing_known_is_none():
    from primetui.monitor_core.finalloss import final_loss, final_loss_of_rows

    assert final_loss(None) is None and final_loss_of_rows([]) is None


def test_charts_get_a_nan_point_at_each_counted_step():
    table = MetricTable()
    table.add_rows(COUNT_ROWS)
    loss = table.get("loss/mean")
    assert loss is not None and loss.n == 5 and loss.nonfinite == 3
    s = series(COUNT_ROWS, ["loss/mean"])["loss/mean"]
    assert s["steps"] == [1, 2, 3, 4, 5] and s["values"][2:] == [None, None, None]
    from primetui.monitor_core.finalloss import with_nan_loss

    assert math.isnan(with_nan_loss(COUNT_ROWS[2])["loss/mean"]) and with_nan_loss(COUNT_ROWS[0]) is COUNT_ROWS[0]
