"""One step cursor per run screen, and the run's anomalies: what links charts, logs and the overview.

The run screen owns one :class:`StepLinks`; the monitor panes it mounts get it as ``links``.
Charts report cursor moves (keys or mouse) here and every other chart follows; each log tab
scrolls to the first line of that step; listeners (the run screen's header, its checkpoint and
anomaly tables) redraw. Metric rows and log lines are fed to one anomaly
:class:`~primetui.monitor_core.anomalies.Detector` as the panes receive them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from primetui.monitor_core.anomalies import Anomaly, Detector, Thresholds


class StepLinks:
    def __init__(self, thresholds: Thresholds | None = None) -> None:
        self.detector = Detector(thresholds or Thresholds())
        self.cursor: float | None = None
        self.charts: list[Any] = []  # ChartsPane instances
        self.logs: Any = None  # the LogsPane
        self.feeder: Any = None  # the one ChartsPane whose rows go to the detector
        self._cursor_listeners: list[Callable[[float | None], None]] = []
        self._anomaly_listeners: list[Callable[[], None]] = []
        self._line_listeners: list[Callable[[str, list[tuple[int, str]]], None]] = []

    # ---- registration -----------------------------------------------------------------------
    def add_charts(self, pane: Any) -> None:
        if pane not in self.charts:
            self.charts.append(pane)
        if self.feeder is None and not getattr(pane, "eval_only", False):
            self.feeder = pane

    def on_cursor(self, fn: Callable[[float | None], None]) -> None:
        self._cursor_listeners.append(fn)

    def on_anomalies(self, fn: Callable[[], None]) -> None:
        self._anomaly_listeners.append(fn)

    def on_lines(self, fn: Callable[[str, list[tuple[int, str]]], None]) -> None:
        """``fn(component, lines)`` for each batch of log lines (the trainer's ``Loss nan`` line)."""
        self._line_listeners.append(fn)

    # ---- the cursor -------------------------------------------------------------------------
    def cursor_moved(self, step: float | None, origin: Any = None, *, scroll_logs: bool = True) -> None:
        """The cursor is at ``step`` (None: hidden): move it on every chart, scroll the logs."""
        self.cursor = step
        for pane in self.charts:
            if pane is not origin:
                pane.set_cursor(step)
        if scroll_logs and step is not None and self.logs is not None:
            self.logs.scroll_to_step(int(step))
        for fn in self._cursor_listeners:
            fn(step)

    # ---- anomalies --------------------------------------------------------------------------
    @property
    def anomalies(self) -> list[Anomaly]:
        return self.detector.anomalies

    def rows_added(self, pane: Any, rows: list[dict[str, Any]]) -> None:
        if pane is self.feeder and self.detector.add_rows(rows):
            self._anomalies_changed()

    def lines_added(self, component: str, lines: list[tuple[int, str]]) -> None:
        version = self.detector.version
        self.detector.add_log_lines(component, lines)
        if self.detector.version != version:  # new anomalies, or a failed run's reason found in the log
            self._anomalies_changed()
        for fn in self._line_listeners:
            fn(component, lines)

    def samples_measured(self, points: list[Any]) -> None:
        """Sample steps' mean reward and answer similarity (``SamplePoint``): the ``answer_drift`` flag."""
        if self.detector.add_sample_points(points):
            self._anomalies_changed()

    def check_stall(self, now: float, status: str | None) -> None:
        if self.detector.check_stall(now, status):
            self._anomalies_changed()

    def run_failed(self, message: str, line: str | None = None) -> None:
        if self.detector.component_exited("trainer", message, line=line):
            self._anomalies_changed()

    def _anomalies_changed(self) -> None:
        steps = sorted({float(a.step) for a in self.anomalies if a.step is not None})
        for pane in self.charts:
            pane.set_anomaly_steps(steps)
        for fn in self._anomaly_listeners:
            fn()

    def jump_to(self, anomaly: Anomaly) -> None:
        """Show the cause: the cursor at its step on every chart, its log tab at its line."""
        if anomaly.step is not None:
            self.cursor_moved(float(anomaly.step), scroll_logs=anomaly.line_index is None)
        if anomaly.line_index is not None and self.logs is not None:
            self.logs.goto_line(anomaly.component, anomaly.line_index)
