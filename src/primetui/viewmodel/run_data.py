"""What the compare screen, ``primetui compare`` and ``primetui run --once`` read about runs.

Plain data, no textual or rich: a run's metric series (JSON-safe), its anomalies (metrics, the
last lines of each component's log, a stall, a failed exit) with the thresholds from the
preferences file, and for several runs their summaries and config diff.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from datetime import datetime
from functools import partial
from typing import TYPE_CHECKING, Any

from primetui.api.boundary import gather_bounded
from primetui.api.plainrun import Run

from primetui.monitor_core.anomalies import Anomaly, Thresholds, detect
from primetui.monitor_core.compare import summarize
from primetui.monitor_core.rl import RL, run_kind
from primetui.monitor_core.rl_health import SamplePoint
from primetui.monitor_core.rl_metrics import normalise
from primetui.monitor_core.finalloss import FinalLoss, final_loss_of_rows, with_nan_loss
from primetui.sft.diff import config_diff
from primetui.viewmodel.progress import RunProgress
from primetui.viewmodel.run_rows import run_elapsed, run_row

from primetui.viewmodel import rollouts as rv

if TYPE_CHECKING:
    from primetui.api.models import LogsResponse, MetricsResponse

LOG_TAIL = 5000


def thresholds() -> Thresholds:
    """The ``[anomalies]`` table of the preferences file (defaults when it is missing or bad)."""
    try:
        from primetui.config.prefs import load_prefs

        prefs, _warning = load_prefs()
        return Thresholds.from_mapping(prefs.anomalies.model_dump())
    except Exception:  # noqa: BLE001 - preferences never stop a headless print
        return Thresholds()


async def fetch_logs(client: Any, run: Run) -> dict[str, list[str]]:
    """Display lines of each of the run's log streams, by stream key (``trainer``, ``orchestrator``…)."""
    from primetui.monitor_core.components import log_specs
    from primetui.monitor_core.lines import LineParser

    async def one(spec: Any) -> tuple[str, list[str] | None]:
        try:
            reply: LogsResponse = await client.get_logs(
                run.id, LOG_TAIL, component=spec.component, pod_index=spec.pod_index, env_name=spec.env_name
            )
        except Exception:  # noqa: BLE001 - a component without logs yet is not an error here
            return spec.key, None
        return spec.key, list(LineParser().parse_batch(reply.lines()).texts)

    found = await gather_bounded([partial(one, spec) for spec in log_specs(run)])
    return {key: texts for key, texts in found if texts is not None}


async def fetch_metric_rows(client: Any, run_id: str, notes: list[str] | None = None) -> list[dict[str, Any]]:
    """A run's metric rows; what the wire boundary dropped, or why there are none, goes to ``notes``."""
    from primetui.api.errors import NotFoundError, PrimeAPIError

    try:
        reply: MetricsResponse = await client.get_metrics(run_id)
    except NotFoundError:  # a run without metrics (yet) is still shown
        return []
    except PrimeAPIError as exc:  # bad data or a failed read: said, and the run is still shown
        if notes is not None:
            notes.append(str(exc))
        return []
    if notes is not None:
        notes += [f"metrics of run {run_id}: {note}" for note in reply.notes]
    return list(reply.metrics)


def trainer_lines(logs: Mapping[str, Iterable[str]]) -> list[str]:
    """Every trainer stream's lines (``trainer``, or ``trainer-0``… on several nodes)."""
    return [line for key, lines in logs.items() if key == "trainer" or key.startswith("trainer-") for line in lines]


SAMPLES_PAGE = 100
SAMPLES_MAX_PAGES = 200
SAMPLE_STEPS_READ = 8
"""Sample steps read for the answer-similarity flag (the first, the last, evenly between): a step of
1,024 rollouts is megabytes, and the flag compares the first sample step with the later ones."""


async def fetch_step(client: Any, run_id: str, step: int, notes: list[str]) -> rv.StepSamples:
    """Every sample of ``step``, page by page (at most ``SAMPLES_MAX_PAGES`` pages of ``SAMPLES_PAGE``)."""
    held = rv.StepSamples(step)
    for page in range(1, SAMPLES_MAX_PAGES + 1):
        reply = await client.get_samples(run_id, step, page=page, limit=SAMPLES_PAGE)
        notes.extend(reply.notes)
        held.add(reply.samples, reply.total)
        last = (
            len(reply.samples) < SAMPLES_PAGE
            or (reply.total_pages is not None and page >= reply.total_pages)
            or (reply.total is not None and len(held) >= reply.total)
        )
        if last:
            held.add([], done=True)
            return held
    notes.append(f"step {step}: read the first {SAMPLES_MAX_PAGES} pages of samples only")
    return held


async def sample_point_of(client: Any, run_id: str, step: int) -> SamplePoint | None:
    """One sample step's mean reward and answer similarity; its rows are dropped once measured."""
    import asyncio

    held = await fetch_step(client, run_id, step, [])
    return await asyncio.to_thread(rv.sample_point, held)


def sample_steps_to_read(steps: Iterable[int]) -> list[int]:
    from primetui.api.followers.rl import strip_steps

    return strip_steps(list(steps), SAMPLE_STEPS_READ)


