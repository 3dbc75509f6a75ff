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
