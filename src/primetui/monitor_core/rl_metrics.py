"""RL metric names across three prime-rl generations, mapped onto one set of chart keys.

The platform stores whatever the run's image POSTed (research §2.5), so an RL run's metric rows
carry one of:

- today's names (``train/agg/effective/agent/reward/mean``, ``train/<env>/…``, ``off_policy/*``);
- v0.5's (``reward/all/mean``, ``reward/<env>/mean``, ``is_truncated/all/mean``, ``solve_none/all``…);
- v0.4's (``reward/mean``, ``completion_len/mean``, ``batch/solve_none``, ``metrics/<fn>``…).

:func:`normalise` adds today's name beside an older one, so the charts, the runs list and the
health rules read one name whatever the run's age. Pure core: no textual, no rich.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from typing import Any

AGG = "train/agg/effective/agent"
REWARD = f"{AGG}/reward/mean"
REWARD_MIN, REWARD_MAX = f"{AGG}/reward/min", f"{AGG}/reward/max"
REWARD_P10, REWARD_P90 = f"{AGG}/reward/p10", f"{AGG}/reward/p90"
OUTPUT_LEN = "train/agg/effective/num_output_tokens/mean"
TRUNCATED = f"{AGG}/is_truncated/mean"
SOLVED_NONE, SOLVED_SOME, SOLVED_ALL = (f"train/agg/all/agent/solved_{k}" for k in ("none", "some", "all"))
ERRORS = "train/agg/all/has_error/mean"
CANCELLED = "train/agg/all/cancelled/mean"
OFF_POLICY_MEAN, OFF_POLICY_MAX, OFF_POLICY_DROPPED = "off_policy/mean", "off_policy/max", "off_policy/dropped"
STEP_TIME, WAIT_FOR_POLICY = "time/step", "time/wait_for_policy"

# today's key <- older keys (v0.5 first, then v0.4)
ALIASES: dict[str, tuple[str, ...]] = {
    REWARD: ("train/agg/all/agent/reward/mean", "reward/all/mean", "reward/mean"),
    REWARD_MAX: ("reward/all/max", "reward/max"),
    REWARD_MIN: ("reward/all/min", "reward/min"),
    OUTPUT_LEN: (f"{AGG}/num_output_tokens/mean", "decode_len/all/mean", "completion_len/mean"),
    TRUNCATED: ("is_truncated/all/mean", "is_truncated/mean"),
    SOLVED_NONE: ("solve_none/all", "batch/solve_none"),
    SOLVED_ALL: ("solve_all/all", "batch/solve_all"),
    ERRORS: ("error/mean",),
    "eval/val/effective/agent/reward/mean": ("val_reward/mean",),
}
_ALIAS_OF = {old: new for new, olds in ALIASES.items() for old in olds}
RL_MARKERS = (REWARD, *ALIASES[REWARD])
"""A row holding one of these is an RL row."""

_ENV_REWARD = re.compile(r"^train/(?P<env>[^/]+)/effective/(?:agent/)?reward/mean$")
_V05_ENV_REWARD = re.compile(r"^reward/(?P<env>[^/]+)/mean$")
_FN_REWARD = re.compile(r"^train/(?P<env>[^/]+)/effective/[^/]+/rewards/(?P<fn>[^/]+)/mean$")
_V04_FN = re.compile(r"^metrics/(?P<fn>[^/]+)$")


def normalise(row: Mapping[str, Any]) -> dict[str, Any]:
    """The row with today's key added beside each older one (and ``solved_some`` derived when an
    older image sent only none/all fractions). Keys already in today's form stay as they are."""
    out = dict(row)
    for key, value in row.items():
        new = _alias(key)
        if new is not None and new not in out:
            out[new] = value
    none, every = out.get(SOLVED_NONE), out.get(SOLVED_ALL)
    if (
        SOLVED_SOME not in out
        and none is not None
        and every is not None
        and _finite(none)
        and _finite(every)
        and 0 <= none + every <= 1
    ):
        out[SOLVED_SOME] = max(0.0, 1.0 - none - every)
    return out


def _alias(key: str) -> str | None:
    new = _ALIAS_OF.get(key)
    if new is not None:
        return new
    m = _V05_ENV_REWARD.match(key)
    if m and m.group("env") != "all":
        return f"train/{m.group('env')}/effective/agent/reward/mean"
    m = _V04_FN.match(key)
    if m:
        return f"{AGG}/rewards/{m.group('fn')}/mean"
    return None


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def reward_of(row: Mapping[str, Any]) -> float | None:
    """The step's mean reward under any generation's name (None when the row has none)."""
    for key in RL_MARKERS:
        value = row.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
    return None


def is_rl_row(row: Mapping[str, Any]) -> bool:
    return any(key in row for key in RL_MARKERS)


def env_reward_keys(keys: Iterable[str]) -> dict[str, str]:
    """``{env: key}`` of each environment's mean reward (``train/<env>/…``, not ``agg``)."""
    out: dict[str, str] = {}
    for key in sorted(keys):
        m = _ENV_REWARD.match(key)
        if m and m.group("env") != "agg":
            out.setdefault(m.group("env"), key)
    return out


def reward_fn_keys(keys: Iterable[str]) -> dict[str, str]:
    """``{reward function: key}`` of each rubric function's mean (the aggregate's, else the first env's)."""
    out: dict[str, str] = {}
    for key in sorted(keys, key=lambda k: (not k.startswith("train/agg/"), k)):
        m = _FN_REWARD.match(key)
        if m:
            out.setdefault(m.group("fn"), key)
    return out


def eval_reward_keys(keys: Iterable[str]) -> list[str]:
    """Each eval environment's headline: its mean reward, else ``avg@k``, else its first metric."""
    by_env: dict[str, list[str]] = {}
    for key in keys:
        parts = key.split("/")
        if parts[0] == "eval" and len(parts) >= 3:
            by_env.setdefault(parts[1], []).append(key)
    out = []
    for env in sorted(by_env):
        found = sorted(by_env[env])
        best = [k for k in found if k.endswith("/reward/mean")] or [k for k in found if "avg@" in k] or found
        out.append(best[0])
    return out
