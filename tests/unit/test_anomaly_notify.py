"""Anomalies of a watched run are announced (toast, bell, hook) as ``anomaly`` events, once each."""

from __future__ import annotations

from types import SimpleNamespace

from primetui.monitor_core.anomalies import detect
from primetui.ui.anomaly_notify import announce_anomalies


class Hook:
    def __init__(self) -> None:
        self.events: list[dict] = []

    def emit(self, event) -> None:  # noqa: ANN001
        self.events.append(event.to_json())


def _app(watched: set[str]) -> SimpleNamespace:
    toasts: list[str] = []
    return SimpleNamespace(
        state=SimpleNamespace(watched=watched),
        notifier=Hook(),
        toasts=toasts,
        notify=lambda message, **kw: toasts.append(message),
        bell=lambda: None,
    )


ROWS = [{"step": s, "time": 100.0 + s, "loss/mean": v} for s, v in enumerate([2.0, 1.9, float("nan"), 1.8], start=1)]


def test_each_anomaly_is_one_event_and_is_told_once():
    app = _app({"r1"})
    found = detect(ROWS)
    assert announce_anomalies(app, "r1", "lr-lr=1e-1", found) == 1
    assert announce_anomalies(app, "r1", "lr-lr=1e-1", detect(ROWS)) == 0  # another screen finds it again
    (event,) = app.notifier.events
    assert event["kind"] == "anomaly" and event["run_id"] == "r1" and event["severity"] == "warning"
    assert event["title"] == "Run lr-lr=1e-1: NaN/inf at step 3"
    assert "loss/mean is nan at step 3" in event["detail"]
    assert app.toasts and app.toasts[0].startswith("Run lr-lr=1e-1: NaN/inf at step 3")


def test_a_stall_is_an_anomaly_event_too_and_unwatched_runs_stay_quiet():
    rows = [{"step": s, "time": 100.0 + 2 * s, "loss/mean": 2.0} for s in range(1, 6)]
    stall = detect(rows, status="RUNNING", now=100.0 + 10 + 600)
    assert [a.kind for a in stall] == ["stall"]
    app = _app({"r1"})
    assert announce_anomalies(app, "r1", None, stall) == 1 and "stall at step 5" in app.notifier.events[0]["title"]
    quiet = _app(set())
    assert announce_anomalies(quiet, "r1", None, stall) == 0 and quiet.notifier.events == []
