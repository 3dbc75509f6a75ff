"""Anomalies of watched runs reach the person as status changes do: toast, bell, desktop, hook.

Each anomaly is told once, whichever screen found it first (the runs list from the metrics, the
run screen from metrics, logs and stalls): the ``(run, kind, step, component)`` already told are
kept on the app for the session.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from primetui.monitor_core.anomalies import Anomaly
from primetui.monitor_core.notify import RunEvent
from primetui.ui.notify import announce


def told(app: Any) -> set[tuple[str, str, int | None, str]]:
    seen = getattr(app, "_anomalies_told", None)
    if seen is None:
        seen = app._anomalies_told = set()
    return seen


def announce_anomalies(app: Any, run_id: str, name: str | None, anomalies: Iterable[Anomaly]) -> int:
    """Announce the anomalies of ``run_id`` not told yet, if the run is watched; how many were told."""
    if run_id not in app.state.watched or getattr(app, "notifier", None) is None:
        return 0
    seen = told(app)
    count = 0
    for a in anomalies:
        key = (run_id, a.kind, a.step, a.component)
        if key in seen:
            continue
        seen.add(key)
        where = f" at step {a.step}" if a.step is not None else ""
        announce(app, RunEvent.anomaly(run_id, name, f"{a.label}{where}", a.message))
        count += 1
    return count
