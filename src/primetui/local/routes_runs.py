"""Run reads and controls R1-R12 and usage B1 (``/rft/runs``, ``/billing``)."""

from __future__ import annotations

import math
import re
import shutil
import time
from typing import Any

from fastapi import APIRouter, Query, Request, Response

from primetui.api.models import (
    LOG_LEVELS,
    CheckpointList,
    EnvServer,
    EnvServerList,
    LogsResponse,
    MetricsResponse,
    RLCheckpoint,
    RLRunPage,
    RunEnvelope,
    RunPricing,
    RunUsage,
    RunUsageBreakdown,
)
from primetui.local.errors import fail, invalid
from primetui.local.log_windows import LogWindow, plan_window
from primetui.local.runs_wire import dump, get_run_or_404, run_model, run_wire
from primetui.local.state import LocalState
from primetui.local.store import ACTIVE_RUN_STATUSES, iso_from_unix, iso_now
from primetui.local.teams import query_scope

router = APIRouter()


def _platform(request: Request) -> LocalState:
    return request.app.state.platform


@router.get("/rft/runs")
async def list_runs(request: Request, page: int = 1, limit: int = 20) -> dict[str, Any]:
    """R1: newest first, paged."""
    if page < 1:
        raise invalid([(("query", "page"), "Input should be greater than or equal to 1", "greater_than_equal")])
    if not 1 <= limit <= 1000:
        raise invalid([(("query", "limit"), "Input should be between 1 and 1000", "value_error")])
    state = _platform(request)
    rows, total = state.store.list_runs((page - 1) * limit, limit, query_scope(request, "team_id"))
    return dump(
        RLRunPage(
            runs=[run_model(r) for r in rows], total=total, page=page, limit=limit, total_pages=math.ceil(total / limit)
        )
    )


@router.get("/rft/runs/{run_id}")
async def get_run(request: Request, run_id: str) -> dict[str, Any]:
    """R2."""
    return {"run": run_wire(get_run_or_404(_platform(request), run_id))}


@router.put("/rft/runs/{run_id}/stop")
async def stop_run(request: Request, run_id: str) -> dict[str, Any]:
    """R3: a queued run stops at once; a running one gets SIGTERM and becomes STOPPED when it exits."""
    state = _platform(request)
    row = get_run_or_404(state, run_id)
    if row["status"] in ("PENDING", "QUEUED"):
        state.store.update_run(run_id, status="STOPPED", completed_at=iso_now(), queue_reason=None, runs_ahead=None)
    elif row["status"] in ACTIVE_RUN_STATUSES:
        assert state.supervisor is not None
        state.supervisor.request_stop(run_id)
    return dump(RunEnvelope(run=run_model(state.store.get_run(run_id))))


async def delete_run_records(state: LocalState, run_id: str) -> None:
    """Stop the run if needed and forget it; its outputs on the volume stay, as on the hosted platform."""
    row = get_run_or_404(state, run_id)
    assert state.supervisor is not None
    if row["status"] in ACTIVE_RUN_STATUSES:
        await state.supervisor.kill_for_delete(run_id)
    state.store.delete_run(run_id)
    shutil.rmtree(state.run_dir(run_id), ignore_errors=True)
    parent = row["resumed_from_run"]
    if parent and state.store.get_run(parent) is not None:
        # The paused run it continued can be resumed again; its note says what exists now.
        state.store.update_run(
            parent, resumed_as_run=None, notice=f"Resumed as run {run_id}, which was deleted; it can be resumed again."
        )


@router.delete("/rft/runs/{run_id}", status_code=204)
async def delete_run(request: Request, run_id: str) -> Response:
    """R4."""
    await delete_run_records(_platform(request), run_id)
    return Response(status_code=204)


@router.put("/rft/runs/{run_id}/restart")
async def restart_run(request: Request, run_id: str) -> dict[str, Any]:
    """R5: RUNNING only; the trainer restarts from the run's latest checkpoint under the same id."""
    state = _platform(request)
    row = get_run_or_404(state, run_id)
    if row["status"] != "RUNNING":
        raise fail(409, f"Run {run_id} is {row['status']}; only RUNNING runs can be restarted.")
    assert state.supervisor is not None
    await state.supervisor.restart(run_id)
    return dump(RunEnvelope(run=run_model(state.store.get_run(run_id))))


