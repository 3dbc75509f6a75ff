"""Runs screen: every run with status, progress, loss sparkline, timing; filter and paging (R1).

Every run of the account is read, page by page, by the shared all-runs resource
(:mod:`primetui.api.followers.allruns`); the filter, the sort, the counts and ``C`` work over all
of them, and the table draws one page of the result (``[`` and ``]``)."""

from __future__ import annotations

import gc
import time
from typing import Any, cast

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.reactive import var
from textual.widgets import DataTable, Input, Static

from primetui.api.followers import DataNotes, MetricRows
from primetui.api.prefetch import RUNS_PAGE_SIZE
from primetui.monitor_core.numbers import nonfinite_mark
from primetui.monitor_core.rl import RL
from primetui.ui.safe import SafeTable, clean, plain
from primetui.viewmodel.fmt import DASH, fmt_time
from primetui.viewmodel.progress import RunProgress
from primetui.viewmodel.run_rows import RunRow
from primetui.viewmodel.statuses import run_status, status_label
from primetui.viewmodel.columns import CELL_PAD, fit, more_note, widest
from primetui.ui.screens.base import DashboardScreen
from primetui.ui.screens.runs_marks import RunsMarksMixin
from primetui.ui.screens.runs_table import RunsTableMixin
from primetui.viewmodel import run_columns, run_list
from primetui.ui.widgets import content_key, tone_style, update_static
from primetui.ui.styles import tcss

PAGE_SIZE = RUNS_PAGE_SIZE
LOSSES_SAVE_EVERY = 30.0
"""Seconds between two writes of the runs cache for new metric rows alone (a running run's losses)."""

FOLLOW_AFTER = 0.3
"""Seconds without a filter or page key before the metrics of the runs shown are followed."""

CACHED_RUNS = 100
"""The newest runs written to the cache for the next start's first frame (not all of thousands)."""
NAME_MAX = 26  # a long name or a 24-character id is shortened with … before a column is dropped
NAME_MIN = 12
"""How short a name gets (with …) to keep the headline column on a narrow terminal (a sweep's long names)."""
NAME_TINY = 6
"""How short a name gets to be shown at all beside the status (a 30-column terminal)."""


def shorten(cell: Text, width: int) -> Text:
    """``cell`` cut to ``width`` cells, its last one ``…`` when anything was cut."""
    if cell.cell_len <= width:
        return cell
    cut = cell.copy()
    cut.truncate(max(1, width - 1))
    cut.append("…")
    return cut


SETTLE_AT = 1_000
"""Runs held from which a full pass of the garbage collector is long enough to be felt (about 10 ms)."""
_settled = 0


def settle_heap(held: int) -> None:
    """Once ``held`` runs are all loaded (thousands of them), take the objects alive now out of the
    garbage collector's full passes: at 10,000 runs one pass walks them all, 0.1-0.3 s that lands on
    whatever key is pressed then. They are still freed as usual once nothing refers to them
    (``gc.freeze``). Garbage is collected first, so no cycle dead by then is kept for good, and it
    is done again only when the list has doubled: a poll that changes one run does not freeze
    what that poll left behind."""
    global _settled
    if held < SETTLE_AT or held < 2 * _settled:
        return
    _settled = held
    gc.collect()
    gc.freeze()


def same_runs(held: list[Any], runs: Any) -> bool:
    """``runs`` are the very objects ``held`` holds, in the same order (nothing new to show or observe)."""
    return len(held) == len(runs) and all(a is b for a, b in zip(held, runs))


