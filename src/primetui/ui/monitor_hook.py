"""Where the run screen picks up the monitor panes (logs, charts, components, evals).

The panes belong to ``primetui.ui.monitor``; this hook only mounts what that package exports,
so the run screen has no copy of them. Each pane is constructed as ``Pane(client, run)`` and
starts/stops its own followers on mount/unmount.
"""

from __future__ import annotations

from typing import Any

PANES: list[tuple[str, str, str]] = [
    ("tab-logs", "Logs", "LogsPane"),
    ("tab-charts", "Charts", "ChartsPane"),
    ("tab-components", "Components", "ComponentsPane"),
    ("tab-evals", "Evals", "EvalsPane"),
]


def monitor_panes(client: Any, run: Any) -> list[tuple[str, str, Any]]:
    """(tab id, title, widget) for each monitor pane that is installed; [] when none is."""
    try:
        from primetui.ui import monitor as module
    except ImportError:  # a build without the monitor's dependencies
        return []
    panes = []
    for tab_id, title, name in PANES:
        cls = getattr(module, name, None)
        if name == "ChartsPane" and _is_rl(run):
            cls = getattr(module, "RLChartsPane", cls)  # an RL run's charts: reward, pipeline, trainer log
        if cls is None:
            continue
        if name == "EvalsPane" and not _has_evals(run):
            continue
        try:
            panes.append((tab_id, title, cls(client, run)))
        except Exception:  # noqa: BLE001 - a broken pane must not take the run screen down
            continue
    return panes


def _is_rl(run: Any) -> bool:
    from primetui.monitor_core.rl import is_rl

    return is_rl(run)


def _has_evals(run: Any) -> bool:
    cfg = getattr(run, "run_config", None) or (run.get("runConfig") if isinstance(run, dict) else None) or {}
    return isinstance(cfg, dict) and bool(cfg.get("eval"))
