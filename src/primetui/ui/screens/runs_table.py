"""Runs list for many runs: config columns you choose, sort by any column, clone a run's config.

Mixed into ``RunsScreen``. Keys: ``o`` chooses the columns (config columns among them: lr, batch
size, seq_len, max_steps, and for RL group size and environment; :mod:`primetui.viewmodel.run_columns`), ``s`` sorts by
the next shown column and ``S`` reverses (a click on a
header sorts by it too), ``k`` clones the selected run's config into a new file in the editor.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.reactive import var
from textual.screen import ModalScreen
from textual.widgets import SelectionList, Static

from primetui.monitor_core.rl import RL
from primetui.viewmodel import run_columns
from primetui.viewmodel.run_rows import RunRow, run_elapsed, run_eta
from primetui.ui.styles import tcss

if TYPE_CHECKING:
    from primetui.ui.screens.base import DashboardScreen as _ScreenBase
else:
    _ScreenBase = object


def sort_value(key: str, row: RunRow, run: Any, now: Any, progress: Any = None) -> tuple[int, Any]:
    """A value that orders rows by column ``key``; missing values sort last either way."""
    return ranked(column_value(key)(row, run, now, progress))


def column_value(key: str) -> Callable[[RunRow, Any, Any, Any], Any]:
    """What column ``key`` orders rows by, read from (row, run, now, progress): chosen once per sort,
    not once per row (10,000 rows)."""
    if key in run_columns.SETTING_OF:
        setting = run_columns.SETTING_OF[key]
        return lambda row, run, now, progress: run_columns.config_value(run, setting)
    plain = _PLAIN_VALUES.get(key)
    if plain is not None:
        return plain
    return lambda row, run, now, progress: str(getattr(row, key, "") or "").lower() or None


def _loss(row: RunRow, run: Any, now: Any, progress: Any) -> Any:
    if row.kind == RL:  # an RL run's headline is its reward
        return row.reward
    return row.loss if row.loss is None or math.isfinite(row.loss) else math.inf  # NaN: worst


_PLAIN_VALUES: dict[str, Callable[[RunRow, Any, Any, Any], Any]] = {
    "loss": _loss,
    "name": lambda row, run, now, progress: (row.name or row.id).lower(),
    "steps": lambda row, run, now, progress: row.step,
    "elapsed": lambda row, run, now, progress: run_elapsed(run, now),
    "eta": lambda row, run, now, progress: run_eta(run, progress, now),
    "started": lambda row, run, now, progress: run.started_at or None,
    "gpus": lambda row, run, now, progress: int(row.gpus) if row.gpus.isdigit() else None,
}


def ranked(value: Any) -> tuple[int, Any]:
    """Numbers first, then text, then nothing: ``(rank, value)``."""
    if value is None or isinstance(value, (dict, list)):
        return (2, "")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return (1, str(value))
    return (0, value)


class ColumnsScreen(ModalScreen[set[str] | None]):
    """Pick the runs list's columns; enter keeps the choice, esc leaves it as it was."""

    CSS_PATH = tcss("dialogs.tcss")
    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="runs.columns.cancel"),
        Binding("enter", "keep", "Keep", priority=True, id="runs.columns.keep"),  # not the list's own enter (toggle)
    ]

    def __init__(self, offered: list[tuple[str, str]], chosen: set[str] | frozenset[str]) -> None:
        super().__init__()
        self.offered = offered
        self.chosen = chosen

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Columns (space toggles, enter keeps, esc cancels)")
            yield SelectionList[str](*[(label, key, key in self.chosen) for key, label in self.offered], id="columns")

    def action_keep(self) -> None:
        self.dismiss(set(self.query_one("#columns", SelectionList).selected))

    def action_cancel(self) -> None:
        self.dismiss(None)


def clone_path(directory: Path, stem: str) -> Path:
    """A file name in ``directory`` that does not exist yet: ``stem.toml``, ``stem-2.toml``, …"""
    safe = "".join(ch if ch.isalnum() or ch in "-_.=" else "-" for ch in stem).strip("-.") or "run"
    path = directory / f"{safe}.toml"
    n = 2
    while path.exists():
        path = directory / f"{safe}-{n}.toml"
        n += 1
    return path


def open_new_config(screen: Any, stem: str, text: str) -> None:
    """Write ``text`` to a new file named after ``stem`` beside the default config, and open it in
    the editor; a folder that cannot be written is one toast naming it."""
    from primetui.config.fileio import atomic_write_text

    directory = screen.app.default_config_path().parent
    path = clone_path(directory, stem)
    try:
        atomic_write_text(path, text)
    except OSError as exc:
        screen.notify(
            f"Could not write {path}: {exc.strerror or exc}; check that {directory} is writable.", severity="error"
        )
        return
    screen.app.open_editor(path)


def clone_text(run: Any) -> str | None:
    """The run's config as an sft.toml, without its name (the clone is a new run); None without a config."""
    import tomlkit

    config = run.run_config
    if not isinstance(config, dict) or not config:
        return None
    from primetui.sft import run_name

    source = run.name or run.id
    header = f"# Cloned from run {source}: edit, then F5 dispatches it as a new run.\n"
    return header + tomlkit.dumps({k: v for k, v in config.items() if k != run_name.KEY})


