"""A memory budget for a run's metric rows: the newest rows exact, older ones reduced to min/max per bucket.

A run writes a metric row per step; an all-day session following it would keep every row for
good (the hub's replay, the run's progress, the charts). :func:`compact_rows` reduces a step →
row dict in place once it holds more than its budget: the newest ``keep_last`` steps stay as they
are (the latest loss is exact), and the older ones are cut into at most ``buckets`` runs of
consecutive steps, each reduced to at most three rows:

- the bucket's first step holds, for each key, whichever of its minimum and maximum came first;
- the bucket's last step holds the other one (so a spike, up or down, stays on the chart, at most
  a bucket's width from where it was);
- the first row whose loss was not finite (a NaN value, or a NaN count standing for it) is kept as
  it is, so the NaN mark stays too.

Pure: no UI toolkit, no I/O. The hub's replay (:mod:`primetui.api.hub`) and
:class:`primetui.viewmodel.progress.RunProgress` share it.
"""

from __future__ import annotations

import math
from typing import Any

from primetui.monitor_core.finalloss import LOSS_KEY, count_says_nan

KEEP_LAST = 4096
"""Rows kept exact (the newest steps)."""
BUCKETS = 512
"""Buckets the older rows are reduced to (each at most 3 rows)."""


def row_budget(keep_last: int = KEEP_LAST, buckets: int = BUCKETS) -> int:
    """The most rows a compacted store holds (before the slack that lets it compact in batches)."""
    return keep_last + 3 * buckets


def _bad_loss(row: dict[str, Any]) -> bool:
    value = row.get(LOSS_KEY)
    if isinstance(value, float) and not math.isfinite(value):
        return True
    return count_says_nan(row)


def _reduce(steps: list[int], rows: dict[int, dict[str, Any]]) -> dict[int, dict[str, Any]]:
    """One bucket's rows (``steps`` ascending) reduced to its first and last step and a NaN row."""
    lo: dict[str, tuple[float, int, Any]] = {}
    hi: dict[str, tuple[float, int, Any]] = {}
    other: dict[str, Any] = {}
    special: tuple[int, dict[str, Any]] | None = None
    for order, step in enumerate(steps):
        row = rows[step]
        if special is None and _bad_loss(row):
            special = step, row
        for key, value in row.items():
            if key == "step":
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                other[key] = value  # text, flags: the latest in the bucket
                continue
            v = float(value)
            rank = v if math.isfinite(v) else math.inf  # a NaN/inf value is the bucket's extreme
            if key not in lo or rank < lo[key][0]:
                lo[key] = (rank, order, value)
            if key not in hi or rank > hi[key][0] or (rank == hi[key][0] and order > hi[key][1]):
                hi[key] = (rank, order, value)
    first, last = steps[0], steps[-1]
    head: dict[str, Any] = {"step": first}
    tail: dict[str, Any] = {"step": last}
    head.update(other)
    for key, (_, lo_order, lo_value) in lo.items():
        _, hi_order, hi_value = hi[key]
        if lo_order == hi_order:
            (tail if lo_order == len(steps) - 1 else head)[key] = lo_value
        elif lo_order < hi_order:
            head[key], tail[key] = lo_value, hi_value
        else:
            head[key], tail[key] = hi_value, lo_value
    out = {first: head}
    if last != first:
        out[last] = tail
    if special is not None and special[0] not in out:
        out[special[0]] = dict(special[1])
    return out


def compact_rows(
    rows: dict[int, dict[str, Any]], keep_last: int = KEEP_LAST, buckets: int = BUCKETS
) -> dict[int, dict[str, Any]]:
    """``rows`` (step → row) within its budget: a new dict in step order, or ``rows`` itself when it fits.

    Compacts only past the budget plus a quarter of ``keep_last`` (so a store compacts in batches,
    not on every row); the result holds at most :func:`row_budget` rows. A bucket reduced earlier
    (three rows) takes part again as plain rows, so compacting twice widens the buckets.
    """
    if len(rows) <= row_budget(keep_last, buckets) + keep_last // 4:
        return rows
    steps = sorted(rows)
    old, recent = steps[: len(steps) - keep_last], steps[len(steps) - keep_last :]
    width = max(1, math.ceil(len(old) / buckets))
    out: dict[int, dict[str, Any]] = {}
    for start in range(0, len(old), width):
        out.update(_reduce(old[start : start + width], rows))
    for step in recent:
        out[step] = rows[step]
    return out
