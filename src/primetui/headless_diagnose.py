"""What ``primetui run ID --once`` adds to the run it prints: its anomalies and its loss chart.

Reads the run's metrics (R10) and the last lines of each component's log (R7), runs the same
detector as the dashboard (:mod:`primetui.monitor_core.anomalies`) with the thresholds from the
preferences file, and formats the result. No textual or rich import.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

from primetui.monitor_core.anomalies import Anomaly, Thresholds, detect
from primetui.monitor_core.escapes import neutralise

LOG_TAIL = 5000


def thresholds() -> Thresholds:
    """The ``[anomalies]`` table of the preferences file (defaults when it is missing or bad)."""
    try:
        from primetui.prefs import load_prefs

        prefs, _warning = load_prefs()
        return Thresholds.from_mapping(prefs.anomalies.model_dump())
    except Exception:  # noqa: BLE001 - preferences never stop a headless print
        return Thresholds()


async def fetch_logs(client: Any, run: Any) -> dict[str, list[str]]:
    """Display lines of each of the run's log streams, by stream key (``trainer``, ``orchestrator``…)."""
    from primetui.monitor_core.components import log_specs
    from primetui.monitor_core.lines import LineParser

    logs: dict[str, list[str]] = {}
    for spec in log_specs(run):
        try:
            reply = await client.get_logs(
                str(_get(run, "id")), LOG_TAIL, component=spec.component, pod_index=spec.pod_index, env_name=spec.env_name
            )
        except Exception:  # noqa: BLE001 - a component without logs yet is not an error here
            continue
        raw = reply.lines() if hasattr(reply, "lines") else str(_get(reply, "logs") or "").splitlines()
        logs[spec.key] = list(LineParser().parse_batch(raw).texts)
    return logs


async def run_anomalies(client: Any, run: Any, rows: Iterable[Mapping[str, Any]], now: float) -> list[Anomaly]:
    logs = await fetch_logs(client, run)
    status = _get(run, "status")
    error = _get(run, "error_message", "errorMessage")
    return detect(list(rows), logs, status=status, error=error, now=now, thresholds=thresholds())


def series(rows: Iterable[Mapping[str, Any]], keys: Iterable[str] | None = None) -> dict[str, dict[str, list]]:
    """``{metric: {"steps": [...], "times": [...], "values": [...]}}`` (NaN/inf as None, JSON-safe)."""
    wanted = set(keys) if keys is not None else None
    out: dict[str, dict[str, list]] = {}
    for row in sorted((r for r in rows if isinstance(r.get("step"), (int, float))), key=lambda r: r["step"]):
        for key, value in row.items():
            if key in ("step", "time") or isinstance(value, bool) or not isinstance(value, (int, float)):
                continue
            if wanted is not None and key not in wanted:
                continue
            s = out.setdefault(key, {"steps": [], "times": [], "values": []})
            s["steps"].append(int(row["step"]))
            t = row.get("time")
            s["times"].append(float(t) if isinstance(t, (int, float)) else None)
            s["values"].append(float(value) if math.isfinite(value) else None)
    return out


def format_anomalies(anomalies: list[dict[str, Any]]) -> list[str]:
    """The text form: one line per anomaly (and its log line, indented)."""
    if not anomalies:
        return ["  Anomalies:  none"]
    out = [f"  Anomalies:  {len(anomalies)}"]
    for a in anomalies:
        step = f"step {a['step']}" if a.get("step") is not None else "step -"
        out.append(f"    ! {step:<10} {a['kind']:<20} {a['component']:<12} {neutralise(str(a['message']))}")
        if a.get("line") and a["line"] not in a["message"]:
            out.append(f"        {neutralise(str(a['line']))[:160]}")
    return out


def loss_chart(detail: Mapping[str, Any]) -> str:
    """The loss curve as plain text (plotext), anomaly steps marked; '' without points."""
    from primetui.headless_chart import line_chart

    loss = (detail.get("series") or {}).get("loss/mean")
    if not loss:
        return ""
    marks = sorted({a["step"] for a in detail.get("anomalies") or [] if a.get("step") is not None})
    values = [v if v is not None else math.nan for v in loss["values"]]
    return line_chart({"loss/mean": (loss["steps"], values)}, title="loss/mean", marks=marks)


def _get(obj: Any, *names: str) -> Any:
    for name in names:
        value = obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)
        if value is not None:
            return value
    return None
