"""Rasterise decimated series into a character grid: braille, block (quadrants) or ASCII.

Output is plain: one string per row plus a layer number per cell (which series, the cursor, a
marker), so the UI maps layers to theme colours and this module stays testable without a
terminal. Everything is numpy over the dot grid; no per-point Python.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from primetui.monitor_core.metrics import Columns

BRAILLE, BLOCK, ASCII = "braille", "block", "ascii"
MODES = (BRAILLE, BLOCK, ASCII)
# Dots per cell (columns, rows) for each mode.
CELL = {BRAILLE: (2, 4), BLOCK: (2, 2), ASCII: (1, 1)}

_BRAILLE_BITS = np.array([[0x01, 0x08], [0x02, 0x10], [0x04, 0x20], [0x40, 0x80]], dtype=np.int64)
_BLOCK_BITS = np.array([[1, 2], [4, 8]], dtype=np.int64)
_BLOCK_CHARS = np.array(list(" ▘▝▀▖▌▞▛▗▚▐▜▄▙▟█"))
_BRAILLE_CHARS = np.array([" "] + [chr(0x2800 + code) for code in range(1, 256)])

# Layer numbers: 0 empty, 1..N series (by index + 1), then these, far above any count of series
# (compare overlays any number of runs, two layers each with smoothing).
CURSOR = 1 << 20
NAN_MARK = CURSOR + 1
MARKER = CURSOR + 2


@dataclass(slots=True)
class Raster:
    """A drawn plot area: ``rows[i]`` is the text of row i; ``layers[i, j]`` who owns cell j."""

    rows: list[str]
    layers: np.ndarray


def _dot_spans(c: Columns, y0: float, y1: float, dot_rows: int, log: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per bucket: dot column, top dot row, bottom dot row (joined to the previous bucket)."""
    lo, hi, first, last = c.lo, c.hi, c.first, c.last
    if log:
        with np.errstate(divide="ignore", invalid="ignore"):
            lo, hi, first, last = (np.log10(np.where(a > 0, a, np.nan)) for a in (lo, hi, first, last))
        ok = np.isfinite(lo) & np.isfinite(hi)
        cols, lo, hi, first, last = c.cols[ok], lo[ok], hi[ok], first[ok], last[ok]
    else:
        cols = c.cols
    if len(cols) == 0:
        e = np.empty(0, dtype=np.int64)
        return e, e, e
    if len(cols) > 1 and cols[-1] - cols[0] + 1 > len(cols):
        # Sparse data (fewer points than columns): draw straight segments between points by
        # filling the empty columns with the interpolated value.
        full = np.arange(cols[0], cols[-1] + 1)
        pos = np.searchsorted(cols, full)
        has = (pos < len(cols)) & (cols[np.minimum(pos, len(cols) - 1)] == full)
        mid = np.interp(full, cols, (first + last) / 2)
        idx = np.minimum(pos, len(cols) - 1)
        lo = np.where(has, lo[idx], mid)
        hi = np.where(has, hi[idx], mid)
        first = np.where(has, first[idx], mid)
        last = np.where(has, last[idx], mid)
        cols = full
    # Join each bucket to the previous one's last value so the line is continuous.
    prev_last = np.concatenate(([first[0]], last[:-1]))
    top_v = np.maximum(hi, prev_last)
    bot_v = np.minimum(lo, prev_last)
    span = (y1 - y0) or 1.0
    scale = (dot_rows - 1) / span
    top = np.clip(np.rint((y1 - top_v) * scale), 0, dot_rows - 1).astype(np.int64)
    bot = np.clip(np.rint((y1 - bot_v) * scale), 0, dot_rows - 1).astype(np.int64)
    return cols, top, bot


def rasterise(
    width: int,
    height: int,
    series: list[Columns],
    y0: float,
    y1: float,
    mode: str = BRAILLE,
    log: bool = False,
    cursor_col: int | None = None,
    nan_cols: np.ndarray | None = None,
    marker_cols: list[int] | None = None,
) -> Raster:
    """Draw series (already decimated to ``width * dots-per-cell`` columns) into a grid.

    Later series draw over earlier ones (pass raw first, smoothed last). ``cursor_col`` and
    ``nan_cols`` and ``marker_cols`` (eval steps: dotted verticals) are in dot columns, like
    the buckets.
    """
    cw, ch = CELL[mode]
    dot_w, dot_h = width * cw, height * ch
    layers = np.zeros((height, width), dtype=np.int64)
    codes = np.zeros((height, width), dtype=np.int64)
    rows_idx = np.arange(dot_h)[:, None]
    for n, c in enumerate(series):
        cols, top, bot = _dot_spans(c, y0, y1, dot_h, log)
        if len(cols) == 0:
            continue
        inside = cols < dot_w
        cols, top, bot = cols[inside], top[inside], bot[inside]
        mask = (rows_idx >= top[None, :]) & (rows_idx <= bot[None, :])  # (dot_h, k)
        dots = np.zeros((dot_h, dot_w), dtype=bool)
        dots[:, cols] = mask
        grid = dots.reshape(height, ch, width, cw)
        if mode == BRAILLE:
            cell = np.einsum("hrwc,rc->hw", grid.astype(np.int64), _BRAILLE_BITS)
        elif mode == BLOCK:
            cell = np.einsum("hrwc,rc->hw", grid.astype(np.int64), _BLOCK_BITS)
        else:
            cell = grid.reshape(height, width).astype(np.int64)
        hit = cell > 0
        layers[hit] = n + 1
        codes |= cell
    if mode == BRAILLE:
        chars = _BRAILLE_CHARS[codes]
    elif mode == BLOCK:
        chars = _BLOCK_CHARS[codes]
    else:
        chars = np.where(codes > 0, "•", " ")
    if nan_cols is not None and len(nan_cols):
        cells = np.unique(np.asarray(nan_cols) // cw)
        cells = cells[cells < width]
        chars[height - 1, cells] = "×"
        layers[height - 1, cells] = NAN_MARK
    for mc in marker_cols or []:
        j = mc // cw
        if 0 <= j < width:
            empty = layers[:, j] == 0
            chars[empty, j] = "┊"
            layers[empty, j] = MARKER
    if cursor_col is not None and 0 <= cursor_col // cw < width:
        j = cursor_col // cw
        empty = layers[:, j] == 0
        chars[empty, j] = "│"
        layers[empty, j] = CURSOR
    return Raster(["".join(row) for row in chars.tolist()], layers)
