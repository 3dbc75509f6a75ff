"""The RL reads R9, R11-R13: rollout samples, progress, reward/advantage distributions, env-server logs.

An RL run's process writes ``samples/step_N.jsonl`` and ``distributions.jsonl`` (see ``ingest``);
the store keeps them, and these routes serve them in the hosted shapes (research: prime-rl-rl.md
§2.1-2.4). An SFT run has none, so it gets the same envelopes, empty.
"""

from __future__ import annotations

import json
import math
from typing import Any

from fastapi import APIRouter, Request, Response

from primetui.local.errors import fail, invalid
from primetui.local.rl_bins import TYPES, chart
from primetui.local.rl_samples import SampleFiles, sample_files
from primetui.local.routes_runs import env_server_pod, log_reply, log_window, logs_started
from primetui.local.runs_wire import get_run_or_404
from primetui.local.state import LocalState
from primetui.local.store import iso_from_unix

router = APIRouter()

MAX_SAMPLE_LIMIT = 1000
"""Rollouts per page at most (R1's ceiling; the CLI asks for 100 by default)."""
MAX_STEP = 2**31 - 1
"""Steps beyond this are refused (a 422), never handed to SQLite as an overflowing integer."""


def _platform(request: Request) -> LocalState:
    return request.app.state.platform


def check_step(step: int | None) -> None:
    if step is not None and not 0 <= step <= MAX_STEP:
        raise invalid([(("query", "step"), f"Input should be between 0 and {MAX_STEP}", "value_error")])


def check_page(page: int, limit: int) -> None:
    """R1's rules: ``page`` from 1, ``limit`` 1..1000 (a 422 naming the parameter otherwise)."""
    if page < 1:
        raise invalid([(("query", "page"), "Input should be greater than or equal to 1", "greater_than_equal")])
    if not 1 <= limit <= MAX_SAMPLE_LIMIT:
        raise invalid([(("query", "limit"), f"Input should be between 1 and {MAX_SAMPLE_LIMIT}", "value_error")])


def samples_body(run_id: str, texts: list[str], total: int, page: int, limit: int) -> bytes:
    """The R11 envelope around rows that are already JSON texts (no decode and re-encode per row)."""
    head = json.dumps({"run_id": run_id})[:-1]
    tail = json.dumps({"total": total, "page": page, "limit": limit, "total_pages": math.ceil(total / limit)})[1:]
    return f'{head}, "samples": [{", ".join(texts)}], {tail}'.encode()


def sample_pages(state: LocalState) -> SampleFiles:
    """The platform's one sample-file reader (its line indexes are shared by every request)."""
    pages = state.extras.get("rl_samples")
    if pages is None:
        pages = state.extras["rl_samples"] = SampleFiles()
    return pages


@router.get("/rft/runs/{run_id}/samples")
async def get_samples(
    request: Request, run_id: str, step: int | None = None, page: int = 1, limit: int = 100
) -> Response:
    """R11: one page of a step's rollouts in file order (the latest sample step when ``step`` is absent)."""
    check_page(page, limit)
    check_step(step)
    state = _platform(request)
    get_run_or_404(state, run_id)
    files = sample_files(state.run_dir(run_id))
    if step is None:
        step = max(files, default=None)
    texts, total = sample_pages(state).page(files.get(step) if step is not None else None, (page - 1) * limit, limit)
    return Response(samples_body(run_id, texts, total, page, limit), media_type="application/json")


@router.get("/rft/runs/{run_id}/progress")
async def get_progress(request: Request, run_id: str) -> dict[str, Any]:
    """R12: the latest step with data, the steps with samples and with distributions, the last update."""
    state = _platform(request)
    get_run_or_404(state, run_id)
    latest = state.store.latest_metric(run_id)
    with_samples = sorted(sample_files(state.run_dir(run_id)))
    with_dists = state.store.distribution_steps(run_id)
    steps = [s for s in (latest["step"] if latest else None, *with_samples[-1:], *with_dists[-1:]) if s is not None]
    times = [
        t
        for t in (latest.get("time") if latest else None, state.store.last_rl_update(run_id))
        if isinstance(t, (int, float)) and math.isfinite(t)
    ]
    return {
        "latestStep": max(steps) if steps else None,
        "stepsWithSamples": with_samples,
        "stepsWithDistributions": with_dists,
        "lastUpdatedAt": iso_from_unix(max(times)) if times else None,
    }


@router.get("/rft/runs/{run_id}/distributions")
async def get_distributions(
    request: Request,
    run_id: str,
    type: str | None = None,  # noqa: A002 - the wire name
    step: int | None = None,
) -> dict[str, Any]:
    """R13: a step's values (the latest step's when ``step`` is absent) binned into ``chartData``."""
    if type is not None and type not in TYPES:
        raise fail(400, f"Unknown distribution type '{type}'; use rewards or advantages, or leave it out for both.")
    check_step(step)
    state = _platform(request)
    get_run_or_404(state, run_id)
    found = state.store.get_distribution(run_id, step)
    raw = found[1] if found else {}
    reply: dict[str, Any] = {"chartData": chart(raw, type), "step": found[0] if found else step}
    if type is not None:
        reply["type"] = type
    return reply


@router.get("/rft/runs/{run_id}/env-server-logs")
async def get_env_server_logs(
    request: Request,
    run_id: str,
    env_name: str,
    env_index: int = 0,
    tail_lines: int = 1000,
    search: str | None = None,
    regex: bool = False,
    level: str | None = None,
    since_seconds: int | None = None,
) -> dict[str, Any]:
    """R9: one env server's log, by name and index, with R7's windows and filters."""
    state = _platform(request)
    window = log_window(state, tail_lines, since_seconds, search, level)
    if not 0 <= env_index <= MAX_STEP:
        raise invalid([(("query", "env_index"), f"Input should be between 0 and {MAX_STEP}", "value_error")])
    row = get_run_or_404(state, run_id)
    logs_started(state, row)
    component, pod = env_server_pod(state, run_id, env_name, env_index)
    return log_reply(state, row, component, pod, window, search, regex, level)
