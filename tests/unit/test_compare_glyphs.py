"""Compare beyond 8 runs (issue 41, finding 7): each run's (colour, glyph) pair, the headless markers,
and the chart layers of many overlaid runs."""

from __future__ import annotations

import numpy as np

from primetui.commands.chart import overlay_marker
from primetui.monitor_core.chartframe import RUN_GLYPHS, ChartView, compose, run_colour, run_glyph
from primetui.monitor_core.metrics import Series


def test_no_two_of_the_first_120_runs_share_a_colour_and_glyph_pair():
    pairs = [(run_colour(n), run_glyph(n)) for n in range(120)]
    assert len(set(pairs)) == 120
    assert len({run_glyph(n) for n in range(15)}) == 15  # without colour, 15 runs are told apart by glyph
    assert (run_colour(8), run_glyph(8)) == (run_colour(0), "○")  # run 9: run 1's colour, a hollow circle


def test_headless_markers_are_the_screen_glyphs_then_letters_40_before_one_repeats():
    markers = [overlay_marker(n) for n in range(40)]
    assert len(set(markers)) == 40 and markers[:15] == list(RUN_GLYPHS) and markers[15] == "a"
    assert overlay_marker(40) == markers[0]
    assert all(len(m) == 1 for m in markers)  # one cell each, as plotext draws a marker


def test_twelve_smoothed_runs_are_drawn_as_runs_never_as_the_cursor_or_a_marker():
    # Two layers a run with smoothing: 24 layers, past the numbers the cursor, NaN and eval marks had.
    series = []
    for n in range(12):
        s = Series(f"run{n}")
        steps = np.arange(1, 41, dtype=np.float64)
        s.extend(steps, 1.0 + 0.2 * n + 4.0 * np.exp(-(0.02 + 0.01 * n) * steps), steps)
        series.append(s)
    rows = compose("loss/mean", series, ChartView(smoothing=0.5), 100, 20, [run_glyph(n) for n in range(12)])
    keys = {key for row in rows for _, key in row}
    assert not keys & {"cursor", "nan", "marker"}, keys
    assert {f"s{2 * n + 2}" for n in range(10, 12)} <= keys  # runs 11 and 12's smoothed curves are their own
