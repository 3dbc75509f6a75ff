"""Run screen: lifecycle, queue, errors, config, checkpoints, actions, and the monitor tabs."""

from __future__ import annotations

import shlex
from typing import Any, cast

import tomlkit
from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.reactive import var
from textual.widgets import ContentSwitcher, DataTable, Static, TabbedContent, TabPane, TextArea
from textual.widgets.data_table import CellDoesNotExist

from primetui.api.followers import DataNotes, MetricRows, PollFailed, RunUpdate
from primetui.api.models import RLRun
from primetui.ui.code_view import CodeView
from primetui.ui.safe import SafeTable, clean, plain
from primetui.viewmodel.checkpoints import checkpoint_command, checkpoint_path
from primetui.viewmodel.fmt import DASH, fmt_bytes, fmt_time, sparkline
from primetui.viewmodel.progress import RunProgress
from primetui.viewmodel.run_rows import RunRow, failure_analysis, run_gpus_detail, run_row
from primetui.viewmodel.statuses import (
    TERMINAL_RUN_STATUSES,
    actions_for,
    resumed_as,
    run_lifecycle,
    run_status,
    status_label,
)
from primetui.ui.focus import focus_content, types_text
from primetui.ui.monitor_hook import monitor_panes
from primetui.ui.screens.base import DashboardScreen
from primetui.ui.screens.run_checkpoints import BEST_MARK, RunCheckpointsMixin
from primetui.ui.screens.run_links import RunLinksMixin
from primetui.ui.screens.run_rl import rl_panes
from primetui.ui.widgets import ConfirmScreen, tone_style, update_static
from primetui.ui.styles import tcss


def config_toml(run: Any) -> str:
    """The run's config as TOML text (what the user dispatched), or a one-line explanation."""
    cfg = run.run_config
    if not cfg:
        return "# The platform did not return this run's config."
    try:
        return tomlkit.dumps(cfg)
    except Exception:  # noqa: BLE001 - odd values (None inside arrays) cannot be TOML
        import json

        return "# Not representable as TOML; shown as JSON.\n" + json.dumps(cfg, indent=2)


class RunTabs(TabbedContent):
    """The run's tabs. TabbedContent shows the tab that holds a newly focused widget; a focus that
    arrives after the focus has already moved on (a tab picked by key meanwhile) is stale and is ignored,
    so a quick 3 then 4 ends on tab 4."""

    def _on_tab_pane_focused(self, event: TabPane.Focused) -> None:
        focused = self.screen.focused
        if focused is None or event.tab_pane not in focused.ancestors:
            event.prevent_default()
            event.stop()


