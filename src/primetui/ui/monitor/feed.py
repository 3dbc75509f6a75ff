"""Connect monitor panes to the API followers (``primetui.api.followers``) in Textual workers.

Panes subscribe to the client's :class:`primetui.api.hub.FollowerHub` while mounted: the run's
shared ``RunWatcher`` (which also tells the data followers when the run is terminal, so they
stop after one final fetch and an idle finished run costs nothing), plus a ``LogFollower`` per
log stream or the run's shared ``MetricsFollower``. The charts, evals and components panes and
the run screen read the same followers, so the platform sees one request stream per resource.
Each event reaches the pane as a Textual message (``self.sink``, :mod:`primetui.ui.hub_sink`),
handled in the pane's own message pump. Unmounting ends the pane's subscriptions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from primetui.api.followers import (
    DataNotes,
    LogGap,
    LogLines,
    MetricRows,
    PollFailed,
    RunUpdate,
    RunWatcher,
    StateChanged,
    Stopped,
)
from primetui.api.hub import hub_for
from primetui.api.models import is_terminal_run_status
from primetui.ui.hub_sink import HubSinks

if TYPE_CHECKING:
    from textual.widget import Widget as _PaneBase

    from primetui.api.hub import _Shared
    from primetui.api.plainrun import Run
else:
    _PaneBase = object

ENV_SERVER_POLL = 5.0


def _status_of(run: Any) -> str | None:
    if isinstance(run, dict):
        return run.get("status")
    return getattr(run, "status", None)


class FeedMixin(HubSinks, _PaneBase):
    """Mixed into a pane widget; the pane provides ``client``, ``run``, ``run_id``."""

    client: Any
    run: Run | None
    run_id: str

    _followers: list[Any]
    _subscriptions: list[Any]
    _watcher: RunWatcher | None = None

    @property
    def followers(self) -> tuple[Any, ...]:
        """The followers this pane reads now (its run watcher, logs, metrics ...), in the order it
        started them; empty before the feed starts and after ``stop_feed``. Read-only."""
        return tuple(getattr(self, "_followers", None) or ())

    def _feed_init(self) -> None:
        if not hasattr(self, "_followers") or self._followers is None:
            self._followers = []
        if not hasattr(self, "_subscriptions") or self._subscriptions is None:
            self._subscriptions = []

    # ---- run status -------------------------------------------------------------------------
    def _start_watcher(self) -> RunWatcher:
        self._feed_init()
        hub = hub_for(self.client)

        def on_event(event: Any) -> None:
            if isinstance(event, RunUpdate):
                self.run = event.run
                self.on_run_update(event.run)

        self._subscriptions.append(hub.watch(self.run_id, self.sink(on_event)))
        watcher = hub.watcher(self.run_id)
        self._watcher = watcher
        self._followers.append(watcher)
        return watcher

    def on_run_update(self, run: Any) -> None:
        """Hook: the run changed (status, error)."""

    # ---- logs -------------------------------------------------------------------------------
    def start_log_feed(self) -> None:
        """Follow every log stream of the run (LogsPane)."""
        self._feed_init()
        watcher = self._start_watcher()
        for spec in list(self.specs):  # type: ignore[attr-defined]
            self._start_log_follower(spec, watcher)
        if self._has_evals():
            self.run_worker(self._env_server_loop(watcher), group="monitor-feed", exit_on_error=False)

    def _has_evals(self) -> bool:
        from primetui.monitor_core.components import has_evals

        return has_evals(cast("Run", self.run))  # the panes are built with their run

    def _start_log_follower(self, spec: Any, watcher: RunWatcher | None) -> None:
        self._feed_init()
        key = spec.key
        holder: list[Any] = []

        def on_event(event: Any) -> None:
            if isinstance(event, LogLines):
                self.ingest(key, list(event.lines))  # type: ignore[attr-defined]
            elif isinstance(event, LogGap):
                self.ingest_gap(key, event.message)  # type: ignore[attr-defined]
            elif isinstance(event, DataNotes):
                self._say_notes(f"{key} log of run {self.run_id}: {n}" for n in event.notes)
            elif isinstance(event, (StateChanged, PollFailed, Stopped)) and holder:
                self.feed_note(key, holder[0])

        status = (watcher.status if watcher is not None else None) or _status_of(self.run)
        sub = hub_for(self.client).logs(
            self.run_id,
            spec.component,
            self.sink(on_event),
            pod_index=spec.pod_index,
            env_name=spec.env_name,
            status=status,
        )
        follower = cast("_Shared", sub.owner).follower  # logs() subscribes to a shared follower
        holder.append(follower)
        self._followers.append(follower)
        self._subscriptions.append(sub)

    async def _env_server_loop(self, watcher: RunWatcher) -> None:
        """Discover env servers (R8) for their log tabs; stop once listed and the run is terminal."""
        from primetui.monitor_core.components import log_specs

        while True:
            try:
                servers = await self.client.list_env_servers(self.run_id)
            except Exception:  # noqa: BLE001 - the tabs from the config stay; try again later
                servers = None
            if servers:
                self.on_env_servers(servers)
                for spec in log_specs(cast("Run", self.run), servers):
                    if spec.key not in self.stores:  # type: ignore[attr-defined]
                        self.ensure_spec(spec)  # type: ignore[attr-defined]
                        self._start_log_follower(spec, watcher)
            status = watcher.status or _status_of(self.run)
            if is_terminal_run_status(status) and servers is not None:
                return
            await _sleep(ENV_SERVER_POLL)

    def on_env_servers(self, servers: list[Any]) -> None:
        """Hook: R8 answered."""

    def _say_notes(self, notes: Any) -> None:
        """Boundary notes through the dashboard's once-only toast (a bare monitor app toasts each)."""
        say = getattr(self.app, "say_notes", None)
        if say is not None:
            say(notes)
        else:
            for note in notes:
                self.app.notify(note, severity="warning", markup=False)

    def feed_note(self, key: str, follower: Any) -> None:
        """Hook: a follower's state changed (waiting, retrying, stopped, error)."""

    # ---- metrics ----------------------------------------------------------------------------
    def start_metrics_feed(self) -> None:
        """Follow the run's metrics (ChartsPane, EvalsPane)."""
        self._feed_init()
        self._start_watcher()
        holder: list[Any] = []

        def on_event(event: Any) -> None:
            if isinstance(event, MetricRows):
                self.add_metrics(list(event.rows))  # type: ignore[attr-defined]
            elif isinstance(event, DataNotes):
                self._say_notes(f"metrics of run {self.run_id}: {n}" for n in event.notes)
            elif isinstance(event, (StateChanged, PollFailed, Stopped)) and holder:
                self.feed_note("metrics", holder[0])

        sub = hub_for(self.client).metrics(self.run_id, self.sink(on_event), status=_status_of(self.run))
        follower = cast("_Shared", sub.owner).follower  # metrics() subscribes to a shared follower
        holder.append(follower)
        self._metrics_follower = follower
        self._followers.append(follower)
        self._subscriptions.append(sub)

    def stop_feed(self) -> None:
        """End this pane's subscriptions (a follower nobody else reads stops with them)."""
        for sub in getattr(self, "_subscriptions", None) or []:
            sub.close()
        self._subscriptions = []
        self._followers = []


async def _sleep(seconds: float) -> None:
    import asyncio

    await asyncio.sleep(seconds)
