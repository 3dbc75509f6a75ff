"""The runs the user watches, kept in the preferences file other dashboards share.

A mixin of :class:`primetui.ui.app.PrimeApp`.
"""

from __future__ import annotations

from textual.app import App
from textual.reactive import var

from primetui.viewmodel.remember import adopt_watched, remember, watched_on_disk
from primetui.viewmodel.state import DashboardState


class Watching(App):
    """Watch and unwatch runs, follow other dashboards' watches, remember the theme."""

    state: DashboardState
    watched: var[frozenset[str]]
    _remembering: bool
    theme_chosen: bool

    def sync_watched(self, exact: bool = False) -> None:
        """Follow the watches another dashboard made or removed (the shared preferences file; read
        when it changed, or always when ``exact``)."""
        ids = watched_on_disk(self, exact=exact)
        if ids is not None and adopt_watched(self, ids):
            self.watched = frozenset(self.state.watched)

    def toggle_watch(self, run_id: str) -> bool:
        if run_id in self.state.watched:
            self.unwatch(run_id)
            return False
        self.watch_run(run_id)
        return True

    def watch_run(self, run_id: str) -> None:
        self.state.watched.add(run_id)
        self.watched = frozenset(self.state.watched)
        self.remember(watch=[run_id])

    def unwatch(self, run_id: str) -> None:
        self.state.watched.discard(run_id)
        self.watched = frozenset(self.state.watched)
        self.remember(unwatch=[run_id])

    def watch_theme(self, theme: str) -> None:
        if self._remembering:  # after start-up only the user changes the theme (t, the palette)
            self.theme_chosen = True
            self.remember()

    def remember(self, *, watch: tuple[str, ...] | list[str] = (), unwatch: tuple[str, ...] | list[str] = ()) -> None:
        """Keep a watch, an unwatch or the theme for the next start: merged into the preferences
        file, which other dashboards share (their watches come back in ``state.watched``)."""
        problem = remember(self, watch=watch, unwatch=unwatch)
        self.watched = frozenset(self.state.watched)
        if problem:
            self.notify(problem, severity="warning", timeout=8)
