"""What the screens show, as plain data: run, volume, session and model rows.

This module is the one view model shared by the Textual screens and the headless
``primetui runs --once`` / ``primetui run ID --once`` output, so both print the same thing.
It must never import textual or rich (the headless path stays fast): it only formats.

Every function takes wire models from :mod:`primetui.api.models` but reads them through
:func:`field`, so a reply with a missing optional field renders as "-" instead of crashing.
"""

from __future__ import annotations

import bisect
import math
import re
import shlex
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field as dc_field
from datetime import datetime, timezone
from typing import Any

from primetui.api.wire import parse_time as _parse_wire_time
from primetui.monitor_core.finalloss import FinalLoss, count_says_nan, final_loss, last_step_loss
from primetui.monitor_core.numbers import fmt_loss, nonfinite_mark
from primetui.monitor_core import rl as rl_core
from primetui.monitor_core.rl_metrics import reward_of
from primetui.sft.sizing import parse_size as _size_bytes

Clock = Callable[[], datetime]
"""Returns the current time (aware, UTC). Injected so snapshots and tests are deterministic."""

DASH = "-"

TERMINAL_RUN_STATUSES = frozenset({"COMPLETED", "FAILED", "STOPPED", "PAUSED"})
"""Run statuses after which nothing changes any more (the CLI's stop-wait set)."""

DEAD_SESSION_STATUSES = frozenset({"FAILED", "STOPPED", "COMPLETED", "UNKNOWN", "TERMINATING", "TOMBSTONED"})
"""Session statuses the prime CLI treats as dead (contract §3.1)."""

# Semantic tone per status: the UI maps a tone to a theme variable, headless prints the word.
# The word is always shown next to the colour, so a 16-colour or monochrome terminal loses nothing.
RUN_STATUS_TONE: dict[str, str] = {
    "QUEUED": "muted",
    "PENDING": "warning",
    "CREATING": "warning",
    "RUNNING": "accent",
    "PAUSING": "warning",
    "PAUSED": "muted",
    "COMPLETED": "success",
    "FAILED": "error",
    "STOPPED": "muted",
}

RUN_STATUS_GLYPH: dict[str, str] = {
    "QUEUED": "◌",
    "PENDING": "◌",
    "CREATING": "◐",
    "RUNNING": "▶",
    "PAUSING": "‖",
    "PAUSED": "‖",
    "COMPLETED": "✓",
    "FAILED": "✗",
    "STOPPED": "■",
}

VOLUME_STATUS_LABEL: dict[str, str] = {
    "RUNNING": "CREATED",
    "TERMINATING": "DELETING",
    "TOMBSTONED": "DELETE FAILED",
}
"""The prime CLI shows these volume statuses under friendlier names (contract §2.1)."""

SPARK_CHARS = "▁▂▃▄▅▆▇█"


def field(obj: Any, *names: str, default: Any = None) -> Any:
    """Read the first present, non-None attribute or mapping key among ``names``."""
    if obj is None:
        return default
    for name in names:
        value = obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)
        if value is not None:
            return value
    return default


def parse_time(value: Any) -> datetime | None:
    """``primetui.api.models.parse_time`` for any raw field value (a non-string is read as its ``str()``)."""
    if value is None or isinstance(value, (str, datetime)):
        return _parse_wire_time(value)
    return _parse_wire_time(str(value))


def fmt_time(value: Any) -> str:
    """``YYYY-MM-DD HH:MM`` in UTC (the prime CLI's format), or "-"."""
    dt = parse_time(value)
    return dt.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M") if dt else DASH


def fmt_duration(seconds: float | None) -> str:
    """Compact duration: ``42s``, ``3m05s``, ``2h07m``, ``3d04h``; "-" when unknown."""
    if seconds is None or seconds != seconds or seconds < 0:
        return DASH
    s = int(round(seconds))
    if s < 60:
        return f"{s}s"
    m, s = divmod(s, 60)
    if m < 60:
        return f"{m}m{s:02d}s"
    h, m = divmod(m, 60)
    if h < 24:
        return f"{h}h{m:02d}m"
    d, h = divmod(h, 24)
    return f"{d}d{h:02d}h"


