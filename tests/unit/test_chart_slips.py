"""Chart slips: y labels fit their 8 columns without cutting a digit; the cursor moves step by step."""

from __future__ import annotations

import numpy as np

from primetui.monitor_core.chartframe import ChartView, compose, step_by
from primetui.monitor_core.metrics import Series
from primetui.monitor_core.numbers import fit_number


def _series(name: str, steps, values) -> Series:
    s = Series(name)
    steps = np.asarray(steps, dtype=np.float64)
    s.extend(steps, np.asarray(values, dtype=np.float64), steps * 2.0)
    return s


def test_a_long_label_loses_digits_not_its_exponent():
    assert fit_number(-2.88e18, 8, "-2.88e+18") == "-2.88e18"
    assert fit_number(-1.2345e-12, 8, "-1.23e-12") == "-1.2e-12"
    assert fit_number(5.5, 8, "5.5") == "5.5"


def test_chart_y_labels_keep_the_whole_number():
    s = _series("loss/mean", [1, 2, 3], [5.6, -2.88e18, 1.0])
    text = "\n".join("".join(t for t, _ in row) for row in compose("loss/mean", [s], ChartView(), 60, 12))
    labels = [line[:8].strip() for line in text.splitlines()[1:-1] if line[:8].strip()]
    assert labels[-1] == "-3.00e18", labels  # the bottom label (the range is padded), whole
    assert all(float(label) for label in labels)  # each one still reads as the number it is


def test_the_cursor_visits_every_step_whatever_the_width():
    s = _series("loss/mean", range(1, 1001), np.linspace(5, 1, 1000))
    assert step_by([s], None, 1, 1, 1000) == 1
    assert step_by([s], 1, 1, 1, 1000) == 2
    assert step_by([s], 2, 10, 1, 1000) == 12
    assert step_by([s], 12, -1, 1, 1000) == 11
    assert step_by([s], None, -1, 1, 1000) == 1000
    sparse = _series("eval", [10, 20, 40], [1, 2, 3])
    assert step_by([sparse], 20, 1, 0, 100) == 40 and step_by([sparse], 25, -1, 0, 100) == 20


def _cursor_columns(rows) -> set[int]:
    cols = set()
    for row in rows[1:-1]:
        x = 0
        for text, key in row:
            if key == "cursor":
                cols |= set(range(x, x + len(text)))
            x += len(text)
    return cols


def test_on_wall_time_a_sparse_eval_chart_shares_the_loss_charts_range_and_cursor():
    loss = _series("loss/mean", range(1, 41), np.linspace(5, 1, 40))  # times = 2 x step
    evals = _series("eval/reward", [10, 20], [0.2, 0.5])
    view = ChartView(x_mode="time", cursor=15.0, time_ref=loss)
    with_loss = compose("loss/mean", [loss], view, 60, 10)
    with_eval = compose("eval/reward", [evals], view, 60, 10)
    assert "".join(t for t, _ in with_loss[-1]) == "".join(t for t, _ in with_eval[-1])  # one x axis
    assert _cursor_columns(with_loss) and _cursor_columns(with_loss) == _cursor_columns(with_eval)


def _labels(series: Series) -> list[str]:
    text = "\n".join("".join(t for t, _ in row) for row in compose(series.name, [series], ChartView(), 60, 12))
    return [line[:8].strip() for line in text.splitlines()[1:-1] if line[:8].strip()]


def test_a_loss_or_perplexity_axis_never_goes_below_zero():
    """Issue 41, finding 11: the margin around a loss falling to near zero took its axis below zero."""
    loss = _series("loss/mean", range(1, 101), np.linspace(10.0, 0.01, 100))
    labels = _labels(loss)
    assert float(labels[-1]) == 0.0, labels  # the bottom of the axis is zero, not -0.4
    assert all(float(label) >= 0 for label in labels)
    ppl = _series("perplexity", range(1, 11), np.linspace(0.0, 40.0, 10))
    assert all(float(label) >= 0 for label in _labels(ppl))


def test_values_below_zero_keep_their_margin_on_both_sides():
    s = _series("advantage", range(1, 11), np.linspace(-2.0, 3.0, 10))
    labels = _labels(s)
    assert float(labels[-1]) < -2.0 and float(labels[0]) > 3.0, labels  # padded below the lowest, above the highest
    neg = _series("kl", range(1, 11), np.linspace(-5.0, -0.1, 10))
    assert float(_labels(neg)[0]) == 0.0  # all below zero: the margin stops at zero on top
