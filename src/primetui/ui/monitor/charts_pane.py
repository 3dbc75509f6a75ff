"""The Charts pane: a grid of metric charts that reflows with the terminal, one shared cursor."""

from __future__ import annotations

import math
import os
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid, Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, SelectionList, Static
from textual.widgets.selection_list import Selection

from primetui.monitor_core.chartframe import STEP, TIME, ChartView, fmt_step
from primetui.monitor_core.canvas import BLOCK, MODES
from primetui.monitor_core.metrics import MetricTable
from primetui.ui.monitor.chart import MetricChart
from primetui.ui.monitor.feed import FeedMixin
from primetui.ui.safe import plain
from primetui.ui.widgets import update_static
from primetui.ui.styles import tcss

if TYPE_CHECKING:
    from primetui.api.plainrun import Run

DEFAULT_KEYS = ("loss/mean", "loss/perplexity")
SMOOTHING_STEPS = (0.0, 0.6, 0.8, 0.9, 0.95, 0.99)
CHART_MIN_WIDTH = 56
CHART_MIN_HEIGHT = 11
CHART_NARROWEST = 40  # columns: below this a chart's title and its values no longer fit


def eval_chart_keys(keys: list[str]) -> list[str]:
    """The eval metrics worth a chart of their own: each env's reward mean (or its first metric)."""
    by_env: dict[str, list[str]] = {}
    for key in keys:
        if key.startswith("eval/"):
            env = key.split("/")[1] if key.count("/") >= 2 else key
            by_env.setdefault(env, []).append(key)
    out = []
    for env, env_keys in by_env.items():
        preferred = [k for k in env_keys if k.endswith("reward/mean") or k.endswith("/reward")]
        out.append(preferred[0] if preferred else sorted(env_keys)[0])
    return out


ON, OFF = "✓", "·"  # the marks differ in glyph, not only in colour


class MetricPicker(ModalScreen[list[str] | None]):
    """Choose which metrics get a chart: type to filter, space toggles, enter applies, esc cancels."""

    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="monitor.chart.picker.cancel"),
        Binding("enter", "apply", "Apply", priority=True, id="monitor.chart.picker.apply"),
        Binding("down", "to_list", "List", show=False, id="monitor.chart.picker.list"),
    ]
    CSS_PATH = tcss("dialogs.tcss")

    def __init__(self, keys: list[str], chosen: list[str]) -> None:
        super().__init__()
        self.keys = keys
        self.chosen = chosen
        self.selected: set[str] = set(chosen)  # kept across filters: a hidden metric stays chosen

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(
                f"Charts: type to filter, ↓ to the list, space toggles ({ON} shown, {OFF} not), "
                "enter applies, esc cancels",
                classes="hint",
            )
            yield Input(placeholder="filter metrics (e.g. eval, grad)", id="picker-filter")
            yield SelectionList[str](*self._options(""), id="picker-list")

    def _label(self, key: str) -> Text:
        return Text.assemble((ON if key in self.selected else OFF) + " ", plain(key))

    def _options(self, query: str) -> list[Selection[str]]:
        words = query.lower().split()
        return [
            Selection(self._label(k), k, k in self.selected) for k in self.keys if all(w in k.lower() for w in words)
        ]

    def on_mount(self) -> None:
        self.query_one("#picker-filter", Input).focus()

    def on_input_changed(self, event: Input.Changed) -> None:
        listing = self.query_one("#picker-list", SelectionList)
        listing.clear_options()
        listing.add_options(self._options(event.value))

    def on_selection_list_selected_changed(self, event: SelectionList.SelectedChanged) -> None:
        listing = event.selection_list
        shown = [str(listing.get_option_at_index(i).value) for i in range(listing.option_count)]
        now = set(listing.selected)
        changed = {k for k in shown if (k in now) != (k in self.selected)}
        if not changed:
            return
        self.selected = (self.selected - set(shown)) | now
        for i, key in enumerate(shown):
            if key in changed:
                listing.replace_option_prompt_at_index(i, self._label(key))

    def action_to_list(self) -> None:
        listing = self.query_one("#picker-list", SelectionList)
        if listing.highlighted is None and listing.option_count:
            listing.highlighted = 0
        listing.focus()

    def action_apply(self) -> None:
        chosen = self.selected
        order = [k for k in self.chosen if k in chosen] + [k for k in self.keys if k in chosen and k not in self.chosen]
        self.dismiss(order)

    def action_cancel(self) -> None:
        self.dismiss(None)