def fmt_age(value: Any, now: datetime) -> str:
    """How long ago ``value`` was, e.g. ``5m10s``."""
    dt = parse_time(value)
    return fmt_duration((now - dt).total_seconds()) if dt else DASH


def fmt_bytes(n: float | None) -> str:
    """Binary units as volumes use them: ``7.2 GiB``."""
    if n is None:
        return DASH
    units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"]
    value = float(n)
    for unit in units:
        if abs(value) < 1024 or unit == units[-1]:
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} PiB"  # pragma: no cover


def volume_usage(volume: Any) -> str:
    """``46.5 KiB used, 100.0 GiB free`` when the platform says how much is stored, else a dash."""
    used = field(volume, "used_bytes", "usedBytes")
    if used is None:
        return DASH
    total = _size_bytes(str(field(volume, "size", default="")))
    if total is None:
        return f"{fmt_bytes(used)} used"
    return f"{fmt_bytes(used)} used, {fmt_bytes(max(0, total - int(used)))} free"


def step_bar(step: int | None, max_steps: int | None, width: int = 10) -> str:
    """A text progress bar ``█████░░░░░``; empty-looking when nothing is known."""
    if not max_steps or max_steps <= 0:
        return "░" * width
    done = max(0, min(step or 0, max_steps))
    filled = int(round(width * done / max_steps))
    return "█" * filled + "░" * (width - filled)


def sparkline(values: Sequence[float], width: int = 12) -> str:
    """Unicode sparkline of the last ``width`` finite values (NaN/Inf shown as ``!``)."""
    tail = values[-width:] if isinstance(values, (list, tuple)) else list(values)[-width:]
    finite = [v for v in tail if isinstance(v, (int, float)) and math.isfinite(v)]
    if not finite:
        return "!" * len(tail) if tail else ""
    lo, hi = min(finite), max(finite)
    span = hi - lo
    out = []
    for v in tail:
        if not (isinstance(v, (int, float)) and math.isfinite(v)):
            out.append("!")
        elif span == 0:
            out.append(SPARK_CHARS[3])
        else:
            out.append(SPARK_CHARS[int((v - lo) / span * (len(SPARK_CHARS) - 1))])
    return "".join(out)


def run_status(run: Any) -> str:
    return str(field(run, "status", default="UNKNOWN")).upper()


def status_tone(status: str) -> str:
    """Semantic tone (accent/success/warning/error/muted/plain) for a run status."""
    return RUN_STATUS_TONE.get(status.upper(), "plain")


def status_label(status: str) -> str:
    """Glyph plus word, readable without colour: ``▶ RUNNING``."""
    status = status.upper()
    return f"{RUN_STATUS_GLYPH.get(status, '?')} {status}"


def _is_loss(value: Any) -> bool:
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

    def __post_init__(self) -> None:
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

    @classmethod
    def from_metric_rows(cls, rows: Iterable[dict[str, Any]]) -> "RunProgress":
        """Build from R10 rows ``{"step": N, "time": unix, "loss/mean": x, ...}`` (any order)."""
        progress = cls()
        progress.extend(rows)
        return progress

    def extend(self, rows: Iterable[dict[str, Any]]) -> None:
        """Rows from the wire boundary (``primetui.api.boundary.metric_rows``): each has an int step."""
        for row in rows:
            step = row["step"]
            merged = self.rows.setdefault(step, {})
            merged.update(row)
            if self._max_step is None or step > self._max_step:
                self._max_step = step
            if "loss/mean" in row:
                self._set_loss(step, merged["loss/mean"])
            self._set_reward(step, row)  # an RL row: its reward under any generation's name
            loss = merged.get("loss/mean")
            if (type(loss) is not float or not math.isfinite(loss)) and (self._nan_step is None or step >= self._nan_step) \
                    and count_says_nan(merged):  # a finite float loss (the usual row) needs no look at the count
                self._nan_step = step

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


