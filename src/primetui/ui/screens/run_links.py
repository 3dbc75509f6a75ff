"""The run screen's step cursor header and anomaly table (mixed into ``RunScreen``).

- ``#run-cursor`` (shown while the cursor is on): the cursor's step, its wall time, the values
  of the charted metrics under it, the nearest checkpoint and the nearest eval.
- ``#run-anomalies`` in the Overview tab (shown once something is found): one row per anomaly;
  Enter on a row jumps to its cause (the step cursor at its step on every chart, its log tab
  scrolled to its line, and that tab shown).
- ``s`` on a log line puts the cursor on that line's step and shows the charts.
"""

from __future__ import annotations

import math
import time
from typing import TYPE_CHECKING, Any, cast

from rich.text import Text
from textual.widgets import DataTable, Static, TabbedContent
from textual.widgets.data_table import RowDoesNotExist

from primetui.monitor_core.anomalies import Anomaly, Thresholds
from primetui.monitor_core.chartframe import fmt_clock, fmt_step, fmt_value
from primetui.monitor_core.escapes import neutralise
from primetui.viewmodel.fmt import sparkline
from primetui.viewmodel.progress import RunProgress
from primetui.viewmodel.statuses import run_status
from primetui.viewmodel.links import StepLinks
from primetui.ui.widgets import tone_style

if TYPE_CHECKING:
    from primetui.config.prefs import Prefs
    from primetui.ui.screens.base import DashboardScreen as _ScreenBase
else:
    _ScreenBase = object


CAUSE_NOTE_SECONDS = 6.0  # how long the note that names a flag's cause stays up


def thresholds_of(prefs: Prefs | None) -> Thresholds:
    return Thresholds.from_mapping(prefs.anomalies.model_dump() if prefs is not None else None)


def jump_target(found: list[Anomaly], status: str | None) -> Anomaly | None:
    """Where ``!`` from the runs list lands: the first anomaly; for a FAILED run, the first one with
    a log line (the trainer's error), waiting for the logs while none has arrived yet."""
    if not found:
        return None
    if status == "FAILED":
        return next((a for a in found if a.line_index is not None), None)
    return found[0]


