"""prime-rl's ``propagate_shared_fields`` (prime_rl/utils/validation.py at the mirror's commit), ported.

An rl.toml's shared top-level keys (``max_steps``, ``seq_len``, ``[model]``, ``[ckpt]``, ``[log]``,
``[monitors.*]``, ``[tokenizer]``, ``[rollout_transport]``, ``[slurm]``) fill the matching
sub-config keys when those are absent (fill-if-absent). The same key set at both places with
different values is prime-rl's "Shared config conflicts" error; here the conflicts are returned
(shared path, sub-config path) so the rule can point at the duplicated key.
"""

from __future__ import annotations

import copy
from typing import Any

# (shared path, every sub-config path it fills), in prime-rl's order.
PROPAGATION: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("model.name", ("trainer.model.name", "inference.vllm.model", "orchestrator.model.name")),
    ("model.vlm", ("trainer.model.vlm", "orchestrator.model.vlm")),
    ("log.level", ("trainer.log.level", "orchestrator.log.level", "inference.log.level")),
    ("log.json_logging", ("trainer.log.json_logging", "orchestrator.log.json_logging", "inference.log.json_logging")),
    ("ckpt.output_dir", ("trainer.ckpt.output_dir",)),
    ("ckpt.interval", ("trainer.ckpt.interval", "orchestrator.ckpt.interval")),
    ("ckpt.keep_last", ("trainer.ckpt.keep_last", "orchestrator.ckpt.keep_last")),
    ("ckpt.keep_interval", ("trainer.ckpt.keep_interval", "orchestrator.ckpt.keep_interval")),
    *(
        (f"monitors.wandb.{leaf}", (f"trainer.monitors.wandb.{leaf}", f"orchestrator.monitors.wandb.{leaf}"))
        for leaf in ("project", "entity", "name", "group", "tags", "offline")
    ),
    ("monitors.file.path", ("trainer.monitors.file.path", "orchestrator.monitors.file.path")),
    ("monitors.prime.name", ("orchestrator.monitors.prime.name",)),
    ("tokenizer.name", ("trainer.tokenizer.name", "orchestrator.tokenizer.name")),
    (
        "tokenizer.trust_remote_code",
        ("trainer.tokenizer.trust_remote_code", "orchestrator.tokenizer.trust_remote_code"),
    ),
    (
        "tokenizer.chat_template",
        ("trainer.tokenizer.chat_template", "orchestrator.tokenizer.chat_template", "inference.vllm.chat_template"),
    ),
    ("rollout_transport", ("trainer.rollout_transport", "orchestrator.rollout_transport")),
    ("max_steps", ("trainer.max_steps", "orchestrator.max_steps")),
    ("seq_len", ("trainer.model.seq_len", "orchestrator.seq_len")),
    ("slurm", ("inference.slurm",)),
)
# A bare shared block turns the section on in these sub-configs.
PRESENCE_TARGETS: dict[str, tuple[str, ...]] = {
    "ckpt": ("trainer", "orchestrator"),
    "monitors.wandb": ("trainer", "orchestrator"),
    "monitors.file": ("trainer", "orchestrator"),
    "monitors.prime": ("orchestrator",),
}
CONFLICT_HEAD = (
    "Shared config conflicts with matching sub-config field(s). Pick one place to set each value — "
    "duplicating it is ambiguous and the sub-config would silently shadow any later shared-level "
    "override (e.g. on the CLI):"
)


def conflict_message(conflicts: list[tuple[str, str]]) -> str:
    """prime-rl's text for the conflicts, one ``  - [...] is set, but [...] is also set`` line each."""
    lines = [CONFLICT_HEAD, *(f"  - [{shared!r}] is set, but [{sub!r}] is also set" for shared, sub in conflicts)]
    return "\n".join(lines)


def _toml_at(data: dict[str, Any], path: str) -> Any:
    """The value at dotted ``path`` of a TOML table the user wrote (untyped on purpose), or None."""
    node: Any = data
    for p in path.split("."):
        if not isinstance(node, dict) or p not in node:
            return None
        node = node[p]
    return node


def _fill(data: dict[str, Any], path: str, value: Any) -> None:
    parts = path.split(".")
    if parts[0] not in data or not isinstance(data[parts[0]], dict):
        return
    node: Any = data
    for p in parts[:-1]:
        if not isinstance(node, dict):
            return
        node = node.setdefault(p, {})
    if isinstance(node, dict) and parts[-1] not in node:
        node[parts[-1]] = value


def propagate_shared_fields(data: Any) -> tuple[Any, list[tuple[str, str]]]:
    """(a copy of ``data`` with the shared keys filled in, the disagreeing (shared, sub-config) pairs)."""
    if not isinstance(data, dict):
        return data, []
    data = copy.deepcopy(data)
    conflicts: list[tuple[str, str]] = []
    for shared, targets in PROPAGATION:
        value = _toml_at(data, shared)
        if value is None:
            continue
        conflicts.extend((shared, t) for t in targets if (sub := _toml_at(data, t)) is not None and sub != value)
        for target in targets:
            _fill(data, target, value)
    chat_template = _toml_at(data, "trainer.tokenizer.chat_template")
    if chat_template is not None:
        _fill(data, "inference.vllm.chat_template", chat_template)
    for key, targets in PRESENCE_TARGETS.items():
        value = _toml_at(data, key)
        if isinstance(value, dict) or value == "None":
            for target in targets:
                _fill(data, f"{target}.{key}", {} if isinstance(value, dict) else "None")
    return data, conflicts
