"""A run as one row of the runs table and as the run screen's summary (the headless output's too).

Plain functions (no textual, no rich) over the runs :mod:`primetui.api.wire` validated
(:data:`primetui.api.plainrun.Run`) and their :class:`~primetui.viewmodel.progress.RunProgress`.
"""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from primetui.api.plainrun import Run
from primetui.monitor_core import rl as rl_core
from primetui.monitor_core.numbers import fmt_loss, nonfinite_mark
from primetui.viewmodel.fmt import DASH, fmt_duration, fmt_time, parse_time, sparkline, step_bar
from primetui.viewmodel.progress import RunProgress
from primetui.viewmodel.statuses import actions_for, run_end_time, run_lifecycle, run_status, status_tone


def run_elapsed(run: Run, now: datetime) -> float | None:
    """Seconds from start to completion (or to now while it runs)."""
    started = parse_time(run.started_at)
    if not started:
        return None
    ended = parse_time(run_end_time(run))
    return ((ended or now) - started).total_seconds()


def run_eta(run: Run, progress: RunProgress | None, now: datetime) -> float | None:
    """Seconds left at the pace so far, for a RUNNING run with at least one step done.

    The pace is the metric rows' own times (first timed step to the last), so the start-up before
    the first step (loading the model, starting inference) does not count as training time; the part of
    the current step already spent is taken off. Rows without times: elapsed time over steps done.
    """
    if run_status(run) != "RUNNING" or not progress or not progress.step:
        return None
    max_steps = run.max_steps
    if not max_steps or progress.step <= 0:
        return None
    remaining = max(0, int(max_steps) - progress.step)
    paced = progress.pace()
    if paced is not None:
        per_step, last_time = paced
        into_step = min(max(0.0, now.timestamp() - last_time), per_step) if remaining else 0.0
        return max(0.0, per_step * remaining - into_step)
    elapsed = run_elapsed(run, now)
    if not elapsed:
        return None
    done = progress.step - resume_base_step(run)
    if done <= 0:
        return None
    return elapsed / done * remaining


_RESUMED_AT = re.compile(r"Resumed from run \S+ at checkpoint step (\d+)")


def resume_base_step(run: Run) -> int:
    """The step a resumed run started from (0 for a run that started fresh), as its notice says.

    Its elapsed time counts from its own start, so its pace is steps done *since* that step.
    """
    match = _RESUMED_AT.search(run.notice or "")
    return int(match.group(1)) if match else 0


def run_model(run: Run) -> str:
    model = run.base_model
    if not model:
        named = (run.run_config or {}).get("model")
        model = named.get("name") if isinstance(named, dict) else None
    return str(model) if model else DASH


def gpu_split(run: Run) -> tuple[int, int] | None:
    """(train GPUs, inference GPUs) the run's deployment holds, from its config; None if unknown."""
    from primetui.sft.sizing import gpu_split as config_gpu_split

    return config_gpu_split(run.run_config or {})


def run_gpus(run: Run) -> str:
    """How many GPUs the run holds: its deployment's train plus inference GPUs."""
    split = gpu_split(run)
    if split is not None:
        return str(sum(split))
    return str(run.gpu_count) if run.gpu_count is not None else DASH


def run_gpus_detail(run: Run) -> str:
    """``2 (1 train + 1 inference)`` for the run screen; the bare count when there is no split."""
    split = gpu_split(run)
    if split is None or not split[1]:
        return run_gpus(run)
    return f"{sum(split)} ({split[0]} train + {split[1]} inference)"


