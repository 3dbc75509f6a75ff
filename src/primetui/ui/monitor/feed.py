"""Connect monitor panes to the API followers (``primetui.api.followers``) in Textual workers.

Each pane runs its own followers while mounted: a ``RunWatcher`` for the run's status (which
also tells the data followers when the run is terminal, so they stop after one final fetch
and an idle finished run costs nothing), plus a ``LogFollower`` per log stream or one
``MetricsFollower``. Unmounting stops them all.
"""

from __future__ import annotations

from typing import Any

from primetui.api.followers import (
    MAX_TAIL_LINES,
    LogFollower,
    LogGap,
    LogLines,
    MetricRows,
    MetricsFollower,
    PollFailed,
    RunUpdate,
    RunWatcher,
    StateChanged,
    Stopped,
)
from primetui.api.models import is_terminal_run_status

ENV_SERVER_POLL = 5.0


def _status_of(run: Any) -> str | None:
    if isinstance(run, dict):
        return run.get("status")
    return getattr(run, "status", None)


class FeedMixin:
    """Mixed into a pane widget; the pane provides ``client``, ``run``, ``run_id``."""

    _followers: list[Any]
    _watcher: RunWatcher | None = None

    def _feed_init(self) -> None:
        if not hasattr(self, "_followers") or self._followers is None:
            self._followers = []

    # ---- run status -------------------------------------------------------------------------
    def _start_watcher(self) -> RunWatcher:
        self._feed_init()
        watcher = RunWatcher(self.client, self.run_id, interval=3.0, track_step=False)
        self._watcher = watcher
        self._followers.append(watcher)

        async def loop() -> None:
            async for event in watcher:
                if isinstance(event, RunUpdate):
                    self.run = event.run
                    for f in self._followers:
                        if f is not watcher and hasattr(f, "notify_status"):
                            f.notify_status(event.run.status)
                            if is_terminal_run_status(event.run.status):
                                f.poke()  # do the final fetch now rather than after the interval
                    self.on_run_update(event.run)

        self.run_worker(loop(), group="monitor-feed", exit_on_error=False)
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

        return has_evals(self.run)

    def _start_log_follower(self, spec: Any, watcher: RunWatcher | None) -> None:
        follower = LogFollower(
            self.client,
            self.run_id,
            spec.component,
            pod_index=spec.pod_index,
            env_name=spec.env_name,
            interval=2.0,
            # The first fetch takes as much history as R7 serves (5,000 lines), not 1,000.
            backlog_lines=MAX_TAIL_LINES,
            catch_up=True,  # a burst past the window is re-read at 5,000 lines at once, not marked lost
            watcher=watcher,
        )
        if watcher is not None and watcher.status:
            follower.notify_status(watcher.status)
        elif _status_of(self.run):
            follower.notify_status(_status_of(self.run))
        self._followers.append(follower)
        key = spec.key

        async def loop() -> None:
            async for event in follower:
                if isinstance(event, LogLines):
                    self.ingest(key, list(event.lines))  # type: ignore[attr-defined]
                elif isinstance(event, LogGap):
                    self.ingest_gap(key, event.message)  # type: ignore[attr-defined]
                elif isinstance(event, (StateChanged, PollFailed, Stopped)):
                    self.feed_note(key, follower)

        self.run_worker(loop(), group="monitor-feed", exit_on_error=False)

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
                for spec in log_specs(self.run, servers):
                    if spec.key not in self.stores:  # type: ignore[attr-defined]
                        self.ensure_spec(spec)  # type: ignore[attr-defined]
                        self._start_log_follower(spec, watcher)
            status = watcher.status or _status_of(self.run)
            if is_terminal_run_status(status) and servers is not None:
                return
            await _sleep(ENV_SERVER_POLL)

    def on_env_servers(self, servers: list[Any]) -> None:
        """Hook: R8 answered."""

    def feed_note(self, key: str, follower: Any) -> None:
        """Hook: a follower's state changed (waiting, retrying, stopped, error)."""

    # ---- metrics ----------------------------------------------------------------------------
    def start_metrics_feed(self) -> None:
        """Follow the run's metrics (ChartsPane, EvalsPane)."""
        self._feed_init()
        watcher = self._start_watcher()
        follower = MetricsFollower(self.client, self.run_id, interval=3.0, watcher=watcher)
        if _status_of(self.run):
            follower.notify_status(_status_of(self.run))
        self._followers.append(follower)
        self._metrics_follower = follower

        async def loop() -> None:
            async for event in follower:
                if isinstance(event, MetricRows):
                    self.add_metrics(list(event.rows))  # type: ignore[attr-defined]
                elif isinstance(event, (StateChanged, PollFailed, Stopped)):
                    self.feed_note("metrics", follower)

        self.run_worker(loop(), group="monitor-feed", exit_on_error=False)

    def stop_feed(self) -> None:
        """Stop every follower this pane started (their workers end with them)."""
        for follower in getattr(self, "_followers", None) or []:
            follower.stop()
        self._followers = []


async def _sleep(seconds: float) -> None:
    import asyncio

    await asyncio.sleep(seconds)