async def sample_points(client: Any, run: Run) -> list[SamplePoint]:
    """An RL run's sample steps as points (one step read at a time); [] for SFT, or when they cannot be read."""
    from primetui.api.errors import PrimeAPIError

    if run_kind(run) != RL:
        return []
    run_id = run.id
    out: list[SamplePoint] = []
    try:
        progress = await client.get_progress(run_id)
        for step in sample_steps_to_read(progress.steps_with_samples):
            point = await sample_point_of(client, run_id, step)
            if point is not None:
                out.append(point)
    except PrimeAPIError:  # the samples are a bonus here: the run's other anomalies still print
        return out
    return out


async def run_anomalies(
    client: Any, run: Run, rows: Iterable[Mapping[str, Any]], now: float, logs: Mapping[str, list[str]] | None = None
) -> list[Anomaly]:
    if logs is None:
        logs = await fetch_logs(client, run)
    points = await sample_points(client, run)
    return detect(
        list(rows), logs, status=run.status, error=run.error_message, now=now, thresholds=thresholds(), samples=points
    )


async def run_verdict(client: Any, run: Run, now: float) -> tuple[FinalLoss | None, list[Anomaly]]:
    """How an ended run really ended: its final loss (NaN from any source) and every anomaly it raised
    (the error-level ones are in ``ERROR_KINDS``; an RL run's health flags are among the others)."""
    rows = RunProgress.from_metric_rows(await fetch_metric_rows(client, run.id)).rows.values()
    logs = await fetch_logs(client, run)
    found = await run_anomalies(client, run, list(rows), now, logs)
    return final_loss_of_rows(rows, trainer_lines(logs)), found


def series(rows: Iterable[Mapping[str, Any]], keys: Iterable[str] | None = None) -> dict[str, dict[str, list[Any]]]:
    """``{metric: {"steps": [...], "times": [...], "values": [...]}}`` (NaN/inf as None, JSON-safe)."""
    wanted = set(keys) if keys is not None else None
    out: dict[str, dict[str, list[Any]]] = {}
    for row in sorted(rows, key=lambda r: r["step"]):  # rows from the wire boundary: each has an int step
        row = with_nan_loss(row)  # a NaN step written as a count: a null point the chart marks
        for key, value in row.items():
            if key in ("step", "time"):
                continue
            if wanted is not None and key not in wanted:
                continue
            s = out.setdefault(key, {"steps": [], "times": [], "values": []})
            s["steps"].append(row["step"])
            s["times"].append(float(row["time"]) if "time" in row else None)
            s["values"].append(float(value) if math.isfinite(value) else None)
    return out


async def collect_one(client: Any, run_id: str, now: datetime, notes: list[str] | None = None) -> dict[str, Any]:
    """One run's entry: identity, status, summary numbers, anomalies, series and config."""
    run: Run = await client.get_run(run_id)
    rows = await fetch_metric_rows(client, run_id, notes)
    progress = RunProgress.from_metric_rows(rows)
    merged = list(progress.rows.values())
    row = run_row(run, progress, now)
    logs = await fetch_logs(client, run)
    anomalies = await run_anomalies(client, run, merged, now.timestamp(), logs)
    elapsed = run_elapsed(run, now)
    kind = run_kind(run)
    if kind == RL:  # every prime-rl generation's reward under today's name: compare overlays one curve per run
        merged = [normalise(r) for r in merged]
    entry: dict[str, Any] = {
        "id": row.id,
        "name": row.name,
        "status": row.status,
        "model": row.model,
        "duration_seconds": elapsed,
        "duration": row.elapsed,
        **summarize(merged, trainer_lines(logs)).to_json(),
        "anomalies": [a.to_json() for a in anomalies],
        "kind": kind,
        **reward_summary(progress),
        "series": series(merged),
        "config": run.run_config or {},
    }
    return entry


def reward_summary(progress: RunProgress) -> dict[str, Any]:
    """An RL run's final and best mean reward (None for SFT)."""
    last, points = progress.last_reward, progress.reward_points()
    best = max(points, key=lambda p: (p[1], -p[0])) if points else None
    return {
        "final_reward": last[1] if last else None,
        "final_reward_step": last[0] if last else None,
        "best_reward": best[1] if best else None,
        "best_reward_step": best[0] if best else None,
    }


def headline_cells(entry: Mapping[str, Any], num: Any) -> tuple[str, str]:
    """(final, best) of a compared run as the tables show them: its reward for RL (the higher the
    better), its loss for SFT; ``num`` formats a number."""
    from primetui.monitor_core.compare import final_loss_text

    def at(value: Any, step: Any) -> str:
        return f"{num(value)} @{step}" if value is not None else "-"

    if entry.get("kind") == RL:
        return at(entry.get("final_reward"), entry.get("final_reward_step")), at(
            entry.get("best_reward"), entry.get("best_reward_step")
        )
    return final_loss_text(entry), at(entry.get("best_loss"), entry.get("best_loss_step"))


def diff_json(labels: list[str], configs: list[dict[str, Any]]) -> dict[str, dict[str, dict[str, Any]]]:
    return {
        key: {label: v.to_json() for label, v in zip(labels, values)} for key, values in config_diff(configs).items()
    }


async def collect(client: Any, run_ids: list[str], now: datetime, notes: list[str] | None = None) -> dict[str, Any]:
    runs = list(await gather_bounded([partial(collect_one, client, rid, now, notes) for rid in run_ids]))
    return {"runs": runs, "config_diff": diff_json([r["id"] for r in runs], [r["config"] for r in runs])}
