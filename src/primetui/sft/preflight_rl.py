"""The pre-flight lines of an rl.toml (what ``preflight`` checks in place of an SFT run's dataset).

An RL run reads no dataset from the volume: its environments come from tasksets. Before dispatch the
user reads that the taskset of each source is one the platform runs, that the batch divides into
groups, and that the run has inference GPUs (hosted RL needs them).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from primetui.sft.preflight_data import State
from primetui.sft.rules_rl import NEEDS_INFERENCE_GPUS, KNOWN_TASKSETS, is_known_taskset


class Check(NamedTuple):
    """One pre-flight line (``preflight`` turns it into its own ``Check``, as it does ``preflight_data``'s)."""

    name: str
    state: State
    detail: str


DEFAULT_MODEL = "Qwen/Qwen3-0.6B"  # prime-rl's default model name, shared and per component


def _table(node: Any, *keys: str) -> dict[str, Any]:
    for key in keys:
        node = node.get(key) if isinstance(node, dict) else None
    return node if isinstance(node, dict) else {}


def config_model(config: dict[str, Any]) -> str:
    """The model a config trains: ``[model] name``, else an rl.toml's ``[trainer.model]`` / ``[orchestrator.model]``."""
    for keys in (("model",), ("trainer", "model"), ("orchestrator", "model")):
        name = _table(config, *keys).get("name")
        if isinstance(name, str) and name:
            return name
    return DEFAULT_MODEL


def _taskset_ids(config: dict[str, Any]) -> list[Any]:
    ids = []
    for split in ("train", "eval"):
        sources = _table(config, "orchestrator", split).get("source")
        for source in sources if isinstance(sources, list) else []:
            env = _table(source, "env")
            ids.append(_table(env, "taskset").get("id") or env.get("id"))
    return ids


def taskset_check(config: dict[str, Any]) -> Check:
    ids = _taskset_ids(config)
    if not ids:
        return Check(
            "Taskset",
            "fail",
            "no [[orchestrator.train.source]]: add one with [orchestrator.train.source.env."
            f'taskset] id = "{KNOWN_TASKSETS[0]}".',
        )
    missing = [i for i in ids if not isinstance(i, str) or not i]
    if missing:
        return Check("Taskset", "fail", 'a source has no taskset id: set [….env.taskset] id = "<id>".')
    unknown = sorted({i for i in ids if not is_known_taskset(i)})
    if unknown:
        return Check(
            "Taskset",
            "fail",
            f"{', '.join(unknown)} is not a taskset this platform runs (it has "
            f"{', '.join(KNOWN_TASKSETS)}); the platform refuses it at submit.",
        )
    return Check("Taskset", "ok", f"{', '.join(sorted(set(ids)))}: known to the platform")


def batch_check(config: dict[str, Any]) -> Check:
    orch = _table(config, "orchestrator")
    batch, tokens, group = orch.get("batch_size"), orch.get("token_batch_size"), orch.get("group_size", 1)
    if batch is not None and tokens is not None:
        return Check("Batch", "fail", "set exactly one of batch_size or token_batch_size.")
    if batch is None and tokens is not None:
        return Check("Batch", "ok", f"token_batch_size {tokens}: groups of {group}")
    batch = 128 if batch is None else batch
    if not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in (batch, group)):
        return Check("Batch", "fail", "batch_size and group_size must be whole numbers of at least 1.")
    if batch % group:
        return Check(
            "Batch",
            "fail",
            f"batch_size {batch} does not divide by group_size {group} — use "
            f"{batch - batch % group or group} or {batch - batch % group + group}.",
        )
    return Check("Batch", "ok", f"{batch} rollouts a step = {batch // group} prompts × {group} completions")


def inference_check(config: dict[str, Any]) -> Check:
    dep = _table(config, "deployment")
    if dep.get("type", "single_node") != "single_node":
        return Check(
            "GPUs",
            "ok" if "inference" in config else "fail",
            "multi-node inference nodes" if "inference" in config else NEEDS_INFERENCE_GPUS,
        )
    gpus = dep.get("num_infer_gpus", 1)
    if "inference" not in config or gpus == 0:
        if isinstance(_table(config, "trainer", "data").get("fake"), dict):
            return Check("GPUs", "ok", "trainer-only run on fake data: no inference GPUs needed")
        return Check("GPUs", "fail", NEEDS_INFERENCE_GPUS)
    return Check("GPUs", "ok", f"{gpus} inference GPU(s) with [inference]")


def rl_checks(config: dict[str, Any]) -> list[Check]:
    """The RL lines of the pre-flight, in the order a user fixes them."""
    return [taskset_check(config), batch_check(config), inference_check(config)]
