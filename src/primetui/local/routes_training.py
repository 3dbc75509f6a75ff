"""Dedicated training T1-T7: models, GPU types, dispatch, pause, resume."""

from __future__ import annotations

import secrets
import string
from typing import Any

from fastapi import APIRouter, Body, Request

from primetui.api.models import (
    AvailableFFTModel,
    AvailableFFTModelsResponse,
    AvailableGpuTypesResponse,
    FFTModelCluster,
    HostedTrainingRunResponse,
    PauseRunResponse,
)
from primetui.local.dispatch import DispatchPlan, check_dispatch
from primetui.local.errors import fail
from primetui.local.models_cache import LOCAL_CLUSTER_ID, LOCAL_GPU_TYPE, ModelCacheError
from primetui.local.runs_wire import dump, get_run_or_404
from primetui.local.state import LocalState

router = APIRouter()

_ID_ALPHABET = string.ascii_lowercase + string.digits


def new_run_id() -> str:
    """24 lowercase letters and digits, like the hosted platform's run ids."""
    return "".join(secrets.choice(_ID_ALPHABET) for _ in range(24))


def insert_planned_run(state: LocalState, plan: DispatchPlan) -> str:
    """Store a checked dispatch as a new PENDING run (the supervisor starts it); its id."""
    run_id = new_run_id()
    state.store.insert_run(
        id=run_id,
        name=plan.name,
        status="PENDING",
        config=plan.config,
        volume=plan.volume,
        model=plan.model,
        gpu_type=LOCAL_GPU_TYPE,
        team_id=plan.team_id,
    )
    return run_id


def _platform(request: Request) -> LocalState:
    return request.app.state.platform


@router.get("/training/available-fft-models")
async def available_models(request: Request) -> dict[str, Any]:
    """T1: the local model cache; each cluster entry names the stand-in that really trains."""
    state = _platform(request)
    try:
        models = state.models.models()
    except ModelCacheError as exc:
        raise fail(500, str(exc)) from exc
    reply = AvailableFFTModelsResponse(
        models=[
            AvailableFFTModel(
                name=m.name,
                clusters=[
                    FFTModelCluster(
                        cluster_id=LOCAL_CLUSTER_ID,
                        cluster_name=f"local-cpu, trains a {m.standin_summary()}",
                        gpu_type=LOCAL_GPU_TYPE,
                    )
                ],
            )
            for m in models
        ],
        on_demand=[],
    )
    return dump(reply)


@router.get("/training/available-gpu-types")
async def available_gpu_types(request: Request) -> dict[str, Any]:
    """T2: the only "GPU" here is this machine's CPU."""
    return dump(AvailableGpuTypesResponse(gpu_types=[LOCAL_GPU_TYPE]))


@router.post("/training/runs/prepare")
async def prepare(request: Request) -> dict[str, Any]:
    """T3: 404 on purpose, so the official CLI skips its local schema venv and dispatch validates instead."""
    raise fail(404, "Local validation is not offered by the local platform; the config is validated on submission.")


@router.post("/training/runs")
async def create_run(request: Request, body: dict[str, Any] = Body(...)) -> dict[str, Any]:
    """T4: validate and queue a run (PENDING); the supervisor takes it from there."""
    state = _platform(request)
    if body.get("resumeFrom") or body.get("resume_from"):
        source = get_run_or_404(state, str(body.get("resumeFrom") or body.get("resume_from")))
        return await _resume(state, source, body)
    run_id = insert_planned_run(state, check_dispatch(state, body))
    return dump(
        HostedTrainingRunResponse(run_id=run_id, token_value=secrets.token_urlsafe(24), gpu_type=LOCAL_GPU_TYPE)
    )


@router.post("/training/runs/{run_id}/pause")
async def pause_run(request: Request, run_id: str) -> dict[str, Any]:
    """T5: RUNNING -> PAUSING; the trainer checkpoints at the next step boundary and exits -> PAUSED."""
    state = _platform(request)
    row = get_run_or_404(state, run_id)
    if row["status"] in ("PAUSING", "PAUSED"):
        return dump(PauseRunResponse(status=row["status"], run_id=run_id))
    if row["status"] != "RUNNING":
        raise fail(409, f"Run {run_id} is {row['status']}; only RUNNING runs can be paused.")
    assert state.supervisor is not None
    if run_id in state.supervisor.restarting:
        # The restart's respawn would drop the request: refuse it rather than lose it.
        raise fail(409, f"Run {run_id} is restarting from its latest checkpoint; pause it once it is RUNNING again.")
    state.supervisor.request_pause(run_id)
    return dump(PauseRunResponse(status="PAUSING", run_id=run_id))


@router.post("/training/runs/{run_id}/resume")
async def resume_run(request: Request, run_id: str, body: dict[str, Any] | None = Body(default=None)) -> dict[str, Any]:
    """T6: a PAUSED run continues as a NEW run from its latest checkpoint, linked both ways by ``notice``."""
    state = _platform(request)
    row = get_run_or_404(state, run_id)
    return await _resume(state, row, body or {})


async def _resume(state: LocalState, row: Any, body: dict[str, Any]) -> dict[str, Any]:
    run_id = row["id"]
    if row["status"] != "PAUSED":
        raise fail(
            409,
            f"Run {run_id} is {row['status']}; only PAUSED runs can be resumed "
            f"(pause it first with `prime train pause {run_id}`).",
        )
    if row["resumed_as_run"] and state.store.get_run(row["resumed_as_run"]) is not None:
        raise fail(409, f"Run {run_id} was already resumed as run {row['resumed_as_run']}; follow that run instead.")
    if row["volume"] and state.store.get_volume(row["team_id"], row["volume"]) is None:
        raise fail(
            409,
            f"Run {run_id}'s volume '{row['volume']}' no longer exists, and its checkpoints went with it; "
            "dispatch the config again.",
        )
    assert state.supervisor is not None
    ckpt = state.supervisor.latest_checkpoint_on_disk(run_id)
    if ckpt is None:
        raise fail(409, f"Run {run_id} has no checkpoint on its volume to resume from; dispatch the config again.")
    import json

    new_id = new_run_id()
    state.store.insert_run(
        id=new_id,
        name=row["name"],
        status="PENDING",
        config=json.loads(row["config"]),
        volume=row["volume"],
        model=row["model"],
        gpu_type=row["gpu_type"],
        resume_from=ckpt["path"],
        resumed_from_run=run_id,
        team_id=row["team_id"],
        notice=f"Resumed from run {run_id} at checkpoint step {ckpt['step']}.",
    )
    state.store.update_run(run_id, resumed_as_run=new_id, notice=f"Resumed as run {new_id}.")
    return dump(
        HostedTrainingRunResponse(run_id=new_id, token_value=secrets.token_urlsafe(24), gpu_type=LOCAL_GPU_TYPE)
    )


@router.delete("/training/runs/{run_id}")
async def delete_training_run(request: Request, run_id: str) -> dict[str, Any]:
    """T7 (unused by the CLI, which deletes through R4): same effect as R4."""
    from primetui.local.routes_runs import delete_run_records

    await delete_run_records(_platform(request), run_id)
    return {"runId": run_id, "deleted": True}
