"""The health of an RL run: flags a researcher would otherwise find too late (issue 40 §2).

Fed by :class:`primetui.monitor_core.anomalies.Detector` with the same metric rows and log lines
as the SFT rules, so the flags reach the toast, the runs list's ``!`` and ``--on-event`` the same
way. Each flag names its step and the log line (or metric row) behind it:

- ``low_trainable``: the orchestrator's step line says ``Trainable k/n`` at or below the share at
  which the orchestrator itself warns (10 %: "Only k/n effective traces are trainable").
- ``entropy_collapse``: the trainer's entropy falls below ``entropy_ratio`` x its highest value of
  the last ``entropy_steps`` steps (a learning rate far too high; a healthy run's entropy falls too,
  but over many more steps). Once per run.
- ``kl_growth``: the trainer's mismatch KL rises ``kl_rises`` steps in a row to at least twice
  where the climb began (prime-rl: "a sustained, growing mean is the early-warning sign for
  off-policy collapse").
- ``off_policy_drop``: episodes cancelled or traces dropped past ``max_off_policy_steps`` (the
  orchestrator's warnings, or ``off_policy/dropped`` above zero).
- ``length_hacking``: the reward rises while the truncated share runs high and climbs: outputs
  run to the token cap.
- ``env_error``: an env server's failed request, a failed trace, or ``has_error`` above zero.
- ``answer_drift``: at the sample steps, the mean reward rose at least ``hack_reward_rise`` above
  the first sample step's while the completions' mean character similarity to the answer (the
  Rollouts diff's ratio) rose less than ``answer_rise``: the reward comes from something other
  than the answer (reward hacking). Needs samples with an answer; fed by :meth:`RLHealth.sample_step`.

Pure core: no textual, no rich. Episodes are reported once: a flag is raised again only after
``window`` steps without the trouble.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from primetui.monitor_core import rl_metrics as names
from primetui.monitor_core.rl_lines import orchestrator_step, rl_warning, trainer_step

RL_KINDS = (
    "low_trainable",
    "entropy_collapse",
    "kl_growth",
    "off_policy_drop",
    "length_hacking",
    "env_error",
    "answer_drift",
)
RL_LABELS = {
    "low_trainable": "few trainable traces",
    "entropy_collapse": "entropy collapse",
    "kl_growth": "mismatch KL growing",
    "off_policy_drop": "stale episodes dropped",
    "length_hacking": "length hacking",
    "env_error": "env-server error",
    "answer_drift": "reward without the answer",
}


class SamplePoint(NamedTuple):
    """One sample step's rollouts in two numbers: their mean reward and mean similarity to the answer."""

    step: int
    reward: float
    similarity: float
    scored: int
    """How many completions were measured (``count`` is tuple's own method)."""


class Flag(NamedTuple):
    kind: str
    step: int | None
    component: str
    message: str
    line: str | None = None
    line_index: int | None = None