class RunScreen(RunCheckpointsMixin, RunLinksMixin, DashboardScreen):
    """One run: what happened when, what went wrong, and what you can do now."""

    refresh_key = "run_detail"
    poll_interval = 3.0
    BINDINGS = [
        Binding("escape", "back", "Back", id="run.back"),
        Binding("x", "stop", "Stop", id="run.stop"),
        Binding("p", "pause", "Pause", id="run.pause"),
        Binding("u", "resume", "Resume", id="run.resume"),
        Binding("R", "restart", "Restart", id="run.restart"),
        Binding("d", "delete", "Delete", id="run.delete"),
        Binding("y", "copy_id", "Copy id", id="run.copy_id"),
        Binding("Y", "copy_path", "Copy path", id="run.copy_path"),
        Binding("g", "get_checkpoint", "Get checkpoint", id="run.get_checkpoint"),
        Binding("w", "watch", "Watch", show=False, id="run.watch"),
        *RunCheckpointsMixin.CHECKPOINT_BINDINGS,
        *(Binding(str(n), f"tab({n - 1})", f"Tab {n}", show=False, id=f"run.tab{n}") for n in range(1, 8)),
    ]
    CSS_PATH = tcss("run.tcss")

    # What the screen shows is held here; each watcher draws it again (``render_run``), and a poll
    # that brings the same value repaints nothing.
    run: var[Any] = var(None, init=False, bindings=True)
    """The run as last read (R2). Its status decides the summary, the title and which actions the
    footer offers (``check_action``)."""
    checkpoints: var[list[Any]] = var(list, init=False)
    """The run's checkpoints (R13) as last listed: the Checkpoints table."""
    progress: var[RunProgress | None] = var(None, init=False)
    """The run's metrics (R10): the summary's steps, loss and ETA, and the best-eval mark. It is the
    app's shared ``RunProgress``, extended in place as rows arrive (``mutate_reactive``)."""
    _action_in_flight: var[bool] = var(False, init=False, bindings=True)
    """An action was sent and not answered yet: the status actions are offered disabled meanwhile."""

    @property
    def action_in_flight(self) -> bool:
        """An action was sent and not answered yet (read-only)."""
        return self._action_in_flight

    def __init__(self, run_id: str, *, jump_to_anomaly: bool = False) -> None:
        super().__init__()
        self.pending_jump = jump_to_anomaly
        self.run_id = run_id
        # Known from the runs list already (before anything is drawn: no watcher runs).
        self.set_reactive(RunScreen.run, self.prime_state_run(run_id))
        self.set_reactive(RunScreen.progress, self.prime_state_progress(run_id))
        self._checkpoints_sub: Any = None
        self.final_fetch_done = False
        self.terminal_polls = 0
        self._config_shown = False
        self._checkpoints_shown: object = None
        self._summary_behind = False
        self._monitor_mounted = False
        self.title = clean(f"Run {run_id}")

    @property
    def monitor_mounted(self) -> bool:
        """Whether the monitor tabs (charts, logs, ...) were mounted: once the run is first shown. Read-only."""
        return self._monitor_mounted

    def prime_state_run(self, run_id: str) -> Any:
        try:
            return self.app.state.find_run(run_id)  # type: ignore[attr-defined]
        except Exception:  # noqa: BLE001 - no app yet while constructing in tests
            return None

    def prime_state_progress(self, run_id: str) -> RunProgress | None:
        try:
            return self.app.state.progress.get(run_id)  # type: ignore[attr-defined]
        except Exception:  # noqa: BLE001 - no app yet while constructing in tests
            return None

    def compose_body(self) -> ComposeResult:
        yield Static("", id="run-cursor", markup=False)
        with RunTabs(id="run-tabs"):
            with TabPane("Overview", id="tab-overview"):
                with VerticalScroll():
                    yield Static("Loading run…", id="run-summary")
                    yield Static("", id="run-anomalies-hint", classes="hint", markup=False)
                    yield SafeTable(id="run-anomalies", cursor_type="row")
                    yield Static("Checkpoints", classes="hint")
                    yield SafeTable(id="run-checkpoints", cursor_type="row")
            with TabPane("Config", id="tab-config"):
                config = CodeView.code_editor("", language="toml", read_only=True, id="run-config")
                config.cursor_blink = False  # read-only: a blinking cursor repaints an idle tab twice a second
                yield config

    def on_mount(self) -> None:
        table = self.query_one("#run-checkpoints", DataTable)
        for key, label in (
            ("step", "Step"),
            ("status", "Status"),
            ("size", "Size"),
            ("created", "Created"),
            ("cmd", "Download with"),
        ):
            table.add_column(label, key=key)
        flags = self.query_one("#run-anomalies", DataTable)
        for key, label in (
            ("flag", ""),
            ("step", "Step"),
            ("kind", "Kind"),
            ("component", "Component"),
            ("message", "What"),
        ):
            flags.add_column(label, key=key)
        self.watch(self.app, "watched", self.render_run, init=False)  # the summary's "◉ watched"
        # The first frame (the run may be known from the runs list already), once the screen counts
        # as mounted: drawn here it was skipped (``alive`` is false during Mount), and a failed run
        # whose later snapshots equal the list's never drew at all ("Loading run…" for good).
        self.call_later(self.render_run)
        super().on_mount()

    # ---- data -------------------------------------------------------------------------------
    # The run (R2), its metrics (R10) and checkpoints (R13) come from the client's FollowerHub,
    # shared with the monitor panes and the runs list: one request stream per resource.
    def subscribe(self) -> list[Any]:
        hub = self.hub
        subs = [
            hub.watch(self.run_id, self.sink(self.on_run_event)),
            hub.metrics(
                self.run_id, self.sink(self.on_metric_event), status=run_status(self.run) if self.run else None
            ),
        ]
        self._checkpoints_sub = self._subscribe_checkpoints()
        return subs

    def on_unmount(self) -> None:
        # Held apart from ``_subscriptions`` (a terminal run's is closed and opened again by
        # ``poll``), so the base class does not close it: left open, the hub kept polling the
        # checkpoints into this closed screen, and kept the screen.
        if self._checkpoints_sub is not None:
            self._checkpoints_sub.close()
            self._checkpoints_sub = None

    def _subscribe_checkpoints(self) -> Any:
        client, run_id = self.client, self.run_id

        async def fetch() -> Any:
            # Not a method: the shared resource keeps the fetch of the screen that created it,
            # and a bound method would keep that screen once it closed.
            return list(await client.list_checkpoints(run_id))

        return self.hub.resource(
            ("checkpoints", self.run_id),
            fetch,
            self.sink(self.on_checkpoints),
            interval=self.prime.interval(self.poll_interval, self.refresh_key),
        )

    def poll(self) -> None:
        """Refresh now (the refresh key); after a terminal status, look for late checkpoints again."""
        if self._checkpoints_sub is None or self._checkpoints_sub.closed:
            self._checkpoints_sub = self._subscribe_checkpoints()
        self.hub.revive_run(self.run_id)
        super().poll()
        self._checkpoints_sub.refresh()

    def on_run_event(self, event: Any) -> None:
        if isinstance(event, PollFailed):
            self.failed(event.error)
        elif isinstance(event, RunUpdate):
            self.ok()
            self.run = event.run
            self.prime.observe_run(event.run)
            self.prime.state.note_run(event.run)  # a run just dispatched is in the palette before the list is read
            if run_status(event.run) in TERMINAL_RUN_STATUSES:
                if self._checkpoints_sub is not None:
                    self._checkpoints_sub.refresh()  # the final look, now rather than after the interval
            else:
                # Kept by hand: a live run's elapsed time and ETA move with the clock, which no
                # reactive holds; each poll is its tick (an unchanged summary is not redrawn).
                self.render_run()

    def on_metric_event(self, event: Any) -> None:
        if isinstance(event, MetricRows):
            progress = self.prime.state.progress.setdefault(self.run_id, RunProgress())
            progress.extend(event.rows)
            self.set_reactive(RunScreen.progress, progress)
            self.mutate_reactive(RunScreen.progress)  # extended in place: its watcher is told so
        elif isinstance(event, DataNotes):
            self.prime.say_notes(f"metrics of run {self.run_id}: {note}" for note in event.notes)

    def on_checkpoints(self, result: Any) -> None:
        if result.ok:
            self.checkpoints = result.value  # redrawn only when the list changed
            self.prime.say_notes(f"checkpoints of run {self.run_id}: {n}" for n in getattr(result.value, "notes", ()))
        if self.run is not None and run_status(self.run) in TERMINAL_RUN_STATUSES:
            # The last checkpoint can land just after the status turns terminal (teardown): look
            # a few more times, then stop polling a run that cannot change.
            self.terminal_polls += 1
            self.final_fetch_done = self.terminal_polls >= 3 or bool(self.checkpoints and self.terminal_polls >= 2)
            if self.final_fetch_done and self._checkpoints_sub is not None:
                self._checkpoints_sub.close()
        self.links_poll()

    # ---- rendering --------------------------------------------------------------------------
    def watch_run(self) -> None:
        self.render_run()

    def watch_checkpoints(self) -> None:
        self.render_run()

    def watch_progress(self) -> None:
        self.render_run()

    def render_screen(self) -> None:
        self.render_run()

    def render_run(self) -> None:
        """Draw the run from ``run``, ``checkpoints``, ``progress`` and the watched runs: each part
        only when it changed."""
        if not self.alive or self.hidden():
            return
        summary = self.query_one("#run-summary", Static)
        run = self.run
        if run is None:
            update_static(summary, plain(self.loading_text(f"Loading run {self.run_id}…")))
            return
        now = self.prime.state.now()
        progress = self.progress
        row = run_row(run, progress, now)
        self.title = clean(f"Run {row.name or row.id}")
        if self._on_screen(self.query_one("#tab-overview", TabPane)):
            update_static(summary, self.summary_renderable(run, row, progress))
            self.render_checkpoints(row)
        else:
            # Drawn when the Overview tab is shown (a hidden layout still reflows): the summary and
            # the checkpoints, whose best-eval mark reads every metric row.
            self._summary_behind = True
        if not self._config_shown:
            self.query_one("#run-config", TextArea).load_text(config_toml(run))
            self._config_shown = True
        if not self._monitor_mounted:
            self._monitor_mounted = True
            self.mount_monitor(run)

    def summary_renderable(self, run: Any, row: RunRow, progress: RunProgress | None) -> Group:
        grid = Table.grid(padding=(0, 2))
        grid.add_column(style="bold", no_wrap=True)
        grid.add_column()
        status = Text(clean(status_label(row.status)), style=tone_style(self, row.tone))
        if row.id in self.prime.state.watched:
            status.append("  ◉ watched", style="dim")
        grid.add_row("Status", status)
        grid.add_row("Run", plain(f"{row.name + '  ' if row.name else ''}{row.id}"))
        grid.add_row("Model", plain(row.model))
        grid.add_row("Volume", plain(row.volume))
        grid.add_row("Steps", Text.assemble((row.bar, tone_style(self, "accent")), plain(f" {row.steps_text()}")))
        if row.kind == "rl":
            for label, text in self.rl_rows(run, progress):  # RunLinksMixin: environments, reward, Trainable k/n, lag
                grid.add_row(label, text)
        elif row.loss is not None:
            grid.add_row(
                "Loss",
                Text.assemble(
                    (sparkline(progress.last_losses(24) if progress else [], 24), tone_style(self, "accent")),
                    f" {row.loss_text()}",
                ),
            )
        grid.add_row("Elapsed / ETA", plain(f"{row.elapsed} / {row.eta}"))
        grid.add_row("GPUs", plain(run_gpus_detail(run)))
        life = Text()
        for i, event in enumerate(run_lifecycle(run)):
            if i:
                life.append("  →  ", style="dim")
            life.append(f"{event.label} ", style="bold")
            life.append(clean(event.when))
        grid.add_row("Lifecycle", life)
        ahead = run.runs_ahead
        reason = run.queue_reason
        if ahead is not None or reason:
            queue = f"{ahead} runs ahead" if ahead is not None else ""
            grid.add_row(
                "Queue",
                Text(clean(" · ".join(p for p in (queue, str(reason or "")) if p)), style=tone_style(self, "warning")),
            )
        notice = run.notice
        if notice:
            grid.add_row("Notice", plain(notice))
        parts: list[Any] = [grid]
        error = run.error_message
        if error:
            parts.append(Text.assemble(("\nError  ", f"bold {tone_style(self, 'error')}"), clean(error)))
        fa = failure_analysis(run)
        if fa is not None:
            head = Text.assemble(("Failure analysis  ", "bold"), clean(fa.root_cause))
            if fa.confidence is not None:
                head.append(f"  (confidence {fa.confidence:.0%})", style="dim")
            parts.append(head)
            for ev in fa.evidence:
                parts.append(Text(clean(f"  • {ev}"), style="dim"))
        actions = sorted(actions_for(run) - {"copy_id", "copy_path"})
        parts.append(Text(f"\nActions now: {', '.join(actions) if actions else 'none'} (see footer)", style="dim"))
        successor = resumed_as(run)
        if successor:
            parts.append(
                Text(clean(f"It continues as run {successor}: open that run to follow it (ctrl+p)."), style="dim")
            )
        return Group(*parts)

    def render_checkpoints(self, row: RunRow) -> None:
        table = self.query_one("#run-checkpoints", DataTable)
        volume = row.volume if row.volume != DASH else None
        best = self.best_eval_mark([ck.step for ck in self.checkpoints])
        shown = (volume, row.id, best, tuple((c.step, c.status, c.size_bytes, c.created_at) for c in self.checkpoints))
        if shown == self._checkpoints_shown:  # an unchanged list is not redrawn
            return
        self._checkpoints_shown = shown
        before = self.highlighted_checkpoint_step()
        table.clear()
        for ck in sorted(self.checkpoints, key=lambda c: c.step):
            step = ck.step
            status = ck.status
            table.add_row(
                str(step),
                f"{status} {BEST_MARK}" if step == best else status,
                fmt_bytes(ck.size_bytes),
                fmt_time(ck.created_at),
                checkpoint_command(volume, row.id, step),
                key=str(step),
            )
        if not self.checkpoints:
            table.add_row("-", "none yet", "", "", "checkpoints appear here as the trainer saves them", key="none")
        self.place_checkpoint_cursor(table, before, best)

    def mount_monitor(self, run: Any) -> None:
        """Mount the monitor panes (logs, charts, components, evals) as tabs if installed."""
        tabs = self.query_one("#run-tabs", TabbedContent)
        for tab_id, title, widget in monitor_panes(self.client, run) + rl_panes(self.client, run):
            self.attach_pane(widget)
            self.track_mount(tabs.add_pane(TabPane(title, widget, id=tab_id)))  # the app removes the screen after them

    # ---- actions ----------------------------------------------------------------------------
    def action_tab(self, index: int) -> None:
        """Show the run tab at ``index`` (keys 1-7: overview, config, then the monitor tabs)."""
        tabs = self.query_one("#run-tabs", TabbedContent)
        # Only this TabbedContent's own panes: the monitor panes nest tabs of their own.
        panes = [pane for pane in tabs.get_child_by_type(ContentSwitcher).children if isinstance(pane, TabPane)]
        if 0 <= index < len(panes) and panes[index].id:
            focused = self.focused
            if focused is not None and panes[index] not in focused.ancestors:
                self.set_focus(None)  # a focus left in the tab shown before must not pull it back (RunTabs)
            tabs.active = cast(str, panes[index].id)
            self._give_keys(panes[index])
            self.call_after_refresh(self._give_keys, panes[index])

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        """The tab shown takes the keys at once (its log's `/`, its chart's keys), at any depth.

        Only a tab the user can see: a nested tab strip (the log pane's trainer/all) activates its
        first tab as it mounts, in a hidden run tab, and focusing in there would pull the whole
        screen over to that tab (TabbedContent follows focus).
        """
        if self._on_screen(event.pane):
            self.call_after_refresh(self._give_keys, event.pane)
        if event.pane.id == "tab-overview" and self._summary_behind:
            self._summary_behind = False
            self.render_run()  # kept by hand: catches up the summary skipped while another tab was shown

    def _on_screen(self, pane: Any) -> bool:
        shown = self.query_one("#run-tabs", TabbedContent).active_pane
        return shown is not None and (pane is shown or shown in pane.ancestors)

    def _give_keys(self, pane: Any) -> None:
        if not self._on_screen(pane):
            return  # another tab was shown meanwhile
        focused = self.focused
        if focused is not None and types_text(focused) and pane in focused.ancestors:
            return  # already typing in this tab (its search prompt)
        focus_content(pane)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        allowed_by_status = {"stop", "pause", "resume", "restart", "delete"}
        if action in allowed_by_status:
            if self.run is None or self._action_in_flight:
                return None  # shown disabled: the status it would act on is not known yet
            return action in actions_for(self.run)
        return True

    def act(self, action: str) -> None:
        """Run an action by name (from the palette), refusing ones the status does not allow."""
        if self.run is not None and action not in actions_for(self.run):
            self.notify(
                f"{action.capitalize()} is not possible while the run is {run_status(self.run)}.", severity="warning"
            )
            return
        getattr(self, f"action_{action}")()

    def action_back(self) -> None:
        self.app.pop_screen()  # while the monitor tabs still mount too: the app removes the screen after them

    def _confirm(self, title: str, body: str, label: str, then) -> None:
        def done(answer: bool | None) -> None:
            if answer:
                then()

        self.app.push_screen(ConfirmScreen(title, body, label), done)

    def _vol(self) -> str:
        return self.run.volume_name or "its volume"

    def action_stop(self) -> None:
        self._confirm(
            f"Stop run {self.run_id}?",
            f"The trainer stops now. Checkpoints already saved stay on {self._vol()} under runs/{self.run_id}/; "
            "steps since the last checkpoint are lost.",
            "Stop",
            lambda: self.call_action("stop_run", self.client.stop_run, "Stopping"),
        )

    def action_pause(self) -> None:
        self._confirm(
            f"Pause run {self.run_id}?",
            "A checkpoint is written and the run ends as PAUSED. A paused run cannot be unpaused: "
            "resume creates a NEW run from that checkpoint (secrets are not kept).",
            "Pause",
            lambda: self.call_action("pause_run", self.client.pause_run, "Pausing"),
        )

    def action_restart(self) -> None:
        self._confirm(
            f"Restart run {self.run_id}?",
            "The run restarts from its latest checkpoint; progress since that checkpoint is lost.",
            "Restart",
            lambda: self.call_action("restart_run", self.client.restart_run, "Restarting"),
        )

    def action_delete(self) -> None:
        self._confirm(
            f"Delete run {self.run_id}?",
            "The run, its logs and its metrics are removed from the platform and cannot be brought back. "
            f"Its checkpoints on {self._vol()} (runs/{self.run_id}/) stay on the volume.",
            "Delete",
            lambda: self.call_action("delete_run", self.client.delete_run, "Deleting"),
        )

    def action_resume(self) -> None:
        self.do_resume()

    @work(group="run-action")
    async def call_action(self, name: str, method, verb: str) -> None:
        self.notify(f"{verb} {self.run_id}…")
        # Until the platform answers, the status shown is the one before the action: offering an
        # action on it (a pause while a restart is under way) would send one the run cannot take.
        self._action_in_flight = True
        try:
            reply = await method(self.run_id)
        except Exception as exc:  # noqa: BLE001
            self.failed(exc, toast=True)
            return
        finally:
            self._action_in_flight = False
        self.ok()
        if isinstance(reply, RLRun) and reply.id == self.run_id:
            self.run = reply  # the status the action left (a restart: CREATING), not the one before it
        if name == "delete_run":
            self.notify(f"Deleted run {self.run_id}.")
            self.prime.state.runs = [r for r in self.prime.state.runs if r.id != self.run_id]
            if self.run_id in self.prime.state.watched:
                self.prime.unwatch(self.run_id)
            self.app.pop_screen()
            return
        self.final_fetch_done = False
        self.terminal_polls = 0
        self.poll()

    @work(group="run-action")
    async def do_resume(self) -> None:
        self.notify(f"Resuming {self.run_id} as a new run…")
        try:
            reply = await self.client.resume_run(self.run_id)
        except Exception as exc:  # noqa: BLE001
            self.failed(exc, toast=True)
            return
        self.ok()
        new_id = reply.run_id
        if new_id:
            self.notify(f"Resumed as run {new_id}.")
            self.prime.watch_run(str(new_id))
            self.app.pop_screen()
            self.prime.open_run(str(new_id))

    def action_copy_id(self) -> None:
        self.prime.copy_text(self.run_id, "run id")

    def _checkpoint_path(self) -> str:
        """The highlighted checkpoint's folder on the volume (the run's folder when none is listed)."""
        table = self.query_one("#run-checkpoints", DataTable)
        path = checkpoint_path(self.run_id)
        if table.row_count and self.checkpoints:
            try:
                key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
                path = checkpoint_path(self.run_id, int(cast(str, key)))  # checkpoint rows are keyed by step
            except (CellDoesNotExist, ValueError):  # the cursor is off the rows, or on the "none yet" row
                pass
        return path

    def action_copy_path(self) -> None:
        self.prime.copy_text(shlex.quote(self._checkpoint_path()), "volume path")  # pasted into a shell: one word

    def action_get_checkpoint(self) -> None:
        """g: the get dialog on the highlighted checkpoint (what `prime volumes get … step_N/` does)."""
        volume = self.run.volume_name if self.run else None
        if not volume:
            self.notify("This run has no volume, so it has no checkpoints to get.", severity="warning")
            return
        from primetui.ui.transfer import GET, TransferScreen

        source = self._checkpoint_path().rstrip("/")
        self.app.push_screen(TransferScreen(self.client, str(volume), GET, settings=self.prime.settings, source=source))

    def action_watch(self) -> None:
        watched = self.prime.toggle_watch(self.run_id)  # the app's ``watched``: the summary follows
        self.notify("Watching this run." if watched else "Stopped watching this run.")
