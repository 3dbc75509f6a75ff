"""What the Distributions tab and ``primetui distributions`` show: histograms, their stats, a heat strip.

- :func:`hist_stats`: count, mean, median, min and max of one histogram (the platform's own
  ``stats`` when sent, else estimated from the bins: bin centres for the mean, interpolation inside
  the median's bin, the outer edges of the non-empty bins for min and max; ``estimated`` says so).
- :func:`bar_rows`: one text row per bin with a bar, optionally a second step's bar beside it
  (the overlay of two steps).
- :func:`heat_strip`: every step's histogram rebinned onto common edges, one column per step (x)
  and one row per bin (y), each cell the share of that step's values in that bin, so a drift or a
  collapse shows as the bright band moving or narrowing.

No textual, no rich: rows are plain strings and numbers; the screens colour them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

SHADES = " ░▒▓█"
"""Heat strip cells, from no values to the most of any cell."""

BAR_FULL = "█"
"""A histogram's bar."""
OVERLAY_FIRST, OVERLAY_SECOND = "▀", "▄"
"""In an overlay, the cursor step's bar is the upper half of a row, the overlaid step's the lower half."""

_EIGHTHS = " ▏▎▍▌▋▊▉"


@dataclass(frozen=True)
class HistStats:
    count: float
    mean: float | None
    median: float | None
    min: float | None
    max: float | None
    estimated: bool
    """True when the numbers come from the bins, not from the platform's stats."""

    def to_json(self) -> dict[str, Any]:
        return {
            "count": self.count,
            "mean": self.mean,
            "median": self.median,
            "min": self.min,
            "max": self.max,
            "estimated": self.estimated,
        }


def _from_bins(bins: Sequence[Any]) -> tuple[float | None, float | None, float | None, float | None]:
    total = sum(b.count for b in bins)
    if total <= 0:
        return None, None, None, None
    mean = sum((b.start + b.end) / 2 * b.count for b in bins) / total
    half, seen, median = total / 2, 0.0, None
    for b in bins:
        if b.count and seen + b.count >= half:
            median = b.start + (b.end - b.start) * (half - seen) / b.count
            break
        seen += b.count
    filled = [b for b in bins if b.count > 0]
    return mean, median, filled[0].start, filled[-1].end


def hist_stats(dist: Any) -> HistStats:
    """Stats of one histogram (see the module docstring)."""
    bins = list(dist.bins)
    mean, median, low, high = _from_bins(bins)
    stats = dist.stats
    if stats is None:
        return HistStats(dist.total, mean, median, low, high, True)
    return HistStats(
        stats.total if stats.total is not None else dist.total,
        stats.mean if stats.mean is not None else mean,
        stats.median if stats.median is not None else median,
        stats.min if stats.min is not None else low,
        stats.max if stats.max is not None else high,
        any(v is None for v in (stats.mean, stats.median, stats.min, stats.max)),
    )


def stats_line(step: Any, stats: HistStats) -> str:
    """``Step 17  n 128 · mean 0.917 · median 0.925 · min 0.100 · max 1.000`` (``· from bins`` when estimated)."""

    def num(value: float | None) -> str:
        return "-" if value is None else f"{value:.3f}"

    return (
        f"Step {step}  n {stats.count:g} · mean {num(stats.mean)} · median {num(stats.median)} · "
        f"min {num(stats.min)} · max {num(stats.max)}" + (" · from bins" if stats.estimated else "")
    )


def fmt_edge(value: float) -> str:
    return f"{value:+.2f}" if value < 0 else f"{value:.2f}"


def _bar(count: float, most: float, width: int, glyph: str) -> str:
    if most <= 0 or width <= 0 or count <= 0:
        return ""
    cells = count / most * width
    whole = int(cells)
    part = _EIGHTHS[int((cells - whole) * 8)] if whole < width else ""
    return (glyph * whole + part.strip())[:width] or "▏"


@dataclass(frozen=True)
class BarRow:
    label: str
    bar: str
    count: float
    other_bar: str = ""
    other_count: float | None = None


def common_edges(dists: Sequence[Any], nbins: int | None = None) -> list[float]:
    """Edges that cover every histogram given: the union of their edges when they agree, else
    ``nbins`` equal bins over their whole range."""
    with_bins = [d for d in dists if d.bins]
    if not with_bins:
        return []
    first = [(b.start, b.end) for b in with_bins[0].bins]
    if nbins is None and all([(b.start, b.end) for b in d.bins] == first for d in with_bins):
        return [first[0][0]] + [end for _, end in first]
    low = min(d.bins[0].start for d in with_bins)
    high = max(d.bins[-1].end for d in with_bins)
    n = nbins or max(len(d.bins) for d in with_bins)
    if high <= low:
        high = low + 1.0
    return [low + (high - low) * i / n for i in range(n + 1)]