def run_elapsed(run: Any, now: datetime) -> float | None:
    """Seconds from start to completion (or to now while it runs)."""
    started = parse_time(field(run, "started_at", "startedAt"))
    if not started:
        return None
    ended = parse_time(field(run, "completed_at", "completedAt"))
    if not ended and run_status(run) in TERMINAL_RUN_STATUSES:
        ended = parse_time(field(run, "updated_at", "updatedAt"))
    return ((ended or now) - started).total_seconds()


def run_eta(run: Any, progress: RunProgress | None, now: datetime) -> float | None:
    """Seconds left at the pace so far, for a RUNNING run with at least one step done."""
    if run_status(run) != "RUNNING" or not progress or not progress.step:
        return None
    max_steps = field(run, "max_steps", "maxSteps")
    elapsed = run_elapsed(run, now)
    if not max_steps or not elapsed or progress.step <= 0:
        return None
    done = progress.step - resume_base_step(run)
    if done <= 0:
        return None
    remaining = max(0, int(max_steps) - progress.step)
    return elapsed / done * remaining


_RESUMED_AT = re.compile(r"Resumed from run \S+ at checkpoint step (\d+)")


def resume_base_step(run: Any) -> int:
    """The step a resumed run started from (0 for a run that started fresh).

    Its elapsed time counts from its own start, so its pace is steps done *since* that step.
    """
    path = field(run, "resume_from", "resumeFrom")
    match = re.search(r"step_(\d+)/?$", str(path)) if path else None
    if match is None:
        match = _RESUMED_AT.search(str(field(run, "notice", default="") or ""))
    return int(match.group(1)) if match else 0


def run_model(run: Any) -> str:
    cfg = field(run, "run_config", "runConfig", default={}) or {}
    model = field(run, "base_model", "baseModel")
    if not model and isinstance(cfg, dict):
        model = (cfg.get("model") or {}).get("name") if isinstance(cfg.get("model"), dict) else None
    return str(model) if model else DASH


def gpu_split(run: Any) -> tuple[int, int] | None:
    """(train GPUs, inference GPUs) the run's deployment holds, from its config; None if unknown."""
    from primetui.sft.sizing import gpu_split as config_gpu_split

    cfg = field(run, "run_config", "runConfig", default={}) or {}
    return config_gpu_split(cfg) if isinstance(cfg, dict) else None


def run_gpus(run: Any) -> str:
    """How many GPUs the run holds: its deployment's train plus inference GPUs."""
    split = gpu_split(run)
    if split is not None:
        return str(sum(split))
    gpus = field(run, "gpu_count", "gpuCount")
    return str(gpus) if gpus is not None else DASH


def run_gpus_detail(run: Any) -> str:
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


def run_row(run: Any, progress: RunProgress | None, now: datetime) -> RunRow:
    status = run_status(run)
    max_steps = field(run, "max_steps", "maxSteps") or rl_core.setting(run, "max_steps")  # a dedicated RL run: its config's
    step = progress.step if progress else None
    if step is None and status == "COMPLETED" and max_steps:
        step = int(max_steps)
    return RunRow(
        id=str(field(run, "id", default=DASH)),
        name=str(field(run, "name", default="") or ""),
        status=status,
        tone=status_tone(status),
        model=run_model(run),
        step=step,
        max_steps=int(max_steps) if max_steps else None,
        bar=step_bar(step, max_steps),
        loss=last[1] if (last := progress.last_loss if progress else None) else None,
        loss_step=last[0] if last else None,
        spark=sparkline(progress.last_losses(12)) if progress else "",
        started=fmt_time(field(run, "started_at", "startedAt")),
        elapsed=fmt_duration(run_elapsed(run, now)),
        eta=fmt_duration(run_eta(run, progress, now)),
        gpus=run_gpus(run),
        volume=str(field(run, "volume_name", "volumeName", default=DASH)),
        kind=rl_core.run_kind(run),
        reward=last_reward[1] if (last_reward := progress.last_reward if progress else None) else None,
        reward_step=last_reward[0] if last_reward else None,
        reward_start=first[1] if (first := progress.first_reward if progress else None) else None,
        reward_spark=sparkline(progress.last_rewards(12)) if progress else "",
    )


