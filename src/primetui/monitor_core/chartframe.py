"""Compose one chart (title, y labels, plot, x axis, markers, cursor) as rows of styled spans.

Pure: a row is a list of ``(text, style_key)``; the UI maps style keys to theme styles.
Style keys: ``title``, ``value``, ``muted``, ``axis``, ``warn``, ``error``, ``marker``,
``cursor``, ``s1``.. (series by index + 1), ``nan``.
"""

from __future__ import annotations

import math
import time as _time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from primetui.monitor_core.canvas import CELL, CURSOR, MARKER, NAN_MARK, rasterise
from primetui.monitor_core.metrics import Columns, Series, decimate
from primetui.monitor_core.numbers import fit_number

Span = tuple[str, str]
Row = list[Span]

STEP, TIME, TOKENS = "step", "time", "tokens"  # with TOKENS, a series' ``times`` hold its tokens seen
LABEL_W = 9


@dataclass(slots=True)
class ChartView:
    """How every chart in a grid is drawn (shared, so the cursor and zoom apply to all)."""

    smoothing: float = 0.0  # EMA weight, 0 = off
    log_y: bool = False
    x_mode: str = STEP
    zoom: tuple[float, float] | None = None  # step range, None = everything
    domain: tuple[float, float] | None = None  # step range of the whole grid (shared x axis)
    cursor: float | None = None  # a step
    mode: str = "braille"
    stale_after: float = 120.0  # seconds without a new point while the run is live
    live: bool = False
    now: float | None = None  # fixed clock for snapshots
    eval_steps: list[float] = field(default_factory=list)
    anomaly_steps: list[float] = field(default_factory=list)  # drawn as "!" on the x axis
    # On the wall-time axis, the series every chart maps steps to times with and takes its range
    # from (the run's longest): a sparse eval chart then shares the loss chart's range and cursor.
    time_ref: Series | None = None


def fmt_value(v: float) -> str:
    """Compact number: 4 significant digits, scientific for tiny or huge values."""
    if v != v:
        return "NaN"
    if math.isinf(v):
        return "+Inf" if v > 0 else "-Inf"
    a = abs(v)
    if a != 0 and (a < 1e-3 or a >= 1e6):
        return f"{v:.2e}"
    if a >= 1000:
        return f"{v:,.0f}"
    return f"{v:.4g}"


def fmt_step(s: float) -> str:
    return f"{int(s):,}" if s == int(s) else f"{s:.1f}"


def fmt_count(n: float) -> str:
    """A token count: ``0``, ``950``, ``16.4k``, ``1.31M``, ``2.1G``."""
    if n != n:
        return "?"
    for limit, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(n) >= limit:
            return f"{n / limit:.3g}{suffix}"
    return f"{n:.0f}"


def value_at_x(series: Series, x: float) -> float | None:
    """The series' value at the last point at or before ``x`` on the non-step axis (its ``times``)."""
    xs = series.times
    i = int(np.searchsorted(xs, x, side="right")) - 1
    return float(series.values[i]) if 0 <= i < len(series) else None


def fmt_clock(t: float) -> str:
    if t != t:
        return "?"
    return _time.strftime("%H:%M:%S", _time.localtime(t))


def fmt_age(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f}s"
    if seconds < 5400:
        return f"{seconds / 60:.0f}m"
    return f"{seconds / 3600:.1f}h"


def _x_of(series: Series, view: ChartView) -> np.ndarray:
    return series.steps if view.x_mode == STEP else series.times


def _step_to_x(series: Series, step: float, view: ChartView) -> float | None:
    if view.x_mode == STEP:
        return step
    if view.x_mode == TIME and view.time_ref is not None and len(view.time_ref):
        series = view.time_ref
    hit = series.value_at(step)
    if hit is None:
        return None
    i = int(np.searchsorted(series.steps, hit[0]))
    return float(series.times[i]) if i < len(series.times) else None


