"""``wait``'s code 4: a COMPLETED run with an error-level anomaly (finite loss) is told, in text and JSON."""

from __future__ import annotations

import io
import json

from primetui.commands import waiting
from primetui.monitor_core.anomalies import ERROR_KINDS, KINDS


def test_an_error_level_anomaly_alone_makes_a_completed_run_end_with_code_4():
    run = waiting.Followed("r1", status="COMPLETED", ended=True, anomalies=["out of memory at step 7"])
    assert run.broken and not waiting.Followed("r2", status="COMPLETED", ended=True).broken
    out = io.StringIO()
    waiting.Reporter(out, io.StringIO(), as_json=False).end([run], waiting.EXIT_ANOMALY, [])
    assert "run r1 is COMPLETED, with an error-level anomaly: out of memory at step 7" in out.getvalue()
    out = io.StringIO()
    waiting.Reporter(out, io.StringIO(), as_json=True).end([run], waiting.EXIT_ANOMALY, [])
    end, done = (json.loads(line) for line in out.getvalue().splitlines())
    assert end["anomalies"] == ["out of memory at step 7"] and end["loss_nonfinite"] is None
    assert done == {"event": "done", "status": "ANOMALY", "exit": 4, "timed_out": []}


def test_trends_are_not_error_level():
    assert ERROR_KINDS <= set(KINDS)
    assert not ERROR_KINDS & {"loss_spike", "early_divergence", "grad_blowup", "throughput_collapse", "stall"}