def rebin(dist: Any, edges: Sequence[float]) -> list[float]:
    """``dist``'s counts on ``edges``: each bin's count spread over the new bins it overlaps."""
    out = [0.0] * max(len(edges) - 1, 0)
    for b in dist.bins:
        width = b.end - b.start
        for i in range(len(out)):
            lo, hi = max(b.start, edges[i]), min(b.end, edges[i + 1])
            if width <= 0:
                if edges[i] <= b.start < edges[i + 1] or (i == len(out) - 1 and b.start == edges[-1]):
                    out[i] += b.count
                    break
            elif hi > lo:
                out[i] += b.count * (hi - lo) / width
    return out


def pair_bar(count: float, other: float, most: float, width: int) -> str:
    """Two bars in one row of cells: ``▀`` where only the first reaches, ``▄`` only the second, ``█`` both."""
    if most <= 0 or width <= 0:
        return ""
    a = round(count / most * width) if count > 0 else 0
    b = round(other / most * width) if other > 0 else 0
    a, b = (max(a, 1) if count > 0 else 0), (max(b, 1) if other > 0 else 0)
    return "".join("█" if x < a and x < b else "▀" if x < a else "▄" for x in range(max(a, b)))


def bar_rows(dist: Any, width: int, other: Any | None = None, nbins: int | None = None) -> list[BarRow]:
    """A row per bin of ``dist`` (on the common edges of both when ``other`` is overlaid; ``nbins`` equal
    bins when given), lowest bin first. With ``other``, ``bar`` holds both bars (:func:`pair_bar`)."""
    edges = common_edges([dist] if other is None else [dist, other], nbins)
    counts = rebin(dist, edges)
    others = rebin(other, edges) if other is not None else None
    most = max(counts + (others or []) + [0.0])
    rows = []
    for i, count in enumerate(counts):
        label = f"{fmt_edge(edges[i])}–{fmt_edge(edges[i + 1])}"
        if others is None:
            rows.append(BarRow(label, _bar(count, most, width, BAR_FULL), count))
        else:
            rows.append(BarRow(label, pair_bar(count, others[i], most, width), count, "", others[i]))
    return rows


@dataclass(frozen=True)
class HeatStrip:
    steps: list[int]
    """The step of each column, left to right."""
    edges: list[float]
    """Bin edges, low to high (rows are drawn high bin on top)."""
    cells: list[list[float]]
    """``cells[row][col]``: the share of the column's values in that bin, row 0 the lowest bin."""

    def shade(self, row: int, col: int) -> str:
        top = max((max(r) for r in self.cells if r), default=0.0)
        value = self.cells[row][col]
        if value <= 0 or top <= 0:
            return SHADES[0]
        return SHADES[max(1, min(len(SHADES) - 1, math.ceil(value / top * (len(SHADES) - 1))))]

    def lines(self, scale: int = 1) -> list[str]:
        """The strip as text, the highest bin first; each step ``scale`` cells wide."""
        return [
            "".join(self.shade(r, c) * scale for c in range(len(self.steps))) for r in reversed(range(len(self.cells)))
        ]


def pick_columns(steps: Sequence[int], cols: int) -> list[int]:
    """At most ``cols`` steps, evenly spread, the first and the last kept."""
    ordered = sorted(set(steps))
    if cols <= 0:
        return []
    if len(ordered) <= cols:
        return ordered
    if cols == 1:
        return [ordered[-1]]
    return sorted({ordered[round(i * (len(ordered) - 1) / (cols - 1))] for i in range(cols)})


def heat_strip(dists: Mapping[int, Any], cols: int, nbins: int | None = None) -> HeatStrip:
    """Every step's histogram as one column (see the module docstring); at most ``cols`` columns."""
    steps = pick_columns([s for s, d in dists.items() if d.bins], cols)
    chosen = [dists[s] for s in steps]
    edges = common_edges(chosen, nbins)
    if not steps or len(edges) < 2:
        return HeatStrip([], [], [])
    columns = []
    for dist in chosen:
        counts = rebin(dist, edges)
        total = sum(counts)
        columns.append([c / total if total else 0.0 for c in counts])
    cells = [[columns[c][r] for c in range(len(steps))] for r in range(len(edges) - 1)]
    return HeatStrip(steps, edges, cells)


def distribution_json(dist: Any) -> dict[str, Any]:
    """A histogram for ``--json``: type, step, bins and stats."""
    return {
        "type": dist.type,
        "step": dist.step,
        "bins": [{"start": b.start, "end": b.end, "count": b.count} for b in dist.bins],
        "stats": hist_stats(dist).to_json(),
    }