class RunsScreen(RunsTableMixin, RunsMarksMixin, DashboardScreen):
    """All runs, newest first; the table shows one page of the filtered, sorted runs."""

    TITLE = "Runs"
    AUTO_FOCUS = "#runs-table"
    refresh_key = "runs_list"
    poll_interval = 5.0
    BINDINGS = [
        Binding("enter", "open_run", "Open", id="runs.open"),
        Binding("slash", "filter", "Filter", id="runs.filter"),
        Binding("w", "watch", "Watch", id="runs.watch"),
        Binding("space", "mark", "Mark", show=False, id="runs.mark"),
        Binding("C", "compare", "Compare", id="runs.compare"),
        Binding("exclamation_mark", "jump_anomaly", "First anomaly", show=False, id="runs.anomaly"),
        Binding("right_square_bracket", "page(1)", "Next page", show=False, id="runs.next_page"),
        Binding("left_square_bracket", "page(-1)", "Prev page", show=False, id="runs.prev_page"),
        Binding("escape", "clear_filter", "Clear filter", show=False, id="runs.clear_filter"),
        *RunsTableMixin.TABLE_BINDINGS,
    ]
    CSS_PATH = tcss("runs.tcss")

    # What the list shows besides the runs themselves (see also ``sort``, ``chosen_columns`` and
    # ``marked`` in the mixins, and the app's ``watched``): setting one draws the rows again.
    query_text: var[str] = var("", init=False)
    """The filter (``/``): words that a shown run's id, name, status, model or volume contains."""
    page: var[int] = var(1, init=False)
    """The page of the filtered, sorted runs shown (``[`` and ``]``); the app's ``state.runs_page`` keeps it."""

    def __init__(self) -> None:
        super().__init__()
        self._columns: list[str] = []
        self._shown_cells: object = None
        self._columns_signature: tuple = ()
        self._rows: list[RunRow] = []
        """Every run the filter keeps, in the shown order (``C`` compares them)."""
        self._row_cache = run_list.RowCache()
        self._page_count = 1
        self._view: tuple | None = None
        """(rows, filter, sort, the rows it gives): the filter and sort are not redone for a page turn."""
        self.runs_by_id: dict[str, Any] = {}
        self.marks_init()
        self.table_init(run_columns.screen_defaults())
        self._page_sub: Any = None
        self._metric_subs: dict[str, Any] = {}
        self._save_timer: Any = None

    def compose_body(self) -> ComposeResult:
        with Vertical():
            yield Input(
                placeholder="filter: words in id, name, status, model, volume — enter to keep, esc to clear",
                id="runs-filter",
            )
            table: DataTable = SafeTable(id="runs-table", cursor_type="row", zebra_stripes=True)
            yield table
            yield Static("", id="runs-empty")
            yield Static("Loading runs…", id="runs-info")

    def on_mount(self) -> None:
        self.set_reactive(RunsScreen.page, self.prime.state.runs_page)
        self.restore_table_view()  # the columns and sort chosen before (``o``, ``s``, ``S``)
        self.watch(self.app, "watched", self.render_rows, init=False)  # the status cells' ◉ and "watching N"
        self.paint_cached()
        super().on_mount()
        self.render_rows()  # the first frame (the cached runs, or "Loading runs…")

    def paint_cached(self) -> None:
        """Show the last-known runs from disk at once; the first live reply replaces them."""
        state = self.prime.state
        base_url = str(getattr(self.client, "base_url", "") or "")
        if not self.prime.use_cache or state.runs_loaded or not base_url:
            return
        from primetui.viewmodel import cache

        data = cache.load_runs(base_url)
        if not data:
            return
        state.runs = list(cache.cached_runs(data))
        from primetui.api.boundary import metric_rows

        for run_id, points in (data.get("losses") or {}).items():
            pairs = (
                [p for p in points if isinstance(p, (list, tuple)) and len(p) == 2] if isinstance(points, list) else []
            )
            rows, _dropped = metric_rows(
                [{"step": s, "loss/mean": loss} for s, loss in pairs]
            )  # a file on disk: the same rules
            state.progress.setdefault(run_id, RunProgress()).extend(rows)
        state.runs_total = len(state.runs)
        self.prime.note_cached(fmt_time(data.get("saved_at"))[-5:])  # the header says "cached"

    def save_cache(self) -> None:
        state = self.prime.state
        base_url = str(getattr(self.client, "base_url", "") or "")
        if not self.prime.use_cache or not base_url:
            return
        from primetui.viewmodel import cache

        self._saved_at = time.monotonic()
        losses = {
            rid: p.loss_points(cache.MAX_LOSSES) for rid, p in state.progress.items()
        }  # kept in step order: no sort
        newest = state.runs[:CACHED_RUNS]
        ids = {r.id for r in newest}
        cache.save_runs(base_url, newest, {k: v for k, v in losses.items() if k in ids}, state.now().isoformat())

    def on_resize(self) -> None:
        self.render_rows()  # kept by hand: which columns fit follows the width, which no reactive holds

    # ---- data -------------------------------------------------------------------------------
    # Every run (R1, page by page: the hub's shared all-runs pager) and the shown runs' metrics
    # (R10) come from the client's FollowerHub: the run screen and its charts read the same
    # metrics followers, so nothing is asked twice.
    def subscribe(self) -> list[Any]:
        self._page_sub = self._subscribe_page()
        return []

    def _subscribe_page(self) -> Any:
        return self.hub.all_runs(self.sink(self.on_runs_page), interval=self.interval_for(), first=PAGE_SIZE)

    def poll(self) -> None:
        if self._page_sub is not None:
            self._page_sub.refresh()

    def fetch_runs(self) -> None:
        """Follow the metrics of the runs now shown (after a page change or a new filter)."""
        if self.alive and self.prime.state.runs_loaded:
            self.follow_progress(self._shown_runs())

    def on_unmount(self) -> None:
        super().on_unmount()
        if self._save_held:
            self.save_cache()  # the rows held back (LOSSES_SAVE_EVERY) are not lost on quitting
        for sub in [self._page_sub, *self._metric_subs.values()]:
            if sub is not None:
                sub.close()
        self._page_sub = None
        self._metric_subs.clear()
        if self._follow_timer is not None:
            self._follow_timer.stop()
            self._follow_timer = None

    def on_runs_page(self, result: Any) -> None:
        if not self.alive:
            return
        if not result.ok:
            self.failed(result.error)  # ``load_error``: the info line says why nothing is listed
            return
        state = self.prime.state
        reply = result.value
        self.ok()
        self.prime.say_notes(getattr(reply, "notes", ()))
        runs = reply.runs
        if not same_runs(state.runs, runs):
            # A poll that brings the runs held (the usual case: the pager keeps unchanged runs) keeps
            # the list, so the kept rows are not looked over again.
            state.runs = list(runs)
            self.prime.observe_runs(runs)
            if reply.complete:
                settle_heap(len(state.runs))
        else:
            self.prime.sync_watched()  # watches another dashboard made: one look per poll, as before
        state.runs_loaded = True
        state.runs_complete = reply.complete
        state.runs_total = reply.total
        # Kept by hand: the page's runs are the app's shared state (the run screen and the palette
        # write it too), and each poll is the clock's tick for Elapsed and ETA. An unchanged
        # table is not redrawn.
        self.render_rows()
        if reply.complete:
            # Now, so a quick exit still leaves the list for the next start; not while later pages load,
            # when the first pages alone would overwrite a cache that holds every run.
            self.save_cache()
        runs = self._shown_runs()
        if self._render_pending:
            # Covered by another screen: nothing to paint first, and any message to a covered
            # screen makes Textual repaint the screen above it.
            self.follow_progress(runs)
            return
        # The metrics followers start once the rows are on screen: their first request builds the
        # real client (httpx, pydantic), which would otherwise share the CPU with this paint.
        self.call_after_refresh(self._follow_progress_if_alive, runs)

    def _follow_progress_if_alive(self, runs: list[Any]) -> None:
        if self.alive:
            self.follow_progress(runs)

    def follow_progress(self, runs: list[Any]) -> None:
        """Metrics (R10) of the runs shown on this page: shared followers, incremental for live runs, once for finished
        ones."""
        hub = self.hub
        wanted: set[str] = set()
        for run in runs:
            run_id = run.id
            status = run_status(run)
            if not run_id or (status in ("QUEUED", "PENDING", "CREATING") and run_id not in self.prime.state.progress):
                continue
            wanted.add(run_id)
            hub.notify_status(run_id, status)
            if run_id not in self._metric_subs:
                self._metric_subs[run_id] = hub.metrics(
                    run_id, self.sink(self._progress_sink(run_id)), status=status, watch=False
                )
        for gone in set(self._metric_subs) - wanted:
            self._metric_subs.pop(gone).close()

    def _progress_sink(self, run_id: str) -> Any:
        def on_event(event: Any) -> None:
            if isinstance(event, MetricRows):
                self.prime.state.progress.setdefault(run_id, RunProgress()).extend(event.rows)
                # Kept by hand: the rows extend the app's shared RunProgress of that run in place
                # (the run screen reads the same); its Steps and Loss cells are drawn again.
                self.render_rows()
                self._save_soon()
            elif isinstance(event, DataNotes):
                self.prime.say_notes(f"metrics of run {run_id}: {note}" for note in event.notes)

        return on_event

    _saved_at = float("-inf")
    """When the cache was last written (monotonic seconds)."""
    _save_held = False
    """A save of new metric rows is waiting for ``LOSSES_SAVE_EVERY`` to pass."""

    def _save_soon(self) -> None:
        # Metric rows arrive per run; write the cache once they have settled. A running run
        # brings new losses on every poll: they are written at most every LOSSES_SAVE_EVERY
        # seconds (each write is an fsync; the cache only paints the next start's first frame).
        if self._save_timer is not None:
            if self._save_held:
                return  # the save already due writes these rows too
            self._save_timer.stop()
        wait = LOSSES_SAVE_EVERY - (time.monotonic() - self._saved_at)
        self._save_held = wait > 0.5
        # The app's timer, not the screen's: a timer event to a covered screen repaints the one above.
        self._save_timer = self.app.set_timer(max(0.5, wait), self._save_cache_if_alive)

    def _save_cache_if_alive(self) -> None:
        self._save_timer, self._save_held = None, False
        if self.alive:
            self.save_cache()

    # ---- rendering --------------------------------------------------------------------------
    @property
    def columns(self) -> tuple[str, ...]:
        """The keys of the columns the table shows now, left to right. Read-only."""
        return tuple(self._columns)

    def offered_columns(self) -> list[tuple[str, str]]:
        """Every column ``o`` offers (:mod:`primetui.viewmodel.run_columns`): the run's own, then its config's."""
        state = self.prime.state
        self._row_cache.rows(state.runs, state.progress, state.now())  # thousands of runs: kinds kept with their rows
        kinds = self._row_cache.kinds
        return [(c.key, run_columns.label(c.key, kinds)) for c in run_columns.SCREEN]

    def visible_columns(self) -> list[str]:
        """The chosen columns (``o``); ``fit`` keeps the ones that fit, by priority."""
        return [key for key, _ in self.offered_columns() if key in self.chosen_columns]

    def render_screen(self) -> None:
        self.render_rows()

    def render_rows(self) -> None:
        if not self.alive or self.hidden():
            return
        state = self.prime.state
        now = state.now()
        table = self.query_one("#runs-table", DataTable)
        offered = self.visible_columns()
        every = self._row_cache.rows(state.runs, state.progress, now)  # kept between frames (thousands of runs)
        self.runs_by_id = runs_by_id = self._row_cache.by_id
        view = (every, self.query_text, self.sort)
        if self._view is None or self._view[0] is not every or self._view[1:] != view[1:]:
            rows = self.sorted_rows(self._row_cache.filtered(self.query_text), runs_by_id, now)
            self._view = (*view, rows)
        self._rows = rows = self._view[-1]  # every run the filter keeps, in order: ``C`` compares them
        self._page_count = run_list.page_count(len(rows), PAGE_SIZE)
        rows = run_list.page_slice(rows, self.page, PAGE_SIZE)  # the table draws one page of them
        labels = dict(self.offered_columns())
        if not run_columns.kind_needed(row.kind for row in rows):
            offered = [key for key in offered if key != "kind"]  # one kind listed: the headline's header says it
        cells = {row.id: {key: self.cell(row, key, runs_by_id.get(row.id)) for key in offered} for row in rows}
        room = (table.size.width or self.size.width or 80) - 2  # the vertical scrollbar
        columns, self.hidden_columns = self.fit_columns(offered, labels, cells, room)
        signature = (columns, self.sort_key, self.sort_reverse)
        if signature != self._columns_signature:
            table.clear(columns=True)
            self._shown_cells = None
            for key in columns:
                arrow = (" ▼" if self.sort_reverse else " ▲") if key == self.sort_key else ""
                table.add_column(labels[key] + arrow, key=key)
            self._columns = columns
            self._columns_signature = signature
        # A poll that brings the same list (the usual case) must not repaint the table.
        shown = (
            tuple(columns),
            tuple((row.id, tuple(content_key(cells[row.id][key]) for key in columns)) for row in rows),
        )
        if shown == self._shown_cells:
            self.update_info(self._rows)
            return
        previous, self._shown_cells = self._shown_cells, shown
        if self.same_rows(previous, shown):
            # a running run's poll: its cells alone
            self.update_changed_cells(table, cast(tuple, previous), shown, cells)
            self.update_info(self._rows)  # every run the filter keeps, not the page
            return
        selected = self.selected_run_id()
        table.clear()
        for row in rows:
            table.add_row(*[cells[row.id][key] for key in columns], key=row.id)
        if selected and any(r.id == selected for r in rows):
            table.move_cursor(row=table.get_row_index(selected), animate=False)
        self.update_info(self._rows)

    @staticmethod
    def same_rows(previous: Any, shown: tuple) -> bool:
        """The same columns and the same runs in the same order: only cells can have changed."""
        return (
            isinstance(previous, tuple)
            and previous[0] == shown[0]
            and [r[0] for r in previous[1]] == [r[0] for r in shown[1]]
        )

    def update_changed_cells(self, table: Any, previous: tuple, shown: tuple, cells: dict[str, dict[str, Any]]) -> None:
        """Write the cells whose content changed, and nothing else: a slow link pays for one cell, not 21 rows."""
        columns = shown[0]
        for (row_id, before), (_, after) in zip(previous[1], shown[1]):
            for key, old, new in zip(columns, before, after):
                if old != new:
                    table.set_cell(row_id, key, cells[row_id][key])

    @staticmethod
    def fit_columns(
        offered: list[str], labels: dict[str, str], cells: dict[str, dict[str, Any]], room: int
    ) -> tuple[list[str], int]:
        """The columns that fit ``room``, by priority; on a narrow terminal the names are shortened (with …)
        before the headline (Loss/Reward) is left out, and an ETA with no value on the page gives way."""
        widths = {key: widest(labels[key] + "  ", (c[key] for c in cells.values())) for key in offered}
        widths["name"] = min(widths.get("name", 0), NAME_MAX)
        priority = sorted(offered, key=lambda key: run_columns.BY_KEY[key].priority)
        columns, hidden = fit(offered, priority, widths, room)
        if hidden and "eta" in columns and all(str(c.get("eta")) == DASH for c in cells.values()):
            offered = [key for key in offered if key != "eta"]  # an ETA of "-" alone says nothing; its room does
            priority.remove("eta")
            columns, hidden = fit(offered, priority, widths, room)
        for kept, shortest in (("name", NAME_TINY), ("loss", NAME_MIN)):  # the names themselves, then the headline
            if kept not in offered or kept in columns or "name" not in offered or widths["name"] <= shortest:
                continue
            short = dict(widths, name=shortest)
            spare = room - sum(short[k] + CELL_PAD for k in priority[: priority.index(kept) + 1])
            if spare >= 0:  # it fits once the names give up what it lacks
                widths["name"] = min(widths["name"], shortest + spare)
                columns, hidden = fit(offered, priority, widths, room)
                for c in cells.values():
                    c["name"] = shorten(c["name"], widths["name"])
        return columns, hidden

    def cell(self, row: RunRow, key: str, run: Any = None) -> Text | str:
        if key == "status":
            label = status_label(row.status)
            if row.id in self.prime.state.watched:
                label += " ◉"
            text = Text(clean(label), style=tone_style(self, row.tone))
            marks = self.status_marks(row.id)
            if marks:
                text.append(marks, style=tone_style(self, "error") if "!" in marks else "bold")
            return text
        if key == "name":
            name = clean(row.name or row.id)
            return Text(name if len(name) <= NAME_MAX else name[: NAME_MAX - 1] + "…", no_wrap=True)
        if key == "steps":
            return Text.assemble((row.bar[:8], tone_style(self, "accent")), f" {row.steps_text()}")
        if key == "loss":
            if row.kind == RL:  # an RL run's headline is its reward
                spark, number = (row.reward_spark, f"{row.reward:.4f}") if row.reward is not None else ("", DASH)
                return Text.assemble((spark[-8:], tone_style(self, "accent")), " ", number)
            loss = Text(row.loss_text(), style=tone_style(self, "error") if nonfinite_mark(row.loss) else "")
            return Text.assemble((row.spark[-8:], tone_style(self, "accent")), " ", loss)
        return plain(run_columns.BY_KEY[key].cell(row, run))

    def update_info(self, rows: list[RunRow]) -> None:
        state = self.prime.state
        info = self.query_one("#runs-info", Static)
        empty = self.query_one("#runs-empty", Static)
        if not state.runs_loaded:
            if state.connection.cached_at and state.runs:
                update_static(
                    info, plain(f"{len(state.runs)} runs as of {state.connection.cached_at} (cached) · refreshing…")
                )
            else:
                update_static(info, plain(self.loading_text("Loading runs…")))
            return
        total = state.runs_total if state.runs_total is not None else len(state.runs)
        pages = self._page_count
        # Until every page is read, the count says how far (the filter, sort and C see the runs loaded).
        loading = run_list.loaded_note(len(state.runs), state.runs_total, state.runs_complete)
        parts = [
            f"page {min(self.page, pages)}/{pages}" + (" ([ and ] turn pages)" if pages > 1 else ""),
            loading or f"{total} runs",
        ]
        if getattr(self, "hidden_columns", 0):
            parts.append(more_note(self.hidden_columns) + " (a wider terminal shows them)")
        if self.query_text:
            parts.append(f"filter “{self.query_text}”: {len(rows)} shown")
        # Watches of runs that no longer exist do not count (a deleted run); until every run is
        # loaded the others are not here to check, so every watch counts.
        watching = len(state.watched & self.runs_by_id.keys()) if state.runs_complete else len(state.watched)
        if watching:
            parts.append(f"watching {watching}")
        update_static(info, plain(" · ".join(parts)))
        if not state.runs:
            update_static(
                empty,
                "No runs yet. Press e to write a config and dispatch one (or `prime train sft.toml --volume NAME`).",
            )
            empty.add_class("visible")
        elif not rows:
            update_static(empty, plain(f"No run matches “{self.query_text}”. Press esc to clear the filter."))
            empty.add_class("visible")
        else:
            empty.remove_class("visible")

    def selected_run_id(self) -> str | None:
        table = self.query_one("#runs-table", DataTable)
        if table.row_count == 0:
            return None
        try:
            key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key
        except Exception:  # noqa: BLE001 - cursor outside the table after a clear
            return None
        return str(key.value) if key and key.value is not None else None

    # ---- actions ----------------------------------------------------------------------------
    def action_open_run(self) -> None:
        run_id = self.selected_run_id()
        if run_id:
            self.prime.open_run(run_id)

    @on(DataTable.HeaderSelected, "#runs-table")
    def header_selected(self, event: DataTable.HeaderSelected) -> None:
        if event.column_key.value:
            self.sort_by(str(event.column_key.value))

    @on(DataTable.RowSelected, "#runs-table")
    def row_selected(self, event: DataTable.RowSelected) -> None:
        if event.row_key.value:
            self.prime.open_run(str(event.row_key.value))

    def action_filter(self) -> None:
        box = self.query_one("#runs-filter", Input)
        box.add_class("visible")
        box.focus()

    @on(Input.Changed, "#runs-filter")
    def filter_changed(self, event: Input.Changed) -> None:
        self.query_text = event.value.strip()

    def watch_query_text(self) -> None:
        self.set_reactive(RunsScreen.page, 1)  # a new filter starts at its first page
        self.prime.state.runs_page = 1
        self.render_rows()
        self._fetch_runs_soon()

    @on(Input.Submitted, "#runs-filter")
    def filter_done(self, event: Input.Submitted) -> None:
        self.query_one("#runs-table", DataTable).focus()
        if not self.query_text:
            self.query_one("#runs-filter", Input).remove_class("visible")

    def action_clear_filter(self) -> None:
        box = self.query_one("#runs-filter", Input)
        box.value = ""
        box.remove_class("visible")
        self.query_text = ""
        self.query_one("#runs-table", DataTable).focus()

    def action_watch(self) -> None:
        run_id = self.selected_run_id()
        if not run_id:
            return
        watched = self.prime.toggle_watch(run_id)  # the app's ``watched``: the rows follow
        self.notify(
            f"{'Watching' if watched else 'Stopped watching'} {run_id}: "
            + ("a toast and the bell when its status changes." if watched else "no more alerts.")
        )

    def action_page(self, delta: int) -> None:
        pages = self._page_count
        target = min(self.page, pages) + delta
        if target < 1 or target > pages:
            self.notify("No more pages that way.", severity="warning")
            return
        self.page = target

    def watch_page(self, page: int) -> None:
        self.prime.state.runs_page = page
        self.render_rows()
        self._fetch_runs_soon()

    _follow_timer: Any = None

    def _fetch_runs_soon(self) -> None:
        """:meth:`fetch_runs` once the keys stop: a word typed into the filter, or pages turned in a row,
        would start and stop the metrics of 20 runs per key, whose requests and replies share the
        CPU with drawing the next key."""
        if self._follow_timer is not None:
            self._follow_timer.stop()
        # The app's timer, not the screen's: a timer event to a covered screen repaints the one above.
        self._follow_timer = self.app.set_timer(FOLLOW_AFTER, self._fetch_runs_now)

    def _fetch_runs_now(self) -> None:
        self._follow_timer = None
        self.fetch_runs()

    def _shown_runs(self) -> list[Any]:
        """The runs of the rows on the table's page (their metrics are followed)."""
        rows = run_list.page_slice(self._rows, self.page, PAGE_SIZE)
        return [self.runs_by_id[row.id] for row in rows if row.id in self.runs_by_id]
