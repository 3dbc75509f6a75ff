"""The Logs pane: a tab per component the run has, plus a merged view interleaved by time."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.markup import escape
from textual.widgets import Static, TabbedContent, TabPane

from primetui.monitor_core.components import LogSpec, log_specs
from primetui.monitor_core.escapes import neutralise
from primetui.monitor_core.lines import LineParser
from primetui.monitor_core.pods import PodBoard
from primetui.monitor_core.store import LogStore, MergedLog
from primetui.ui.monitor.feed import FeedMixin
from primetui.ui.monitor.logtab import LogTab
from primetui.ui.safe import clean
from primetui.ui.widgets import update_static

if TYPE_CHECKING:
    from primetui.api.plainrun import Run

MERGED_KEY = "all"

HELD_LINES = 20_000
"""Log lines per stream held in memory unless preferences say otherwise (``log_memory_lines``)."""

MERGED_LINES = 1_000_000
"""Lines the merged tab indexes (17 bytes each); its components' own tabs keep theirs."""


def _run_id(run: Run) -> str:
    return run.id or "run"


class LogsPane(FeedMixin, Vertical):
    """Live logs of one run: ``LogsPane(client, run)``; followers start on mount, stop on unmount.

    Data can also be fed directly (tests, benchmarks, replays): :meth:`ingest` and
    :meth:`ingest_gap`.
    """

    HELP_TITLE = "Logs tab"
    BINDINGS = [  # the component tabs without reaching for shift+tab to their strip
        Binding("greater_than_sign", "component(1)", "Next component", show=False, id="monitor.logs.next_component"),
        Binding("less_than_sign", "component(-1)", "Prev component", show=False, id="monitor.logs.prev_component"),
    ]
    DEFAULT_CSS = """
    LogsPane { height: 1fr; }
    LogsPane > TabbedContent { height: 1fr; }
    LogsPane TabPane { padding: 0; height: 1fr; }
    LogsPane > .logs--pods { height: 1; padding: 0 1; color: $text-muted; }
    LogsPane > .logs--pods.-failed { color: $error; }
    """

    def __init__(
        self,
        client: Any,
        run: Run,
        *,
        max_lines: int = 2_000_000,
        held_lines: int | None = None,
        follow: bool = True,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self._budget_given = held_lines is not None
        self.held_lines = held_lines if held_lines is not None else HELD_LINES
        """The memory budget of each stream, in lines (the rest is spilled to disk, see LogStore)."""
        self.client = client
        self.run = run
        self.run_id = _run_id(run)
        self.max_lines = max_lines
        self.follow_enabled = follow
        self.specs: list[LogSpec] = log_specs(run)
        self.stores: dict[str, LogStore] = {}
        self.parsers: dict[str, LineParser] = {}
        self.merged = MergedLog([], max_lines=min(max_lines, MERGED_LINES))
        self.tabs: dict[str, LogTab] = {}
        self.links: Any = None  # the run screen's StepLinks (shared cursor, anomaly detector)
        for spec in self.specs:
            self._make_store(spec)
        # Multi-node runs: a tab per pod, and one line saying which pod is slowest or failed.
        self.pod_keys = {s.key: s.pod_index for s in self.specs if s.component == "trainer" and s.pod_index is not None}
        self.pods = PodBoard(sorted(self.pod_keys.values())) if len(self.pod_keys) > 1 else None

    def _make_store(self, spec: LogSpec) -> LogStore:
        store = LogStore(spec.title, max_lines=self.max_lines, held_lines=self.held_lines)
        self.stores[spec.key] = store
        self.parsers[spec.key] = LineParser()
        self.merged.add_store(store)
        return store

    def _names(self) -> list[str]:
        return [s.name for s in self.merged.stores]

    def compose(self) -> ComposeResult:
        first = self.specs[0].key if self.specs else MERGED_KEY
        if self.pods is not None:
            yield Static(self.pods_summary(), classes="logs--pods", markup=False)
        with TabbedContent(initial=f"log-{first}"):
            for spec in self.specs:
                tab = LogTab(self.stores[spec.key], title=spec.title, default_file=f"{self.run_id}-{spec.key}.log")
                self.tabs[spec.key] = tab
                with TabPane(escape(clean(spec.title)), id=f"log-{spec.key}"):
                    yield tab
            merged = LogTab(
                self.merged, title="all components", source_names=self._names(), default_file=f"{self.run_id}-all.log"
            )
            self.tabs[MERGED_KEY] = merged
            with TabPane("all", id=f"log-{MERGED_KEY}"):
                yield merged

    def on_mount(self) -> None:
        chosen = getattr(getattr(self.app, "prefs", None), "log_memory_lines", None)
        if not self._budget_given and isinstance(chosen, int):
            self.held_lines = chosen
            for store in self.stores.values():
                store.set_budget(chosen)
        if self.follow_enabled and self.client is not None:
            self.start_log_feed()

    def on_unmount(self) -> None:
        self.stop_feed()
        for store in self.stores.values():
            store.close()  # its spill file goes now, not whenever the pane is collected

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        # A log tab not shown took in no lines (``LogView.data_changed``): it does so now, before
        # its first frame, rather than on its Show event (which comes after that frame is drawn).
        if event.tabbed_content.parent is not self:
            return
        for tab in self.tabs.values():
            if event.pane is not None and tab in event.pane.children:
                tab.view._catch_up()

    # ---- components -------------------------------------------------------------------------
    def action_component(self, delta: int) -> None:
        """``>`` / ``<``: the next or previous component's log (the last wraps to the first), its view taking the
        keys."""
        tabs = self.query_one(TabbedContent)
        panes = [pane.id for pane in tabs.query(TabPane) if pane.parent is not None and pane.id]
        if not panes:
            return
        here = panes.index(tabs.active) if tabs.active in panes else 0
        tabs.active = panes[(here + delta) % len(panes)]
        target = next(
            (tab for tab in self.tabs.values() if tab.parent is not None and tab.parent.id == tabs.active), None
        )
        if target is not None:
            target.view.focus()

    def ensure_spec(self, spec: LogSpec) -> None:
        """Add a tab for a stream discovered later (an env server listed by R8)."""
        if spec.key in self.stores:
            return
        self.specs.append(spec)
        self._make_store(spec)
        tab = LogTab(self.stores[spec.key], title=spec.title, default_file=f"{self.run_id}-{spec.key}.log")
        self.tabs[spec.key] = tab
        self.tabs[MERGED_KEY].view.source_names = self._names()
        if self.is_mounted:
            self.query_one(TabbedContent).add_pane(
                TabPane(escape(clean(spec.title)), tab, id=f"log-{spec.key}"), before=f"log-{MERGED_KEY}"
            )

    # ---- data -------------------------------------------------------------------------------
    def ingest(self, key: str, raw_lines: list[str]) -> None:
        """Add raw lines (as R7 returns them) to one component's log."""
        store = self.stores.get(key)
        if store is None or not raw_lines:
            return
        batch = self.parsers[key].parse_batch(raw_lines)
        texts = batch.texts
        start, _replaced = store.append(batch)
        if self.links is not None:
            end = store.end
            if end - start == len(texts) and start >= store.first:  # nothing collapsed: the batch is the new lines
                self.links.lines_added(key, list(zip(range(start, end), texts)))
            else:
                self.links.lines_added(key, [(g, store.text(g) or "") for g in range(max(start, store.first), end)])
        if self.pods is not None and key in self.pod_keys and self.pods.observe(self.pod_keys[key], raw_lines):
            self.update_pods()
        self._changed(key)

    # ---- pods -------------------------------------------------------------------------------
    def _error(self) -> str | None:
        return (self.run.error_message or None) if self.run is not None else None

    def pods_summary(self) -> str:
        return neutralise(self.pods.summary(self._error())) if self.pods is not None else ""

    def update_pods(self) -> None:
        """Redraw the pods line (after new step lines, or a run update naming a failed pod)."""
        if self.pods is None or not self.is_mounted:
            return
        line = self.query_one(".logs--pods", Static)
        text = self.pods_summary()
        update_static(line, text)
        line.set_class("FAILED" in text, "-failed")

    def on_run_update(self, run: Run) -> None:
        self.run = run
        self.update_pods()

    def ingest_gap(self, key: str, message: str) -> None:
        """Show that lines may be missing here (the follower could not fetch them)."""
        store = self.stores.get(key)
        if store is None:
            return
        store.append_gap(message)
        self._changed(key)

    # ---- the step cursor --------------------------------------------------------------------
    def scroll_to_step(self, step: int) -> None:
        """Scroll every log tab to the first line of ``step`` (its step line, or the next one)."""
        for tab in self.tabs.values():
            source = tab.view.source
            steps = source.steps(source.first, source.end)
            hits = np.flatnonzero(steps >= step)
            if len(hits) and tab.is_mounted:
                tab.view.goto_line(source.first + int(hits[0]))

    def goto_line(self, key: str, index: int) -> None:
        """Show line ``index`` of the ``key`` log in its tab (the tab becomes the active one)."""
        tab = self.tabs.get(key)
        if tab is None:
            return
        if self.is_mounted:
            self.query_one(TabbedContent).active = f"log-{key}"
        if tab.is_mounted:
            tab.view.goto_line(index)

    def feed_note(self, key: str, follower) -> None:
        """Show what the follower of ``key`` is doing (waiting for the run, retrying, stopped)."""
        tab = self.tabs.get(key)
        if tab is None:
            return
        from primetui.api.followers import FollowerState
        from primetui.api.models import TERMINAL_RUN_STATUSES

        state = follower.state
        if state == FollowerState.WAITING:
            note = "waiting for the run to start"
        elif state == FollowerState.RETRYING:
            note = f"retrying: {follower.error}" if follower.error else "retrying"
        elif state == FollowerState.ERROR:
            note = str(follower.error or "stopped on an error")
            if getattr(follower, "final_fetch_ok", True) is False and follower.run_status in TERMINAL_RUN_STATUSES:
                note = f"the final fetch failed, the last lines may be missing: {note}"
        elif state == FollowerState.STOPPED:
            note = "complete (run finished)"
        else:
            note = ""
        tab.feed_note = note  # a reactive: the tab's status line follows

    def _changed(self, key: str) -> None:
        self.merged.sync()
        tab = self.tabs.get(key)
        if tab is not None and tab.is_mounted:
            tab.view.data_changed()
        merged = self.tabs.get(MERGED_KEY)
        if merged is not None and merged.is_mounted:
            merged.view.data_changed()
