"""Anomalies found as a run goes: what went wrong, at which step, in which component, and why.

Pure core (no textual, no rich): the run screen, the runs list and ``primetui run ID --once``
all use the same :class:`Detector`, fed incrementally with metric rows (R10) and log lines (R7).

Kinds (``Anomaly.kind``):

- ``nan``: a metric is NaN or infinite, or a ``*nan_count`` metric is above zero.
- ``loss_spike``: ``loss/mean`` above the rolling median of the last ``window`` healthy points by
  more than ``loss_z`` robust standard deviations (1.4826 x MAD), where the deviation is never
  taken below ``loss_rel_floor`` x the median: warmup noise (a few percent) never reaches it.
- ``early_divergence``: ``loss/mean`` above ``early_factor`` x the run's first loss within its
  first ``early_steps`` steps (a learning rate too high: the loss climbs step by step, so each
  point joins the rolling median and no single one is a spike). Once per run.
- ``grad_blowup``: ``optim/grad_norm`` above ``grad_ratio`` x its rolling median.
- ``throughput_collapse``: ``perf/throughput`` below ``throughput_ratio`` x its rolling median.
- ``stall``: no new step for ``stall_factor`` x the median step time (and at least
  ``stall_min_seconds``) while the run is RUNNING.
- ``traceback``, ``oom``, ``nccl``, ``cuda``: such a line in any component's log.
- ``exited``: a component (or the run) ended with an error.
- RL runs: ``low_trainable``, ``entropy_collapse``, ``kl_growth``, ``off_policy_drop``,
  ``length_hacking``, ``env_error``, ``answer_drift`` (:mod:`primetui.monitor_core.rl_health`; the
  last from the sample steps, :meth:`Detector.add_sample_points`).

Each episode is reported once, at the step it starts: points that stay anomalous do not join
the baseline and do not raise again until the metric is back to normal.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left, insort
from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from primetui.monitor_core.rl_health import RL_KINDS, RL_LABELS, RLHealth, SamplePoint

LOSS_KEY = "loss/mean"
GRAD_KEY = "optim/grad_norm"
THROUGHPUT_KEY = "perf/throughput"

KINDS = (
    "nan",
    "loss_spike",
    "early_divergence",
    "grad_blowup",
    "throughput_collapse",
    "stall",
    "traceback",
    "oom",
    "nccl",
    "cuda",
    "exited",
    *RL_KINDS,
)
ERROR_KINDS = frozenset({"nan", "traceback", "oom", "nccl", "cuda", "exited"})
"""Error-level kinds: the run's numbers or a component broke (the others are trends to look at).
``primetui wait`` ends with its own exit code when a completed run has one."""
LABELS = {
    "nan": "NaN/inf",
    "loss_spike": "loss spike",
    "early_divergence": "early divergence",
    "grad_blowup": "grad-norm blow-up",
    "throughput_collapse": "throughput collapse",
    "stall": "stall",
    "traceback": "traceback",
    "oom": "out of memory",
    "nccl": "NCCL error",
    "cuda": "CUDA error",
    "exited": "exited",
    **RL_LABELS,
}


@dataclass(frozen=True, slots=True)
class Thresholds:
    """Detector settings (the ``[anomalies]`` table of the preferences file mirrors these)."""

    window: int = 20
    loss_z: float = 6.0
    loss_rel_floor: float = 0.1
    grad_ratio: float = 10.0
    throughput_ratio: float = 0.2
    min_points: int = 3
    stall_factor: float = 5.0
    stall_min_seconds: float = 120.0
    early_steps: int = 20
    early_factor: float = 2.0
    trainable_share: float = 0.10
    """RL: the trainable share at or below which the orchestrator itself warns."""
    entropy_ratio: float = 0.25
    entropy_steps: int = 5
    kl_rises: int = 5
    kl_floor: float = 1e-3
    hack_truncation: float = 0.5
    hack_truncation_rise: float = 0.2
    hack_reward_rise: float = 0.05
    answer_rise: float = 0.02
    """RL: the rise of the answer similarity below which a rising reward is flagged (``answer_drift``)."""

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any] | None) -> Thresholds:
        """Known keys of ``data`` (e.g. ``prefs.anomalies.model_dump()``); others are ignored."""
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in (data or {}).items() if k in names})


@dataclass(frozen=True, slots=True)
class Anomaly:
    kind: str
    step: int | None
    component: str
    message: str
    line: str | None = None  # the log line that shows it (metric anomalies: the row, as text)
    line_index: int | None = None  # global index of that line in the component's log store

    @property
    def label(self) -> str:
        return LABELS.get(self.kind, self.kind)

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "step": self.step,
            "component": self.component,
            "message": self.message,
            "line": self.line,
        }


_LOG_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("oom", re.compile(r"out of memory|OutOfMemoryError|\bOOM\b|Killed process .* total-vm", re.IGNORECASE)),
    (
        "nccl",
        re.compile(
            r"\bNCCL\b.*(?:error|timeout|failed|abort)|ncclInternalError|ncclSystemError|NCCL WARN", re.IGNORECASE
        ),
    ),
    ("cuda", re.compile(r"CUDA error|CUDA_ERROR|cudaError|device-side assert", re.IGNORECASE)),
    ("traceback", re.compile(r"Traceback \(most recent call last\)")),
]
ERROR_LINES_KEPT = 64
"""Lines saying "error" kept per component to find a failed run's reason in its log."""
_STEP_LINE = re.compile(r"Step (\d+) \|")
_RL_WORDS = re.compile(
    r"Trainable |Entropy|Only \d|max_off_policy_steps|failed in group|request failed|failed to send|invalid message"
)
"""Words of the lines the RL rules read (:mod:`primetui.monitor_core.rl_health`)."""
_RL_KEYWORDS = ("trainable", "entropy", "max_off_policy", "failed", "invalid message")
"""The same words, lower-case: substring tests on the batch's lowered text rule most batches out."""
# Lower-case words one of the patterns needs: a plain substring test (C speed) rules a line out.
_KEYWORDS = ("memory", "oom", "nccl", "cuda", "traceback", "killed process", "device-side")