def x_range(series: list[Series], view: ChartView) -> tuple[float, float] | None:
    """The x interval shown: the zoom (in steps, mapped to time when x is wall time) or all data."""
    xs = [_x_of(s, view) for s in series if len(s)]
    # Steps are always finite; wall times may be missing (NaN) and are filtered then only.
    xs = [x if view.x_mode == STEP or (np.isfinite(x[0]) and np.isfinite(x[-1])) else x[np.isfinite(x)] for x in xs]
    xs = [x for x in xs if len(x)]
    if not xs:
        return None
    lo = min(float(x[0]) for x in xs)
    hi = max(float(x[-1]) for x in xs)
    time_ref = view.time_ref if view.x_mode == TIME else None
    ref_times = time_ref.times if time_ref is not None else None
    if ref_times is not None and np.isfinite(ref_times).any():
        lo, hi = min(lo, float(np.nanmin(ref_times))), max(hi, float(np.nanmax(ref_times)))
    window = view.zoom or (view.domain if view.x_mode == STEP else None)
    if window is not None:
        ref = time_ref if time_ref is not None and len(time_ref) else max(series, key=len)
        zlo = _step_to_x(ref, window[0], view)
        zhi = _step_to_x(ref, window[1], view)
        if zlo is not None and zhi is not None and zhi > zlo:
            lo, hi = zlo, zhi
    if hi <= lo:
        hi = lo + 1
    return lo, hi


# One glyph per overlaid run, stamped along its curve: runs stay apart without colour. 15 shapes
# against the 8 run colours (RUN_COLOURS): 15 and 8 share no factor, so run n's (colour, glyph)
# pair (n % 8, n % 15) is its own for the first 120 runs, and its glyph alone for the first 15.
RUN_GLYPHS = ("●", "▲", "■", "◆", "+", "x", "*", "#", "○", "△", "□", "◇", "▼", "@", "%")
RUN_COLOURS = 8


def run_glyph(slot: int) -> str:
    """The glyph of the run in place ``slot`` (0-based) of a compare."""
    return RUN_GLYPHS[slot % len(RUN_GLYPHS)]


def run_colour(slot: int) -> int:
    """The colour (0-based, of RUN_COLOURS) of the run in place ``slot`` of a compare."""
    return slot % RUN_COLOURS


