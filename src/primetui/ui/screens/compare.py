"""Compare screen: two or more runs side by side (from the runs list: space marks, C compares).

- Loss (and, when the runs have evals, the first eval metric) overlaid, one colour per run,
  aligned by step; ``t`` toggles wall time (each run from its own start, drawn from the first
  run's start); ``←``/``→`` and ``c`` move and toggle one step cursor on every chart, and the
  header shows each run's value under it.
- A summary table: final and best loss, best eval, steps, duration, status, anomalies.
- A config diff: only the keys that differ, each run's value, prime-rl defaults marked "(default)".

The data is the same as ``primetui compare A B --once`` (:mod:`primetui.ui.run_data`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import DataTable, Static

from primetui.monitor_core.chartframe import STEP, TIME, ChartView, fmt_step, fmt_value
from primetui.monitor_core.escapes import neutralise
from primetui.ui.safe import SafeTable
from primetui.monitor_core.metrics import Series
from primetui.sft.diff import Value
from primetui.ui.monitor.chart import MetricChart
from primetui.ui.present import TERMINAL_RUN_STATUSES
from primetui.ui.screens.base import DashboardScreen

LOSS = "loss/mean"


def _num(v: float | None) -> str:
    return "-" if v is None or not math.isfinite(v) else fmt_value(v)


def overlay_series(runs: list[dict[str, Any]], metric: str) -> list[Series]:
    """One Series per run that has ``metric`` (named by run id, in run order); wall times re-based
    on the first run's start."""
    out: list[Series] = []
    base: float | None = None
    for run in runs:
        s = run["series"].get(metric)
        series = Series(run["id"])
        if s:
            times = np.array([t if t is not None else math.nan for t in s["times"]], dtype=np.float64)
            finite = times[np.isfinite(times)]
            if len(finite):
                start = float(finite.min())
                base = start if base is None else base
                times = times - start + base
            values = np.array([v if v is not None else math.nan for v in s["values"]], dtype=np.float64)
            series.extend(np.asarray(s["steps"], dtype=np.float64), values, times)
            out.append(series)
    return out


