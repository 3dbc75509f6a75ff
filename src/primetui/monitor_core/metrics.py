"""Metric columns, EMA smoothing and min/max-per-column decimation.

Rows arrive as prime-rl writes them (``{"step": N, "time": unix, "loss/mean": ..., ...}``,
several rows per step, each with some of the keys). Every key gets its own growable columns
(step, time, value) so a chart reads numpy arrays, never Python lists of dicts.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from primetui.monitor_core.finalloss import with_nan_loss


def ema(x: np.ndarray, weight: float, acc0: float = 0.0) -> np.ndarray:
    """``acc[t] = weight * acc[t-1] + (1 - weight) * x[t]`` with ``acc[-1] = acc0``, in numpy.

    The recurrence is solved in blocks of B points in closed form (a weighted cumsum per
    block, all blocks at once); only the carry between blocks (n / B of them) is a Python
    loop. B is chosen so ``weight ** -B`` stays below 1e8, which keeps float64 error under
    about 1e-8 relative: far below what a chart can show.
    """
    n = len(x)
    if n == 0:
        return np.empty(0)
    w = float(weight)
    if w <= 0:
        return x.astype(np.float64, copy=True)
    block = max(1, min(n, int(8 * math.log(10) / -math.log(w)))) if w < 1 else n
    nblocks = -(-n // block)
    padded = np.zeros(nblocks * block)
    padded[:n] = x
    m = padded.reshape(nblocks, block)
    j = np.arange(block)
    wj = w**j
    local = (1 - w) * wj * np.cumsum(m / wj, axis=1)  # each block started from 0
    carry_w = w ** (j + 1)
    wb = w**block
    ends = local[:, -1].tolist()
    carries = [0.0] * nblocks
    acc = acc0
    for b in range(nblocks):
        carries[b] = acc
        acc = wb * acc + ends[b]
    full: np.ndarray = local + np.asarray(carries)[:, None] * carry_w[None, :]
    return full.reshape(-1)[:n]


SERIES_KEEP = 8192
"""Points of a series kept exact (the newest); older ones are reduced by :meth:`Series.compact`."""
SERIES_BUCKETS = 1024
"""Buckets the older points are reduced to (at most three points each)."""


class Series:
    """One metric: parallel step / wall-time / value columns, kept sorted by step."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._step = np.empty(64, dtype=np.float64)
        self._time = np.empty(64, dtype=np.float64)
        self._value = np.empty(64, dtype=np.float64)
        self.n = 0
        self.nonfinite = 0  # NaN/Inf values held (lets a redraw skip the finiteness scan)
        self._sorted = True
        self._ema: dict[float, tuple[int, np.ndarray, float, int]] = {}
        self.version = 0

    def __len__(self) -> int:
        return self.n

    def append(self, step: float, value: float, time: float = math.nan) -> None:
        """Add one point (a repeated step replaces its value: a re-sent row, not a new point)."""
        n = self.n
        if not math.isfinite(value):
            self.nonfinite += 1
        if n and step == self._step[n - 1]:
            if not math.isfinite(self._value[n - 1]):
                self.nonfinite -= 1
            self._value[n - 1] = value
            self._time[n - 1] = time
            self._ema.clear()
            self.version += 1
            return
        if n == len(self._step):
            cap = 2 * n
            self._step = np.resize(self._step, cap)
            self._time = np.resize(self._time, cap)
            self._value = np.resize(self._value, cap)
        if n and step < self._step[n - 1]:
            self._sorted = False
        self._step[n] = step
        self._time[n] = time
        self._value[n] = value
        self.n = n + 1
        self.version += 1

    def extend(self, steps: np.ndarray, values: np.ndarray, times: np.ndarray | None = None) -> None:
        """Add many points at once (bulk load, benchmarks)."""
        k = len(steps)
        if times is None:
            times = np.full(k, math.nan)
        need = self.n + k
        if need > len(self._step):
            cap = max(need, 2 * len(self._step))
            self._step = np.resize(self._step, cap)
            self._time = np.resize(self._time, cap)
            self._value = np.resize(self._value, cap)
        if k and self.n and steps[0] < self._step[self.n - 1]:
            self._sorted = False
        if k > 1 and np.any(np.diff(steps) < 0):
            self._sorted = False
        self.nonfinite += int(k - np.count_nonzero(np.isfinite(values)))
        self._step[self.n : need] = steps
        self._time[self.n : need] = times
        self._value[self.n : need] = values
        self.n = need
        self.version += 1

    def compact(self, keep_last: int = SERIES_KEEP, buckets: int = SERIES_BUCKETS) -> bool:
        """Past its budget, reduce the points before the newest ``keep_last`` to at most three per bucket
        (its minimum, its maximum, its first NaN/inf), at their own steps; the newest stay exact.
        Returns whether it compacted (a store compacts in batches: a quarter of ``keep_last`` over)."""
        if self.n <= keep_last + 3 * buckets + keep_last // 4:
            return False
        self._ensure_sorted()
        cut = self.n - keep_last
        values = self._value[:cut]
        width = max(1, math.ceil(cut / buckets))
        keep: list[int] = []
        for start in range(0, cut, width):
            chunk = values[start : start + width]
            finite = np.isfinite(chunk)
            picks = set()
            if finite.any():
                idx = np.flatnonzero(finite)
                picks.add(int(idx[np.argmin(chunk[finite])]))
                picks.add(int(idx[np.argmax(chunk[finite])]))
            if not finite.all():
                picks.add(int(np.flatnonzero(~finite)[0]))
            keep.extend(start + i for i in sorted(picks))
        index = np.concatenate((np.asarray(keep, dtype=np.intp), np.arange(cut, self.n)))
        n = len(index)
        self._step[:n] = self._step[index]
        self._time[:n] = self._time[index]
        self._value[:n] = self._value[index]
        self.n = n
        self.nonfinite = int(n - np.count_nonzero(np.isfinite(self._value[:n])))
        self._ema.clear()
        self.version += 1
        return True

    def _ensure_sorted(self) -> None:
        if not self._sorted:
            order = np.argsort(self._step[: self.n], kind="stable")
            self._step[: self.n] = self._step[: self.n][order]
            self._time[: self.n] = self._time[: self.n][order]
            self._value[: self.n] = self._value[: self.n][order]
            self._sorted = True
            self._ema.clear()

    @property
    def steps(self) -> np.ndarray:
        self._ensure_sorted()
        return self._step[: self.n]

    @property
    def times(self) -> np.ndarray:
        self._ensure_sorted()
        return self._time[: self.n]

    @property
    def values(self) -> np.ndarray:
        self._ensure_sorted()
        return self._value[: self.n]

    def smoothed(self, weight: float) -> np.ndarray:
        """Debiased EMA of the values (TensorBoard's smoothing); cached, and extended in place
        as points arrive. Non-finite values do not move the average (they stay visible as
        NaN/Inf marks instead).
        """
        values = self.values
        if weight <= 0:
            return values
        cached = self._ema.get(weight)
        start, out, acc, count = (0, np.empty(0), 0.0, 0) if cached is None else cached
        if start == self.n:
            return out
        new = values[start:]
        finite = np.isfinite(new)
        xf = new[finite]
        accs = ema(xf, weight, acc)
        counts = count + np.arange(1, len(xf) + 1)
        debiased = accs / (1.0 - weight**counts) if len(xf) else accs
        # Non-finite points take the average as it stood before them.
        pos = np.cumsum(finite) - 1
        prev = out[start - 1] if start else math.nan
        seg = np.where(pos >= 0, debiased[np.maximum(pos, 0)] if len(xf) else math.nan, prev)
        out = np.concatenate((out[:start], seg))
        if len(xf):
            acc, count = float(accs[-1]), int(counts[-1])
        self._ema[weight] = (self.n, out, acc, count)
        return out

    def value_at(self, step: float) -> tuple[float, float] | None:
        """(step, value) of the last point at or before ``step``."""
        steps = self.steps
        i = int(np.searchsorted(steps, step, side="right")) - 1
        if i < 0:
            return None
        return float(steps[i]), float(self.values[i])

    @property
    def last(self) -> tuple[float, float] | None:
        if not self.n:
            return None
        return float(self.steps[-1]), float(self.values[-1])


