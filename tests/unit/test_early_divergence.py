"""Early divergence: a loss that climbs step by step in the first steps (lr 1e-1: 5.6 → 13.9 over
steps 2-6) is flagged once; healthy runs, warmup bumps included, are not."""

from __future__ import annotations

import math

from primetui.monitor_core.anomalies import Thresholds, detect


def _rows(losses):
    return [{"step": s, "time": 1000.0 + 2 * s, "loss/mean": v} for s, v in enumerate(losses, start=1)]


def test_a_steady_climb_no_spike_sees_is_flagged_once_when_it_passes_twice_the_first_loss():
    losses = [5.6 * 1.15**k for k in range(12)]  # +15% a step: each point joins the rolling median
    found = detect(_rows(losses))
    assert [a.kind for a in found] == ["early_divergence"]
    assert found[0].step == 6 and "loss rose 2.0x in the first steps (5.6 at step 1" in found[0].message


def test_healthy_runs_stay_quiet():
    healthy = [
        [5.6 * math.exp(-0.03 * s) + 2 for s in range(80)],  # a smooth descent
        [5.6, 5.9, 6.3, 6.0, 5.5, 5.0, 4.6, 4.3, 4.1, 4.0] + [3.9] * 30,  # a warmup bump of 12%
        [2.0 + 0.3 * math.sin(s) for s in range(60)],  # noisy but flat
    ]
    for losses in healthy:
        assert [a for a in detect(_rows(losses)) if a.kind == "early_divergence"] == []


def test_a_late_rise_is_not_early_and_the_window_is_a_threshold():
    losses = [4.0 * 1.03**k for k in range(40)]  # twice the first loss only at step 25
    assert [a for a in detect(_rows(losses)) if a.kind == "early_divergence"] == []
    th = Thresholds(early_steps=30)
    assert [a.step for a in detect(_rows(losses), thresholds=th) if a.kind == "early_divergence"] == [25]


def test_a_spike_is_not_told_twice():
    losses = [5.6] + [5.6 * 10 ** (i + 3) for i in range(5)]
    assert [a.kind for a in detect(_rows(losses))] == ["loss_spike"]
