"""Compare screen: two or more runs side by side (from the runs list: space marks, C compares).

- Any metric the runs share overlaid (``m`` picks the next: loss, perplexity, grad norm,
  throughput, eval metrics), and the first eval metric beside it when the runs have evals. Each run
  has its own colour and its own glyph stamped along its curve (8 colours, 15 glyphs: the pair is
  each run's own for 120 runs), numbered in the legend, so runs stay apart without colour.
  ``1``..``9`` hide or show a run, and ``L`` puts a cursor on the legend to hide or show any run
  (``space``); ``y`` log-Y; ``+``/``-``
  zoom and ``<``/``>`` pan the x range; ``t`` toggles wall time (each run from its own start,
  drawn from the first run's start); ``←``/``→`` and ``c`` move and toggle one step cursor on
  every chart, and the header shows each visible run's value under it.
- A summary table: final and best loss, best eval, steps, duration, status, anomalies.
- A config diff: only the keys that differ, each run's value, prime-rl defaults marked "(default)".

The data is the same as ``primetui compare A B --once`` (:mod:`primetui.viewmodel.run_data`).
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
from textual.reactive import var
from textual.widgets import DataTable, Static
from textual.widgets.data_table import ColumnKey

from primetui.monitor_core.chartframe import (
    STEP,
    TIME,
    TOKENS,
    ChartView,
    _step_to_x,
    fmt_step,
    fmt_value,
    run_glyph,
    value_at_x,
)
from primetui.monitor_core.escapes import neutralise
from primetui.ui.safe import SafeTable
from primetui.monitor_core.metrics import Series
from primetui.sft.diff import Value
from primetui.monitor_core import rl_metrics
from primetui.ui.monitor.chart import MetricChart
from primetui.viewmodel.run_columns import headline_label
from primetui.viewmodel.run_data import headline_cells
from primetui.ui.screens.base import DashboardScreen
from primetui.ui.screens.compare_legend import CompareLegend, Entry
from primetui.ui.styles import tcss
from primetui.ui.widgets import tone_style
from primetui.viewmodel.statuses import TERMINAL_RUN_STATUSES

LOSS = "loss/mean"
REWARD = rl_metrics.REWARD
DIGIT_KEYS = 9  # runs 1..9 have a digit key; every run, those past 9 too, is hidden or shown from the legend (L)


def _num(v: float | None) -> str:
    return "-" if v is None or not math.isfinite(v) else fmt_value(v)


def shared_metrics(runs: list[dict[str, Any]]) -> list[str]:
    """Metrics at least two runs have (all of them when there are two), loss first, then an RL run's reward."""
    counts: dict[str, int] = {}
    for run in runs:
        for key in run["series"]:
            counts[key] = counts.get(key, 0) + 1
    need = min(2, len(runs))
    keys = sorted(k for k, n in counts.items() if n >= need)
    return sorted(keys, key=lambda k: (k != LOSS, k != REWARD, k))  # RL runs: their reward curves first


def overlay_series(
    runs: list[dict[str, Any]], metric: str, hidden: set[str] | frozenset[str] = frozenset(), x_mode: str = STEP
) -> list[Series]:
    """One Series per shown run that has ``metric`` (named by run id, in run order); wall times
    re-based on the first run's start. With ``x_mode`` TOKENS the times are the tokens seen by
    each step (seq_len x batch_size x step, from each run's own config)."""
    from primetui.sft.tokens import tokens_per_step

    out: list[Series] = []
    base: float | None = None
    for run in runs:
        s = run["series"].get(metric)
        if run["id"] in hidden:
            continue
        if s and x_mode == TOKENS:
            per_step = tokens_per_step(run.get("config"))
            series = Series(run["id"])
            steps = np.asarray(s["steps"], dtype=np.float64)
            values = np.array([v if v is not None else math.nan for v in s["values"]], dtype=np.float64)
            series.extend(steps, values, steps * per_step if per_step else np.full(len(steps), math.nan))
            out.append(series)
            continue
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


FIGURES_W = 40
"""Cells the summary keeps right of its run label for the final and best figures: a longer label ends in ``…``."""