class MetricTable:
    """All metrics of a run, by key."""

    def __init__(self) -> None:
        self.series: dict[str, Series] = {}
        self.last_step: float = -math.inf
        self.eval_steps: list[float] = []  # steps at which any eval/* metric was recorded

    def keys(self) -> list[str]:
        return sorted(self.series)

    def get(self, key: str) -> Series | None:
        return self.series.get(key)

    def add_rows(self, rows: Iterable[Mapping[str, object]]) -> set[str]:
        """Take prime-rl style rows; returns the keys that changed."""
        changed: set[str] = set()
        for row in rows:
            step = row.get("step")
            if not isinstance(step, (int, float)) or isinstance(step, bool):
                continue
            row = with_nan_loss(row)  # a NaN step the trainer wrote as a count: a NaN point, marked
            t = row.get("time")
            t = float(t) if isinstance(t, (int, float)) else math.nan
            has_eval = False
            for key, value in row.items():
                if key in ("step", "time") or isinstance(value, bool):
                    continue
                if isinstance(value, (int, float)):
                    v = float(value)
                elif isinstance(value, str) and value.lower() in ("nan", "inf", "-inf", "infinity", "-infinity"):
                    v = float(value)
                else:
                    continue
                s = self.series.get(key)
                if s is None:
                    s = self.series[key] = Series(key)
                s.append(float(step), v, t)
                changed.add(key)
                if key.startswith("eval/"):
                    has_eval = True
            if has_eval:
                i = bisect_left(self.eval_steps, float(step))
                if i == len(self.eval_steps) or self.eval_steps[i] != float(step):
                    self.eval_steps.insert(i, float(step))
            if step > self.last_step:
                self.last_step = float(step)
        for key in changed:
            self.series[key].compact()  # within its budget: older points min/max per bucket
        return changed


