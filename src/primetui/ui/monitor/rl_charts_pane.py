"""The Charts tab of an RL run: reward with its band, per function and per environment, output length,
truncation, solved none/some/all stacked, off-policy lag, step times, evals, and the trainer's entropy,
mismatch KL, grad norm, LR and throughput read from its log lines (hosted ``/metrics`` lacks them).

The same grid, keys, cursor, zoom and smoothing as SFT's :class:`ChartsPane`; only which charts
show differs (:func:`primetui.monitor_core.rl_charts.rl_chart_specs`). Metric rows of any prime-rl
generation are mapped onto today's names first (:mod:`primetui.monitor_core.rl_metrics`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from rich.text import Text

from primetui.monitor_core import rl_metrics
from primetui.monitor_core.escapes import neutralise
from primetui.monitor_core.metrics import Series
from primetui.monitor_core.rl_lines import TRAINER_KEYS
from primetui.monitor_core.rl_charts import STACKED, STATUS_NOTE, ChartSpec, rl_chart_specs, stacked_rows
from primetui.ui.monitor.chart import MetricChart
from primetui.ui.monitor.charts_pane import ChartsPane
from primetui.viewmodel.rl_summary import RLLogState


class StackedChart(MetricChart):
    """Solved none/some/all per step as a stacked bar (``series`` are the three fractions)."""

    def frame_rows(self) -> list[list[tuple[str, str]]]:
        none = self.series[0]
        n = min(len(s) for s in self.series)
        steps = none.steps[:n]
        if self.view.zoom is not None:
            keep = (steps >= self.view.zoom[0]) & (steps <= self.view.zoom[1])
        else:
            keep = np.ones(n, dtype=bool)
        parts = [s.values[:n][keep] for s in self.series]
        return stacked_rows(self.title, steps[keep], parts, self.content_size.width, self.content_size.height)


class RLChartsPane(ChartsPane):
    """``RLChartsPane(client, run)``: an RL run's charts; ``add_metrics`` and ``add_log_lines`` feed it directly."""

    def __init__(self, client: Any, run: Any, **kw: Any) -> None:
        kw.setdefault("keys", ())
        kw.setdefault("auto_eval", False)
        super().__init__(client, run, **kw)
        self.specs: list[ChartSpec] = rl_chart_specs(())
        self.logs = RLLogState()
        self._log_sub: Any = None

    @property
    def cursor_keys(self) -> list[str]:
        """What the run screen's cursor line reads at the cursor's step (the first also gives its wall time)."""
        return [
            rl_metrics.REWARD,
            rl_metrics.TRUNCATED,
            TRAINER_KEYS["entropy"],
            TRAINER_KEYS["mismatch_kl"],
            *self.chosen,
        ]

    @property
    def view_name(self) -> str:
        return "rl-charts"

    def on_mount(self) -> None:  # Textual calls ChartsPane.on_mount after this one (each class's handler, once)
        if self.links is not None:
            self.links.on_lines(self.add_log_lines)  # the Logs tab's trainer lines: no second request stream
        elif self.follow_enabled and self.client is not None:
            self._follow_trainer_log()

    def on_unmount(self) -> None:
        if self._log_sub is not None:
            self._log_sub.close()
            self._log_sub = None

    def _follow_trainer_log(self) -> None:
        from primetui.api.followers import LogLines
        from primetui.api.hub import hub_for
        from primetui.monitor_core.lines import LineParser

        parser = LineParser()

        def on_event(event: Any) -> None:
            if isinstance(event, LogLines):
                texts = parser.parse_batch(list(event.lines)).texts
                self.add_log_lines("trainer", list(enumerate(texts)))

        self._log_sub = hub_for(self.client).logs(
            self.run_id, "trainer", self.sink(on_event), status=getattr(self.run, "status", None)
        )

    # ---- data -------------------------------------------------------------------------------
    def add_metrics(self, rows: list[dict]) -> None:
        """Metric rows of any prime-rl generation, charted under today's names."""
        if self.links is not None:
            self.links.rows_added(self, rows)
        self._take([rl_metrics.normalise(row) for row in rows])

    def add_log_lines(self, component: str, lines: list[tuple[int, str]]) -> None:
        """Display lines of one log stream: the trainer's step lines become the ``trainer log/*`` series."""
        new = self.logs.add(component, (text for _, text in lines))
        if new:
            self._take(new)

    def _take(self, rows: list[dict]) -> None:
        changed = self.table.add_rows(rows)
        if not changed:
            return
        self.view.eval_steps = self.table.eval_steps
        specs = rl_chart_specs(k for k, s in self.table.series.items() if len(s))
        if [s.id for s in specs] != [s.id for s in self.specs]:
            self.specs = specs
            for chart in self.charts.values():  # mounted again in the specs' order (a new chart may go in between)
                chart.remove()
            self.charts.clear()
            self._rebuild()
        else:
            self._refresh_all()
        self.update_status()

    def status_extra(self, text: Text) -> None:
        if any(chart_id.startswith("log-") for chart_id in self.charts):
            text.append(f"  {STATUS_NOTE}", style="dim")

    # ---- layout -----------------------------------------------------------------------------
    def _series(self, key: str) -> Series:
        return self.table.series.setdefault(key, Series(key))

    def _rebuild(self) -> None:
        if not self._ready:
            return
        wanted: dict[str, tuple[str, tuple[str, ...], str]] = {s.id: (s.title, s.keys, s.kind) for s in self.specs}
        for key in self.chosen:  # metrics the user added with `a`
            wanted.setdefault(f"pick-{key}", (neutralise(key), (key,), "line"))
        for chart_id in list(self.charts):
            chart = self.charts[chart_id]
            spec = wanted.get(chart_id)
            if spec is None or spec[1] != tuple(s.name for s in chart.series):
                self.charts.pop(chart_id).remove()
        for chart_id, (title, keys, kind) in wanted.items():
            if chart_id not in self.charts:
                cls = StackedChart if kind == STACKED else MetricChart
                chart = cls(
                    keys[0], [self._series(k) for k in keys], self.view, markers=chart_id == "reward", title=title
                )
                self.charts[chart_id] = chart
                self._grid.mount(chart)
        self._reflow()
        self.update_status()
