"""Which charts an RL run gets, and the solved none/some/all stacked bar, as plain rows.

The Charts tab of an RL run (issue 40 §1) groups its metrics (named as today's prime-rl names them:
:mod:`primetui.monitor_core.rl_metrics` maps older images onto them) into charts: the reward with a
band, per reward function, per environment, output length, truncation, solved none/some/all,
off-policy lag, step times, each eval environment's reward, and the trainer's numbers read from its
log lines. Pure core: no textual, no rich; a row is a list of ``(text, style_key)`` as in
:mod:`primetui.monitor_core.chartframe`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from primetui.monitor_core import rl_metrics as names
from primetui.monitor_core.escapes import neutralise
from primetui.monitor_core.rl_lines import TRAINER_KEYS

LINE, STACKED = "line", "stacked"
LOG_NOTE = "trainer log"
STATUS_NOTE = "· trainer log charts: read from its Step lines (hosted /metrics does not carry them)"


@dataclass(frozen=True, slots=True)
class ChartSpec:
    id: str
    title: str
    keys: tuple[str, ...]
    """The main series first; the others are drawn with it (a band's edges, other envs)."""
    kind: str = LINE


def rl_chart_specs(keys: Iterable[str]) -> list[ChartSpec]:
    """The charts for an RL run whose metric keys (normalised) are ``keys``; charts without data are left out,
    except the reward chart, which is always first. Titles made of metric keys (the platform's text) are
    neutralised: a control character in a key is shown, never sent to the terminal."""
    have = set(keys)
    specs: list[ChartSpec] = []
    band: tuple[str, ...] = (
        (names.REWARD_P10, names.REWARD_P90)
        if {names.REWARD_P10, names.REWARD_P90} <= have
        else ((names.REWARD_MIN, names.REWARD_MAX) if {names.REWARD_MIN, names.REWARD_MAX} <= have else ())
    )
    band_title: dict[tuple[str, ...], str] = {
        (names.REWARD_P10, names.REWARD_P90): "reward (mean, p10–p90)",
        (names.REWARD_MIN, names.REWARD_MAX): "reward (mean, min–max)",
    }
    specs.append(ChartSpec("reward", band_title.get(band, "reward (mean)"), (names.REWARD, *band)))
    for fn, key in names.reward_fn_keys(have).items():
        specs.append(ChartSpec(f"fn-{fn}", neutralise(f"reward fn {fn}"), (key,)))
    envs = names.env_reward_keys(have)
    if len(envs) > 1:  # one environment's curve is the aggregate's
        specs.append(ChartSpec("envs", neutralise("reward per env: " + ", ".join(envs)), tuple(envs.values())[:4]))
    for id_, title, wanted in (
        ("length", "output tokens (mean)", (names.OUTPUT_LEN,)),
        ("truncation", "truncated share", (names.TRUNCATED,)),
    ):
        if wanted[0] in have:
            specs.append(ChartSpec(id_, title, wanted))
    if {names.SOLVED_NONE, names.SOLVED_ALL} <= have:
        specs.append(
            ChartSpec("solved", "solved groups", (names.SOLVED_NONE, names.SOLVED_SOME, names.SOLVED_ALL), STACKED)
        )
    if names.OFF_POLICY_MEAN in have or names.OFF_POLICY_MAX in have:
        specs.append(
            ChartSpec(
                "off-policy",
                "off-policy lag (mean, max)",
                tuple(k for k in (names.OFF_POLICY_MEAN, names.OFF_POLICY_MAX) if k in have),
            )
        )
    if names.STEP_TIME in have:
        specs.append(
            ChartSpec(
                "time",
                "step time s (step, wait for policy)",
                tuple(k for k in (names.STEP_TIME, names.WAIT_FOR_POLICY) if k in have),
            )
        )
    for key in names.eval_reward_keys(have):
        specs.append(ChartSpec(f"eval-{key}", neutralise(key), (key,)))
    for name, key in TRAINER_KEYS.items():
        if key in have and name != "loss":
            specs.append(ChartSpec(f"log-{name}", f"{key.split('/', 1)[1]} · {LOG_NOTE}", (key,)))
    return specs


# ---- the stacked bar ---------------------------------------------------------------------------
GLYPHS = ("░", "█", "▓")
"""none, some, all: told apart by glyph as well as by colour."""
STYLES = ("error", "s4", "s2")


def stacked_rows(
    title: str, steps: np.ndarray, parts: list[np.ndarray], width: int, height: int
) -> list[list[tuple[str, str]]]:
    """A stacked bar per column of the fractions ``parts`` (none, some, all) over ``steps``.

    Several steps in one column are averaged. A column's three heights add up to the plot's height.
    """
    rows: list[list[tuple[str, str]]] = []
    legend = "  " + "  ".join(f"{g} {n}" for g, n in zip(GLYPHS, ("none", "some", "all")))
    rows.append([(title, "title"), (legend, "muted")])
    plot_h = max(height - 2, 1)
    plot_w = max(width - 2, 1)
    if not len(steps):
        rows.append([("no points yet".center(width)[:width], "muted")])
        return rows[:height]
    n = plot_w
    if len(steps) >= n:  # several steps per column: their mean
        bucket = np.minimum((np.arange(len(steps)) * n) // len(steps), n - 1)
        counts = np.bincount(bucket, minlength=n)
        means = [np.bincount(bucket, weights=np.nan_to_num(p), minlength=n) / np.maximum(counts, 1) for p in parts]
    else:  # fewer steps than columns: each step as wide as its share of the plot
        pick = np.minimum((np.arange(n) * len(steps)) // n, len(steps) - 1)
        means = [np.nan_to_num(p)[pick] for p in parts]
    total = np.maximum(sum(means), 1e-12)
    cells = np.empty((plot_h, n), dtype=object)
    for c in range(n):
        bounds = np.round(np.cumsum([m[c] / total[c] for m in means]) * plot_h).astype(int)
        lo = 0
        for part, hi in enumerate(bounds):
            for r in range(lo, min(hi, plot_h)):
                cells[plot_h - 1 - r, c] = part
            lo = hi
    for r in range(plot_h):
        line: list[tuple[str, str]] = [("│", "axis")]
        for c in range(n):
            part = cells[r, c]
            line.append((" ", "muted") if part is None else (GLYPHS[part], STYLES[part]))
        rows.append(line)
    first, last = f"{int(steps[0])}", f"{int(steps[-1])}"  # the x axis: the first and the last step
    rows.append([("└" + first + " " * max(1, n - len(first) - len(last)) + last, "axis")])
    return rows[:height]