def _stamp_glyphs(
    raster: Any,
    series: list[Series],
    glyphs: list[str],
    view: ChartView,
    x0: float,
    x1: float,
    y_lo: float,
    y_hi: float,
    layer_of_series: dict[int, int],
) -> None:
    """Put series n's glyph on its curve every few cells (offset per run, so stamps do not collide)."""
    plot_h, plot_w = raster.layers.shape
    cw, ch = CELL[view.mode]
    ncols = plot_w * cw
    dot_rows = plot_h * ch
    spacing = max(6, plot_w // 5)
    rows = [list(r) for r in raster.rows]
    for n, s in enumerate(series):
        if n >= len(glyphs) or not len(s) or n not in layer_of_series:
            continue
        x = _x_of(s, view)
        ok = np.isfinite(x) & np.isfinite(s.values)
        if view.log_y:
            ok &= s.values > 0
        if not ok.any():
            continue
        xs, ys = x[ok], s.values[ok]
        for j in range(n * spacing // max(len(series), 1) + spacing // 2, plot_w, spacing):
            cx = x0 + (j * cw + (cw - 1) / 2) * (x1 - x0) / max(ncols - 1, 1)
            if cx < xs[0] or cx > xs[-1]:
                continue
            y = float(np.interp(cx, xs, ys))
            y = math.log10(y) if view.log_y else y
            dot = int(np.clip(np.rint((y_hi - y) * (dot_rows - 1) / ((y_hi - y_lo) or 1.0)), 0, dot_rows - 1))
            r = dot // ch  # the row the rasteriser drew this value in
            rows[r][j] = glyphs[n]
            raster.layers[r, j] = layer_of_series[n]
    raster.rows = ["".join(r) for r in rows]


@dataclass(slots=True)
class _Frame:
    """Where a chart's plot sits: its x range, its size in cells and dots, and its padded y range."""

    x0: float
    x1: float
    plot_w: int
    plot_h: int
    cw: int
    y_lo: float = 0.0
    y_hi: float = 1.0

    @property
    def ncols(self) -> int:
        return self.plot_w * self.cw

    def column_of(self, series: Series, step: float, view: ChartView) -> int | None:
        """The dot column of ``step`` on ``series``' x axis, or None when it falls outside the view."""
        x = _step_to_x(series, step, view)
        if x is None or not self.x0 <= x <= self.x1:
            return None
        return int((x - self.x0) * (self.ncols - 1) / (self.x1 - self.x0))


@dataclass(slots=True)
class _Decimated:
    """Every series decimated to the plot's columns, with what the title and the y axis need."""

    drawn: list[tuple[Columns, int]]
    nonfinite: int
    nan_cols: list[np.ndarray]
    y_lo: float
    y_hi: float


def _empty_chart(title: str, width: int, height: int) -> list[Row]:
    rows: list[Row] = [[(title[:width], "title")], [("no points yet".center(width)[:width], "muted")]]
    rows += [[(" " * width, "muted")] for _ in range(height - 2)]
    return rows[:height]


def _decimate_all(series: list[Series], view: ChartView, frame: _Frame) -> _Decimated:
    """Decimate each series (and its smoothed curve) and find the drawn y range."""
    out = _Decimated([], 0, [], math.inf, -math.inf)
    for n, s in enumerate(series):
        x = _x_of(s, view)
        ok = None if view.x_mode == STEP else np.isfinite(x)
        if ok is not None and ok.all():
            ok = None
        xs, ys = (x, s.values) if ok is None else (x[ok], s.values[ok])
        raw = decimate(xs, ys, frame.x0, frame.x1, frame.ncols, all_finite=s.nonfinite == 0)
        out.nonfinite += raw.nonfinite
        out.nan_cols.append(raw.nonfinite_cols)
        layers = [(raw, 2 * n + 1)]
        if view.smoothing > 0:
            sm = s.smoothed(view.smoothing)
            sm = sm if ok is None else sm[ok]
            layers.append((decimate(xs, sm, frame.x0, frame.x1, frame.ncols, all_finite=s.nonfinite == 0), 2 * n + 2))
        for cols, layer in layers:
            _widen_y(out, cols, view.log_y)
            out.drawn.append((cols, layer))
    return out


def _widen_y(out: _Decimated, cols: Columns, log_y: bool) -> None:
    lo, hi = cols.lo, cols.hi
    if log_y:
        lo, hi = lo[lo > 0], hi[hi > 0]
    if len(lo):
        out.y_lo = min(out.y_lo, float(lo.min()))
        out.y_hi = max(out.y_hi, float(hi.max()))


def _padded_y(y_lo: float, y_hi: float, log_y: bool) -> tuple[float, float]:
    """The y range with a margin (a flat line gets one around it), in log10 on a log axis."""
    if not math.isfinite(y_lo):
        y_lo, y_hi = (0.1, 1.0) if log_y else (0.0, 1.0)
    if log_y:
        y_lo, y_hi = math.log10(y_lo), math.log10(y_hi)
    if y_hi - y_lo < 1e-12:
        pad = abs(y_hi) * 0.05 or 0.5
    else:
        pad = (y_hi - y_lo) * 0.04
    lo, hi = y_lo - pad, y_hi + pad
    if not log_y and y_lo >= 0 > lo:
        lo = 0.0  # values that never go below zero (a loss, a perplexity): the margin stops at zero
    if not log_y and y_hi <= 0 < hi:
        hi = 0.0
    return lo, hi


def _cursor_values(series: list[Series], view: ChartView) -> list[tuple[str, float, float]]:
    """(name, step, value) of each series at the cursor, with the main series' EMA after it."""
    values: list[tuple[str, float, float]] = []
    if view.cursor is None:
        return values
    for n, s in enumerate(series):
        hit = s.value_at(view.cursor)
        if hit is None:
            continue
        values.append((s.name, hit[0], hit[1]))
        if view.smoothing > 0 and n == 0:
            i = int(np.searchsorted(s.steps, hit[0]))
            values.append(("ema", hit[0], float(s.smoothed(view.smoothing)[i])))
    return values


def _title_row(
    title: str, main: Series, view: ChartView, cursor_vals: list[tuple[str, float, float]], nonfinite: int, width: int
) -> Row:
    head: Row = [(title, "title")]
    head += _title_cursor(cursor_vals) if cursor_vals else _title_last(main, view)
    if nonfinite:
        head.append((f"  ⚠ {nonfinite} NaN/Inf", "error"))
    if view.live and len(main):
        now = view.now if view.now is not None else _time.time()
        t_last = float(np.nanmax(main.times)) if np.isfinite(main.times).any() else math.nan
        if t_last == t_last and now - t_last > view.stale_after:
            head.append((f"  stale {fmt_age(now - t_last)}", "warn"))
    if view.log_y:
        head.append(("  log", "muted"))
    return _fit(head, width)


def _title_cursor(cursor_vals: list[tuple[str, float, float]]) -> Row:
    _name, step, value = cursor_vals[0]
    spans: Row = [(f"  @ step {fmt_step(step)}: ", "muted"), (fmt_value(value), "value")]
    for extra_name, _, extra_value in cursor_vals[1:]:
        short = extra_name.split("/")[-1] if extra_name != "ema" else "ema"
        spans.append((f"  {short} {fmt_value(extra_value)}", "muted"))
    return spans


def _title_last(main: Series, view: ChartView) -> Row:
    last = main.last
    if last is None:
        return []
    spans: Row = [("  ", "muted"), (fmt_value(last[1]), "value"), (f" @ {fmt_step(last[0])}", "muted")]
    if view.smoothing > 0:
        spans.append((f"  ema {fmt_value(float(main.smoothed(view.smoothing)[-1]))}", "muted"))
    return spans


_LAYER_KEYS = {0: "muted", CURSOR: "cursor", NAN_MARK: "nan", MARKER: "marker"}


def _plot_rows(raster: Any, layer_of: dict[int, int], frame: _Frame, log_y: bool) -> list[Row]:
    """The plot's rows, each behind its y label (top, bottom and middle rows carry one)."""

    def ylabel(v: float) -> str:
        value = 10**v if log_y else v
        return fit_number(value, LABEL_W - 1, fmt_value(value))

    plot_h, plot_w = frame.plot_h, frame.plot_w
    label_rows = {0: ylabel(frame.y_hi), plot_h - 1: ylabel(frame.y_lo)}
    if plot_h >= 5:
        label_rows[(plot_h - 1) // 2] = ylabel((frame.y_hi + frame.y_lo) / 2)
    rows: list[Row] = []
    for r in range(plot_h):
        label = label_rows.get(r, "").rjust(LABEL_W - 1)[: LABEL_W - 1] + " "
        line: Row = [(label, "axis"), ("│" if r not in label_rows else "┤", "axis")]
        text = raster.rows[r]
        layers = raster.layers[r]
        # Runs of equal layer, found in numpy (no per-cell Python).
        cuts = np.flatnonzero(layers[1:] != layers[:-1]) + 1
        bounds = [0, *cuts.tolist(), plot_w]
        for a, b in zip(bounds, bounds[1:]):
            lay = int(layers[a])
            line.append((text[a:b], _LAYER_KEYS.get(lay) or f"s{layer_of.get(lay, 1)}"))
        rows.append(line)
    return rows


def _axis_marks(
    main: Series, view: ChartView, frame: _Frame, marker_cols: list[int], dotted: bool, cursor_col: int | None
) -> tuple[list[str], list[str]]:
    """The x axis' ticks: eval markers, anomaly "!" marks and the cursor, with their style keys."""
    plot_w, cw = frame.plot_w, frame.cw
    axis = [" "] * plot_w
    axis_keys = ["axis"] * plot_w
    for mc in marker_cols:
        c = mc // cw
        if 0 <= c < plot_w:
            axis[c] = "┴" if dotted else "▲"
            axis_keys[c] = "marker"
    for step in view.anomaly_steps:
        col = frame.column_of(main, step, view)
        if col is not None and 0 <= col // cw < plot_w:
            axis[col // cw], axis_keys[col // cw] = "!", "error"
    if cursor_col is not None and 0 <= cursor_col // cw < plot_w:
        c = cursor_col // cw
        axis[c] = "┴" if axis[c] == " " else axis[c]
        if axis_keys[c] == "axis":
            axis_keys[c] = "cursor"
    return axis, axis_keys


def _x_labels(x_mode: str, x0: float, x1: float) -> tuple[str, str, str]:
    """(left, right, middle) labels of the x axis."""
    if x_mode == TIME:
        return fmt_clock(x0), fmt_clock(x1), fmt_clock((x0 + x1) / 2)
    if x_mode == TOKENS:
        return fmt_count(x0), fmt_count(x1), fmt_count((x0 + x1) / 2)
    # Steps are whole numbers: every tick is one (a 10-step run reads 1 … 6 … 10, not 5.5).
    left, right = fmt_step(math.floor(x0)), fmt_step(math.ceil(x1))
    mid = fmt_step(round((x0 + x1) / 2))
    return left, right, "" if mid in (left, right) else mid


def _x_axis_row(axis: list[str], axis_keys: list[str], labels: tuple[str, str, str], plot_w: int) -> Row:
    left, right, mid = labels
    xrow: Row = [(" " * LABEL_W, "axis"), ("└", "axis")]
    text = [" "] * plot_w
    for pos, lab in ((0, left), (max(0, plot_w - len(right)), right), (max(0, plot_w // 2 - len(mid) // 2), mid)):
        if plot_w >= len(left) + len(right) + len(mid) + 4 or lab is not mid:
            for k, ch in enumerate(lab):
                if pos + k < plot_w:
                    text[pos + k] = ch
    # Labels win over ticks (the marks stay visible as dotted lines or ▲ elsewhere).
    # ...except anomaly marks: a "!" always shows where a run went wrong.
    merged_chars = [text[j] if text[j] != " " and axis[j] != "!" else axis[j] for j in range(plot_w)]
    merged_keys = ["axis" if text[j] != " " and axis[j] != "!" else axis_keys[j] for j in range(plot_w)]
    start = 0
    for j in range(1, plot_w + 1):
        if j == plot_w or merged_keys[j] != merged_keys[start]:
            xrow.append(("".join(merged_chars[start:j]), merged_keys[start]))
            start = j
    return xrow


def compose(
    title: str, series: list[Series], view: ChartView, width: int, height: int, glyphs: list[str] | None = None
) -> list[Row]:
    """Draw a chart of ``series`` (first one is the main metric) into ``height`` rows.

    ``glyphs``: one mark per series, stamped along its curve (compare's overlaid runs).
    """
    main = series[0] if series else None
    if main is None or len(main) == 0:
        return _empty_chart(title, width, height)
    xr = x_range(series, view)
    x0, x1 = xr if xr is not None else (0.0, 1.0)
    frame = _Frame(x0, x1, max(width - LABEL_W - 1, 4), max(height - 2, 1), CELL[view.mode][0])
    dec = _decimate_all(series, view, frame)
    frame.y_lo, frame.y_hi = _padded_y(dec.y_lo, dec.y_hi, view.log_y)
    cursor_col = frame.column_of(main, view.cursor, view) if view.cursor is not None else None

    # Draw raw (dim) first, smoothed on top: order layers so later ones win.
    order = sorted(dec.drawn, key=lambda d: d[1])
    nan_cols = dec.nan_cols
    all_nan = np.unique(np.concatenate(nan_cols)) if nan_cols and any(len(c) for c in nan_cols) else None
    marker_cols = [c for c in (frame.column_of(main, s, view) for s in view.eval_steps) if c is not None]
    dotted = len(marker_cols) <= max(frame.plot_w // 6, 1)
    raster = rasterise(
        frame.plot_w,
        frame.plot_h,
        [c for c, _ in order],
        frame.y_lo,
        frame.y_hi,
        view.mode,
        view.log_y,
        cursor_col,
        all_nan,
        marker_cols if dotted else None,
    )
    layer_of = {i + 1: layer for i, (_, layer) in enumerate(order)}
    if glyphs:
        raw_layer = {(layer - 1) // 2: i + 1 for i, (_, layer) in enumerate(order) if layer % 2 == 1}
        _stamp_glyphs(raster, series, glyphs, view, x0, x1, frame.y_lo, frame.y_hi, raw_layer)

    rows = [_title_row(title, main, view, _cursor_values(series, view), dec.nonfinite, width)]
    rows += _plot_rows(raster, layer_of, frame, view.log_y)
    axis, axis_keys = _axis_marks(main, view, frame, marker_cols, dotted, cursor_col)
    rows.append(_x_axis_row(axis, axis_keys, _x_labels(view.x_mode, x0, x1), frame.plot_w))
    return rows[:height]


def step_by(series: list[Series], cursor: float | None, n: int, lo: float, hi: float) -> float | None:
    """The step ``n`` recorded steps after ``cursor`` (before it when ``n`` < 0) within [lo, hi].

    Steps any series has, so the cursor lands on every step in turn, whatever the chart's width.
    With no cursor: the last visible step going left, the first going right.
    """
    arrays = [s.steps for s in series if len(s)]
    if not arrays:
        return None
    steps = np.unique(np.concatenate(arrays))
    steps = steps[(steps >= lo) & (steps <= hi)]
    if not len(steps):
        return None
    if cursor is None:
        return float(steps[-1] if n < 0 else steps[0])
    if n > 0:
        i = int(np.searchsorted(steps, cursor, side="right")) + n - 1
    else:
        i = int(np.searchsorted(steps, cursor, side="left")) + n
    return float(steps[max(0, min(len(steps) - 1, i))])


def step_at(series: list[Series], view: ChartView, width: int, cell: int) -> float | None:
    """The step under plot cell ``cell`` (0 = first plot column) of a chart ``width`` cells wide."""
    main = max(series, key=len) if series else None
    if main is None or not len(main):
        return None
    xr = x_range(series, view)
    if xr is None:
        return None
    x0, x1 = xr
    plot_w = max(width - LABEL_W - 1, 4)
    if not 0 <= cell < plot_w:
        return None
    cw, _ = CELL[view.mode]
    ncols = plot_w * cw
    x = x0 + (cell * cw + (cw - 1) / 2) * (x1 - x0) / max(ncols - 1, 1)
    if view.x_mode == STEP:
        return float(round(x))
    times = main.times
    ok = np.isfinite(times)
    if not ok.any():
        return None
    i = int(np.argmin(np.abs(np.where(ok, times, np.inf) - x)))
    return float(main.steps[i])


def _fit(row: Row, width: int) -> Row:
    out: Row = []
    used = 0
    for text, key in row:
        if used >= width:
            break
        piece = text[: width - used]
        out.append((piece, key))
        used += len(piece)
    return out
