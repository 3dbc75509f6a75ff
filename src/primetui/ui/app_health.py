"""The app's link health and its toasts: the header's health line, connection alerts, wire notes.

A mixin of :class:`primetui.ui.app.PrimeApp`; every toast of the dashboard goes through its ``notify``.
"""

from __future__ import annotations

from typing import Any

from textual.app import App
from textual.reactive import var

from primetui.ui.safe import clean, clean_block
from primetui.viewmodel.compact import is_compact, one_line
from primetui.viewmodel.state import DashboardState


class HealthReports(App):
    """The link to the platform as the header shows it, and the toasts that say what changed."""

    state: DashboardState
    health: var[tuple[str, str]]
    _said_notes: set[str]

    def tick(self) -> None:
        """Each second: the header's staleness, and the watchers closed widgets left on the app."""
        from primetui.ui.screens.base import drop_closed_watchers

        self.update_health()
        drop_closed_watchers(self)

    def update_health(self) -> None:
        """Set ``health`` from ``state.connection`` and the clock (the header follows it)."""
        self.health = self.state.connection.describe(self.state.now())

    def report_ok(self) -> None:
        was_down = self.state.connection.last_error is not None
        self.state.connection.ok(self.state.now())
        self.update_health()
        if was_down:
            self.notify("Connection to the platform is back.", severity="information")

    def report_error(self, message: str, *, toast: bool = False) -> None:
        first = self.state.connection.last_error is None
        self.state.connection.failed(message, self.state.now())
        self.update_health()
        if toast or first:
            self.notify(message, severity="error", timeout=8)

    def report_mistake(self, sentence: str, short: str) -> None:
        """A setting cannot work: the header names it (not "unreachable"), the sentence is a toast once."""
        first = self.state.connection.mistake is None
        self.state.connection.mistaken(sentence, short, self.state.now())
        self.update_health()
        if first:
            self.notify(sentence, severity="error", timeout=30)

    def note_cached(self, saved_at: str) -> None:
        """The runs list shows the on-disk cache saved at ``saved_at`` until a live reply comes."""
        self.state.connection.cached_at = saved_at
        self.update_health()

    def say_notes(self, notes: Any) -> None:
        """What the wire boundary dropped or cut (``2 rows ignored: non-finite step``): a warning
        toast, each note once per session, while the rest of the screen shows what was kept."""
        from primetui.api.boundary import join_notes

        new = [str(n) for n in notes or () if str(n) not in self._said_notes]
        if new:
            self._said_notes.update(new)
            text = join_notes(new)
            self.notify(text[:1].upper() + text[1:], severity="warning", timeout=10)

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: Any = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Every toast: its text shown literally (never markup, whatever ``markup`` says), outside
        controls made visible; at 80x24 one line (title and message together)."""
        message, title = clean_block(str(message)), clean(title)
        size = self.size
        if size.width and is_compact(size.width, size.height):
            self.set_class(True, "-compact")
            message, title = one_line(message, title), ""
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=False)