def _maybe_trouble(text: str) -> bool:
    low = text.lower()
    return any(k in low for k in _KEYWORDS)


def classify_line(text: str) -> str | None:
    """The anomaly kind a log line shows, or None."""
    for kind, pattern in _LOG_PATTERNS:
        if pattern.search(text):
            return kind
    return None


class _Rolling:
    """The last ``n`` healthy values of one metric (also kept sorted), and whether it is in an
    anomalous episode."""

    __slots__ = ("values", "ordered", "active")

    def __init__(self, n: int) -> None:
        self.values: deque[float] = deque(maxlen=max(n, 1))
        self.ordered: list[float] = []
        self.active = False

    def push(self, value: float) -> None:
        if len(self.values) == self.values.maxlen:
            del self.ordered[bisect_left(self.ordered, self.values[0])]
        self.values.append(value)
        insort(self.ordered, value)

    def median(self) -> float:
        return _median(self.ordered)

    def mad(self, med: float) -> float:
        return _median(sorted(abs(x - med) for x in self.ordered))


def _median(xs: list[float]) -> float:
    n = len(xs)
    if not n:
        return math.nan
    mid = n // 2
    return xs[mid] if n % 2 else (xs[mid - 1] + xs[mid]) / 2


def _fmt(v: float) -> str:
    if not math.isfinite(v):
        return str(v)
    return f"{v:.4g}" if abs(v) < 1e5 else f"{v:.3e}"


