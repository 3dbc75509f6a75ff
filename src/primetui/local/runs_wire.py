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


def gpu_count(config: dict[str, Any]) -> int:
    """The GPUs the run's deployment asks for (prime-rl's defaults): the trainer's, plus the
    inference pool's when online evals run; every node's on multi_node."""
    deployment = config.get("deployment") if isinstance(config.get("deployment"), dict) else {}

    def num(key: str, default: int, alias: str | None = None) -> int:
        value = _int(deployment.get(key, deployment.get(alias) if alias else None))
        return default if value is None else value

    evals = "eval" in config
    if deployment.get("type") == "multi_node":
        nodes = num("num_train_nodes", 2) + (num("num_infer_nodes", 0, "num_eval_nodes") if evals else 0)
        return nodes * num("gpus_per_node", 8)
    return num("num_train_gpus", 1) + (num("num_infer_gpus", 1, "num_eval_gpus") if evals else 0)


def run_model(row: Any) -> RLRun:
    config = json.loads(row["config"])
    data = config.get("data") if isinstance(config.get("data"), dict) else {}
    optim = config.get("optim") if isinstance(config.get("optim"), dict) else {}
    evals = config.get("eval") if isinstance(config.get("eval"), dict) else None
    environments = []
    for src in (evals or {}).get("source") or []:
        if isinstance(src, dict):
            env = src.get("env") if isinstance(src.get("env"), dict) else {}
            taskset = env.get("taskset") if isinstance(env.get("taskset"), dict) else {}
            environments.append({"id": taskset.get("id") or src.get("name"), "name": src.get("name")})
    lr = optim.get("lr")
    return RLRun(
        id=row["id"],
        user_id=LOCAL_USER_ID,
        status=row["status"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        name=row["name"],
        prime_cluster_id=LOCAL_CLUSTER_ID,
        kind=RunKind.DEDICATED_FULL_FT,
        seq_len=_int(data.get("seq_len")),
        max_steps=_int(config.get("max_steps")),
        batch_size=_int(data.get("batch_size")),
        loss="sft",
        base_model=row["model"],
        environments=environments,
        run_config=config,
        gpu_count=gpu_count(config),
        learning_rate=float(lr) if isinstance(lr, (int, float)) and not isinstance(lr, bool) else None,
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
