"""A run's final loss, and whether it is non-finite: the one place that decides it.

JSON has no NaN, so a NaN loss rarely reaches us as a value. The local trainer writes no
``loss/mean`` for a NaN step, only ``loss/nan_count``; prime-rl's platform monitor drops every
non-finite value before it reaches the platform. What is known instead:

- ``metric``: the last loss value the metrics hold (it may itself be NaN or inf);
- ``count``: the run's last step has a positive ``*nan_count`` and no loss value;
- ``gap``: steps after the last loss carry no loss, and a positive NaN count in that gap says why
  (the final loss is NaN at the run's last step);
- ``log``: the trainer's own step line, ``Step 19 | 0.12s | Loss nan | ...``, later than the last loss.

The runs list, the run screen, compare, ``--json``, the charts and ``primetui wait`` all take the
final loss from :func:`final_loss` (through ``RunProgress`` or :func:`final_loss_of_rows`).
Pure core: no textual, no rich.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from primetui.monitor_core.numbers import nonfinite_mark

LOSS_KEY = "loss/mean"
NAN_COUNT_KEY = "loss/nan_count"
SOURCES = ("metric", "count", "gap", "log")

# The trainer's step line: "Step 19 |   1.2s | Loss nan | ...". Not "Validation | Step 5 | Loss 2.3"
# (no time field) and not a pod's "Step 3 | 1.2s | Node 0 | Local Loss 2.3".
_STEP_LOSS = re.compile(r"\bStep (\d+) \|[^|]*\| Loss (\S+)")


@dataclass(frozen=True, slots=True)
class FinalLoss:
    """The final loss of a run: ``value`` is NaN or inf when the last step was non-finite."""

    step: int | None
    value: float
    source: str  # one of SOURCES: what told us

    @property
    def nonfinite(self) -> bool:
        return not math.isfinite(self.value)

    @property
    def mark(self) -> str | None:
        """``"NaN"``, ``"+Inf"`` or ``"-Inf"``; None for a finite loss."""
        return nonfinite_mark(self.value)


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def nan_count(row: Mapping[str, Any]) -> int:
    """The row's NaN count: the largest positive ``*nan_count`` value it holds (0 when none)."""
    best = 0
    for key, value in row.items():
        if key.endswith("nan_count"):
            v = _number(value)
            if v is not None and math.isfinite(v) and v > best:
                best = int(v)
    return best


def count_says_nan(row: Mapping[str, Any]) -> bool:
    """Whether this row's NaN count stands for a NaN loss: a positive count and no finite loss value."""
    v = _number(row.get(LOSS_KEY))
    if v is not None and math.isfinite(v):  # the usual row: a finite loss, no key scan
        return False
    return nan_count(row) > 0


def with_nan_loss(row: Mapping[str, Any]) -> Mapping[str, Any]:
    """The row a chart draws: a step whose NaN count stands for its missing loss gets a NaN loss point
    (the chart marks it ``×``); any other row as it is."""
    if LOSS_KEY in row or not count_says_nan(row):
        return row
    return {**row, LOSS_KEY: math.nan}


def step_loss_line(text: str) -> tuple[int, float] | None:
    """(step, loss) of a trainer step log line (``Loss nan`` is NaN); None for any other line."""
    m = _STEP_LOSS.search(text)
    if m is None:
        return None
    try:
        return int(m.group(1)), float(m.group(2))
    except ValueError:
        return None


def last_step_loss(lines: Iterable[str]) -> tuple[int, float] | None:
    """The latest (step, loss) among trainer step lines (the highest step; the last line of it)."""
    best: tuple[int, float] | None = None
    for text in lines:
        found = step_loss_line(text)
        if found is not None and (best is None or found[0] >= best[0]):
            best = found
    return best


def final_loss(
    last: tuple[int, float] | None,
    *,
    last_step: int | None = None,
    nan_step: int | None = None,
    log: tuple[int, float] | None = None,
) -> FinalLoss | None:
    """The run's final loss from what is known; None when nothing is.

    ``last``: (step, value) of the last loss value in the metrics (NaN or inf included).
    ``last_step``: the highest step of any metrics row. ``nan_step``: the last step whose row has a
    positive NaN count and no finite loss. ``log``: the latest trainer step line's (step, loss).
    A later step decides: a finite loss after a NaN step means the run recovered.
    """
    found: list[FinalLoss] = []
    if last is not None:
        found.append(FinalLoss(int(last[0]), float(last[1]), "metric"))

    def after(step: int) -> bool:
        return last is None or step > last[0]

    if nan_step is not None and after(nan_step):
        if last_step is not None and last_step > nan_step:  # later rows with no loss: the count explains them
            found.append(FinalLoss(int(last_step), math.nan, "gap"))
        else:
            found.append(FinalLoss(int(nan_step), math.nan, "count"))
    if log is not None and not math.isfinite(log[1]) and after(log[0]):
        found.append(FinalLoss(int(log[0]), float(log[1]), "log"))
    if not found:
        return None
    # the latest step wins; on a tie the metrics' own value, then the count, then the log
    return max(found, key=lambda f: (f.step if f.step is not None else -1, -SOURCES.index(f.source)))


def final_loss_of_rows(rows: Iterable[Mapping[str, Any]], log_lines: Iterable[str] = ()) -> FinalLoss | None:
    """:func:`final_loss` of whole metric rows (and the trainer's log lines, when at hand)."""
    last: tuple[int, float] | None = None
    last_step = nan_step = None
    for row in rows:
        step = _number(row.get("step"))
        if step is None or not math.isfinite(step):
            continue
        s = int(step)
        last_step = s if last_step is None else max(last_step, s)
        v = _number(row.get(LOSS_KEY))
        if v is not None and (last is None or s >= last[0]):
            last = (s, v)
        if count_says_nan(row) and (nan_step is None or s > nan_step):
            nan_step = s
    return final_loss(last, last_step=last_step, nan_step=nan_step, log=last_step_loss(log_lines))