@router.get("/rft/runs/{run_id}/checkpoints")
async def list_checkpoints(request: Request, run_id: str, status_filter: str | None = None) -> dict[str, Any]:
    """R6: checkpoints still on the volume, oldest first; ``sizeBytes`` is their size on disk."""
    state = _platform(request)
    row = get_run_or_404(state, run_id)
    items = []
    for ck in state.store.list_checkpoints(run_id):
        created = iso_from_unix(ck["created_at"])
        rel = f"runs/{run_id}/checkpoints/step_{ck['step']}"
        url = f"volume://{row['volume']}/{rel}" if row["volume"] else f"file://{ck['path']}"
        items.append(
            RLCheckpoint(
                id=f"{run_id}-step-{ck['step']}",
                rft_run_id=run_id,
                step=ck["step"],
                storage_url=url,
                status="READY",
                created_at=created,
                size_bytes=ck["size_bytes"],
                uploaded_at=created,
            )
        )
    if status_filter:
        items = [c for c in items if c.status == status_filter.upper()]
    return dump(CheckpointList(checkpoints=items))


def env_qualifier(env: str) -> tuple[str, int | None]:
    """``name/N`` -> (name, N) as the CLI parses ``--env`` (only a numeric suffix is an index); else (env, None)."""
    name, sep, index = env.rpartition("/")
    if sep and name and index.isdigit() and len(index) <= 9:
        return name, int(index)
    return env, None


def env_server_pod(state: LocalState, run_id: str, env_name: str, env_index: int | None) -> tuple[str, int | None]:
    """(log component, pod) of an env server: ``env_index`` picks one of the servers sharing the name
    (train and eval sources may share one): its log is ``env-server-<name>@<pod_index>`` as its
    component entry says (a server without one: its place among the name's servers); None merges them.
    A name or index the run's components do not list is a 404 naming the ones it has."""
    from primetui.local.evals.common import env_log_name

    component = env_log_name(env_name)[: -len(".log")]
    listed = [
        c
        for c in state.store.get_components(run_id) or []
        if isinstance(c, dict) and c.get("component") == "env-server" and isinstance(c.get("env_index"), int)
    ]
    servers = sorted((c for c in listed if c.get("env_name") == env_name), key=lambda c: c["env_index"])
    if not listed or (env_index is None and servers):  # not started yet (no components): nothing to check
        return component, env_index
    for place, server in enumerate(servers):
        if server["env_index"] == env_index:
            pod = server.get("pod_index")
            return component, pod if isinstance(pod, int) and not isinstance(pod, bool) else place
    names = [f"{c.get('env_name')}/{c['env_index']}" for c in sorted(listed, key=lambda c: c["env_index"])]
    asked = env_name if env_index is None else f"{env_name}/{env_index}"
    raise fail(
        404,
        f"Run {run_id} has no env server {asked}; it has {', '.join(names)} (see `prime train components {run_id}`).",
    )


def _log_component(state: LocalState, row: Any, component: str | None, env_name: str | None) -> tuple[str, int | None]:
    """The log stream a query names, and the pod it pins (an env server's ``name/N``), if any."""
    available = state.store.log_components(row["id"])
    has_evals = "orchestrator" in available or bool(run_model(row).has_online_evals)
    if env_name and not component:
        component = "env-server"
    if component in (None, "", "orchestrator"):
        # SFT without online evals has no orchestrator pod: its one log is the trainer's, and that is
        # what `prime train logs <id>` should show.
        return ("orchestrator" if has_evals or not run_model(row).is_sft else "trainer"), None
    if component == "env-server":
        if not env_name:
            raise fail(
                400, f"component=env-server needs env_name; list env servers with `prime train components {row['id']}`."
            )
        return env_server_pod(state, row["id"], *env_qualifier(env_name))
    if component in ("trainer", "inference", "router"):
        if component == "router" and "router" not in available:
            raise fail(404, f"Run {row['id']} has no router: only multi_node runs with [inference.router] have one.")
        if component == "inference" and not has_evals and run_model(row).is_sft:
            raise fail(
                404,
                f"Run {row['id']} has no inference component: it is trainer-only SFT "
                "(add an [eval] block for online evals); read its log with -c trainer.",
            )
        return component, None
    raise fail(400, f"Unknown component '{component}'; use orchestrator, trainer, inference, router or env-server.")


def _pod_index(state: LocalState, run_id: str, component: str, pod_index: int | None) -> int | None:
    """The pod whose stream is served: the one asked for, else None, every pod merged in the order their
    lines came (what `prime train logs` says hosted does for a multi-node run); a pod the run lacks is a 404."""
    if pod_index is None:
        return None
    pods = state.store.log_pods(run_id, component)
    if pod_index not in pods and (pods or pod_index != 0):
        have = f"pods 0..{max(pods)}" if pods else "no pods with logs yet"
        raise fail(404, f"Run {run_id} has no {component} pod {pod_index}; it has {have}.")
    return pod_index


