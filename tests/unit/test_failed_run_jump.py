"""``!`` on a FAILED run lands on the trainer's error line in the log, not on an empty chart."""

from __future__ import annotations

from primetui.monitor_core.anomalies import Anomaly
from primetui.ui.screens.run_links import jump_target

EXITED = Anomaly("exited", 3, "trainer", "the run failed: dataset not found")
SPIKE = Anomaly("loss_spike", 2, "trainer", "loss spike")
TRACE = Anomaly("traceback", 3, "trainer", "traceback in trainer", "Traceback (most recent call last):", 41)


def test_a_failed_run_jumps_to_its_log_error_and_waits_for_the_logs():
    assert jump_target([SPIKE, EXITED], "FAILED") is None  # the logs have not come yet: keep waiting
    assert jump_target([SPIKE, EXITED, TRACE], "FAILED") is TRACE


def test_other_runs_jump_to_their_first_anomaly():
    assert jump_target([SPIKE, TRACE], "COMPLETED") is SPIKE
    assert jump_target([], "FAILED") is None


def _exited_line(reason_first: bool) -> int | None:
    from primetui.monitor_core.anomalies import Detector

    detector = Detector()
    lines = [(0, "12:00:01 INFO loading data"), (1, "12:00:02 ERROR train.jsonl line 21 is not valid JSON; fix it")]
    reason = "train.jsonl line 21 is not valid JSON; fix it"
    if reason_first:
        detector.component_exited("trainer", f"the run failed: {reason}", line=reason)
        detector.add_log_lines("trainer", lines)
    else:
        detector.add_log_lines("trainer", lines)
        detector.component_exited("trainer", f"the run failed: {reason}", line=reason)
    [exited] = [a for a in detector.anomalies if a.kind == "exited"]
    return exited.line_index


def test_a_failed_runs_exit_points_at_the_log_line_with_its_reason_in_either_order():
    # The trainer logs its reason as a plain ERROR line (no traceback): ``!`` must still land on it.
    assert _exited_line(reason_first=True) == 1
    assert _exited_line(reason_first=False) == 1
    assert jump_target([SPIKE, EXITED], "FAILED") is None  # no such line yet: still waiting