@dataclass
class RunRow:
    """One line of the runs table, exactly as the screen and ``primetui runs --once`` show it."""

    id: str
    name: str
    status: str
    tone: str
    model: str
    step: int | None
    max_steps: int | None
    bar: str
    loss: float | None
    loss_step: int | None
    spark: str
    started: str
    elapsed: str
    eta: str
    gpus: str
    volume: str
    kind: str = rl_core.SFT
    """``rl`` or ``sft`` (:func:`primetui.monitor_core.rl.run_kind`)."""
    reward: float | None = None
    """An RL run's latest mean reward (its headline number, as the loss is an SFT run's)."""
    reward_step: int | None = None
    reward_start: float | None = None
    """An RL run's mean reward at its first step."""
    reward_spark: str = ""

    def steps_text(self) -> str:
        return f"{self.step if self.step is not None else DASH}/{self.max_steps if self.max_steps else DASH}"

    def loss_text(self) -> str:
        """The last loss as every table shows it (``NaN @12`` when it is not finite)."""
        return fmt_loss(self.loss, self.loss_step)

    def headline(self) -> tuple[str, str] | None:
        """(sparkline, number) of the run's headline: the reward for RL, the loss for SFT; None without one."""
        if self.kind == rl_core.RL:
            return (self.reward_spark, f"{self.reward:.4f}") if self.reward is not None else None
        return (self.spark, self.loss_text()) if self.loss is not None else None

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("tone")
        data.pop("bar")
        data.pop("spark")
        data.pop("reward_spark")
        # JSON has no NaN: a non-finite last loss is null with an explicit mark beside it.
        data["loss_nonfinite"] = nonfinite_mark(self.loss)
        if data["loss_nonfinite"] is not None:
            data["loss"] = None
        return data


def _max_steps(run: Run) -> int | None:
    """The run's step count; a dedicated RL run's is in its config."""
    value = run.max_steps or rl_core.setting(run, "max_steps")
    return int(value) if value else None


def run_row(run: Run, progress: RunProgress | None, now: datetime) -> RunRow:
    status = run_status(run)
    max_steps = _max_steps(run)
    step = progress.step if progress else None
    if step is None and status == "COMPLETED" and max_steps:
        step = max_steps
    last = progress.last_loss if progress else None
    last_reward = progress.last_reward if progress else None
    first = progress.first_reward if progress else None
    return RunRow(
        id=run.id,
        name=run.name or "",
        status=status,
        tone=status_tone(status),
        model=run_model(run),
        step=step,
        max_steps=max_steps,
        bar=step_bar(step, max_steps),
        loss=last[1] if last else None,
        loss_step=last[0] if last else None,
        spark=sparkline(progress.last_losses(12)) if progress else "",
        started=fmt_time(run.started_at),
        elapsed=fmt_duration(run_elapsed(run, now)),
        eta=fmt_duration(run_eta(run, progress, now)),
        gpus=run_gpus(run),
        volume=run.volume_name if run.volume_name is not None else DASH,
        kind=rl_core.run_kind(run),
        reward=last_reward[1] if last_reward else None,
        reward_step=last_reward[0] if last_reward else None,
        reward_start=first[1] if first else None,
        reward_spark=sparkline(progress.last_rewards(12)) if progress else "",
    )


def run_matches(row: RunRow, query: str) -> bool:
    """Filter: every whitespace-separated term must appear in id, name, status, model or volume."""
    hay = " ".join((row.id, row.name, row.status, row.model, row.volume)).lower()
    return all(term in hay for term in query.lower().split())


@dataclass(frozen=True)
class FailureAnalysis:
    """The platform's automated classification of a FAILED run (``failureAnalysis``)."""

    root_cause: str
    confidence: float | None
    evidence: list[str]


def failure_analysis(run: Run) -> FailureAnalysis | None:
    """``run.failure_analysis`` read for display. The model keeps it a free-form JSON object (``run --json``
    prints it whole), so its keys are read here, in either spelling the platform may use."""
    raw = run.failure_analysis
    if not raw:
        return None
    root = raw.get("rootCause", raw.get("root_cause"))
    confidence = raw.get("confidence")
    evidence = raw.get("evidence")
    return FailureAnalysis(
        root_cause=str(root) if root is not None else DASH,
        confidence=float(confidence)
        if isinstance(confidence, (int, float)) and not isinstance(confidence, bool)
        else None,
        evidence=[str(e) for e in evidence] if isinstance(evidence, list) else [],
    )


def run_detail(run: Run, progress: RunProgress | None, now: datetime) -> dict[str, Any]:
    """The run screen's summary as a JSON-able dict (headless ``run ID --once --json``)."""
    row = run_row(run, progress, now)
    return {
        **row.to_json(),
        "lifecycle": {e.label.lower(): e.when for e in run_lifecycle(run)},
        "runs_ahead": run.runs_ahead,
        "queue_reason": run.queue_reason,
        "error": run.error_message,
        "failure_analysis": run.failure_analysis,
        "losses": [v if math.isfinite(v) else None for v in progress.losses] if progress else [],  # JSON has no NaN
        "actions": sorted(actions_for(run) - {"copy_id", "copy_path"}),
    }
