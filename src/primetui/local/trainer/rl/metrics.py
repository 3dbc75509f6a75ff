"""The orchestrator's metric rows under prime-rl's names (HEAD ``orchestrator/metrics.py``).

``<scope>`` is ``train/agg`` or ``train/<env>`` (``eval/<env>`` for evals), ``<subset>`` is ``all``
(every rollout that arrived) or ``effective`` (the ones shipped to the trainer; locally the same
set, since nothing is cancelled), ``agent`` is the single agent of a single-agent env. A stat is
``mean, max, min, p10, p90`` with prime-rl's linear percentiles. Every value is computed from the
step's rollouts.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from primetui.local.trainer.rl.reward import REWARD_NAME, REWARD_WEIGHT
from primetui.local.trainer.rl.rollouts import Episode

AGENT = "agent"
STOP_CONDITION = "single_turn"  # reverse-text's @vf.stop: one turn, then stop
TIMING = ("setup", "agent", "finalize", "scoring")
EPISODE_COUNTS = ("num_total_tokens", "num_input_tokens", "num_output_tokens", "num_turns", "num_branches")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    rank = q / 100 * (len(ordered) - 1)
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return float(ordered[low] + (ordered[high] - ordered[low]) * (rank - low))


def stat(prefix: str, values: list[float]) -> dict[str, float]:
    if not values:
        return {}
    return {
        f"{prefix}/mean": sum(values) / len(values),
        f"{prefix}/max": float(max(values)),
        f"{prefix}/min": float(min(values)),
        f"{prefix}/p10": percentile(values, 10),
        f"{prefix}/p90": percentile(values, 90),
    }


def mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def _duration(span: dict[str, Any]) -> float:
    return max(0.0, span["end"] - span["start"]) if span.get("end") else 0.0


def _counts(e: Episode) -> dict[str, float]:
    return {
        "num_total_tokens": e.num_input_tokens + e.num_output_tokens,
        "num_input_tokens": e.num_input_tokens,
        "num_output_tokens": e.num_output_tokens,
        "num_turns": 1,
        "num_branches": 1,
    }


def _timing(e: Episode) -> dict[str, float]:
    t = {phase: _duration(e.timing[phase]) for phase in TIMING}
    return {
        **t,
        "agent/model": e.timing["agent"]["model"]["duration"],
        "agent/harness": e.timing["agent"]["harness"]["duration"],
        "total": sum(t.values()),
    }


def solve_rates(episodes: list[Episode]) -> dict[str, float]:
    groups: dict[str, list[float]] = {}
    for e in episodes:
        groups.setdefault(e.group_id, []).append(e.reward)
    n = len(groups)
    none = sum(sum(g) == 0 for g in groups.values())
    every = sum(all(r == 1.0 for r in g) for g in groups.values())
    return {"solved_none": none / n, "solved_all": every / n, "solved_some": 1 - (none + every) / n}


def _each(prefix: str, episodes: list[Episode], fn: Callable[[Episode], dict[str, float]]) -> dict[str, float]:
    rows = [fn(e) for e in episodes]
    out: dict[str, float] = {}
    for name in rows[0]:
        out |= stat(f"{prefix}/{name}", [r[name] for r in rows])
    return out


def agent_metrics(prefix: str, episodes: list[Episode], subset: str, train: bool) -> dict[str, float]:
    """``<scope>/<subset>/agent/...``: prime-rl's TraceMetrics (+ TrainMetrics on train steps)."""
    out = stat(f"{prefix}/reward", [e.reward for e in episodes])
    out |= _each(prefix, episodes, _counts)
    out[f"{prefix}/is_truncated/mean"] = mean([float(e.truncated) for e in episodes])
    out[f"{prefix}/is_completed/mean"] = 1.0
    out |= _each(f"{prefix}/timing", episodes, _timing)
    out |= stat(f"{prefix}/rewards/{REWARD_NAME}", [e.reward * REWARD_WEIGHT for e in episodes])
    if subset == "all":
        out[f"{prefix}/has_error/mean"] = 0.0
        out[f"{prefix}/cancelled/mean"] = 0.0
        out |= {f"{prefix}/{k}": v for k, v in solve_rates(episodes).items()}
    out[f"{prefix}/stop_condition/generation_truncated"] = out[f"{prefix}/is_truncated/mean"]
    out[f"{prefix}/stop_condition/{STOP_CONDITION}"] = 1.0
    if train:
        out[f"{prefix}/is_trainable/mean"] = mean([float(e.advantage != 0.0) for e in episodes])
        out[f"{prefix}/is_admitted/mean"] = 1.0
    return out


def episode_metrics(scope: str, episodes: list[Episode], train: bool) -> dict[str, float]:
    """Both subsets of one scope (``train/agg``, ``train/<env>`` or ``eval/<env>``)."""
    out: dict[str, float] = {}
    for subset in ("all", "effective"):
        prefix = f"{scope}/{subset}"
        out |= _each(prefix, episodes, _counts)
        if subset == "all":
            out[f"{prefix}/has_error/mean"] = 0.0
            out[f"{prefix}/cancelled/mean"] = 0.0
        out |= agent_metrics(f"{prefix}/{AGENT}", episodes, subset, train)
    return out


def by_env(episodes: list[Episode]) -> dict[str, list[Episode]]:
    out: dict[str, list[Episode]] = {}
    for e in episodes:
        out.setdefault(e.env_name, []).append(e)
    return out


def train_metrics(episodes: list[Episode], env_names: list[str]) -> dict[str, float]:
    out = episode_metrics("train/agg", episodes, train=True)
    groups = by_env(episodes)
    for name in env_names:
        if name in groups:
            out |= episode_metrics(f"train/{name}", groups[name], train=True)
    for name in env_names:
        out[f"batch/{name}"] = len(groups.get(name, [])) / len(episodes)
    return out


def eval_metrics(env_name: str, episodes: list[Episode], group_size: int, policy_version: int) -> dict[str, float]:
    scope = f"eval/{env_name}"
    out = episode_metrics(scope, episodes, train=False)
    for subset in ("all", "effective"):
        out[f"{scope}/{subset}/{AGENT}/avg@{group_size}"] = mean([e.reward for e in episodes])
    out[f"{scope}/policy_version"] = float(policy_version)
    return out
