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
  it is, so the NaN mark stays too;
- eval rows (a key under ``eval/``) are kept as they are while a bucket holds at most
  ``EVAL_KEPT`` of them (evals are sparse: the best eval checkpoint keeps its step).

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
"""Buckets the older rows are reduced to (each at most 3 + ``EVAL_KEPT`` rows)."""
EVAL_KEPT = 4
"""Eval rows a bucket keeps exact (more, and they are reduced with the rest)."""


def row_budget(keep_last: int = KEEP_LAST, buckets: int = BUCKETS) -> int:
    """The most rows a compacted store holds (before the slack that lets it compact in batches)."""
    return keep_last + (3 + EVAL_KEPT) * buckets


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
    evals = [step for step in steps if any(key.startswith("eval/") for key in rows[step])]
    exact_evals = len(evals) <= EVAL_KEPT
    for order, step in enumerate(steps):
        row = rows[step]
        if special is None and _bad_loss(row):
            special = step, row
        for key, value in row.items():
            if key == "step" or (exact_evals and key.startswith("eval/")):
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
            (tail if lo_order == len(steps) - 1 > 0 else head)[key] = lo_value  # one value: at the end it came at
        elif lo_order < hi_order:
            head[key], tail[key] = lo_value, hi_value
        else:
            head[key], tail[key] = hi_value, lo_value
    out = {first: head}
    if last != first:
        out[last] = tail
    if special is not None and special[0] not in out:
        out[special[0]] = dict(special[1])
    if exact_evals:  # each at its own step, its eval values as they were
        for step in evals:
            found = {key: value for key, value in rows[step].items() if key.startswith("eval/")}
            out[step] = {**out.get(step, {"step": step}), **found}
    return dict(sorted(out.items()))


def compact_rows(
    rows: dict[int, dict[str, Any]], keep_last: int = KEEP_LAST, buckets: int = BUCKETS
) -> dict[int, dict[str, Any]]:
    """``rows`` (step → row) within its budget: a new dict in step order, or ``rows`` itself when it fits.

    Compacts only past the budget plus a quarter of ``keep_last`` (so a store compacts in batches,
    not on every row); the result holds at most :func:`row_budget` rows. A bucket reduced earlier
    (three rows) takes part again as plain rows, so compacting twice widens the buckets. Buckets span
    equal step ranges.
    """
    if len(rows) <= row_budget(keep_last, buckets) + keep_last // 4:
        return rows
    steps = sorted(rows)
    old, recent = steps[: len(steps) - keep_last], steps[len(steps) - keep_last :]
    # Buckets of equal step ranges (not of equal row counts: rows compacted before are sparse).
    width = max(1, math.ceil((old[-1] - old[0] + 1) / buckets))
    out: dict[int, dict[str, Any]] = {}
    group: list[int] = []
    for step in old:
        if group and (step - old[0]) // width != (group[0] - old[0]) // width:
            out.update(_reduce(group, rows))
            group = []
        group.append(step)
    if group:
        out.update(_reduce(group, rows))
    for step in recent:
        out[step] = rows[step]
    return out