class RunsTableMixin(_ScreenBase):
    """Column choice, sorting and cloning for ``RunsScreen``.

    The columns chosen and the order are reactives: setting one draws the rows again.
    """

    chosen_columns: var[frozenset[str]] = var(frozenset, init=False)
    """The columns ``o`` chose (``fit`` shows the ones that fit, by priority)."""
    sort: var[tuple[str | None, bool]] = var((None, False), init=False)
    """(column key, reversed): the rows' order; no key keeps the platform's (newest first)."""

    @property
    def sort_key(self) -> str | None:
        return self.sort[0]

    @property
    def sort_reverse(self) -> bool:
        return self.sort[1]

    def watch_chosen_columns(self) -> None:
        self.render_rows()  # type: ignore[attr-defined]
        self._keep_table_view()

    def watch_sort(self) -> None:
        self.render_rows()  # type: ignore[attr-defined]
        self._keep_table_view()

    def _keep_table_view(self) -> None:
        """The columns and sort the user chose, kept for the next start (``views.json``, per project)."""
        from primetui.viewmodel.views import save_view

        save_view(self.app, "runs", {"columns": sorted(self.chosen_columns), "sort": list(self.sort)})

    def restore_table_view(self) -> None:
        """The columns and sort kept from the last start, set without drawing (the first frame follows)."""
        from primetui.viewmodel.views import load_view

        columns, sort = run_columns.remembered(load_view(self.app, "runs"))
        if columns is not None:
            self.set_reactive(RunsTableMixin.chosen_columns, columns)
        if sort is not None:
            self.set_reactive(RunsTableMixin.sort, sort)

    TABLE_BINDINGS = [
        Binding("o", "choose_columns", "Columns", show=False, id="runs.columns"),
        Binding("s", "sort_next", "Sort", show=False, id="runs.sort"),
        Binding("S", "sort_reverse", "Reverse sort", show=False, id="runs.sort_reverse"),
        Binding("k", "clone", "Clone", show=False, id="runs.clone"),
    ]

    def table_init(self, default_columns: set[str]) -> None:
        self.set_reactive(RunsTableMixin.chosen_columns, frozenset(default_columns))

    _sort_values: tuple[str, dict[str, Any], dict[str, tuple[int, Any]]] | None = None
    """(column, the runs they were read from, each row's sort value by run id): kept while the runs
    are the same (a row cache that did not change), so ``S``, a page turn or a filter reads them again
    instead of working out 10,000 values."""

    def sorted_rows(self, rows: list[RunRow], runs: dict[str, Any], now: Any) -> list[RunRow]:
        if self.sort_key is None:
            return rows
        key = self.sort_key
        progress = self.prime.state.progress
        kept = self._sort_values
        if kept is None or kept[0] != key or kept[1] is not runs:
            kept = self._sort_values = (key, runs, {})  # holds ``runs``: no new dict takes its id
        values = kept[2]
        read = column_value(key)
        for row in [row for row in rows if row.id not in values]:  # not read yet (at first all): read and keep
            values[row.id] = ranked(read(row, runs.get(row.id), now, progress.get(row.id)))
        keys = [values[row.id] for row in rows]
        present = [i for i, value in enumerate(keys) if value[0] < 2]
        present.sort(key=keys.__getitem__, reverse=self.sort_reverse)  # stable: ties keep the list's order
        return [rows[i] for i in present] + [row for row, value in zip(rows, keys) if value[0] >= 2]

    def action_choose_columns(self) -> None:
        offered = self.offered_columns()  # type: ignore[attr-defined]

        def chosen(result: set[str] | None) -> None:
            if result is None:
                return
            self.chosen_columns = frozenset(result | {"status"})

        self.app.push_screen(ColumnsScreen(offered, self.chosen_columns), chosen)

    def action_sort_next(self) -> None:
        shown = list(getattr(self, "_columns", []))
        if not shown:
            return
        self.sort = (
            shown[(shown.index(self.sort_key) + 1) % len(shown)] if self.sort_key in shown else shown[0],
            False,
        )
        # After the sorted rows are drawn: a toast is a widget mounted, laid out and drawn, which
        # would hold back the frame the key is for.
        self.call_after_refresh(self.notify, f"Sorted by {self.sort_key} (S reverses).", timeout=2)

    def action_sort_reverse(self) -> None:
        if self.sort_key is None:
            self.action_sort_next()
            return
        self.sort = (self.sort_key, not self.sort_reverse)

    def sort_by(self, key: str) -> None:
        """A click on a header: sort by it, a second click reverses."""
        self.sort = (key, not self.sort_reverse if self.sort_key == key else False)

    def action_clone(self) -> None:
        run_id = self.selected_run_id()  # type: ignore[attr-defined]
        run = next((r for r in self.prime.state.runs if r.id == run_id), None)
        if run is None:
            return
        text = clone_text(run)
        if text is None:
            self.notify("This run has no config to clone (the platform did not return one).", severity="warning")
            return
        open_new_config(self, run.name or run_id, text)
