"""Anomalies of watched runs reach the person as status changes do: toast, bell, desktop, hook.

Each anomaly is told once, whichever screen found it first (the runs list from the metrics, the
run screen from metrics, logs and stalls): the ``(run, kind, step, component)`` already told are
kept on the app for the session, and claimed in the shared "already announced" set, so a restart or
a second dashboard on the same machine does not tell it again (:func:`primetui.ui.notify.announce`).
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
    fresh = [a for a in anomalies if (run_id, a.kind, a.step, a.component) not in seen]
    sync = getattr(app, "sync_watched", None)
    if fresh and sync is not None:
        sync(exact=True)  # unwatched in another dashboard a moment ago: stay quiet
        if run_id not in app.state.watched:
            return 0
    count = 0
    for a in fresh:
        seen.add((run_id, a.kind, a.step, a.component))
        where = f" at step {a.step}" if a.step is not None else ""
        key = f"anomaly:{a.kind}:{'' if a.step is None else a.step}:{a.component or ''}"
        if announce(app, RunEvent.anomaly(run_id, name, f"{a.label}{where}", a.message), key):
            count += 1
    return count
