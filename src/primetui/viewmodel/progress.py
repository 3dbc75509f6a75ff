"""A run's live numbers gathered from its metric rows (R10): the last step, the loss and reward series.

Pure core (no textual, no rich): the runs list, the run screen and the headless output read them here.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Iterable
from dataclasses import dataclass, field as dc_field
from typing import Any, TypeGuard

from primetui.monitor_core.finalloss import FinalLoss, count_says_nan, final_loss, last_step_loss
from primetui.monitor_core.row_budget import compact_rows
from primetui.monitor_core.rl_metrics import reward_of


def _is_loss(value: Any) -> TypeGuard[float]:
    return isinstance(value, (int, float))


@dataclass
class RunProgress:
    """Per-run live numbers gathered from metrics (R10): last step and the loss series.

    Rows are merged by step, so a row that arrives late for a step it already has (eval rows,
    the teardown row) updates it instead of duplicating it.

    The steps and the losses are kept in step order as rows arrive (a row for a new last step is
    appended; a late one is inserted where it belongs), so the last step, the last loss and the
    loss series cost nothing per poll however long the run (100,000 steps: sorting them took
    ~50 ms per poll). ``rows`` is for reading: add rows with :meth:`extend`.

    Bounded (:mod:`primetui.monitor_core.row_budget`): past its budget the older rows are reduced to
    min/max per bucket (a spike and a NaN stay, the newest rows and the latest loss stay exact), so a
    run of 100,000 steps followed all day holds a few thousand rows. ``revision`` counts changes
    (``len(rows)`` goes down when it compacts).
    """

    rows: dict[int, dict[str, Any]] = dc_field(default_factory=dict)
    _loss_steps: list[int] = dc_field(default_factory=list, init=False, repr=False, compare=False)
    _loss_values: list[float] = dc_field(default_factory=list, init=False, repr=False, compare=False)
    _max_step: int | None = dc_field(default=None, init=False, repr=False, compare=False)
    _nan_step: int | None = dc_field(default=None, init=False, repr=False, compare=False)
    _reward_steps: list[int] = dc_field(default_factory=list, init=False, repr=False, compare=False)
    _reward_values: list[float] = dc_field(default_factory=list, init=False, repr=False, compare=False)
    log_loss: tuple[int, float] | None = dc_field(default=None, init=False, repr=False, compare=False)
    """The latest trainer step line's (step, loss), when its log is at hand (:meth:`note_log_lines`)."""
    _first_time: tuple[int, float] | None = dc_field(default=None, init=False, repr=False, compare=False)
    _last_time: tuple[int, float] | None = dc_field(default=None, init=False, repr=False, compare=False)
    revision: int = dc_field(default=0, init=False, repr=False, compare=False)
    """Bumped by every :meth:`extend` that adds rows (a cache key: compacting makes ``len(rows)`` go down)."""

    def __post_init__(self) -> None:
        self._index()

    def _index(self) -> None:
        """The loss and reward series and the NaN step, from ``rows``."""
        self._loss_steps, self._loss_values = [], []
        self._reward_steps, self._reward_values = [], []
        if self.rows:
            self._max_step = max(self.rows)
            for step in sorted(self.rows):
                value = self.rows[step].get("loss/mean")
                if _is_loss(value):
                    self._loss_steps.append(step)
                    self._loss_values.append(value)
                if count_says_nan(self.rows[step]):
                    self._nan_step = step
                self._set_reward(step, self.rows[step])
                self._note_time(step, self.rows[step])

    @classmethod
    def from_metric_rows(cls, rows: Iterable[dict[str, Any]]) -> "RunProgress":
        """Build from R10 rows ``{"step": N, "time": unix, "loss/mean": x, ...}`` (any order)."""
        progress = cls()
        progress.extend(rows)
        return progress

    def extend(self, rows: Iterable[dict[str, Any]]) -> None:
        """Rows from the wire boundary (``primetui.api.boundary.metric_rows``): each has an int step."""
        self._extend(rows)
        self.revision += 1
        compacted = compact_rows(self.rows)
        if compacted is not self.rows:
            self.rows = compacted
            self._index()

    def _extend(self, rows: Iterable[dict[str, Any]]) -> None:
        for row in rows:
            step = row["step"]
            known = self.rows.get(step)
            # The row itself, not a copy (the hub's replay holds the same one); a late row for a
            # known step makes a new merged row, so no row handed out is ever changed.
            merged = self.rows[step] = row if known is None else {**known, **row}
            if self._max_step is None or step > self._max_step:
                self._max_step = step
            if "loss/mean" in row:
                self._set_loss(step, merged["loss/mean"])
            self._set_reward(step, row)  # an RL row: its reward under any generation's name
            self._note_time(step, row)
            loss = merged.get("loss/mean")
            if (
                (type(loss) is not float or not math.isfinite(loss))
                and (self._nan_step is None or step >= self._nan_step)
                and count_says_nan(merged)
            ):  # a finite float loss (the usual row) needs no look at the count
                self._nan_step = step

    def _note_time(self, step: int, row: dict[str, Any]) -> None:
        t = row.get("time")
        if not isinstance(t, (int, float)) or isinstance(t, bool) or not math.isfinite(t):
            return
        if self._first_time is None or step < self._first_time[0]:
            self._first_time = (step, float(t))
        if self._last_time is None or step >= self._last_time[0]:
            self._last_time = (step, float(t))

    def pace(self) -> tuple[float, float] | None:
        """(seconds a step, wall time of the latest step) from the rows' own times, first timed step to the
        last: the run's start-up (before its first step) is not in it. None before two timed steps."""
        first, last = self._first_time, self._last_time
        if first is None or last is None or last[0] <= first[0] or last[1] <= first[1]:
            return None
        return (last[1] - first[1]) / (last[0] - first[0]), last[1]

    def note_log_lines(self, lines: Iterable[str]) -> None:
        """Trainer log lines: a later ``Step N | … | Loss nan`` line makes the final loss NaN."""
        found = last_step_loss(lines)
        if found is not None and (self.log_loss is None or found[0] >= self.log_loss[0]):
            self.log_loss = found

    def _set_loss(self, step: int, value: Any) -> None:
        steps = self._loss_steps
        if not steps or step > steps[-1]:  # the usual case: the next step
            if _is_loss(value):
                steps.append(step)
                self._loss_values.append(value)
            return
        i = bisect.bisect_left(steps, step)
        known = i < len(steps) and steps[i] == step
        if known and _is_loss(value):
            self._loss_values[i] = value
        elif known:
            del steps[i], self._loss_values[i]
        elif _is_loss(value):
            steps.insert(i, step)
            self._loss_values.insert(i, value)

    def _set_reward(self, step: int, row: dict[str, Any]) -> None:
        value = reward_of(row)
        if value is None or not math.isfinite(value):
            return
        steps = self._reward_steps
        if not steps or step > steps[-1]:
            steps.append(step)
            self._reward_values.append(value)
            return
        i = bisect.bisect_left(steps, step)
        if i < len(steps) and steps[i] == step:
            self._reward_values[i] = value
        else:
            steps.insert(i, step)
            self._reward_values.insert(i, value)

    @property
    def last_reward(self) -> tuple[int, float] | None:
        """(step, mean reward) of an RL run's latest step with one."""
        return (self._reward_steps[-1], self._reward_values[-1]) if self._reward_steps else None

    @property
    def first_reward(self) -> tuple[int, float] | None:
        """(step, mean reward) at the start of an RL run."""
        return (self._reward_steps[0], self._reward_values[0]) if self._reward_steps else None

    def reward_points(self) -> list[tuple[int, float]]:
        """(step, mean reward) of every RL step with one, in step order."""
        return list(zip(self._reward_steps, self._reward_values))

    def last_rewards(self, n: int) -> list[float]:
        return list(self._reward_values[-n:]) if n > 0 else []

    @property
    def step(self) -> int | None:
        return self._max_step

    @property
    def final(self) -> FinalLoss | None:
        """The final loss as :func:`~primetui.monitor_core.finalloss.final_loss` decides it."""
        last = None
        for i in range(len(self._loss_steps) - 1, -1, -1):
            value = self._loss_values[i]
            if not isinstance(value, bool):
                last = self._loss_steps[i], float(value)
                break
        return final_loss(last, last_step=self._max_step, nan_step=self._nan_step, log=self.log_loss)

    @property
    def last_loss(self) -> tuple[int, float] | None:
        """(step, value) of the final loss, NaN and inf included: a run that diverged ends on NaN,
        whether the metrics hold the NaN, a NaN count, or the trainer's log says it."""
        final = self.final
        return (final.step, final.value) if final is not None and final.step is not None else None

    @property
    def losses(self) -> list[float]:
        """Every loss in step order (a new list)."""
        return [float(v) for v in self._loss_values]

    def last_losses(self, n: int) -> list[float]:
        """The last ``n`` losses in step order (what a sparkline draws), without copying the rest."""
        return [float(v) for v in self._loss_values[-n:]] if n > 0 else []

    def loss_points(self, last: int | None = None) -> list[tuple[int, float]]:
        """(step, loss) for every step with a loss (or the ``last`` ones), in step order (what the runs cache keeps)."""
        if last is None:
            return list(zip(self._loss_steps, self._loss_values))
        return list(zip(self._loss_steps[-last:], self._loss_values[-last:])) if last > 0 else []
