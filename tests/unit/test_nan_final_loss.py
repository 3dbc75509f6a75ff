"""A run whose last loss is NaN reads NaN with its step wherever a final loss is shown; a diverged
loss is written compactly (engineering notation), never as 72060998070732423168.0000."""

from __future__ import annotations

import json
import math
from datetime import datetime, timezone

from tests.runs import wire_run
from primetui.commands.headless import format_table
from primetui.commands.compare import format_summary
from primetui.monitor_core.compare import final_loss_text, summarize
from primetui.monitor_core.numbers import fmt_eng, fmt_loss
from primetui.viewmodel.progress import RunProgress
from primetui.viewmodel.run_rows import run_detail, run_row

NOW = datetime(2026, 1, 1, tzinfo=timezone.utc)
RUN = wire_run(id="nanrun000000000000000000", name="lr-lr=1e-1", status="FAILED", maxSteps=80)
ROWS = [{"step": 1, "loss/mean": 5.6}, {"step": 5, "loss/mean": 7.206e19}, {"step": 6, "loss/mean": math.nan}]


def test_compact_engineering_format():
    assert fmt_loss(72060998070732423168.0) == "72.06e+18"
    assert fmt_eng(999_960.0) == "1e+6" and fmt_eng(-2.88e18) == "-2.88e+18"
    assert fmt_loss(5.56021) == "5.5602" and fmt_loss(None) == "-"
    assert fmt_loss(math.inf, 7) == "+Inf @7"


def test_runs_list_row_and_json_say_nan_at_its_step():
    row = run_row(RUN, RunProgress.from_metric_rows(ROWS), NOW)
    assert row.loss_text() == "NaN @6"
    data = row.to_json()
    assert data["loss"] is None and data["loss_nonfinite"] == "NaN" and data["loss_step"] == 6
    json.dumps(data, allow_nan=False)  # exact JSON: no NaN token
    assert "NaN @6" in format_table([row])


def test_a_finite_diverged_last_loss_stays_in_its_column():
    row = run_row(RUN, RunProgress.from_metric_rows(ROWS[:2]), NOW)
    assert row.loss_text() == "72.06e+18"


def test_run_detail_json_has_no_nan_token():
    detail = run_detail(RUN, RunProgress.from_metric_rows(ROWS), NOW)
    json.dumps(detail, allow_nan=False)
    assert detail["losses"][-1] is None and detail["loss_nonfinite"] == "NaN"


def test_compare_summary_final_loss_is_nan_with_its_step():
    entry = summarize(ROWS).to_json()
    json.dumps(entry, allow_nan=False)
    assert entry["final_loss"] is None and entry["final_loss_nonfinite"] == "NaN" and entry["final_loss_step"] == 6
    assert entry["best_loss"] == 5.6  # the best stays the best finite one
    assert final_loss_text(entry) == "NaN @6"
    run = {"id": "x", "name": "", "status": "FAILED", "duration": "1m", "anomalies": [], **entry}
    assert "NaN @6" in "\n".join(format_summary([run]))