def run_matches(row: RunRow, query: str) -> bool:
    """Filter: every whitespace-separated term must appear in id, name, status, model or volume."""
    hay = " ".join((row.id, row.name, row.status, row.model, row.volume)).lower()
    return all(term in hay for term in query.lower().split())


@dataclass
class LifecycleEvent:
    label: str
    when: str


def run_lifecycle(run: Any) -> list[LifecycleEvent]:
    """Created / Started / Completed (or Stopped/Failed/Paused) with timestamps, in order."""
    status = run_status(run)
    events = [LifecycleEvent("Created", fmt_time(field(run, "created_at", "createdAt")))]
    events.append(LifecycleEvent("Started", fmt_time(field(run, "started_at", "startedAt"))))
    end_label = {"FAILED": "Failed", "STOPPED": "Stopped", "PAUSED": "Paused"}.get(status, "Completed")
    end = field(run, "completed_at", "completedAt")
    if end is None and status in TERMINAL_RUN_STATUSES:
        end = field(run, "updated_at", "updatedAt")
    events.append(LifecycleEvent(end_label, fmt_time(end)))
    return events


_RESUMED_AS = re.compile(r"^Resumed as run (\S+?)\.$")


def resumed_as(run: Any) -> str | None:
    """The run a paused run was already resumed as (the platform then refuses another resume)."""
    match = _RESUMED_AS.match(str(field(run, "notice", default="") or "").strip())
    return match.group(1) if match else None


def actions_for(run: Any) -> set[str]:
    """``run_actions`` for this run now: no resume once it was resumed as a run that still exists."""
    actions = run_actions(run_status(run))
    if resumed_as(run):
        actions.discard("resume")
    return actions


def run_actions(status: str) -> set[str]:
    """Actions the platform accepts for a run in this status (contract §2.5, CLI rules)."""
    status = status.upper()
    actions = {"copy_id", "copy_path"}
    if status in ("QUEUED", "PENDING", "CREATING", "RUNNING", "PAUSING"):
        actions.add("stop")
    if status == "RUNNING":
        actions |= {"pause", "restart"}
    if status == "PAUSED":
        actions.add("resume")
    if status in TERMINAL_RUN_STATUSES:
        actions.add("delete")
    return actions


def run_detail(run: Any, progress: RunProgress | None, now: datetime) -> dict[str, Any]:
    """The run screen's summary as a JSON-able dict (headless ``run ID --once --json``)."""
    row = run_row(run, progress, now)
    fa = field(run, "failure_analysis", "failureAnalysis")
    if fa is not None and not isinstance(fa, dict):
        fa = fa.model_dump() if hasattr(fa, "model_dump") else dict(vars(fa))
    return {
        **row.to_json(),
        "lifecycle": {e.label.lower(): e.when for e in run_lifecycle(run)},
        "runs_ahead": field(run, "runs_ahead", "runsAhead"),
        "queue_reason": field(run, "queue_reason", "queueReason"),
        "error": field(run, "error_message", "errorMessage"),
        "failure_analysis": fa,
        "losses": [v if math.isfinite(v) else None for v in progress.losses] if progress else [],  # JSON has no NaN
        "actions": sorted(actions_for(run) - {"copy_id", "copy_path"}),
    }


def checkpoint_command(volume: str | None, run_id: str, step: int) -> str:
    """The exact command that downloads one checkpoint (seed step 5).

    The volume name and run id come from the platform, so each word is quoted for the shell: a
    name such as ``x; rm -rf ~`` is pasted as one argument, never run.
    """
    vol = shlex.quote(volume) if volume else "<volume>"
    return f"prime volumes get {vol} {shlex.quote(checkpoint_path(run_id, step))} ./step_{int(step)}"