class CompareScreen(DashboardScreen):
    """Runs compared: overlaid curves with one step cursor, summary table, config diff."""

    poll_interval = 10.0
    # The body (charts, summary, diff) has the keys at first, so ← → move the chart cursor; the
    # legend has them only when asked (L, or a click on it).
    AUTO_FOCUS = "VerticalScroll"
    BINDINGS = [
        Binding("escape", "back", "Back", id="compare.back"),
        Binding("t", "toggle_x", "X step/time/tokens", id="compare.x_mode"),
        Binding("c", "toggle_cursor", "Cursor", id="compare.cursor"),
        Binding("left,h", "cursor(-1)", "Cursor ←", show=False, id="compare.cursor_left"),
        Binding("right,l", "cursor(1)", "Cursor →", show=False, id="compare.cursor_right"),
        Binding("m", "next_metric", "Metric", id="compare.metric"),
        Binding("y", "toggle_log", "Log-Y", id="compare.log_y"),
        Binding("plus,equals_sign", "zoom(0.5)", "Zoom in", show=False, id="compare.zoom_in"),
        Binding("minus", "zoom(2)", "Zoom out", show=False, id="compare.zoom_out"),
        Binding("less_than_sign", "pan(-1)", "Pan ←", show=False, id="compare.pan_left"),
        Binding("greater_than_sign", "pan(1)", "Pan →", show=False, id="compare.pan_right"),
        Binding("L", "legend", "Legend", id="compare.legend"),
        *[
            Binding(str(n), f"toggle_run({n - 1})", f"Hide/show run {n}", show=False, id=f"compare.run_{n}")
            for n in range(1, DIGIT_KEYS + 1)
        ],
    ]
    CSS_PATH = tcss("compare.tcss")

    # What the charts, the summary and the diff show; setting one draws them again. The chart
    # view (x axis, log-Y, zoom, cursor) is the charts' shared ChartView: see ``_redraw``.
    data: var[dict[str, Any] | None] = var(None, init=False)
    """The compared runs as ``primetui.viewmodel.run_data.collect`` reads them; None until read."""
    metric: var[str] = var(LOSS, init=False)
    """The metric overlaid (``m`` picks the next one the runs share)."""
    hidden_runs: var[frozenset[str]] = var(frozenset, init=False)
    """Runs hidden from the charts (``1``..``9``, or ``space`` on the legend for any run)."""

    def __init__(self, run_ids: list[str]) -> None:
        super().__init__()
        self.run_ids = list(run_ids)
        self.view = ChartView(mode="braille")
        self.charts: dict[str, MetricChart] = {}
        self.title = "Compare " + ", ".join(self.run_ids)
        self.done = False

    def on_mount(self) -> None:
        from primetui.viewmodel.views import apply_chart_choices, load_view

        choices = load_view(self.app, "compare")
        apply_chart_choices(self.view, choices)
        if isinstance(choices.get("metric"), str):
            self.metric = choices["metric"]
        super().on_mount()

    def remember(self) -> None:
        from primetui.viewmodel.views import chart_choices, save_view

        save_view(self.app, "compare", {**chart_choices(self.view), "metric": self.metric})

    def compose_body(self) -> ComposeResult:
        yield Static(f"Loading {len(self.run_ids)} runs…", id="compare-head", markup=False)
        yield CompareLegend(id="compare-legend")
        with VerticalScroll():
            yield Horizontal(id="compare-charts")
            yield Static("Summary", classes="hint")
            yield SafeTable(id="compare-summary", cursor_type="row", zebra_stripes=True)
            yield Static(
                "Config diff: only the keys that differ; (default) = not written, prime-rl's default", classes="hint"
            )
            yield SafeTable(id="compare-diff", cursor_type="row", zebra_stripes=True)

    # ---- data -------------------------------------------------------------------------------
    def poll(self) -> None:
        if not self.done:
            self.fetch()

    @work(exclusive=True, group="compare")
    async def fetch(self) -> None:
        from primetui.viewmodel.run_data import collect

        try:
            data = await collect(self.client, self.run_ids, self.prime.state.now())
        except Exception as exc:  # noqa: BLE001
            self.failed(exc)  # ``load_error``: the head says why nothing is shown yet
            return
        self.ok()
        self.done = all(r["status"] in TERMINAL_RUN_STATUSES for r in data["runs"])
        self.data = data  # drawn when it changed

    # ---- rendering --------------------------------------------------------------------------
    def slot(self, run_id: str) -> int:
        """The run's place among the compared runs: its colour, glyph and number key."""
        ids = [r["id"] for r in (self.data or {}).get("runs") or []]
        return ids.index(run_id) if run_id in ids else 0

    def glyph(self, run_id: str) -> str:
        return run_glyph(self.slot(run_id))

    def watch_data(self) -> None:
        self.render_data()

    def watch_metric(self) -> None:
        self.render_data()

    def watch_hidden_runs(self) -> None:
        self.render_data()

    def render_screen(self) -> None:
        if self.data is None:
            if self.alive:
                self.query_one("#compare-head", Static).update(self.loading_text(f"Loading {len(self.run_ids)} runs…"))
            return
        self.render_data()

    def render_data(self) -> None:
        data = self.data
        if data is None or not self.alive:
            return
        runs = data["runs"]
        shared = shared_metrics(runs)
        if self.metric not in shared and shared:
            self.set_reactive(CompareScreen.metric, shared[0])  # drawn just below
        evals = sorted({r["eval_key"] for r in runs if r.get("eval_key")})[:1]
        metrics = [self.metric] + [k for k in evals if k != self.metric]
        box = self.query_one("#compare-charts", Horizontal)
        for gone in [k for k in self.charts if k not in metrics]:
            self.charts.pop(gone).remove()
        for metric in metrics:
            series = overlay_series(runs, metric, self.hidden_runs, self.view.x_mode)
            chart = self.charts.get(metric)
            if chart is None:
                chart = self.charts[metric] = MetricChart(metric, series, self.view, glyphs=[])
                box.mount(chart)
            chart.series = series
            chart.glyphs = [self.glyph(s.name) for s in series]
            chart.slots = [self.slot(s.name) for s in series]
            chart.invalidate()
        steps = [s.steps for c in self.charts.values() for s in c.series if len(s)]
        self.view.domain = (min(float(s[0]) for s in steps), max(float(s[-1]) for s in steps)) if steps else None
        for chart in self.charts.values():
            chart.invalidate()
        self.render_summary(runs)
        self.render_diff(runs, data["config_diff"])
        self.render_legend(runs)
        self.render_head()

    def run_style(self, run_id: str) -> Any:
        chart = next(iter(self.charts.values()), None)
        if chart is None:
            return ""
        return chart.get_component_rich_style(f"chart--{chart.run_style_key(self.slot(run_id))}", partial=True)

    def render_legend(self, runs: list[dict[str, Any]]) -> None:
        entries = [
            Entry(
                self.slot(r["id"]) + 1,
                self.glyph(r["id"]),
                self.run_style(r["id"]),
                neutralise(r["name"] or r["id"]),
                r["id"] in self.hidden_runs,
            )
            for r in runs
        ]
        digits = f"1-{min(len(runs), DIGIT_KEYS)}"
        hint = f"{digits} or L then space: hide/show · m metric · y log-Y · +/- zoom · </> pan"
        self.query_one("#compare-legend", CompareLegend).show(entries, hint)

    def render_summary(self, runs: list[dict[str, Any]]) -> None:
        table = self.query_one("#compare-summary", DataTable)
        what = headline_label(r.get("kind", "sft") for r in runs).lower()  # loss, reward, or loss/reward
        if not table.columns or str(table.columns[ColumnKey("final")].label) != f"Final {what}":
            table.clear(columns=True)
            for key, label in (
                ("run", "Run"),
                ("final", f"Final {what}"),  # next to the run: a narrow terminal cuts the right, not the figure
                ("best", f"Best {what}"),
                ("status", "Status"),
                ("steps", "Steps"),
                ("eval", "Best eval"),
                ("duration", "Duration"),
                ("anomalies", "Anomalies"),
            ):
                table.add_column(label, key=key)
        table.clear()
        label_max = max(24, (self.size.width or 80) - FIGURES_W)
        for r in runs:
            style = self.run_style(r["id"])
            final, best = headline_cells(r, _num)  # an RL run's reward, an SFT run's loss
            ev = f"{_num(r['best_eval'])} @{r['best_eval_step']}" if r["best_eval"] is not None else "-"
            kinds = ", ".join(sorted({a["kind"] for a in r["anomalies"]}))
            error = tone_style(self, "error")
            flags = Text(f"! {len(r['anomalies'])} {kinds}", style=error) if r["anomalies"] else Text("none")
            name = neutralise(r["id"] + (f" ({r['name']})" if r["name"] else ""))
            if len(name) > label_max:
                name = name[: label_max - 2] + "…)" if r["name"] else name[: label_max - 1] + "…"
            run_label = Text(f"{self.glyph(r['id'])} ", style=style) + Text(name)
            table.add_row(
                run_label,
                final,
                best,
                r["status"],
                str(r["steps"] if r["steps"] is not None else "-"),
                ev,
                r["duration"],
                flags,
                key=r["id"],
            )

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
        axis = {STEP: "step", TIME: "wall time from each start", TOKENS: "tokens (seq_len × batch × step)"}
        text.append(f"  {self.metric}  x: {axis.get(self.view.x_mode, self.view.x_mode)}")
        if self.view.log_y:
            text.append("  log-Y")
        cursor = self.view.cursor
        if cursor is not None and self.metric in self.charts:
            shown = self.charts[self.metric].series
            text.append(f"  step {fmt_step(cursor)}", style="bold")
            # Off the step axis, every run is read at the same x (the first run's x at the cursor's step).
            cx = _step_to_x(shown[0], cursor, self.view) if shown and self.view.x_mode != STEP else None
            for s in shown:
                if cx is not None:
                    value = value_at_x(s, cx) if len(s) else None
                else:
                    hit = s.value_at(cursor) if len(s) else None
                    value = hit[1] if hit else None
                text.append(f"  {self.glyph(s.name)} {s.name[:10]} ")
                text.append(fmt_value(value) if value is not None else "-", style="bold")
        else:
            text.append("  c: cursor, ← →: move it, t: step/wall time", style="dim")
        head.update(text)

    # ---- actions ----------------------------------------------------------------------------
    def _redraw(self) -> None:
        """Kept by hand: the x axis, log-Y, zoom and cursor live in the charts' ChartView, a plain
        object of monitor_core that the charts read as they paint; no reactive holds them."""
        for chart in self.charts.values():
            chart.invalidate()
        self.render_head()

    def action_back(self) -> None:
        self.app.pop_screen()

    def action_toggle_x(self) -> None:
        order = [STEP, TIME, TOKENS]
        self.view.x_mode = order[(order.index(self.view.x_mode) + 1) % 3] if self.view.x_mode in order else STEP
        self.view.zoom = None  # a zoom is a step range; the new axis starts whole
        self.render_data()  # kept by hand: the series are rebuilt on the new axis (the ChartView's, see _redraw)
        self.remember()

    def action_next_metric(self) -> None:
        shared = shared_metrics((self.data or {}).get("runs") or [])
        if len(shared) < 2:
            self.notify("The runs share no other metric.", timeout=3)
            return
        self.metric = shared[(shared.index(self.metric) + 1) % len(shared)] if self.metric in shared else shared[0]
        self.remember()

    def action_toggle_log(self) -> None:
        self.view.log_y = not self.view.log_y
        self._redraw()
        self.remember()

    def action_legend(self) -> None:
        """L: the cursor on the legend, to hide or show any run (space), those past 9 included."""
        self.query_one("#compare-legend", CompareLegend).focus()

    def on_compare_legend_toggle(self, event: CompareLegend.Toggle) -> None:
        event.stop()
        self.action_toggle_run(event.index)

    def on_compare_legend_show_all(self, event: CompareLegend.ShowAll) -> None:
        event.stop()
        self.hidden_runs = frozenset()

    def action_toggle_run(self, n: int) -> None:
        runs = (self.data or {}).get("runs") or []
        if n >= len(runs):
            return
        run_id = runs[n]["id"]
        if run_id not in self.hidden_runs and len(self.hidden_runs) + 1 >= len(runs):
            self.notify("At least one run stays shown.", severity="warning", timeout=3)
            return
        self.hidden_runs = self.hidden_runs ^ {run_id}

    def _window(self) -> tuple[float, float] | None:
        return self.view.zoom or self.view.domain

    def action_zoom(self, factor: float) -> None:
        window, domain = self._window(), self.view.domain
        if window is None or domain is None:
            return
        lo, hi = window
        centre = self.view.cursor if self.view.cursor is not None and lo <= self.view.cursor <= hi else (lo + hi) / 2
        half = max((hi - lo) * factor / 2, 1.0)
        lo, hi = max(domain[0], centre - half), min(domain[1], centre + half)
        self.view.zoom = None if (lo, hi) == domain or hi - lo >= domain[1] - domain[0] else (lo, hi)
        self._redraw()

    def action_pan(self, direction: int) -> None:
        window, domain = self.view.zoom, self.view.domain
        if window is None or domain is None:
            self.notify("Zoom in (+) first, then < and > pan.", timeout=3)
            return
        width = window[1] - window[0]
        lo = min(max(domain[0], window[0] + direction * width / 4), domain[1] - width)
        self.view.zoom = (lo, lo + width)
        self._redraw()

    def action_toggle_cursor(self) -> None:
        if self.view.cursor is not None:
            self.view.cursor = None
        elif self.view.domain is not None:
            lo, hi = self.view.domain
            self.view.cursor = float(round((lo + hi) / 2))
        self._redraw()

    def action_cursor(self, delta: int) -> None:
        from primetui.monitor_core.chartframe import step_by

        window = self._window()
        if window is None:
            return
        step = step_by([s for c in self.charts.values() for s in c.series], self.view.cursor, delta, *window)
        if step is not None:
            self.view.cursor = step
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