def log_window(
    state: LocalState, tail_lines: int, since_seconds: int | None, search: str | None, level: str | None
) -> LogWindow:
    """R7's window for the query, or its 422 (before the run is looked up, as hosted validates first)."""
    window = plan_window(tail_lines, since_seconds, search=search, level=level, faithful=state.faithful_logs)
    if level is not None and level.upper() not in LOG_LEVELS:
        raise invalid([(("query", "level"), f"Input should be one of {', '.join(LOG_LEVELS)}", "enum")])
    return window


def logs_started(state: LocalState, row: Any) -> None:
    """The 404 `prime train logs` waits on while a run has not started."""
    if row["status"] in ("PENDING", "QUEUED", "CREATING") and not state.store.log_components(row["id"]):
        raise fail(404, f"Logs are not available yet (run is {row['status']}).")


def log_reply(
    state: LocalState,
    row: Any,
    name: str,
    pod_index: int | None,
    window: LogWindow,
    search: str | None,
    regex: bool,
    level: str | None,
) -> dict[str, Any]:
    """``{"logs": ...}``: the window of one stream (``pod_index`` None: every pod merged)."""
    since_ts = time.time() - window.since_seconds if window.since_seconds else None
    pattern = None
    if search and regex:
        try:
            pattern = re.compile(search)
        except re.error as exc:
            raise fail(400, f"search is not a valid regular expression ({exc}); fix it or drop --regex.") from exc
    pod_index = _pod_index(state, row["id"], name, pod_index)
    lines = state.store.query_logs(
        row["id"],
        name,
        pod_index,
        since_ts,
        level.upper() if level else None,
        search=search if search and not regex else None,
        pattern=pattern,
        limit=window.limit,
    )
    return dump(LogsResponse(logs="\n".join(lines)))


@router.get("/rft/runs/{run_id}/logs")
async def get_logs(
    request: Request,
    run_id: str,
    tail_lines: int = 1000,
    search: str | None = None,
    regex: bool = False,
    level: str | None = None,
    since_seconds: int | None = None,
    component: str | None = None,
    pod_index: int | None = None,
    env_name: str | None = None,
) -> dict[str, Any]:
    """R7: one component's log window: the hosted snapshot or search backend (see log_windows)."""
    state = _platform(request)
    window = log_window(state, tail_lines, since_seconds, search, level)
    row = get_run_or_404(state, run_id)
    logs_started(state, row)
    name, pinned = _log_component(state, row, component, env_name)
    return log_reply(state, row, name, pod_index if pod_index is not None else pinned, window, search, regex, level)


@router.get("/rft/runs/{run_id}/env-servers")
async def env_servers(request: Request, run_id: str) -> dict[str, Any]:
    """R8: the env-server pods of a run with online evals (none for trainer-only SFT)."""
    state = _platform(request)
    get_run_or_404(state, run_id)
    items = []
    for comp in state.store.get_components(run_id) or []:
        if isinstance(comp, dict) and comp.get("component") == "env-server":
            items.append(
                EnvServer(
                    pod_name=str(comp.get("pod_name") or comp.get("env_name") or "env-server"),
                    status=str(comp.get("status") or "unknown").upper(),
                    env_name=comp.get("env_name"),
                    env_index=comp.get("env_index"),
                )
            )
    return dump(EnvServerList(env_servers=items))


@router.get("/rft/runs/{run_id}/metrics")
async def get_metrics(
    request: Request,
    run_id: str,
    min_step: int | None = None,
    max_step: int | None = None,
    limit: int | None = Query(default=None, ge=1),
) -> dict[str, Any]:
    """R10: one row per step (prime-rl's per-group rows merged), ascending."""
    state = _platform(request)
    get_run_or_404(state, run_id)
    return dump(MetricsResponse(metrics=state.store.query_metrics(run_id, min_step, max_step, limit)))


@router.get("/billing/runs/{run_id}/usage")
async def get_usage(request: Request, run_id: str) -> dict[str, Any]:
    """B1: as hosted reads for SFT (the seed: "Usage accounting shows 0 tokens / $0.00 for SFT — a
    reporting quirk, not free usage"): no tokens, no cost; the trained tokens are in the metrics."""
    state = _platform(request)
    row = get_run_or_404(state, run_id)
    usage = RunUsage(
        run_id=run_id,
        run_name=row["name"],
        base_model=row["model"],
        status=row["status"],
        training=RunUsageBreakdown(tokens=0, input_tokens=0, output_tokens=0, cost_usd=0.0),
        inference=RunUsageBreakdown(),
        pricing=RunPricing(training_per_mtok=0.0),
        total_tokens=0,
        total_cost_usd=0.0,
        record_count=len(state.store.metric_steps(run_id)),
    )
    return dump(usage)
