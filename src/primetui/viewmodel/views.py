"""Chart choices remembered per project: the charts' metrics, smoothing, log-Y and x axis, and
compare's metric, log-Y and x axis, so reopening a run (or compare) shows what you left.

A project is the platform and team the dashboard talks to. The choices live in ``views.json`` next
to the preferences file, and only when the app was given one (the real entry point does; tests
pass their own or none). Any problem reading the file means defaults; a failed write is ignored
(the session keeps its choices). Two dashboards share the file: each write is merged into it under
its lock (:func:`primetui.config.shared.update_json`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

FILE = "views.json"
MAX_PROJECTS = 50  # oldest dropped first: the file stays small whatever one connects to


def _path(app: Any) -> Path | None:
    prefs_file = getattr(app, "prefs_file", None)
    return Path(prefs_file).parent / FILE if prefs_file else None


def project(app: Any) -> str:
    client = getattr(app, "client", None)
    return f"{getattr(client, 'base_url', '') or ''}|team={getattr(client, 'team_id', None) or ''}"


def _read(path: Path) -> dict[str, Any]:
    from primetui.config.shared import read_json_object

    return read_json_object(path)


def load_view(app: Any, name: str) -> dict[str, Any]:
    """The remembered choices of view ``name`` (``charts``, ``evals``, ``compare``) in this project."""
    path = _path(app)
    if path is None:
        return {}
    entry = _read(path).get(project(app))
    view = entry.get(name) if isinstance(entry, dict) else None
    return view if isinstance(view, dict) else {}


def save_view(app: Any, name: str, choices: dict[str, Any]) -> None:
    """Keep view ``name``'s choices: merged into ``views.json`` as it is now, under its lock, so
    another dashboard's views (another project, another view) are kept."""
    from primetui.config.shared import update_json

    path = _path(app)
    if path is None:
        return
    key = project(app)

    def change(data: dict[str, Any]) -> None:
        entry = data.pop(key, None)
        entry = entry if isinstance(entry, dict) else {}
        entry[name] = choices
        data[key] = entry  # last written goes last: the oldest projects are the first ones
        while len(data) > MAX_PROJECTS:
            data.pop(next(iter(data)))

    try:
        update_json(path, change)
    except OSError:
        pass


def chart_choices(view: Any, chosen: list[str] | None = None) -> dict[str, Any]:
    """What is kept of a ``ChartView`` (and the chosen metrics)."""
    out: dict[str, Any] = {"smoothing": view.smoothing, "log_y": view.log_y, "x_mode": view.x_mode}
    if chosen is not None:
        out["metrics"] = list(chosen)
    return out


def apply_chart_choices(view: Any, choices: dict[str, Any]) -> list[str] | None:
    """Put remembered choices on ``view``; returns the remembered metrics (None: keep the defaults)."""
    from primetui.monitor_core.chartframe import STEP, TIME, TOKENS

    smoothing = choices.get("smoothing")
    if isinstance(smoothing, (int, float)) and not isinstance(smoothing, bool) and 0 <= smoothing < 1:
        view.smoothing = float(smoothing)
    if isinstance(choices.get("log_y"), bool):
        view.log_y = choices["log_y"]
    if choices.get("x_mode") in (STEP, TIME, TOKENS):
        view.x_mode = choices["x_mode"]
    metrics = choices.get("metrics")
    if isinstance(metrics, list) and metrics and all(isinstance(m, str) for m in metrics):
        return metrics[:64]
    return None
