"""Runs list: marks for compare, anomaly flags, and the jump to a run's first anomaly.

Mixed into ``RunsScreen``. Keys: ``space`` marks/unmarks the selected run, ``C`` compares the
marked runs (at least two; with none marked, the runs the filter shows, so a sweep's prefix in
the filter and ``C`` compare the sweep), ``!`` opens the selected run at its first anomaly's cause. A run's
flags come from its metric rows (NaN/inf, loss spike, grad-norm blow-up, throughput collapse),
recomputed only when new rows arrive.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from textual.reactive import var

from primetui.monitor_core.anomalies import Anomaly, detect
from primetui.viewmodel.progress import RunProgress
from primetui.viewmodel.statuses import run_status

if TYPE_CHECKING:
    from primetui.ui.screens.base import DashboardScreen as _ScreenBase
else:
    _ScreenBase = object


class RunsMarksMixin(_ScreenBase):
    marked: var[list[str]] = var(list, init=False)
    """The runs marked for compare, in the order marked: their status cells show ``●``."""
    _flags: dict[str, tuple[tuple, list[Anomaly]]]

    def marks_init(self) -> None:
        self._flags = {}

    def watch_marked(self) -> None:
        self.render_rows()  # type: ignore[attr-defined]

    def flags_of(self, run_id: str) -> list[Anomaly]:
        progress: RunProgress | None = self.prime.state.progress.get(run_id)
        if progress is None or not progress.rows:
            return []
        cached = self._flags.get(run_id)
        state = self.prime.state
        by_id = getattr(self, "runs_by_id", None)  # the screen's index of every run (thousands: no scan per row)
        run = by_id.get(run_id) if by_id is not None else next((r for r in state.runs if r.id == run_id), None)
        status = run_status(run) if run is not None else None
        now = state.now().timestamp()
        # A stall shows without new rows: a RUNNING run is looked at again every 30 s.
        key = (progress.revision, status, int(now // 30) if status == "RUNNING" else 0)
        if cached is None or cached[0] != key:
            from primetui.ui.anomaly_notify import announce_anomalies
            from primetui.ui.screens.run_links import thresholds_of

            found = detect(
                list(progress.rows.values()),
                status=status,
                now=now,
                thresholds=thresholds_of(getattr(self.app, "prefs", None)),
            )
            cached = self._flags[run_id] = (key, found)
            name = run.name if run is not None else None
            announce_anomalies(self.app, run_id, name, found)
        return cached[1]

    def status_marks(self, run_id: str) -> str:
        """What the status cell adds: ``●`` when marked for compare, ``!N`` when flagged."""
        out = ""
        if run_id in self.marked:
            out += " ●"
        flags = self.flags_of(run_id)
        if flags:
            out += f" !{len(flags)}"
        return out

    def action_mark(self) -> None:
        run_id = self.selected_run_id()  # type: ignore[attr-defined]
        if not run_id:
            return
        self.marked = [r for r in self.marked if r != run_id] if run_id in self.marked else [*self.marked, run_id]
        n = len(self.marked)
        self.notify(
            f"{n} marked for compare" + (" (C compares them)." if n >= 2 else " (mark one more, then C)."), timeout=3
        )

    def action_compare(self) -> None:
        marked = list(self.marked)
        shown = [row.id for row in getattr(self, "_rows", [])]
        if not marked and cast(str, getattr(self, "query_text", "")) and len(shown) >= 2:
            marked = shown  # nothing marked: the runs the filter shows (a sweep's prefix) are the ones to compare
        if len(marked) < 2:
            selected = self.selected_run_id()  # type: ignore[attr-defined]
            self.notify(
                "Mark two or more runs with space, then C compares them."
                if not selected or len(marked) == 0
                else "Mark one more run with space, then C compares them.",
                severity="warning",
                timeout=4,
            )
            return
        from primetui.ui.screens.compare import CompareScreen

        if not self.marked:  # say how many the filter gave, and whether every run was there to filter
            state = self.prime.state
            partial = "" if state.runs_complete else f" (of the {len(state.runs)} runs loaded so far)"
            self.notify(f"Comparing the {len(marked)} runs matching “{self.query_text}”{partial}.", timeout=4)  # type: ignore[attr-defined]
        self.app.push_screen(CompareScreen(marked))

    def action_jump_anomaly(self) -> None:
        run_id = self.selected_run_id()  # type: ignore[attr-defined]
        if not run_id:
            return
        if not self.flags_of(run_id):
            self.notify("No anomaly found in this run's metrics; the run screen also checks its logs.", timeout=4)
        open_run: Any = self.prime.open_run
        open_run(run_id, jump_to_anomaly=True)