def _num(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    value = float(value)
    return value if math.isfinite(value) else None


class RLHealth:
    """Incremental RL rules over one run; ``th`` is the detector's ``Thresholds``."""

    def __init__(self, th: Any) -> None:
        self.th = th
        self.step: int | None = None  # the latest step any source named
        self._low_active = False
        self._entropy_recent: list[tuple[int, float]] = []
        self._entropy_done = False
        self._kl_prev: float | None = None
        self._kl_start: float | None = None
        self._kl_rises = 0
        self._kl_active = False
        self._last: dict[str, int] = {}  # kind -> step of the trouble last seen (drops, errors)
        self._reward_start: float | None = None
        self._trunc_start: float | None = None
        self._hack_active = False
        self._first_point: SamplePoint | None = None
        self._points: dict[int, SamplePoint] = {}
        self._drift_active = False

    # ---- episodes seen as "trouble at step s": raised when none was seen in the last window --------
    def _episode(self, kind: str, step: int | None) -> bool:
        at = step if step is not None else (self.step or 0)
        last = self._last.get(kind)
        self._last[kind] = at
        return last is None or at - last > self.th.window

    def _see_step(self, step: int) -> None:
        if self.step is None or step > self.step:
            self.step = step

    # ---- metric rows -------------------------------------------------------------------------
    def row(self, row: Mapping[str, Any], text_of: Callable[[Mapping[str, Any]], str]) -> list[Flag]:
        """A metric row (``text_of`` gives the text a flag shows for it)."""
        if not names.is_rl_row(row) and names.OFF_POLICY_DROPPED not in row:
            return []  # an SFT row
        step = int(row["step"])
        self._see_step(step)
        row = names.normalise(row)
        text = text_of(row)
        out: list[Flag] = []
        dropped = _num(row.get(names.OFF_POLICY_DROPPED))
        if dropped and dropped > 0 and self._episode("off_policy_drop", step):
            out.append(
                Flag(
                    "off_policy_drop",
                    step,
                    "orchestrator",
                    f"{dropped:g} stale episode(s) dropped past max_off_policy_steps at step {step}",
                    text,
                )
            )
        errors = _num(row.get(names.ERRORS))
        if errors and errors > 0 and self._episode("env_error", step):
            out.append(
                Flag(
                    "env_error",
                    step,
                    "orchestrator",
                    f"{errors:.1%} of the episodes ended in an error at step {step}",
                    text,
                )
            )
        hack = self._length_hacking(step, row, text)
        if hack is not None:
            out.append(hack)
        return out

    def _length_hacking(self, step: int, row: Mapping[str, Any], text: str) -> Flag | None:
        reward, trunc = names.reward_of(row), _num(row.get(names.TRUNCATED))
        if reward is None or trunc is None or not math.isfinite(reward):
            return None
        if self._reward_start is None:
            self._reward_start, self._trunc_start = reward, trunc
            return None
        th = self.th
        hacking = (
            trunc >= th.hack_truncation
            and trunc - (self._trunc_start or 0.0) >= th.hack_truncation_rise
            and reward - self._reward_start >= th.hack_reward_rise
        )
        if not hacking:
            self._hack_active = self._hack_active and trunc >= th.hack_truncation
            return None
        if self._hack_active:
            return None
        self._hack_active = True
        return Flag(
            "length_hacking",
            step,
            "orchestrator",
            f"reward rose {self._reward_start:.3g} → {reward:.3g} while {trunc:.0%} of the outputs were cut at "
            f"the token cap (from {self._trunc_start:.0%}) at step {step}: the reward may come from length",
            text,
        )

    # ---- sample steps ------------------------------------------------------------------------
    @property
    def sample_steps(self) -> list[int]:
        return sorted(self._points)

    def sample_step(self, point: SamplePoint) -> Flag | None:
        """A sample step's mean reward and answer similarity (each step once; in any order)."""
        if point.step in self._points or point.scored <= 0:
            return None
        self._points[point.step] = point
        first = min(self._points.values(), key=lambda p: p.step)
        if point.step == first.step:
            return None
        th = self.th
        drift = (
            point.reward - first.reward >= th.hack_reward_rise and point.similarity - first.similarity < th.answer_rise
        )
        if not drift:
            self._drift_active = False
            return None
        if self._drift_active:
            return None
        self._drift_active = True
        return Flag(
            "answer_drift",
            point.step,
            "orchestrator",
            f"reward rose {first.reward:.3g} → {point.reward:.3g} from step {first.step} to step {point.step} "
            f"while the completions' similarity to the answer went {first.similarity:.3g} → "
            f"{point.similarity:.3g}: the reward may not come from the answer (see the rollouts)",
        )

    # ---- log lines ---------------------------------------------------------------------------
    def line(self, component: str, index: int | None, text: str, step: int | None) -> Flag | None:
        """One log line of ``component`` (its stream key); ``step`` is that stream's latest step line."""
        if component.startswith("trainer"):
            return self._trainer(component, index, text)
        if "Step " in text:
            orch = orchestrator_step(text)
            if orch is not None:
                return self._orchestrator(component, index, text, orch)
        warning = rl_warning(text)
        if warning is None:
            return None
        at = (self.step + 1) if self.step is not None else step
        if warning.kind in ("cancelled", "dropped"):
            if not self._episode("off_policy_drop", at):
                return None
            what = "episodes cancelled" if warning.kind == "cancelled" else "queued traces dropped"
            return Flag(
                "off_policy_drop",
                at,
                component,
                f"{warning.count} {what} past max_off_policy_steps={warning.limit} near step {at}",
                text,
                index,
            )
        if warning.kind in ("trace_failed", "env_request"):
            if not self._episode("env_error", at):
                return None
            where = f" ({warning.env})" if warning.env else ""
            return Flag(
                "env_error",
                at,
                component,
                f"env-server error{where} near step {at}: {(warning.what or '')[:120]}",
                text,
                index,
            )
        if warning.kind == "trainable" and not self._low_active and warning.total:
            if warning.count is not None and warning.count / warning.total <= self.th.trainable_share:
                self._low_active = True
                return Flag(
                    "low_trainable",
                    at,
                    component,
                    f"only {warning.count}/{warning.total} traces trainable near step {at}",
                    text,
                    index,
                )
        return None

    def _orchestrator(self, component: str, index: int | None, text: str, orch: Any) -> Flag | None:
        self._see_step(orch.step)
        share = orch.trainable_share
        if share is None:
            return None
        if share > self.th.trainable_share:
            self._low_active = False
            return None
        if self._low_active:
            return None
        self._low_active = True
        return Flag(
            "low_trainable",
            orch.step,
            component,
            f"only {orch.trainable}/{orch.effective} traces trainable ({share:.1%}) at step {orch.step}: "
            "most groups gave every completion the same reward",
            text,
            index,
        )

    def _trainer(self, component: str, index: int | None, text: str) -> Flag | None:
        if "Step " not in text:
            return None
        parsed = trainer_step(text)
        if parsed is None:
            return None
        self._see_step(parsed.step)
        flag = None
        if parsed.entropy is not None:
            flag = self._entropy(component, index, text, parsed.step, parsed.entropy)
        if parsed.mismatch_kl is not None:
            flag = self._kl(component, index, text, parsed.step, parsed.mismatch_kl) or flag
        return flag

    def _entropy(self, component: str, index: int | None, text: str, step: int, entropy: float) -> Flag | None:
        th = self.th
        if self._entropy_done or not math.isfinite(entropy):
            return None
        recent = [(s, e) for s, e in self._entropy_recent if step - s <= th.entropy_steps and s < step]
        self._entropy_recent = [*recent, (step, entropy)]
        if not recent:
            return None
        top_step, top = max(recent, key=lambda p: p[1])
        if top <= 0 or entropy >= th.entropy_ratio * top:
            return None
        self._entropy_done = True  # once per run: a collapsed policy stays collapsed
        return Flag(
            "entropy_collapse",
            step,
            component,
            f"entropy fell to {entropy:.3g} at step {step}, {entropy / top:.0%} of its {top:.3g} at step {top_step}, "
            f"within {step - top_step} step(s): the learning rate may be far too high",
            text,
            index,
        )

    def _kl(self, component: str, index: int | None, text: str, step: int, kl: float) -> Flag | None:
        th = self.th
        prev = self._kl_prev
        self._kl_prev = kl
        if prev is None or not math.isfinite(kl) or kl <= prev:
            self._kl_rises, self._kl_start, self._kl_active = 0, None, False
            return None
        if self._kl_rises == 0:
            self._kl_start = prev
        self._kl_rises += 1
        start = self._kl_start or 0.0
        if self._kl_active or self._kl_rises < th.kl_rises or kl < th.kl_floor or kl < 2 * start:
            return None
        self._kl_active = True
        return Flag(
            "kl_growth",
            step,
            component,
            f"mismatch KL rose {self._kl_rises} steps in a row, {start:.3g} → {kl:.3g} at step {step}: "
            "trainer and inference drift apart (off-policy collapse ahead)",
            text,
            index,
        )
