"""The one registry of run-table columns: the runs screen, ``primetui runs --once``, the config
columns ``o`` offers, sorting and the column tests all read it (issue 38: adding a column is one
entry here, plus its snapshot).

Each column has its key, the screen's header, the headless header and its cap there (a longer
cell ends in ``…``; ``--json`` has it whole), its priority on the screen (the least important go
first when the width runs out: :func:`primetui.viewmodel.columns.fit`), whether the screen shows it
before the user chooses (``o``), and its plain-text cell. The screen styles a few cells (status
colour, bars, sparklines) but takes their text from here. No textual or rich import.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from primetui.api.plainrun import Run
from primetui.monitor_core import rl as rl_core
from primetui.viewmodel.fmt import DASH
from primetui.viewmodel.run_rows import RunRow


def _config(name: str) -> Callable[[RunRow, Run | None], str]:
    def cell(row: RunRow, run: Run | None) -> str:
        return fmt_setting(config_value(run, name))

    return cell


def config_value(run: Run | None, name: str) -> Any:
    """A setting of the run's config as dispatched (SFT or RL, any prime-rl shape), or None."""
    if run is None:
        return None
    if name == "environment":
        envs = rl_core.environments(run)
        return ",".join(envs) if envs else None
    return rl_core.setting(run, name)


def fmt_setting(value: Any) -> str:
    if value is None or isinstance(value, (dict, list)):
        return DASH
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _headline(row: RunRow, run: Run | None) -> str:
    head = row.headline()
    return f"{head[1]} {head[0]}".rstrip() if head else DASH


@dataclass(frozen=True, slots=True)
class RunColumn:
    key: str
    label: str
    """The screen's header."""
    priority: int
    """Lower shows first when the width runs out."""
    cell: Callable[[RunRow, Run | None], str]
    """The plain text of ``(row, run)``."""
    head: str | None = None
    """The header in ``runs --once``; None: not printed there."""
    cap: int = 0
    """Cells the column takes at most in ``runs --once``."""
    headless_order: int = 0
    default: bool = True
    """Shown on the screen before the user chooses (``o``)."""
    config: bool = False
    """A setting of the run's config (offered by ``o``, sorted by its value)."""


COLUMNS: tuple[RunColumn, ...] = (
    RunColumn("status", "Status", 0, lambda r, _: r.status, "STATUS", 12, 0),
    RunColumn("id", "Id", 90, lambda r, _: r.id, "ID", 40, 1, default=False),
    RunColumn("name", "Run", 1, lambda r, _: r.name or DASH, "NAME", 40, 2),  # the screen shows the id instead
    # Last in `runs --once`: a script that reads the columns by position keeps working.
    RunColumn("kind", "Kind", 4, lambda r, _: rl_core.KIND_LABELS.get(r.kind, r.kind), "KIND", 4, 11),
    RunColumn("steps", "Steps", 2, lambda r, _: r.steps_text(), "STEPS", 24, 5),
    RunColumn("loss", "Loss", 3, _headline, "LOSS", 32, 6),
    RunColumn("elapsed", "Elapsed", 21, lambda r, _: r.elapsed, "ELAPSED", 10, 8),
    RunColumn("eta", "ETA", 20, lambda r, _: r.eta, "ETA", 10, 9),
    RunColumn("model", "Model", 25, lambda r, _: r.model, "MODEL", 48, 3),
    RunColumn("started", "Started", 22, lambda r, _: r.started, "STARTED", 16, 7),
    RunColumn("gpus", "GPUs", 23, lambda r, _: r.gpus, "GPUS", 16, 10),
    RunColumn("volume", "Volume", 24, lambda r, _: r.volume),
    RunColumn("lr", "LR", 10, _config("lr"), default=False, config=True),
    RunColumn("batch", "Batch", 11, _config("batch_size"), default=False, config=True),
    RunColumn("seq_len", "Seq len", 12, _config("seq_len"), default=False, config=True),
    RunColumn("max_steps", "Max steps", 13, _config("max_steps"), default=False, config=True),
    RunColumn("group", "Group", 14, _config("group_size"), default=False, config=True),
    RunColumn("environment", "Env", 15, _config("environment"), default=False, config=True),
)
BY_KEY = {c.key: c for c in COLUMNS}
_AFTER_HEADLINE = tuple(c for c in COLUMNS if c.config)
SCREEN = tuple(c for c in COLUMNS if c.key != "id" and not c.config)
SCREEN = (
    *SCREEN[: [c.key for c in SCREEN].index("loss") + 1],
    *_AFTER_HEADLINE,
    *SCREEN[[c.key for c in SCREEN].index("loss") + 1 :],
)
"""The columns the runs screen offers, in its order (the id is in the Run column when a run has no name):
the config columns come right after the headline (Loss/Reward), where a sweep's settings are read."""
HEADLESS = tuple(sorted((c for c in COLUMNS if c.head), key=lambda c: c.headless_order))
"""The columns of ``runs --once``, in its order."""
CONFIG_KEYS = tuple(c.key for c in COLUMNS if c.config)
SETTING_OF = {
    "lr": "lr",
    "batch": "batch_size",
    "seq_len": "seq_len",
    "max_steps": "max_steps",
    "group": "group_size",
    "environment": "environment",
}
"""The config setting behind each config column (:func:`config_value`)."""


def remembered(choices: dict[str, Any]) -> tuple[frozenset[str] | None, tuple[str | None, bool] | None]:
    """(columns, sort) kept in ``views.json`` for the runs list, each None when absent or not valid now."""
    keys = {c.key for c in SCREEN}
    columns = choices.get("columns")
    chosen = frozenset(k for k in columns if k in keys) | {"status"} if isinstance(columns, list) else None
    sort = choices.get("sort")
    if not (
        isinstance(sort, list) and len(sort) == 2 and (sort[0] is None or sort[0] in keys) and isinstance(sort[1], bool)
    ):
        return chosen, None
    return chosen, (sort[0], sort[1])


def screen_defaults() -> set[str]:
    return {c.key for c in SCREEN if c.default}


def headline_label(kinds: Iterable[str], *, upper: bool = False) -> str:
    """The headline column's header: ``Loss`` (SFT), ``Reward`` (RL), or ``Loss/Reward`` for both."""
    found = set(kinds)
    label = "Loss/Reward" if found >= {rl_core.RL, rl_core.SFT} else ("Reward" if found == {rl_core.RL} else "Loss")
    return label.upper() if upper else label


def label(key: str, kinds: Iterable[str] = ()) -> str:
    return headline_label(kinds) if key == "loss" else BY_KEY[key].label


def kind_needed(kinds: Iterable[str]) -> bool:
    """The kind column says something only when the runs listed are of more than one kind."""
    return len(set(kinds)) > 1


def headless_cells(row: RunRow, run: Run | None = None) -> dict[str, str]:
    return {c.key: c.cell(row, run) for c in HEADLESS}
