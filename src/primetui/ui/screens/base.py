"""The frame every dashboard screen shares: status bar on top, body, footer."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any

from textual.app import ComposeResult
from textual.reactive import var
from textual.screen import Screen

from primetui.api.hub import FollowerHub, hub_for
from primetui.viewmodel.errors import bad_setting, describe, is_refusal
from primetui.ui.hub_sink import HubSinks
from primetui.ui.widgets import DashboardFooter, StatusBar, seen

if TYPE_CHECKING:
    from primetui.viewmodel.host import DashboardHost


def drop_closed_watchers(obj: Any, owner: Any = None) -> int:
    """Forget the watchers on ``obj``'s reactives whose node is closed (or is ``owner``); returns how many.

    ``self.watch(self.app, ...)`` (a screen's ``watched``, the header's ``health``) keeps
    ``(node, callback)`` on the watched object, and Textual drops the entry of a closed node only
    when that very reactive changes: the app's ``watched`` or ``team_label`` may not change for a
    whole session, so every closed screen (and its widgets, data and panes) stayed reachable from
    the app. Called as a screen unmounts (``owner``: the screen, not marked closed yet then) and
    from the app's clock tick (whatever a plain widget left).
    """
    watchers = getattr(obj, "__watchers", None)
    if not watchers:
        return 0
    dropped = 0
    for entries in watchers.values():
        kept = [
            (node, callback)
            for node, callback in entries
            if node is not owner and not getattr(node, "_closing", False) and not getattr(node, "_closed", False)
        ]
        dropped += len(entries) - len(kept)
        entries[:] = kept
    return dropped


class DashboardScreen(HubSinks, Screen):
    """Base screen: subclasses implement ``compose_body`` and ``subscribe``.

    ``subscribe`` joins the shared followers and resources of the client's
    :class:`primetui.api.hub.FollowerHub` (each at ``poll_interval`` seconds or the
    ``[refresh]`` preference) and returns the subscriptions; the screen holds them while it is
    mounted, so a resource shown by several screens is polled once. ``poll`` (the refresh key,
    coming back to the screen) asks each of them for fresh data now. Callbacks only store and
    render: the UI never waits on the network. Each callback is given to the hub as
    ``self.sink(callback)`` (:mod:`primetui.ui.hub_sink`), so it runs in this screen's message pump.
    """

    load_error: var[str | None] = var(None, init=False)
    """The last failed network call's sentence, until a call succeeds: a screen with nothing loaded
    yet shows it in place of "Loading…" (``watch_load_error`` draws the screen again)."""

    poll_interval: float = 5.0
    refresh_key: str | None = None
    """Which ``[refresh]`` preference overrides ``poll_interval`` (runs_list, run_detail)."""

    @property
    def prime(self) -> "DashboardHost":
        return self.app  # type: ignore[return-value]

    @property
    def alive(self) -> bool:
        """Mounted, still in the DOM and not on its way out: a worker finishing after the screen closed must
        not draw. A screen being removed is pruning before it is closing, and a mount under it does nothing."""
        return self.is_mounted and self.is_attached and not (self._pruning or self._closing)

    @property
    def client(self) -> Any:
        return self.prime.client

    @property
    def hub(self) -> FollowerHub:
        return hub_for(self.prime.client)

    _subscriptions: list[Any] | None = None

    def compose(self) -> ComposeResult:
        yield StatusBar()
        yield from self.compose_body()
        yield DashboardFooter()

    def compose_body(self) -> ComposeResult:  # pragma: no cover - abstract
        yield from ()

    def on_mount(self) -> None:
        self._join()

    @property
    def joined(self) -> bool:
        """Whether the screen follows the app's data: its hub subscriptions are open. Read-only."""
        return self._subscriptions is not None

    def _join(self) -> None:
        if self.prime.client is not None and self._subscriptions is None:
            self._subscriptions = list(self.subscribe())

    # ---- mounts of its own: the screen is removed only once they are done ------------------
    # Textual removes a popped or replaced screen at once, and removing widgets while they still
    # mount crashes it (a nested tab strip's Mount handler selects a tab already removed: "No Tab
    # with id ..."; a pane mounts into a Grid already removed). A screen that mounts widgets without
    # awaiting them counts those mounts here; the app (``PrimeApp.pop_screen``/``switch_screen``)
    # takes such a screen off the stack at once and removes it once ``settle`` returns (and ends,
    # ``PrimeApp.exit``, once every screen has settled).
    _mounts: list[asyncio.Future[Any]] | None = None

    def track_mount(self, mount: Awaitable[Any]) -> None:
        """Count ``mount`` (a mount this screen started and does not await) as one of its own."""
        future = asyncio.ensure_future(mount)
        # A failed mount is reported by the widget that failed; this copy is not reported again.
        future.add_done_callback(lambda done: done.cancelled() or done.exception())
        self._mounts = [f for f in self._mounts or () if not f.done()] + [future]

    @property
    def mounting(self) -> bool:
        """Some of the screen's own mounts (``track_mount``) are not done yet."""
        return any(not f.done() for f in self._mounts or ())

    async def settle(self) -> None:
        """Wait until the screen's own mounts are done (also those started meanwhile); never raises."""
        while pending := [f for f in self._mounts or () if not f.done()]:
            await asyncio.wait(pending)

    _render_pending = False

    def hidden(self) -> bool:
        """True (and the screen is drawn again when it comes back) while another screen covers it.

        Data keeps arriving for a covered screen (the runs list still watches runs); storing it
        is enough, drawing it would repaint the terminal for nothing.
        """
        if self.is_attached and not seen(self):
            self._render_pending = True
            return True
        return False

    def render_screen(self) -> None:
        """Draw everything from the stored data (override); called when a covered screen comes back."""

    def watch_load_error(self) -> None:
        self.render_screen()

    def on_screen_resume(self) -> None:
        # Kept by hand: a covered screen skips its repaints (``hidden``, ``StatusBar.paint``);
        # what changed meanwhile is drawn once now.
        for bar in self.query(StatusBar):
            bar.catch_up()
        if self._render_pending:
            self._render_pending = False
            self.render_screen()
        # Coming back to a screen shows fresh data at once instead of after a full interval.
        if self.prime.client is not None and self.is_mounted:
            if self._subscriptions is None:
                self._join()
            else:
                self.poll()

    def on_unmount(self) -> None:
        for sub in self._subscriptions or ():
            sub.close()
        self._subscriptions = None
        drop_closed_watchers(self.app, owner=self)

    def interval_for(self) -> float:
        """This screen's refresh interval: ``poll_interval`` or the ``[refresh]`` preference (0: none)."""
        return self.prime.interval(self.poll_interval, self.refresh_key)

    def subscribe(self) -> list[Any]:
        """Join the hub's followers and resources this screen shows (override); returns the subscriptions."""
        return []

    def poll(self) -> None:
        """Ask every followed resource for fresh data now."""
        for sub in self._subscriptions or ():
            sub.refresh()

    def loading_text(self, what: str) -> str:
        """What a screen with nothing loaded says: why not (the last failure), else ``what``."""
        return self.load_error or self.prime.state.connection.last_error or what

    # Outcomes of network calls: every worker reports here, so the header stays honest (it
    # watches the app's ``health``) and a screen still loading says why it is not loaded.
    def ok(self) -> None:
        self.prime.report_ok()
        self.load_error = None

    def failed(self, exc: BaseException, *, toast: bool = False) -> str:
        message = describe(exc)
        setting = bad_setting(exc)
        if setting is not None:  # the key or the URL cannot work: say which, never "unreachable"
            self.prime.report_mistake(message, f"bad setting: {setting}")
            self.load_error = message
            return message
        if toast and is_refusal(exc):
            # An action the platform refused (409 "follow that run instead"): say so, but the
            # connection is fine, so no "unreachable" marker and no "connection is back" later.
            self.notify(message, severity="error", timeout=8)
            return message
        self.prime.report_error(message, toast=toast)
        self.load_error = message
        return message
