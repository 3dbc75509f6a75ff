"""What kind a run is (RL or SFT) and the RL settings its config holds, across prime-rl's config shapes.

Pure core (no textual, no rich). The runs list, the run screen, compare and the headless commands
read a run's kind and its RL settings (group size, batch size, lr, environments) here, so no
front-end guesses on its own.

The kind follows the platform first (``loss == "sft"`` marks SFT, as ``prime train components``
decides), then the config with the CLI's own rule (``_looks_like_sft``: a ``[data]`` table without
``[trainer]``/``[orchestrator]`` is SFT, a ``[trainer]`` or ``[orchestrator]`` table RL), then the
run's environments, then an explicit ``loss``.
"""

from __future__ import annotations

from typing import Any

from primetui.api.plainrun import PlainRun, Run

RL, SFT = "rl", "sft"
KIND_LABELS = {RL: "RL", SFT: "SFT"}


def run_config(run: Run) -> dict[str, Any]:
    return run.run_config or {}


def _loss_said(run: Run) -> bool:
    """The platform sent a ``loss`` (the model's default ``rl`` is no evidence; a first-frame run's dump always says
    it)."""
    return isinstance(run, PlainRun) or "loss" in run.model_fields_set


def config_is_rl(cfg: dict[str, Any]) -> bool | None:
    """The CLI's rule on a config dict; None when the config has none of the tables it reads (then the
    run's other fields decide: a partial config is no evidence of RL)."""
    if "trainer" in cfg or "orchestrator" in cfg:
        return True
    return False if "data" in cfg else None


def run_kind(run: Run | None) -> str:
    """``"rl"`` or ``"sft"``."""
    if run is None:
        return SFT
    loss = run.loss
    if loss is not None and loss.lower() == SFT:
        return SFT
    judged = config_is_rl(run_config(run))
    if judged is not None:
        return RL if judged else SFT
    if run.environments:
        return RL
    return RL if loss and _loss_said(run) else SFT


def is_rl(run: Run | None) -> bool:
    return run_kind(run) == RL


def _dig(node: Any, dotted: str) -> Any:
    for part in dotted.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def _table(node: dict[str, Any], key: str) -> dict[str, Any]:
    """``node[key]`` when it is a table, else {}."""
    value = node.get(key)
    return value if isinstance(value, dict) else {}


def _sources(cfg: dict[str, Any], split: str) -> list[dict[str, Any]]:
    """The ``[[orchestrator.<split>.source]]`` tables (today), ``[[orchestrator.<split>.env]]`` (v0.6),
    or ``[[orchestrator.env]]`` (v0.4, train only)."""
    orch = _table(cfg, "orchestrator")
    block = _table(orch, split)
    for found in (block.get("source"), block.get("env"), orch.get("env") if split == "train" else None):
        if isinstance(found, list):
            return [s for s in found if isinstance(s, dict)]
    return []


def source_name(source: dict[str, Any]) -> str | None:
    """A source's name: its ``name``, else its taskset id (prime-rl's default), else a legacy ``id``."""
    name = source.get("name")
    if isinstance(name, str) and name:
        return name
    taskset = _dig(source, "env.taskset.id")
    if isinstance(taskset, str) and taskset:
        return taskset
    legacy = source.get("id")
    return legacy if isinstance(legacy, str) and legacy else None


def environments(run: Run) -> list[str]:
    """The train environments' names, in order (config first, then the run's ``environments``)."""
    names = [n for n in (source_name(s) for s in _sources(run_config(run), "train")) if n]
    if names:
        return names
    out = []
    for env in run.environments:
        name = env.get("name") or env.get("id")
        if isinstance(name, str) and name:
            out.append(name)
    return out


def eval_environments(run: Run) -> list[str]:
    return [n for n in (source_name(s) for s in _sources(run_config(run), "eval")) if n]


# Each setting: the dotted keys in the config that hold it (today's first), then the run's flat field.
_SETTINGS: dict[str, tuple[tuple[str, ...], str | None]] = {
    "group_size": (("orchestrator.group_size", "orchestrator.rollouts_per_example"), "rollouts_per_example"),
    "batch_size": (("orchestrator.batch_size", "data.batch_size"), "batch_size"),
    "lr": (("trainer.optim.lr", "optim.lr"), "learning_rate"),
    "seq_len": (("seq_len", "orchestrator.seq_len", "data.seq_len"), "seq_len"),
    "max_steps": (("max_steps", "trainer.max_steps"), "max_steps"),
    "max_off_policy_steps": (("orchestrator.max_off_policy_steps",), None),
    "max_completion_tokens": (
        ("orchestrator.train.sampling.max_completion_tokens", "orchestrator.sampling.max_tokens"),
        "max_tokens",
    ),
}
DEFAULT_MAX_OFF_POLICY_STEPS = 8
"""prime-rl's default ``orchestrator.max_off_policy_steps``."""


def setting(run: Run, name: str) -> Any:
    """An RL setting of ``run`` (see ``_SETTINGS``) from its config, else its flat field; None when unset."""
    paths, flat = _SETTINGS[name]
    cfg = run_config(run)
    for path in paths:
        value = _dig(cfg, path)
        if value is not None and not isinstance(value, (dict, list)):
            return value
    return getattr(run, flat) if flat else None  # a name of the table above: an attribute of every Run