class CompareScreen(DashboardScreen):
    """Runs compared: overlaid curves with one step cursor, summary table, config diff."""

    poll_interval = 10.0
    BINDINGS = [
        Binding("escape", "back", "Back", id="compare.back"),
        Binding("t", "toggle_x", "X step/time", id="compare.x_mode"),
        Binding("c", "toggle_cursor", "Cursor", id="compare.cursor"),
        Binding("left,h", "cursor(-1)", "Cursor ←", show=False, id="compare.cursor_left"),
        Binding("right,l", "cursor(1)", "Cursor →", show=False, id="compare.cursor_right"),
    ]
    DEFAULT_CSS = """
    CompareScreen #compare-head { height: 1; padding: 0 1; background: $panel; }
    CompareScreen #compare-charts { height: 16; }
    CompareScreen #compare-charts MetricChart { width: 1fr; }
    CompareScreen .hint { color: $text-muted; padding: 0 1; }
    CompareScreen DataTable { height: auto; max-height: 14; }
    """

    def __init__(self, run_ids: list[str]) -> None:
        super().__init__()
        self.run_ids = list(run_ids)
        self.data: dict[str, Any] | None = None
        self.view = ChartView(mode="braille")
        self.charts: dict[str, MetricChart] = {}
        self.title = "Compare " + ", ".join(self.run_ids)
        self.done = False

    def compose_body(self) -> ComposeResult:
        yield Static(f"Loading {len(self.run_ids)} runs…", id="compare-head", markup=False)
        with VerticalScroll():
            yield Horizontal(id="compare-charts")
            yield Static("Summary", classes="hint")
            yield SafeTable(id="compare-summary", cursor_type="row", zebra_stripes=True)
            yield Static("Config diff: only the keys that differ; (default) = not written, prime-rl's default", classes="hint")
            yield SafeTable(id="compare-diff", cursor_type="row", zebra_stripes=True)

    # ---- data -------------------------------------------------------------------------------
    def poll(self) -> None:
        if not self.done:
            self.fetch()

    @work(exclusive=True, group="compare")
    async def fetch(self) -> None:
        from primetui.ui.run_data import collect

        try:
            data = await collect(self.client, self.run_ids, self.prime.state.now())
        except Exception as exc:  # noqa: BLE001
            message = self.failed(exc)
            if self.alive:
                self.query_one("#compare-head", Static).update(message)
            return
        self.ok()
        self.done = all(r["status"] in TERMINAL_RUN_STATUSES for r in data["runs"])
        self.data = data
        if self.alive:
            self.render_data()

    # ---- rendering --------------------------------------------------------------------------
    def render_data(self) -> None:
        data = self.data
        if data is None:
            return
        runs = data["runs"]
        metrics = [LOSS] + sorted({r["eval_key"] for r in runs if r.get("eval_key")})[:1]
        box = self.query_one("#compare-charts", Horizontal)
        for metric in metrics:
            series = overlay_series(runs, metric)
            chart = self.charts.get(metric)
            if chart is None:
                chart = self.charts[metric] = MetricChart(metric, series, self.view)
                box.mount(chart)
            else:
                chart.series = series
                chart.invalidate()
        steps = [s.steps for c in self.charts.values() for s in c.series if len(s)]
        self.view.domain = (min(float(s[0]) for s in steps), max(float(s[-1]) for s in steps)) if steps else None
        for chart in self.charts.values():
            chart.invalidate()
        self.render_summary(runs)
        self.render_diff(runs, data["config_diff"])
        self.render_head()

    def render_summary(self, runs: list[dict[str, Any]]) -> None:
        table = self.query_one("#compare-summary", DataTable)
        if not table.columns:
            for key, label in (("run", "Run"), ("status", "Status"), ("steps", "Steps"), ("final", "Final loss"), ("best", "Best loss"),
                               ("eval", "Best eval"), ("duration", "Duration"), ("anomalies", "Anomalies")):
                table.add_column(label, key=key)
        table.clear()
        drawn = [s.name for s in self.charts[LOSS].series] if LOSS in self.charts else []
        for r in runs:
            style = ""
            if r["id"] in drawn:  # the run's colour on the charts (series n is drawn as s{2n+1})
                colour = f"chart--s{(2 * drawn.index(r['id'])) % 4 + 1}"
                style = self.charts[LOSS].get_component_rich_style(colour, partial=True)
            best = f"{_num(r['best_loss'])} @{r['best_loss_step']}" if r["best_loss"] is not None else "-"
            ev = f"{_num(r['best_eval'])} @{r['best_eval_step']}" if r["best_eval"] is not None else "-"
            kinds = ", ".join(sorted({a["kind"] for a in r["anomalies"]}))
            flags = Text(f"! {len(r['anomalies'])} {kinds}", style="bold red") if r["anomalies"] else Text("none")
            label = Text("━ " if style else "  ", style=style) + Text(neutralise(r["id"] + (f" ({r['name']})" if r["name"] else "")))
            table.add_row(label, r["status"], str(r["steps"] if r["steps"] is not None else "-"), _num(r["final_loss"]), best, ev,
                          r["duration"], flags, key=r["id"])

    def render_diff(self, runs: list[dict[str, Any]], diff: dict[str, dict[str, dict[str, Any]]]) -> None:
        table = self.query_one("#compare-diff", DataTable)
        table.clear(columns=True)
        table.add_column("Key", key="key")
        for r in runs:
            table.add_column(neutralise(r["id"]), key=r["id"])
        if not diff:
            table.add_row("(no difference, defaults included)", *["" for _ in runs])
            return
        for key, values in diff.items():
            cells = []
            for r in runs:
                v = values[r["id"]]
                text = neutralise(Value(v["value"], v["source"]).text())
                cells.append(Text(text, style="dim") if v["source"] != "set" else Text(text))
            table.add_row(key, *cells, key=key)

    def render_head(self) -> None:
        head = self.query_one("#compare-head", Static)
        runs = (self.data or {}).get("runs") or []
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(f"{len(runs)} runs", style="bold")
        text.append(f"  x: {'step' if self.view.x_mode == STEP else 'wall time from each start'}")
        cursor = self.view.cursor
        if cursor is not None and LOSS in self.charts:
            text.append(f"  step {fmt_step(cursor)}", style="bold")
            for s in self.charts[LOSS].series:
                hit = s.value_at(cursor) if len(s) else None
                text.append(f"  {s.name[:10]} ")
                text.append(fmt_value(hit[1]) if hit else "-", style="bold")
        else:
            text.append("  c: cursor, ← →: move it, t: step/wall time", style="dim")
        head.update(text)

    # ---- actions ----------------------------------------------------------------------------
    def _redraw(self) -> None:
        for chart in self.charts.values():
            chart.invalidate()
        self.render_head()

    def action_back(self) -> None:
        self.app.pop_screen()

    def action_toggle_x(self) -> None:
        self.view.x_mode = TIME if self.view.x_mode == STEP else STEP
        self._redraw()

    def action_toggle_cursor(self) -> None:
        if self.view.cursor is not None:
            self.view.cursor = None
        elif self.view.domain is not None:
            lo, hi = self.view.domain
            self.view.cursor = float(round((lo + hi) / 2))
        self._redraw()

    def action_cursor(self, delta: int) -> None:
        if self.view.domain is None:
            return
        lo, hi = self.view.domain
        cur = self.view.cursor if self.view.cursor is not None else (hi if delta < 0 else lo)
        self.view.cursor = float(max(lo, min(hi, cur + delta if self.view.cursor is not None else cur)))
        self._redraw()

    def on_click(self, event: Any) -> None:
        from primetui.monitor_core.chartframe import LABEL_W, step_at

        chart = getattr(event, "widget", None)
        if not isinstance(chart, MetricChart):
            return
        offset = event.get_content_offset(chart)
        if offset is None:
            return
        step = step_at(chart.series, self.view, chart.content_size.width, offset.x - LABEL_W - 1)
        if step is not None:
            self.view.cursor = step
            self._redraw()