def checkpoint_path(run_id: str, step: int | None = None) -> str:
    """A run's folder on its volume, or one checkpoint's (unquoted: quote it where it becomes a command)."""
    return f"runs/{run_id}/" if step is None else f"runs/{run_id}/checkpoints/step_{int(step)}/"


def volume_status_label(status: str) -> str:
    return VOLUME_STATUS_LABEL.get(status.upper(), status.upper())


def session_is_live(session: Any) -> bool:
    """Running, or still writing its changes back (the final sync the seed says to wait for)."""
    status = str(field(session, "status", default="")).upper()
    phase = str(field(session, "phase", default="")).lower()
    if phase in ("syncing", "finalizing"):
        return True
    return status not in DEAD_SESSION_STATUSES and phase not in ("stopped", "failed")


def session_blocks_dispatch(session: Any) -> bool:
    """A live read-write session (or one still syncing back) keeps a run from starting."""
    return session_is_live(session) and not bool(field(session, "read_only", "readOnly", default=False))


def session_mode(session: Any) -> str:
    return "RO" if field(session, "read_only", "readOnly", default=False) else "RW"


def parse_size(text: str) -> int | None:
    """``100Gi`` / ``5Ti`` → bytes; None when it is not a whole number of Gi or Ti."""
    text = text.strip()
    for suffix, mult in (("Gi", 1024**3), ("Ti", 1024**4)):
        if text.endswith(suffix) and text[: -len(suffix)].isdigit():
            n = int(text[: -len(suffix)])
            return n * mult if n > 0 else None
    return None


def check_volume_name(name: str) -> str | None:
    """One sentence saying what is wrong with a volume name, or None when it is fine."""
    import re

    if not name:
        return "Give the volume a name, e.g. research."
    if len(name) > 63:
        return "Volume names are at most 63 characters; pick a shorter one."
    if not re.fullmatch(r"[a-z0-9]([a-z0-9-]*[a-z0-9])?", name):
        return "Use lowercase letters, digits and dashes (not at the ends), e.g. research-2."
    return None


def check_volume_size(text: str, current: str | None = None) -> str | None:
    """One sentence saying what is wrong with a size (``100Gi``, ``5Ti``), or None."""
    size = parse_size(text)
    if size is None:
        return "Write the size as a whole number of Gi or Ti, e.g. 100Gi or 5Ti."
    if current is not None:
        cur = parse_size(current)
        if cur is not None and size <= cur:
            return f"A volume can only grow; pick more than {current}."
    return None


def models_empty_reason(on_demand_beta_access: bool | None) -> str:
    """Why the model list is empty, told apart exactly as the prime CLI does (T1 tri-state)."""
    if on_demand_beta_access is False:
        return "On-demand training is in beta and this account is not enrolled: contact Prime support to request access."
    if on_demand_beta_access is True:
        return "Your account has on-demand access, but no on-demand capacity is currently listed: try again later."
    return (
        "No dispatchable clusters have a warm model cache yet, or the endpoint isn't deployed on this backend: "
        "ask Prime support, or point [model].name at weights on a volume (/volume/...)."
    )


def model_sort_key(name: str) -> tuple:
    """Sort by name, comparing ``-<N>B`` parameter counts numerically (as the CLI does)."""
    import re

    parts = re.split(r"(\d+(?:\.\d+)?)(?=B\b)", name)
    return tuple((0, float(p)) if i % 2 else (1, p.lower()) for i, p in enumerate(parts))


def items(reply: Any, key: str) -> list[Any]:
    """The list inside a list reply, whether the client returns the list or its wrapper."""
    if reply is None:
        return []
    if isinstance(reply, list):
        return reply
    value = field(reply, key)
    return list(value) if value is not None else []
