"""Compare past 8 runs (issue 41, finding 7): 12 real runs of a sweep on the local platform.

On the compare screen every run has its own (colour, glyph) pair and its number in the legend, and
run 11 (no digit key) is hidden from the legend's cursor. ``primetui compare … --once`` of the same
12 runs draws each with its own marker and prints a legend of 12 entries.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from dash_helpers import dispatch_lr_sweep, make_app
from test_dashboard_headless import run_cli

from primetui.ui.screens.compare import CompareScreen
from tests.waiting import quiet, until

pytestmark = [pytest.mark.slow, pytest.mark.timeout(400)]

LRS = ["1e-6", "2e-6", "5e-6", "1e-5", "2e-5", "5e-5", "1e-4", "2e-4", "5e-4", "1e-3", "2e-3", "5e-3"]
_SWEEPS: dict[str, list[tuple[str, str]]] = {}  # one 12-run sweep per platform, shared by the tests here


async def twelve_runs(lp, tmp_path: Path) -> list[tuple[str, str]]:
    """(run id, name) of a 12-point learning-rate sweep, dispatched once and COMPLETED."""
    if lp.base_url in _SWEEPS:
        return _SWEEPS[lp.base_url]
    runs = await dispatch_lr_sweep(
        lp, tmp_path, LRS, "cmp12", max_steps=3, data={"seq_len": 256, "batch_size": 4}, limit=300
    )
    _SWEEPS[lp.base_url] = runs
    return runs


async def test_twelve_runs_each_have_a_colour_and_glyph_pair_a_legend_number_and_hide(local_platform, tmp_path):
    runs = await twelve_runs(local_platform, tmp_path)
    ids = [run_id for run_id, _ in runs]
    app = make_app(local_platform)
    async with app.run_test(size=(160, 48)) as pilot:
        await app.push_screen(CompareScreen(ids))
        await until(
            pilot,
            lambda: getattr(app.screen, "data", None) is not None and "loss/mean" in app.screen.charts,
            "the 12 runs compared",
        )
        screen = app.screen
        chart = screen.charts["loss/mean"]
        assert [s.name for s in chart.series] == ids
        glyphs = list(chart.glyphs)
        pairs = {(chart.series_style_key(n), glyphs[n]) for n in range(12)}
        assert len(pairs) == 12, sorted(pairs)  # runs 9-12 no longer repeat runs 1-4
        legend = screen.query_one("#compare-legend")
        assert [e.number for e in legend.entries] == list(range(1, 13))
        assert [e.glyph for e in legend.entries] == glyphs
        drawn = str(legend.render())
        for n, (_, name) in enumerate(runs):
            assert f"{n + 1} {glyphs[n]} {name}" in drawn, drawn
        await quiet(pilot)

        await pilot.press("L", *["right"] * 10, "space")  # run 11 has no digit key: the legend's cursor hides it
        await until(pilot, lambda: len(screen.charts["loss/mean"].series) == 11, "run 11 hidden")
        assert ids[10] not in [s.name for s in screen.charts["loss/mean"].series]
        assert f"11 {glyphs[10]} {runs[10][1]} (hidden)" in str(legend.render())
        await pilot.press("space")
        await until(pilot, lambda: len(screen.charts["loss/mean"].series) == 12, "run 11 shown again")
        await pilot.press("9")  # the digit keys reach run 9 now
        await until(pilot, lambda: ids[8] not in [s.name for s in screen.charts["loss/mean"].series], "run 9 hidden")
        await pilot.press("L", "a")
        await until(pilot, lambda: len(screen.charts["loss/mean"].series) == 12, "every run shown (a)")


async def test_headless_compare_of_twelve_runs_has_a_legend_of_twelve(local_platform, tmp_path):
    runs = await twelve_runs(local_platform, tmp_path)
    env = {"PRIME_BASE_URL": local_platform.base_url, "PRIME_API_KEY": local_platform.token}
    out = run_cli(["compare", *[run_id for run_id, _ in runs], "--once"], env, tmp_path)
    assert out.returncode == 0, out.stderr
    text = out.stdout
    chart, legend = text.split("  Legend\n", 1)
    entries = re.findall(r"^ +(\d+) (\S) (\S+) \((\S+)\)$", legend, re.MULTILINE)
    assert [int(n) for n, *_ in entries] == list(range(1, 13))
    assert [(run_id, name) for _, _, run_id, name in entries] == runs
    markers = [m for _, m, _, _ in entries]
    assert len(set(markers)) == 12  # one marker for each run, none reused
    assert "┤" in chart and markers[-1] in chart.split("loss/mean", 1)[1]  # the last drawn is on top