class ChartsPane(FeedMixin, Vertical, can_focus=True):
    """Metric charts of one run: ``ChartsPane(client, run)``; the metrics follower runs while mounted.

    Feed rows directly with :meth:`add_metrics` (tests, replays). ``keys`` picks the initial
    charts; eval metrics get their own charts as they appear (``auto_eval``).
    """

    BINDINGS = [
        Binding("a", "pick", "Metrics", id="monitor.chart.pick"),
        Binding("s", "smooth_more", "Smooth+", id="monitor.chart.smooth_more"),
        Binding("S", "smooth_less", "Smooth-", show=False, id="monitor.chart.smooth_less"),
        Binding("o", "toggle_log", "Log Y", id="monitor.chart.log_y"),
        Binding("t", "toggle_x", "X step/time", id="monitor.chart.x_mode"),
        Binding("left,h", "cursor(-1)", "Cursor ←", show=False, id="monitor.chart.cursor_left"),
        Binding("right,l", "cursor(1)", "Cursor →", show=False, id="monitor.chart.cursor_right"),
        Binding("shift+left,H", "cursor(-10)", "Cursor ←←", show=False, id="monitor.chart.cursor_left_fast"),
        Binding("shift+right,L", "cursor(10)", "Cursor →→", show=False, id="monitor.chart.cursor_right_fast"),
        Binding("c", "toggle_cursor", "Cursor", id="monitor.chart.cursor"),
        Binding("m", "mark", "Mark", show=False, id="monitor.chart.mark"),
        Binding("z", "zoom", "Zoom", id="monitor.chart.zoom"),
        Binding("plus,equals_sign", "zoom_in", "Zoom in", show=False, id="monitor.chart.zoom_in"),
        Binding("minus", "zoom_out", "Zoom out", show=False, id="monitor.chart.zoom_out"),
        Binding("0,Z", "zoom_reset", "Reset zoom", show=False, id="monitor.chart.zoom_reset"),
        Binding("b", "cycle_mode", "Braille/block/ASCII", show=False, id="monitor.chart.mode"),
    ]
    _ready = False
    DEFAULT_CSS = """
    ChartsPane { height: 1fr; }
    ChartsPane:focus-within > .charts--status, ChartsPane:focus > .charts--status { color: $foreground; }
    ChartsPane > Grid { height: 1fr; grid-gutter: 0 1; }
    ChartsPane > .charts--status { height: 1; padding: 0 1; background: $panel; color: $text-muted; }
    """

    def __init__(
        self,
        client: Any,
        run: Run,
        *,
        keys: tuple[str, ...] | list[str] = DEFAULT_KEYS,
        auto_eval: bool = True,
        eval_only: bool = False,
        follow: bool = True,
        table: MetricTable | None = None,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.client = client
        self.run = run
        self.run_id = run.id or "run"
        self.table = table or MetricTable()
        self.chosen: list[str] = list(keys)
        self.auto_eval = auto_eval
        self.eval_only = eval_only
        self.follow_enabled = follow
        env_mode = os.environ.get("PRIMETUI_CHART_MODE", "")
        self.view = ChartView(mode=env_mode if env_mode in MODES else "braille")
        self._mode_chosen = env_mode in MODES
        self.mark: float | None = None
        self.charts: dict[str, MetricChart] = {}
        self._grid = Grid()
        self._status = Static("", classes="charts--status", markup=False)
        self.run_live = True
        self.feed_state = ""
        self.links: Any = None  # the run screen's StepLinks (shared cursor, anomaly detector)

    def compose(self) -> ComposeResult:
        yield self._grid
        yield self._status

    @property
    def grid(self) -> Grid:
        """The grid the charts sit in (its columns follow the width; it scrolls when they do not fit). Read-only."""
        return self._grid

    @property
    def status_text(self) -> str:
        """The status line under the charts, as shown. Read-only."""
        return str(self._status.render())

    @property
    def view_name(self) -> str:
        return "evals" if self.eval_only else "charts"

    def _remember(self) -> None:
        from primetui.viewmodel.views import chart_choices, save_view

        save_view(self.app, self.view_name, chart_choices(self.view, self.chosen))

    def on_mount(self) -> None:
        from primetui.viewmodel.views import apply_chart_choices, load_view

        remembered = apply_chart_choices(self.view, load_view(self.app, self.view_name))
        if remembered is not None:
            self.chosen = remembered
        self._ready = True
        self._apply_theme_mode()
        self.watch(self.app, "theme", lambda _theme: self._apply_theme_mode(), init=False)
        self._rebuild()
        if self.follow_enabled and self.client is not None:
            self.start_metrics_feed()

    def on_unmount(self) -> None:
        self.stop_feed()

    def _apply_theme_mode(self) -> None:
        # The ANSI themes promise 16-colour, font-agnostic output: use blocks, not braille
        # (unless the user picked a mode with `b` or PRIMETUI_CHART_MODE).
        if self._mode_chosen:
            return
        self.view.mode = BLOCK if "ansi" in str(getattr(self.app, "theme", "")) else "braille"
        if self._ready:
            self._refresh_all()
            self.update_status()

    # ---- data -------------------------------------------------------------------------------
    def add_metrics(self, rows: list[dict]) -> None:
        """Take metric rows (R10); new eval metrics get their own chart."""
        changed = self.table.add_rows(rows)
        if self.links is not None:
            self.links.rows_added(self, rows)
        if not changed:
            return
        self.view.eval_steps = self.table.eval_steps
        new_charts = False
        if self.auto_eval:
            for key in eval_chart_keys(self.table.keys()):
                if key not in self.chosen:
                    self.chosen.append(key)
                    new_charts = True
        if self.eval_only:
            for key in self.table.keys():
                if key.startswith("eval/") and key not in self.chosen:
                    self.chosen.append(key)
                    new_charts = True
        if new_charts or any(k in changed and k not in self.charts for k in self.chosen):
            self._rebuild()
        else:
            self._refresh_all()
        self.update_status()

    def on_run_update(self, run: Run) -> None:
        from primetui.api.models import is_terminal_run_status

        self.run = run
        self.set_live(not is_terminal_run_status(getattr(run, "status", None)))

    def feed_note(self, key: str, follower: Any) -> None:
        self.feed_state = str(follower.error) if follower.error else ""
        self.update_status()

    def set_live(self, live: bool) -> None:
        """Whether the run is still producing points (staleness is shown only while live)."""
        if live == self.run_live and self.view.live == live:
            return  # every run poll says so again: nothing to redraw
        self.run_live = live
        self.view.live = live
        self._refresh_all()

    # ---- layout -----------------------------------------------------------------------------
    def _shown_keys(self) -> list[str]:
        keys = [k for k in self.chosen if k in self.table.series or k in DEFAULT_KEYS or not self.eval_only]
        if self.eval_only:
            keys = [k for k in keys if k.startswith("eval/")]
        return keys

    def _rebuild(self) -> None:
        if not self._ready:
            return
        keys = self._shown_keys()
        for key in list(self.charts):
            if key not in keys:
                self.charts.pop(key).remove()
        for key in keys:
            if key not in self.charts:
                series = self.table.series.get(key)
                if series is None:
                    from primetui.monitor_core.metrics import Series

                    series = self.table.series.setdefault(key, Series(key))
                chart = MetricChart(key, [series], self.view, markers=key.startswith("loss/"))
                self.charts[key] = chart
                self._grid.mount(chart)
        # keep grid order = chosen order
        self._reflow()
        self.update_status()

    def on_resize(self) -> None:
        self._reflow()

    def _reflow(self) -> None:
        n = max(len(self.charts), 1)
        width = self.size.width or 120
        height = max((self.size.height or 30) - 1, 1)
        cols = max(1, min(n, width // CHART_MIN_WIDTH))
        rows = math.ceil(n / cols)
        # Prefer more columns when rows would be too short to read, but never boxes so narrow
        # that their titles lose their values: the width decides how many columns fit.
        while rows > 1 and height // rows < CHART_MIN_HEIGHT and cols < n and width // (cols + 1) >= CHART_NARROWEST:
            cols += 1
            rows = math.ceil(n / cols)
        self._grid.styles.grid_size_columns = cols
        self._grid.styles.grid_size_rows = rows
        # Still too short (6 eval charts at 80x24): charts keep a readable height, with their axis,
        # and the grid scrolls instead of squeezing every one into a row or two.
        squeezed = rows > 1 and height // rows < CHART_MIN_HEIGHT
        self._grid.styles.grid_rows = str(CHART_MIN_HEIGHT) if squeezed else "1fr"
        self._grid.styles.overflow_y = "auto" if squeezed else "hidden"
        self._refresh_all()

    def _refresh_all(self) -> None:
        # Every chart shares one x axis (so the cursor and eval marks line up across charts),
        # on wall time too: the run's longest series maps steps to times for all of them.
        self.view.domain = self._step_bounds()
        series = [s for s in self.table.series.values() if len(s)]
        self.view.time_ref = max(series, key=len) if series else None
        for chart in self.charts.values():
            chart.invalidate()

    # ---- status -----------------------------------------------------------------------------
    def update_status(self) -> None:
        v = self.view
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(f"{len(self.charts)} charts", style="bold")
        text.append(f"  x: {'step' if v.x_mode == STEP else 'wall time'}")
        text.append(f"  smoothing {v.smoothing:g}" if v.smoothing else "  smoothing off")
        if v.log_y:
            text.append("  log-Y")
        if v.zoom:
            text.append(f"  zoom {fmt_step(v.zoom[0])}–{fmt_step(v.zoom[1])} (0 resets)", style="bold")
        if v.cursor is not None:
            text.append(f"  cursor step {fmt_step(v.cursor)}", style="bold")
        if self.mark is not None:
            text.append(f"  mark {fmt_step(self.mark)} (z zooms to cursor)")
        text.append(f"  {v.mode}")
        if self.table.eval_steps:
            text.append(f"  ▲ {len(self.table.eval_steps)} evals")
        if self.feed_state:
            text.append(f"  {self.feed_state}", style="bold")
        self.status_extra(text)
        update_static(self._status, plain(text), layout=False)  # one line

    def status_extra(self, text: Text) -> None:
        """Hook: what a kind of run adds to the status line."""

    # ---- actions ----------------------------------------------------------------------------
    def action_pick(self) -> None:
        keys = sorted(set(self.table.keys()) | set(self.chosen))

        def done(result: list[str] | None) -> None:
            if result is not None:
                self.chosen = result
                self._rebuild()
                self._remember()

        self.app.push_screen(MetricPicker(keys, self.chosen), done)

    def _set(self, **changes: Any) -> None:
        moved = "cursor" in changes and changes["cursor"] != self.view.cursor
        for k, val in changes.items():
            setattr(self.view, k, val)
        self._refresh_all()
        self.update_status()
        if {"smoothing", "log_y", "x_mode"} & changes.keys():
            self._remember()
        if moved and self.links is not None:
            self.links.cursor_moved(self.view.cursor, origin=self)

    # ---- links (the run screen's shared cursor) ---------------------------------------------
    def set_cursor(self, step: float | None) -> None:
        """Put the cursor at ``step`` (from another chart, a log line or an anomaly)."""
        if step != self.view.cursor:
            self.view.cursor = step
            self._refresh_all()
            self.update_status()

    def set_anomaly_steps(self, steps: list[float]) -> None:
        self.view.anomaly_steps = steps
        self._refresh_all()

    def on_click(self, event: Any) -> None:
        """A click on a chart's plot puts the cursor at the step under the mouse."""
        from primetui.monitor_core.chartframe import LABEL_W, step_at

        widget = getattr(event, "widget", None)
        chart = widget if isinstance(widget, MetricChart) else None
        if chart is None:
            return
        offset = event.get_content_offset(chart) if hasattr(event, "get_content_offset") else None
        x = offset.x if offset is not None else event.x
        step = step_at(chart.series, self.view, chart.content_size.width, x - LABEL_W - 1)
        if step is not None:
            lo_hi = self._visible_steps()
            if lo_hi is not None:
                step = float(max(lo_hi[0], min(lo_hi[1], step)))
            self._set(cursor=step)

    def action_smooth_more(self) -> None:
        i = max([j for j, s in enumerate(SMOOTHING_STEPS) if s <= self.view.smoothing] or [0])
        self._set(smoothing=SMOOTHING_STEPS[min(i + 1, len(SMOOTHING_STEPS) - 1)])

    def action_smooth_less(self) -> None:
        i = max([j for j, s in enumerate(SMOOTHING_STEPS) if s <= self.view.smoothing] or [0])
        self._set(smoothing=SMOOTHING_STEPS[max(i - 1, 0)])

    def action_toggle_log(self) -> None:
        self._set(log_y=not self.view.log_y)

    def action_toggle_x(self) -> None:
        self._set(x_mode=TIME if self.view.x_mode == STEP else STEP)

    def action_cycle_mode(self) -> None:
        self._mode_chosen = True
        self._set(mode=MODES[(MODES.index(self.view.mode) + 1) % len(MODES)])

    def _step_bounds(self) -> tuple[float, float] | None:
        steps = [s.steps for s in self.table.series.values() if len(s)]
        if not steps:
            return None
        return min(float(s[0]) for s in steps), max(float(s[-1]) for s in steps)

    def _visible_steps(self) -> tuple[float, float] | None:
        bounds = self._step_bounds()
        if bounds is None:
            return None
        return self.view.zoom or bounds

    def action_cursor(self, steps: int) -> None:
        """Move the cursor by ``steps`` recorded steps (never by screen columns, which skip steps)."""
        from primetui.monitor_core.chartframe import step_by

        vis = self._visible_steps()
        if vis is None:
            return
        series = [s for c in self.charts.values() for s in c.series]
        step = step_by(series, self.view.cursor, steps, *vis)
        if step is not None:
            self._set(cursor=step)

    def action_toggle_cursor(self) -> None:
        if self.view.cursor is not None:
            self._set(cursor=None)
        else:
            vis = self._visible_steps()
            if vis is not None:
                self._set(cursor=float(round((vis[0] + vis[1]) / 2)))

    def action_mark(self) -> None:
        if self.view.cursor is None:
            self.notify("Move the cursor (← →) to a step first, then m marks it.", timeout=3)
            return
        self.mark = self.view.cursor
        self.update_status()

    def action_zoom(self) -> None:
        if self.mark is not None and self.view.cursor is not None and self.mark != self.view.cursor:
            lo, hi = sorted((self.mark, self.view.cursor))
            self.mark = None
            self._set(zoom=(lo, hi))
        else:
            self.action_zoom_in()

    def action_zoom_in(self) -> None:
        vis = self._visible_steps()
        if vis is None:
            return
        lo, hi = vis
        centre = self.view.cursor if self.view.cursor is not None else (lo + hi) / 2
        half = max((hi - lo) / 4, 1.0)
        self._set(zoom=(max(lo, centre - half), min(hi, centre + half)) if hi - lo > 2 else (lo, hi))

    def action_zoom_out(self) -> None:
        bounds = self._step_bounds()
        if bounds is None or self.view.zoom is None:
            return
        lo, hi = self.view.zoom
        half = hi - lo
        new = (max(bounds[0], lo - half / 2), min(bounds[1], hi + half / 2))
        self._set(zoom=None if new == bounds else new)

    def action_zoom_reset(self) -> None:
        self.mark = None
        self._set(zoom=None)
