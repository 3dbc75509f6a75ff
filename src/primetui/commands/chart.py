"""Charts as plain text for terminals that cannot run the dashboard (an SSH one-liner, a CI log).

plotext draws; the colour codes are stripped so the text survives pipes, ``less`` and log
collectors. No textual or rich import.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from primetui.monitor_core.chartframe import RUN_GLYPHS

WIDTH = 72
HEIGHT = 16
# Without colour, runs overlaid on one chart are told apart by their marker alone: the compare
# screen's glyphs (the same run, the same mark), then letters (x is a glyph already), so 40 runs
# each have their own.
OVERLAY_MARKERS = RUN_GLYPHS + tuple(c for c in "abcdefghijklmnopqrstuvwxyz" if c not in RUN_GLYPHS)


def overlay_marker(slot: int) -> str:
    """The marker of the run in place ``slot`` (0-based) of an overlay."""
    return OVERLAY_MARKERS[slot % len(OVERLAY_MARKERS)]


def _finite(xs: Sequence[float], ys: Sequence[float]) -> tuple[list[float], list[float]]:
    pairs = [(float(x), float(y)) for x, y in zip(xs, ys) if isinstance(y, (int, float)) and math.isfinite(y)]
    return [p[0] for p in pairs], [p[1] for p in pairs]


def _label(v: float) -> str:
    return f"{v:.4g}" if abs(v) < 1e5 else f"{v:.1e}"


def line_chart(
    series: Mapping[str, tuple[Sequence[float], Sequence[float]]],
    *,
    title: str,
    xlabel: str = "step",
    marks: Sequence[float] = (),
    width: int = WIDTH,
    height: int = HEIGHT,
    markers: Mapping[str, str] | None = None,
) -> str:
    """One chart of one or more (x, y) series; ``marks`` are x positions drawn as vertical lines
    (anomalies); ``markers`` gives each overlaid series its mark (the caller prints the legend).
    Log-Y when the values span more than three decades. '' when nothing is finite."""
    import plotext as plt

    clean = {name: _finite(xs, ys) for name, (xs, ys) in series.items()}
    clean = {name: xy for name, xy in clean.items() if xy[0]}
    if not clean:
        return ""
    plt.clear_figure()
    plt.theme("clear")
    plt.plotsize(width, height)
    every = [y for _, ys in clean.values() for y in ys]
    log_y = min(every) > 0 and max(every) / min(every) > 1e3
    if log_y:
        plt.yscale("log")
    for n, (name, (xs, ys)) in enumerate(clean.items()):
        marker = "hd" if len(clean) == 1 else (markers or {}).get(name) or overlay_marker(n)
        plt.plot(xs, ys, marker=marker)  # no plotext legend: it is cut or dropped when names are long
    for x in marks:
        plt.vline(x)
    lo, hi = min(every), max(every)
    ticks = [lo * (hi / lo) ** (i / 4) for i in range(5)] if log_y else [lo + (hi - lo) * i / 4 for i in range(5)]
    plt.yticks(ticks, [_label(t) for t in ticks])
    x0 = min(xs[0] for xs, _ in clean.values())
    x1 = max(xs[-1] for xs, _ in clean.values())
    if xlabel == "step":  # steps are whole numbers: no 2.5 ticks on short runs
        xt = sorted({round(x0 + (x1 - x0) * i / 5) for i in range(6)})
        plt.xticks(xt, [str(int(x)) for x in xt])
    plt.title(title + ("  (log Y)" if log_y else ""))
    plt.xlabel(xlabel)
    text = plt.uncolorize(plt.build())
    plt.clear_figure()
    return "\n".join(line.rstrip() for line in text.splitlines())
