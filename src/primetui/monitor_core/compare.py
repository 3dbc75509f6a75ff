"""Run summaries for the compare screen and ``primetui compare``: final and best loss, best eval.

Pure core: takes R10 metric rows (``{"step": N, "time": unix, key: value}``) and returns plain
numbers; the caller adds status, duration and the anomaly count.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from primetui.monitor_core.finalloss import final_loss_of_rows
from primetui.monitor_core.numbers import fmt_loss_json, nonfinite_mark

LOSS_KEY = "loss/mean"


def eval_key(keys: Iterable[str]) -> str | None:
    """The eval metric a summary reports: the first env's reward mean, else the first eval metric."""
    evals = sorted(k for k in keys if k.startswith("eval/"))
    preferred = [k for k in evals if k.endswith("reward/mean") or k.endswith("/reward")]
    found = preferred or evals
    return found[0] if found else None


def _lower_is_better(key: str) -> bool:
    return any(word in key for word in ("loss", "perplexity", "error"))


@dataclass(slots=True)
class Summary:
    steps: int | None = None
    final_loss: float | None = None  # the last one, NaN or inf included
    final_loss_step: int | None = None
    best_loss: float | None = None
    best_loss_step: int | None = None
    eval_key: str | None = None
    best_eval: float | None = None
    best_eval_step: int | None = None

    def to_json(self) -> dict[str, Any]:
        mark = nonfinite_mark(self.final_loss)
        return {
            # JSON has no NaN: a non-finite final loss is null with its mark and step beside it.
            "steps": self.steps,
            "final_loss": None if mark else self.final_loss,
            "final_loss_nonfinite": mark,
            "final_loss_step": self.final_loss_step,
            "best_loss": self.best_loss,
            "best_loss_step": self.best_loss_step,
            "eval_key": self.eval_key,
            "best_eval": self.best_eval,
            "best_eval_step": self.best_eval_step,
        }


def _points(rows: list[Mapping[str, Any]], key: str, finite: bool = True) -> list[tuple[int, float]]:
    out = []
    for row in rows:
        v, s = row.get(key), row.get("step")
        if (
            isinstance(v, (int, float))
            and not isinstance(v, bool)
            and (math.isfinite(v) or not finite)
            and isinstance(s, (int, float))
        ):
            out.append((int(s), float(v)))
    return sorted(out)


def summarize(rows: Iterable[Mapping[str, Any]], log_lines: Iterable[str] = ()) -> Summary:
    """The summary of a run's metric rows; ``log_lines`` (the trainer's) can tell a final NaN too."""
    rows = list(rows)
    summary = Summary()
    steps = [int(r["step"]) for r in rows if isinstance(r.get("step"), (int, float))]
    summary.steps = max(steps) if steps else None
    final = final_loss_of_rows(rows, log_lines)
    if final is not None:
        summary.final_loss_step, summary.final_loss = final.step, final.value
    loss = _points(rows, LOSS_KEY)
    if loss:
        step, value = min(loss, key=lambda p: (p[1], p[0]))
        summary.best_loss, summary.best_loss_step = value, step
    keys = {k for r in rows for k in r}
    key = eval_key(keys)
    if key:
        pts = _points(rows, key)
        if pts:
            pick = min if _lower_is_better(key) else max
            step, value = pick(pts, key=lambda p: p[1])
            summary.eval_key, summary.best_eval, summary.best_eval_step = key, value, step
    return summary


def final_loss_text(entry: Mapping[str, Any]) -> str:
    """A summary entry's (``Summary.to_json``) final loss as tables show it: ``NaN @12`` when not finite."""
    return fmt_loss_json(entry.get("final_loss"), entry.get("final_loss_nonfinite"), entry.get("final_loss_step"))