@dataclass(slots=True)
class Columns:
    """A series reduced to at most one bucket per pixel column."""

    cols: np.ndarray  # column index of each bucket (int, ascending)
    lo: np.ndarray  # min value in the bucket
    hi: np.ndarray  # max value in the bucket
    first: np.ndarray  # first value (to join with the previous bucket)
    last: np.ndarray  # last value
    nonfinite_cols: np.ndarray  # columns that hold a NaN or Inf
    count: int  # points in range
    nonfinite: int  # NaN/Inf points in range


def decimate(x: np.ndarray, y: np.ndarray, x0: float, x1: float, ncols: int, *, all_finite: bool = False) -> Columns:
    """Reduce the points with x in [x0, x1] to min/max/first/last per column (x sorted).

    Column edges are found by binary search (O(ncols log n)) and each bucket is reduced by
    one ``reduceat`` pass, so a 1,000,000-point series costs a few milliseconds and what is
    drawn is O(ncols): a million-step run draws as fast as a hundred-step one.
    """
    i0 = int(np.searchsorted(x, x0, side="left"))
    i1 = int(np.searchsorted(x, x1, side="right"))
    xs, ys = x[i0:i1], y[i0:i1]
    count = len(xs)
    empty_i = np.empty(0, dtype=np.int64)
    if count == 0 or ncols <= 0:
        e = np.empty(0)
        return Columns(empty_i, e, e, e, e, empty_i, count, 0)
    span = x1 - x0 if x1 > x0 else 1.0
    # Point p falls in column floor((x - x0) * (ncols - 1) / span + eps); edges of column c
    # are at x0 + c * span / (ncols - 1).
    edges = x0 + np.arange(1, ncols) * (span / (ncols - 1)) if ncols > 1 else np.empty(0)
    bounds = np.searchsorted(xs, edges, side="left")
    starts_all = np.concatenate(([0], bounds))
    ends_all = np.concatenate((bounds, [count]))
    nonempty = ends_all > starts_all
    cols = np.flatnonzero(nonempty)
    starts = starts_all[nonempty]
    ends = ends_all[nonempty]
    finite = None if all_finite else np.isfinite(ys)
    if finite is None or finite.all():
        lo = np.minimum.reduceat(ys, starts)
        hi = np.maximum.reduceat(ys, starts)
        first = ys[starts]
        last = ys[ends - 1]
        return Columns(cols, lo, hi, first, last, empty_i, count, 0)
    bad = np.add.reduceat((~finite).astype(np.int64), starts)
    clean = np.where(finite, ys, np.nan)
    lo = np.fmin.reduceat(clean, starts)
    hi = np.fmax.reduceat(clean, starts)
    keep = np.isfinite(lo)
    first = np.where(np.isfinite(clean[starts]), clean[starts], lo)
    last = np.where(np.isfinite(clean[ends - 1]), clean[ends - 1], hi)
    return Columns(
        cols[keep],
        lo[keep],
        hi[keep],
        first[keep],
        last[keep],
        cols[bad > 0],
        count,
        int(bad.sum()),
    )
