"""Store rows -> wire objects (``primetui.api.models``), so the server speaks exactly what clients parse."""

from __future__ import annotations

import json
from typing import Any

from primetui.api.models import RLRun, RunKind
from primetui.local.models_cache import LOCAL_CLUSTER_ID
from primetui.local.scope import run_not_found
from primetui.local.state import LOCAL_USER_ID, LocalState


def dump(model: Any) -> dict[str, Any]:
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _table(config: Any, *path: str) -> dict[str, Any]:
    """The sub-table at ``path`` (empty when a level is missing or not a table)."""
    for key in path:
        config = config.get(key) if isinstance(config, dict) else None
    return config if isinstance(config, dict) else {}


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def is_rl(config: dict[str, Any]) -> bool:
    """The CLI's rule (``primetui.sft.kind``): ``[data]`` with neither ``[trainer]`` nor ``[orchestrator]``
    is SFT, anything else RL; the run's process decides the same way."""
    from primetui.sft.kind import config_kind

    return config_kind(config) == "rl"


def gpu_count(config: dict[str, Any]) -> int:
    """The GPUs the run's deployment asks for (prime-rl's defaults): the trainer's, plus the
    inference pool's when online evals (SFT) or an RL run's ``[inference]`` run; every node's on multi_node."""
    deployment = _table(config, "deployment")

    def num(key: str, default: int, alias: str | None = None) -> int:
        value = _int(deployment.get(key, deployment.get(alias) if alias else None))
        return default if value is None else value

    evals = "eval" in config or (is_rl(config) and "inference" in config)
    if deployment.get("type") == "multi_node":
        nodes = num("num_train_nodes", 2) + (num("num_infer_nodes", 0, "num_eval_nodes") if evals else 0)
        return nodes * num("gpus_per_node", 8)
    return num("num_train_gpus", 1) + (num("num_infer_gpus", 1, "num_eval_gpus") if evals else 0)


def _sources(config: dict[str, Any], split: str) -> list[dict[str, Any]]:
    """``[{"id": taskset id, "name": source name}]`` of ``orchestrator.<split>.source`` (prime-rl's
    default name: the taskset id)."""
    found = []
    for src in _table(config, "orchestrator", split).get("source") or []:
        if isinstance(src, dict):
            taskset = _table(src, "env", "taskset").get("id")
            found.append({"id": taskset, "name": src.get("name") or taskset})
    return found


def rl_fields(config: dict[str, Any]) -> dict[str, Any]:
    """The flat RL fields of a run object, from its prime-rl config (prime-rl's defaults where unset)."""
    orch = _table(config, "orchestrator")
    lora = _table(config, "trainer", "model", "lora")
    wandb = _table(config, "monitors", "wandb") or _table(config, "wandb")
    max_steps = config.get("max_steps", orch.get("max_steps"))
    seq_len = config.get("seq_len", orch.get("seq_len", 2048))
    lr = _number(_table(config, "trainer", "optim").get("lr", 1e-6))
    eval_table = _table(config, "orchestrator", "eval")
    return {
        "loss": "rl",
        "rollouts_per_example": _int(orch.get("group_size", 1)),
        "max_tokens": _int(_table(config, "orchestrator", "train", "sampling").get("max_completion_tokens")),
        "batch_size": _int(orch.get("batch_size", None if "token_batch_size" in orch else 128)),
        "seq_len": _int(seq_len),
        "max_steps": _int(max_steps),
        "learning_rate": lr,
        "environments": _sources(config, "train"),
        "eval_config": {**eval_table, "environments": _sources(config, "eval")} if eval_table else None,
        "max_inflight_rollouts": _int(_table(orch, "concurrency").get("max_inflight")),
        "lora_alpha": _int(lora.get("alpha")) if lora else None,
        "wandb_project": wandb.get("project") if isinstance(wandb.get("project"), str) else None,
        "wandb_run_name": wandb.get("name") if isinstance(wandb.get("name"), str) else None,
        "wandb_entity": wandb.get("entity") if isinstance(wandb.get("entity"), str) else None,
    }


def sft_fields(config: dict[str, Any]) -> dict[str, Any]:
    """The flat fields of an SFT run object (environments: its online-eval sources)."""
    data = _table(config, "data")
    environments = []
    for src in _table(config, "eval").get("source") or []:
        if isinstance(src, dict):
            taskset = _table(src, "env", "taskset")
            environments.append({"id": taskset.get("id") or src.get("name"), "name": src.get("name")})
    return {
        "loss": "sft",
        "seq_len": _int(data.get("seq_len")),
        "max_steps": _int(config.get("max_steps")),
        "batch_size": _int(data.get("batch_size")),
        "environments": environments,
        "learning_rate": _number(_table(config, "optim").get("lr")),
    }


def run_model(row: Any) -> RLRun:
    config = json.loads(row["config"])
    fields = rl_fields(config) if is_rl(config) else sft_fields(config)
    return RLRun(
        id=row["id"],
        user_id=LOCAL_USER_ID,
        status=row["status"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        name=row["name"],
        prime_cluster_id=LOCAL_CLUSTER_ID,
        kind=RunKind.DEDICATED_FULL_FT,
        base_model=row["model"],
        run_config=config,
        gpu_count=gpu_count(config),
        **fields,
        volume_name=row["volume"],
        queue_reason=row["queue_reason"],
        runs_ahead=row["runs_ahead"],
        notice=row["notice"],
        started_at=row["started_at"],
        completed_at=row["completed_at"],
        error_message=row["error_message"],
    )


def run_wire(row: Any) -> dict[str, Any]:
    return dump(run_model(row))


def get_run_or_404(state: LocalState, run_id: str) -> Any:
    row = state.store.get_run(run_id)
    if row is None:
        raise run_not_found(run_id)
    return row
