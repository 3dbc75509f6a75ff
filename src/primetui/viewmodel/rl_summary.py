"""An RL run's summary: what its Overview tab and ``primetui run ID --once --json`` say (issue 40).

The environments, group and batch size, the latest step, the reward now and at the start, the
trainable share of the last step (``Trainable k/n`` from the orchestrator's step line), the
off-policy lag now and at most, and the progress to ``max_steps``. No textual or rich import.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from primetui.monitor_core import rl as rl_core, rl_metrics as names
from primetui.monitor_core.rl_lines import OrchestratorStep, orchestrator_step, trainer_step


@dataclass
class RLLogState:
    """What an RL run's logs add to its metrics: the orchestrator's last step line, the trainer's numbers."""

    last_step_line: OrchestratorStep | None = None
    trainer_rows: list[dict[str, float]] = field(default_factory=list)

    def add(self, component: str, texts: Iterable[str]) -> list[dict[str, float]]:
        """Read one batch of a stream's display lines; returns the trainer rows it brought."""
        new: list[dict[str, float]] = []
        if component == "orchestrator":
            for text in texts:
                if "Step " in text and "Reward" in text:
                    found = orchestrator_step(text)
                    if found is not None and (self.last_step_line is None or found.step >= self.last_step_line.step):
                        self.last_step_line = found
        elif component == "trainer" or component.startswith("trainer-"):
            for text in texts:
                if "Step " in text:
                    parsed = trainer_step(text)
                    if parsed is not None:
                        new.append(parsed.row())
            self.trainer_rows += new
        return new


def _latest(rows: dict[int, dict[str, Any]], key: str) -> float | None:
    for step in sorted(rows, reverse=True):
        value = rows[step].get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
    return None


def rl_summary(run: Any, progress: Any, logs: RLLogState | None = None) -> dict[str, Any]:
    """The RL summary as JSON-safe data (``progress`` is the run's ``RunProgress`` or None)."""
    rows = progress.rows if progress is not None else {}
    first, last = (progress.first_reward, progress.last_reward) if progress is not None else (None, None)
    line = logs.last_step_line if logs is not None else None
    max_off = rl_core.setting(run, "max_off_policy_steps")
    return {
        "environments": rl_core.environments(run),
        "eval_environments": rl_core.eval_environments(run),
        "group_size": rl_core.setting(run, "group_size"),
        "batch_size": rl_core.setting(run, "batch_size"),
        "lr": rl_core.setting(run, "lr"),
        "max_steps": rl_core.setting(run, "max_steps"),
        "latest_step": progress.step if progress is not None else None,
        "reward": last[1] if last else None,
        "reward_step": last[0] if last else None,
        "reward_start": first[1] if first else None,
        "reward_start_step": first[0] if first else None,
        "trainable": line.trainable if line is not None else None,
        "trainable_of": line.effective if line is not None else None,
        "trainable_step": line.step if line is not None and line.trainable is not None else None,
        "off_policy_mean": _latest(rows, names.OFF_POLICY_MEAN),
        "off_policy_max": _latest(rows, names.OFF_POLICY_MAX),
        "max_off_policy_steps": max_off if max_off is not None else rl_core.DEFAULT_MAX_OFF_POLICY_STEPS,
    }


def summary_lines(summary: dict[str, Any]) -> list[tuple[str, str]]:
    """(label, text) pairs: the Overview's RL rows and ``run ID --once``'s text, alike."""

    def num(value: Any, fmt: str = "{:.4f}") -> str:
        return fmt.format(value) if isinstance(value, (int, float)) else "-"

    envs = ", ".join(summary["environments"]) or "-"
    if summary["eval_environments"]:
        envs += f"  (eval: {', '.join(summary['eval_environments'])})"
    reward = f"{num(summary['reward'])} @ {summary['reward_step']}" if summary["reward"] is not None else "-"
    if summary["reward_start"] is not None:
        reward += f"   start {num(summary['reward_start'])} @ {summary['reward_start_step']}"
    trainable = "-"
    if summary["trainable"] is not None and summary["trainable_of"]:
        share = summary["trainable"] / summary["trainable_of"]
        trainable = f"{summary['trainable']}/{summary['trainable_of']} ({share:.1%}) @ step {summary['trainable_step']}"
    lag = f"{num(summary['off_policy_mean'], '{:.2f}')} now, max {num(summary['off_policy_max'], '{:g}')}"
    lag += f"  (limit max_off_policy_steps={summary['max_off_policy_steps']})"
    return [
        ("Environments", envs),
        (
            "Group / batch",
            f"{summary['group_size'] if summary['group_size'] is not None else '-'} per prompt / "
            f"{summary['batch_size'] if summary['batch_size'] is not None else '-'} rollouts",
        ),
        ("Reward", reward),
        ("Trainable", trainable),
        ("Off-policy", lag),
    ]
