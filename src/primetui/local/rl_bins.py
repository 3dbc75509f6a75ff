"""R13: an RL step's reward and advantage values, binned on read into the hosted histogram shape.

The run keeps the raw values per step (``distributions.jsonl``, as prime-rl v0.8 posted them); the
platform bins them when asked. The hosted bin rules are not published; the CLI's fixture shows
fixed-width bins labelled ``"%.3f-%.3f"``. Here:

- ``rewards``: 10 bins over [0, 1] (widened to whole numbers around values outside it);
- ``advantages``: 10 bins over [-m, m], ``m`` the largest magnitude rounded up to a multiple of
  0.05 (0.05 at least), so the histogram is symmetric around 0 and 0 is a bin edge.

Bins are half-open ``[binStart, binEnd)`` except the last, which holds its end. Stats use the
keys hosted gives (``avgReward`` ... ``totalResults``) for either type.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from typing import Any

BINS = 10
TYPES = ("rewards", "advantages")
"""The distribution types a run records, in the order an untyped ("all") request lists them."""


def bin_range(kind: str, values: Sequence[float]) -> tuple[float, float]:
    """The histogram's [start, end] for ``kind``."""
    if kind == "advantages":
        top = max((abs(v) for v in values), default=0.0)
        half = max(0.05, math.ceil(round(top / 0.05, 9)) * 0.05)
        return -half, half
    lo = min(0.0, math.floor(min(values, default=0.0)))
    hi = max(1.0, math.ceil(max(values, default=1.0)))
    return lo, hi


def histogram(kind: str, values: Sequence[float]) -> list[dict[str, Any]]:
    """``BINS`` bins ``{binStart, binEnd, count, range, type}`` over :func:`bin_range`."""
    lo, hi = bin_range(kind, values)
    width = (hi - lo) / BINS
    counts = [0] * BINS
    for v in values:
        # round first: 0.6 / 0.1 is 5.999999999999999, and 0.6 belongs to the bin that starts at 0.6
        counts[min(BINS - 1, max(0, int(round((v - lo) / width, 9))))] += 1
    bins = []
    for i, count in enumerate(counts):
        start, end = round(lo + i * width, 6), round(lo + (i + 1) * width, 6)
        bins.append({"binStart": start, "binEnd": end, "count": count, "range": f"{start:.3f}-{end:.3f}", "type": kind})
    return bins


def stats(values: Sequence[float]) -> dict[str, Any]:
    """``{avgReward, medianReward, minReward, maxReward, totalResults}`` (None values when empty)."""
    if not values:
        return {"avgReward": None, "medianReward": None, "minReward": None, "maxReward": None, "totalResults": 0}
    return {
        "avgReward": statistics.fmean(values),
        "medianReward": statistics.median(values),
        "minReward": min(values),
        "maxReward": max(values),
        "totalResults": len(values),
    }


def chart(raw: dict[str, Any], kind: str | None) -> dict[str, Any]:
    """``chartData`` for one type, or for every type the step has (``kind`` None, "all" as the CLI
    means it: one list, each bin naming its ``type``; ``stats`` then describe the rewards)."""
    kinds = [k for k in ([kind] if kind else TYPES) if k in raw]
    data: list[dict[str, Any]] = []
    for k in kinds:
        data.extend(histogram(k, raw.get(k) or []))
    return {"histogramData": data, "stats": stats(raw.get(kind or "rewards") or [])}