class RunLinksMixin(_ScreenBase):
    """Needs ``self.run``, ``self.checkpoints``, ``self.app``; call :meth:`links_mounted` after
    the monitor panes are mounted and :meth:`links_poll` on each status poll."""

    if TYPE_CHECKING:  # RunScreen's
        run: Any
        run_id: str
        checkpoints: list[Any]

    links: StepLinks | None = None
    pending_jump: bool = False  # open at the first anomaly's cause once one is found (runs list "!")
    _sample_sub: Any = None  # an RL run's progress, for the sample steps measured for answer_drift
    _sample_steps: set[int] | None = None  # the sample steps measured or being measured

    def make_links(self) -> StepLinks:
        self.links = StepLinks(thresholds_of(getattr(self.app, "prefs", None)))
        self.links.on_cursor(self._cursor_changed)
        self.links.on_anomalies(self.render_anomalies)
        self.links.on_lines(self._log_lines)
        return self.links

    def rl_rows(self, run: Any, progress: Any) -> list[tuple[str, Text]]:
        """The RL rows of the Overview (:mod:`primetui.viewmodel.rl_summary`); the reward with its sparkline."""
        from primetui.viewmodel.rl_summary import rl_summary, summary_lines

        logs = getattr(self.links.feeder, "logs", None) if self.links is not None else None
        out = []
        for label, text in summary_lines(rl_summary(run, progress, logs)):
            if label == "Reward" and progress is not None:
                spark = sparkline(progress.last_rewards(24), 24)
                out.append(
                    (label, Text.assemble((spark, tone_style(self, "accent")), " " if spark else "", neutralise(text)))
                )
            else:
                out.append((label, Text(neutralise(text))))
        return out

    def _log_lines(self, component: str, lines: list[tuple[int, str]]) -> None:
        """The trainer's step lines: a ``Loss nan`` later than the metrics makes the final loss NaN.
        An RL run's orchestrator step lines: the Overview's ``Trainable k/n``."""
        if component == "orchestrator" and any("Trainable " in text for _, text in lines):
            self.call_after_refresh(self.render_run)  # type: ignore[attr-defined]  # the charts pane reads the line first
            return
        if component != "trainer" and not component.startswith("trainer-"):
            return
        progress = self.prime.state.progress.setdefault(self.run_id, RunProgress())
        before = progress.final
        progress.note_log_lines(text for _, text in lines)
        if progress.final != before:
            self.render_run()  # type: ignore[attr-defined]  # kept by hand: the log is no reactive

    def attach_pane(self, widget: Any) -> None:
        from primetui.ui.monitor import ChartsPane, LogsPane

        from primetui.ui.monitor.rollouts_pane import RolloutsPane

        links = self.links or self.make_links()
        if isinstance(widget, RolloutsPane):
            self._measure_samples()
        elif isinstance(widget, LogsPane):
            widget.links = links
            links.logs = widget
        elif isinstance(widget, ChartsPane):
            widget.links = links
            links.add_charts(widget)

    # ---- an RL run's sample steps: reward against answer similarity ----------------------------
    def _measure_samples(self) -> None:
        """Follow the run's sample steps and measure each (the first, the last, evenly between; one
        step read at a time, page by page) for the ``answer_drift`` flag."""
        if self._sample_sub is not None or getattr(self, "client", None) is None:
            return
        self._sample_steps = set()
        self._sample_sub = self.hub.progress(self.run_id, self.sink(self._on_sample_steps))

    def _on_sample_steps(self, event: Any) -> None:
        from primetui.api.followers.rl import ProgressUpdate
        from primetui.viewmodel.run_data import sample_steps_to_read

        if not isinstance(event, ProgressUpdate) or self._sample_steps is None:
            return
        steps = list(event.progress.steps_with_samples)
        wanted = [s for s in sample_steps_to_read(steps) + steps[-1:] if s not in self._sample_steps]
        if wanted:
            self._sample_steps.update(wanted)
            self.run_worker(self._read_points(sorted(set(wanted))), group="rl-sample-health")

    async def _read_points(self, steps: list[int]) -> None:
        from primetui.api.errors import PrimeAPIError
        from primetui.viewmodel.run_data import sample_point_of

        for step in steps:
            try:
                point = await sample_point_of(self.client, self.run_id, step)
            except PrimeAPIError:
                self._sample_steps.discard(step)  # type: ignore[union-attr]  # tried again on the next update
                continue
            if point is not None and self.links is not None and self.is_mounted:
                self.links.samples_measured([point])

    def on_unmount(self) -> None:
        if self._sample_sub is not None:
            self._sample_sub.close()
            self._sample_sub = None

    def links_poll(self) -> None:
        if self.links is None or self.run is None:
            return
        status = run_status(self.run)
        self.links.check_stall(time.time(), status)
        if status == "FAILED":
            error = self.run.error_message
            self.links.run_failed(
                f"the run failed: {error}" if error else "the run failed", str(error) if error else None
            )

    # ---- the cursor header ------------------------------------------------------------------
    def _cursor_changed(self, step: float | None) -> None:
        # StepLinks (viewmodel, no textual) calls this when its cursor moves: that is its watcher.
        header = self.query_one("#run-cursor", Static)
        header.display = step is not None
        if step is None:
            return
        header.update(self.cursor_text(step))
        self._highlight_checkpoint(step)

    def cursor_text(self, step: float) -> Text:
        links = self.links
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(f"step {fmt_step(step)}", style="bold")
        pane = links.feeder if links is not None else None
        table = getattr(pane, "table", None)
        if table is not None:
            keys = list(
                getattr(pane, "cursor_keys", None) or getattr(pane, "chosen", [])
            )  # an RL run's: reward, entropy…
            loss = table.get(keys[0] if keys and keys[0] in table.series else "loss/mean")
            when = None
            if loss is not None and len(loss):
                hit = loss.value_at(step)
                if hit is not None:
                    i = int(loss.steps.searchsorted(hit[0]))
                    t = float(loss.times[i])
                    when = fmt_clock(t) if math.isfinite(t) else None
            text.append(f"  {when}" if when else "")
            for key in keys[:4]:
                series = table.get(key)
                hit = series.value_at(step) if series is not None and len(series) else None
                if hit is not None:
                    text.append(f"  {key} ", style="dim")
                    text.append(fmt_value(hit[1]), style="bold")
            evals = getattr(table, "eval_steps", [])
            if evals:
                nearest = min(evals, key=lambda s: abs(s - step))
                text.append(f"  eval @ {fmt_step(nearest)}", style="dim")
        ck = self._nearest_checkpoint(step)
        if ck is not None:
            text.append(f"  checkpoint @ {ck}", style="dim")
        near = [a for a in (links.anomalies if links else []) if a.step is not None and a.step == int(step)]
        if near:
            text.append(f"  ! {near[0].label}", style=tone_style(self, "error"))
        return text

    def _nearest_checkpoint(self, step: float) -> int | None:
        steps = [c.step for c in self.checkpoints or []]
        return min(steps, key=lambda s: abs(s - step)) if steps else None

    def _highlight_checkpoint(self, step: float) -> None:
        ck = self._nearest_checkpoint(step)
        if ck is None:
            return
        table = self.query_one("#run-checkpoints", DataTable)
        try:
            table.move_cursor(row=table.get_row_index(str(ck)), animate=False)
        except RowDoesNotExist:  # the table is being refilled
            pass

    # ---- anomalies --------------------------------------------------------------------------
    def render_anomalies(self) -> None:
        """StepLinks (viewmodel, no textual) calls this when its anomalies change: its watcher."""
        if not self.is_mounted or self.links is None:
            return
        found = self.links.anomalies
        from primetui.ui.anomaly_notify import announce_anomalies

        announce_anomalies(self.app, self.run_id, self.run.name if self.run else None, found)
        table = self.query_one("#run-anomalies", DataTable)
        hint = self.query_one("#run-anomalies-hint", Static)
        table.display = hint.display = bool(found)
        if not found:
            return
        if table.row_count != len(found):
            table.clear()
            error = tone_style(self, "error")
            for n, a in enumerate(found):
                table.add_row(
                    Text("!", style=error),
                    str(a.step) if a.step is not None else "-",
                    a.label,
                    a.component,
                    Text(neutralise(a.message)),
                    key=str(n),
                )
        hint.update(f"Anomalies: {len(found)} (Enter on one jumps to its cause)")
        target = jump_target(found, run_status(self.run) if self.run else None)
        if self.pending_jump and target is not None:
            self.pending_jump = False
            self.call_after_refresh(lambda: self.jump_to_cause(target))

    def jump_to_cause(self, anomaly: Anomaly) -> None:
        if self.links is None:
            return
        self.links.jump_to(anomaly)
        tabs = self.query_one("#run-tabs", TabbedContent)
        target = "tab-logs" if anomaly.line_index is not None else "tab-charts"
        if anomaly.kind == "answer_drift" and self._show_rollouts(anomaly.step):
            target = "tab-rollouts"
        try:
            tabs.active = target
        except Exception:  # noqa: BLE001 - no monitor panes installed
            return
        self._focus_pane(target, anomaly.component)
        self.notify(
            f"{anomaly.label} at step {anomaly.step if anomaly.step is not None else '-'}: "
            f"{neutralise(anomaly.message)}",
            timeout=CAUSE_NOTE_SECONDS,
        )

    def _show_rollouts(self, step: int | None) -> bool:
        """The Rollouts tab at ``step`` (the rollouts behind an ``answer_drift`` flag); False without one."""
        from primetui.ui.monitor.rollouts_pane import RolloutsPane

        panes = list(self.query(RolloutsPane))
        if not panes:
            return False
        if step is not None:
            panes[0].following = False
            panes[0].show_step(step)
        return True

    def _focus_pane(self, target: str, component: str | None = None) -> None:
        """Focus follows the jump (a focused widget in another tab would pull that tab back).

        The focus left in the tab shown before goes at once, as a key's tab switch drops it (``action_tab``),
        and the target takes it once its tab is shown: until then its widgets cannot be focused."""
        links = self.links
        if links is None:
            return
        self.set_focus(None)
        if target == "tab-logs" and links.logs is not None:
            tab = links.logs.tabs.get(component or "") or next(iter(links.logs.tabs.values()), None)
            if tab is not None:
                self._focus_when_shown(tab.view)
        elif target == "tab-charts" and links.feeder is not None:
            self._focus_when_shown(links.feeder)
        elif target == "tab-rollouts":
            from primetui.ui.monitor.rollouts_pane import RolloutsPane

            for pane in self.query(RolloutsPane):
                self._focus_when_shown(pane)

    def _focus_when_shown(self, widget: Any, refreshes: int = 20) -> None:
        """Focus ``widget`` as soon as it can take the focus (its tab shown), trying after each refresh."""
        if not widget.is_attached or self.focused is not None:
            return  # gone, or the user (or another jump) has put the focus somewhere meanwhile
        if widget.focusable:
            widget.focus()
        elif refreshes:
            self.call_after_refresh(self._focus_when_shown, widget, refreshes - 1)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        if event.data_table.id != "run-anomalies" or self.links is None:
            return
        try:
            anomaly = self.links.anomalies[int(cast(str, event.row_key.value))]
        except (ValueError, IndexError, TypeError):
            return
        self.jump_to_cause(anomaly)

    def on_log_view_step_picked(self, event: Any) -> None:
        if self.links is None:
            return
        self.links.cursor_moved(float(event.step), scroll_logs=False)
        try:
            self.query_one("#run-tabs", TabbedContent).active = "tab-charts"
        except Exception:  # noqa: BLE001
            return
        self._focus_pane("tab-charts")