@dataclass
class Detector:
    """Incremental detection over one run. Feed it; read :attr:`anomalies` (ordered as found)."""

    thresholds: Thresholds = field(default_factory=Thresholds)
    anomalies: list[Anomaly] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._roll: dict[str, _Rolling] = {}
        self._nan_active: set[str] = set()
        self._seen_steps: set[int] = set()
        self._step_times: list[tuple[int, float]] = []
        self._log_step: dict[str, int | None] = {}
        self._log_active: dict[str, str | None] = {}
        self._stall: Anomaly | None = None
        self._exited: set[str] = set()
        self._error_lines: dict[str, deque[tuple[int | None, str]]] = {}
        """The last lines of each component's log that say "error": where a run's failure reason is."""
        self._first_loss: tuple[int, float] | None = None
        self._diverged = False
        self._rl = RLHealth(self.thresholds)
        self.version = 0

    # ---- metrics ------------------------------------------------------------------------------
    def add_rows(self, rows: Iterable[Mapping[str, Any]]) -> list[Anomaly]:
        """Take metric rows (any order within a batch is sorted by step); returns new anomalies."""
        found: list[Anomaly] = []
        good = [r for r in rows if isinstance(r.get("step"), (int, float)) and not isinstance(r.get("step"), bool)]
        for row in sorted(good, key=lambda r: r["step"]):
            found += self._row(row)
        self._extend(found)
        return found

    def add_sample_points(self, points: Iterable[SamplePoint]) -> list[Anomaly]:
        """Sample steps' mean reward and answer similarity (an RL run's rollouts); returns new anomalies."""
        found = [Anomaly(*flag) for p in sorted(points, key=lambda p: p.step) if (flag := self._rl.sample_step(p))]
        self._extend(found)
        return found

    def _row(self, row: Mapping[str, Any]) -> list[Anomaly]:
        step = int(row["step"])
        t = row.get("time")
        if step not in self._seen_steps:
            self._seen_steps.add(step)
            if isinstance(t, (int, float)) and math.isfinite(t):
                self._step_times.append((step, float(t)))
                self._stall = None  # a new step ends a stall
        out: list[Anomaly] = []
        isfinite = math.isfinite
        value: float | None
        for key, raw in row.items():
            if type(raw) is float and key != "time":
                value = raw
            else:
                if key in ("step", "time"):
                    continue
                value = _number(raw)
                if value is None:
                    continue
            if isfinite(value) and not (value > 0 and key.endswith("nan_count")):
                if self._nan_active:
                    self._nan_active.discard(key)
                continue
            if key not in self._nan_active:  # NaN/inf, or a positive nan_count
                self._nan_active.add(key)
                what = (
                    f"{key} is {_fmt(value)}"
                    if not isfinite(value)
                    else f"{key} = {int(value)} (NaN losses in this step)"
                )
                out.append(Anomaly("nan", step, "trainer", f"{what} at step {step}", _row_text(row)))
        th = self.thresholds
        for key, kind in ((LOSS_KEY, "loss_spike"), (GRAD_KEY, "grad_blowup"), (THROUGHPUT_KEY, "throughput_collapse")):
            raw = row.get(key)
            value = raw if type(raw) is float else _number(raw)
            if value is None or not isfinite(value):
                continue
            roll = self._roll.get(key)
            if roll is None:
                roll = self._roll[key] = _Rolling(th.window)
            message = self._judge(kind, roll, value)
            if message is None:
                roll.active = False
                roll.push(value)
            elif not roll.active:
                roll.active = True
                out.append(Anomaly(kind, step, "trainer", f"{message} at step {step}", _row_text(row)))
                if kind == "loss_spike":
                    self._diverged = True  # a spike already tells this run's blow-up: not twice
        early = self._early_divergence(step, row)
        if early is not None:
            out.append(early)
        out += [Anomaly(*flag) for flag in self._rl.row(row, _row_text)]
        return out

    def _early_divergence(self, step: int, row: Mapping[str, Any]) -> Anomaly | None:
        raw = row.get(LOSS_KEY)
        value = raw if type(raw) is float else _number(raw)
        if value is None or not math.isfinite(value) or self._diverged:
            return None
        if self._first_loss is None:
            self._first_loss = (step, value)
            return None
        first_step, first = self._first_loss
        th = self.thresholds
        if first <= 0 or step - first_step > th.early_steps or value <= th.early_factor * first:
            return None
        self._diverged = True
        return Anomaly(
            "early_divergence",
            step,
            "trainer",
            f"loss rose {value / first:.1f}x in the first steps ({_fmt(first)} at step {first_step} → "
            f"{_fmt(value)} at step {step}); the learning rate may be too high",
            _row_text(row),
        )

    def _judge(self, kind: str, roll: _Rolling, value: float) -> str | None:
        th = self.thresholds
        if not roll.values:
            return None
        med = roll.median()
        if kind == "loss_spike":
            floor = max(th.loss_rel_floor * abs(med), 1e-12)
            if value - med <= th.loss_z * floor:
                return None  # below the floor's threshold: no MAD can make it a spike
            scale = max(1.4826 * roll.mad(med), floor)
            z = (value - med) / scale
            if z > th.loss_z:
                return f"loss {_fmt(value)} is {z:.0f} robust σ above the rolling median {_fmt(med)}"
            return None
        if len(roll.values) < th.min_points or med <= 0:
            return None
        if kind == "grad_blowup" and value > th.grad_ratio * med:
            return f"grad norm {_fmt(value)} is {value / med:.0f}x its rolling median {_fmt(med)}"
        if kind == "throughput_collapse" and value < th.throughput_ratio * med:
            return f"throughput {_fmt(value)} fell to {value / med:.0%} of its rolling median {_fmt(med)}"
        return None

    # ---- stalls ------------------------------------------------------------------------------
    def check_stall(self, now: float, status: str | None) -> Anomaly | None:
        """Call on every poll with the unix time and the run's status; returns a new stall."""
        if status != "RUNNING" or len(self._step_times) < 3 or self._stall is not None:
            return None
        times = sorted(self._step_times)
        gaps = sorted(b[1] - a[1] for a, b in zip(times, times[1:]) if b[1] >= a[1])
        if not gaps:
            return None
        median_gap = _median(gaps)
        last_step, last_t = times[-1]
        waited = now - last_t
        limit = max(self.thresholds.stall_factor * median_gap, self.thresholds.stall_min_seconds)
        if waited <= limit:
            return None
        self._stall = Anomaly(
            "stall",
            last_step,
            "trainer",
            f"no new step for {waited:.0f}s after step {last_step} (median step time {median_gap:.1f}s)",
        )
        self._extend([self._stall])
        return self._stall

    # ---- logs --------------------------------------------------------------------------------
    def add_log_lines(self, component: str, lines: Iterable[tuple[int | None, str]]) -> list[Anomaly]:
        """Take (global index, display text) lines of one component's log, in order."""
        lines = lines if isinstance(lines, list) else list(lines)
        found: list[Anomaly] = []
        step = self._log_step.get(component)
        active = self._log_active.get(component)
        blob = "\n".join(text for _, text in lines)
        low = blob.lower()  # one lowering per batch, for both tests below
        if any(k in low for k in _RL_KEYWORDS):  # C-speed tests first: an SFT batch never pays for the regex
            found += self._rl_lines(component, lines, step)
        if "error" in low:
            kept = self._error_lines.setdefault(component, deque(maxlen=ERROR_LINES_KEPT))
            kept.extend((index, text) for index, text in lines if "error" in text.lower())
            self._place_exit(component)
        if not any(k in low for k in _KEYWORDS):
            # The common case, at C speed: no trouble in the batch, only the step to track.
            last = None
            for last in _STEP_LINE.finditer(blob):
                pass
            if last is not None:
                self._log_step[component] = int(last.group(1))
                self._log_active[component] = None
            self._extend(found)
            return found
        for index, text in lines:
            m = _STEP_LINE.search(text) if "Step " in text else None
            if m:
                step = int(m.group(1))
                active = None
                continue
            kind = classify_line(text) if _maybe_trouble(text) else None
            if kind is None or kind == active:
                continue
            message = f"{LABELS[kind]} in {component}: {text.strip()[:160]}"
            if (
                active == "traceback"
                and kind != "traceback"
                and found
                and found[-1].kind == "traceback"
                and found[-1].component == component
            ):
                # One failure, many lines: the traceback's last line ("...OutOfMemoryError") names it.
                prev = found.pop()
                found.append(Anomaly(kind, prev.step, component, message, prev.line, prev.line_index))
            else:
                found.append(Anomaly(kind, step, component, message, text, index))
            active = kind
        self._log_step[component] = step
        self._log_active[component] = active
        self._extend(found)
        return found

    def _rl_lines(self, component: str, lines: list[tuple[int | None, str]], step: int | None) -> list[Anomaly]:
        found = []
        for index, text in lines:
            if not _RL_WORDS.search(text):
                continue
            flag = self._rl.line(component, index, text, step)
            if flag is not None:
                found.append(Anomaly(*flag))
        return found

    # ---- components --------------------------------------------------------------------------
    def component_exited(
        self, component: str, message: str, step: int | None = None, line: str | None = None
    ) -> Anomaly | None:
        """A component (or the run) ended with an error; reported once per component."""
        if component in self._exited:
            return None
        self._exited.add(component)
        anomaly = Anomaly("exited", step if step is not None else self.last_step, component, message, line)
        self._extend([anomaly])
        self._place_exit(component)
        return anomaly

    def _place_exit(self, component: str) -> None:
        """Point the component's "exited" anomaly at the log line that gives its reason (the line ``!``
        on a failed run lands on), in whichever order the reason and the log arrive."""
        for n, anomaly in enumerate(self.anomalies):
            if anomaly.kind != "exited" or anomaly.component != component or anomaly.line_index is not None:
                continue
            reason = (anomaly.line or "").strip()
            hit = next(
                (
                    index
                    for index, text in reversed(self._error_lines.get(component, ()))
                    if reason and index is not None and reason in text
                ),
                None,
            )
            if hit is not None:
                self.anomalies[n] = replace(anomaly, line_index=hit)
                self.version += 1

    @property
    def sample_steps(self) -> list[int]:
        """The sample steps measured for ``answer_drift`` so far."""
        return self._rl.sample_steps

    @property
    def last_step(self) -> int | None:
        return max(self._seen_steps) if self._seen_steps else None

    def _extend(self, found: list[Anomaly]) -> None:
        if found:
            self.anomalies.extend(found)
            self.version += 1

    def to_json(self) -> list[dict[str, Any]]:
        return [a.to_json() for a in self.anomalies]


