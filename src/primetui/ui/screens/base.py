"""The frame every dashboard screen shares: status bar on top, body, footer."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer

from primetui.ui.errors import describe, is_refusal
from primetui.ui.widgets import StatusBar

if TYPE_CHECKING:
    from primetui.ui.app import PrimeApp


class DashboardScreen(Screen):
    """Base screen: subclasses implement ``compose_body`` and optionally ``poll``.

    ``poll`` is started on mount and then every ``poll_interval`` seconds while the screen is
    the one on display; it must only start workers (the UI never waits on the network).
    """

    poll_interval: float = 5.0
    refresh_key: str | None = None
    """Which ``[refresh]`` preference overrides ``poll_interval`` (runs_list, run_detail)."""

    @property
    def prime(self) -> "PrimeApp":
        return self.app  # type: ignore[return-value]

    @property
    def alive(self) -> bool:
        """Mounted and still in the DOM: a worker finishing after the screen closed must not draw."""
        return self.is_mounted and self.is_attached and not self._closing

    @property
    def client(self) -> Any:
        return self.prime.client

    def compose(self) -> ComposeResult:
        yield StatusBar()
        yield from self.compose_body()
        yield Footer()

    def compose_body(self) -> ComposeResult:  # pragma: no cover - abstract
        yield from ()

    def on_mount(self) -> None:
        if self.prime.client is not None:
            self.poll()
        interval = self.prime.interval(self.poll_interval, self.refresh_key)
        if interval > 0:
            self.set_interval(interval, self._tick)

    def on_screen_resume(self) -> None:
        # Coming back to a screen shows fresh data at once instead of after a full interval.
        if self.prime.client is not None and self.is_mounted:
            self.poll()

    def _tick(self) -> None:
        if self.is_current and self.prime.client is not None:
            self.poll()

    def poll(self) -> None:
        """Start the workers that refresh this screen (override)."""

    def refresh_status(self) -> None:
        for bar in self.query(StatusBar):
            bar.update_status()

    # Outcomes of network calls: every worker reports here, so the header stays honest.
    def ok(self) -> None:
        self.prime.report_ok()
        self.refresh_status()

    def failed(self, exc: BaseException, *, toast: bool = False) -> str:
        message = describe(exc)
        if toast and is_refusal(exc):
            # An action the platform refused (409 "follow that run instead"): say so, but the
            # connection is fine, so no "unreachable" marker and no "connection is back" later.
            self.notify(message, severity="error", timeout=8)
            return message
        self.prime.report_error(message, toast=toast)
        self.refresh_status()
        return message