def _number(raw: Any) -> float | None:
    if isinstance(raw, bool):
        return None
    if isinstance(raw, (int, float)):
        return float(raw)
    if isinstance(raw, str) and raw.strip().lower() in ("nan", "inf", "-inf", "infinity", "-infinity", "+inf"):
        return float(raw)
    return None


def _row_text(row: Mapping[str, Any]) -> str:
    keys = [k for k in ("step", LOSS_KEY, GRAD_KEY, THROUGHPUT_KEY) if k in row]
    keys += [k for k in row if k not in keys and k != "time"][: max(0, 6 - len(keys))]
    return " ".join(f"{k}={_fmt(row[k]) if isinstance(row[k], float) else row[k]}" for k in keys)


def detect(
    rows: Iterable[Mapping[str, Any]],
    logs: Mapping[str, Iterable[str]] | None = None,
    *,
    status: str | None = None,
    error: str | None = None,
    now: float | None = None,
    thresholds: Thresholds | None = None,
    samples: Iterable[SamplePoint] = (),
) -> list[Anomaly]:
    """One-shot detection over a whole run (headless): metrics, logs, sample steps, a stall, a failed exit."""
    det = Detector(thresholds or Thresholds())
    det.add_rows(rows)
    det.add_sample_points(samples)
    for component, lines in (logs or {}).items():
        det.add_log_lines(component, list(enumerate(lines)))
    if now is not None:
        det.check_stall(now, status)
    if status == "FAILED":
        det.component_exited("trainer", f"the run failed: {error}" if error else "the run failed", line=error)
    return sorted(det.anomalies, key=lambda a: (a.step if a.step is not None else math.inf, KINDS.index(a.kind)))
