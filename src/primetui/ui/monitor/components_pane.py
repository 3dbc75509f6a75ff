"""The Components pane: every process of the run and its status (trainer, orchestrator,
inference, one env server per eval environment), as ``prime train components`` lists them
but live."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.reactive import var
from textual.widgets import DataTable, Static

from primetui.ui.safe import SafeTable, plain
from primetui.ui.widgets import displayed, update_static
from primetui.monitor_core.components import has_evals, log_specs
from primetui.monitor_core.pods import failed_pod
from primetui.ui.monitor.feed import FeedMixin

if TYPE_CHECKING:
    from primetui.api.models import EnvServer
    from primetui.api.plainrun import Run

_RUN_TO_PROCESS = {
    "QUEUED": "queued",
    "PENDING": "pending",
    "CREATING": "starting",
    "RUNNING": "running",
    "PAUSING": "stopping",
    "PAUSED": "paused",
    "STOPPED": "stopped",
    "COMPLETED": "completed",
    "FAILED": "failed",
}
_TONE = {
    "running": "success",
    "ready": "success",
    "healthy": "success",
    "completed": "muted",
    "stopped": "muted",
    "paused": "muted",
    "failed": "error",
    "error": "error",
    "crashed": "error",
    "pending": "warning",
    "queued": "warning",
    "starting": "warning",
    "stopping": "warning",
}


def component_rows(run: Run, env_servers: list[EnvServer] | None) -> list[tuple[str, str, str, str]]:
    """(component, kind, status, detail) for every process of the run."""
    status = (run.status or "?").upper()
    error = run.error_message or ""
    proc = _RUN_TO_PROCESS.get(status, status.lower())
    rows = []
    for spec in log_specs(run, env_servers):
        if spec.component == "env-server":
            continue
        state, detail = proc, ""
        if proc == "failed":
            # Name the component that failed when the platform's message does.
            named = spec.component in error.lower()
            state = (
                "failed"
                if named
                or spec.component == "trainer"
                and not any(c in error.lower() for c in ("orchestrator", "inference", "env-server", "env server"))
                else "stopped"
            )
            pod = failed_pod(error, spec.component)
            if spec.pod_index is not None and pod is not None:
                state = "failed" if spec.pod_index == pod else "stopped"
            detail = error if state == "failed" else ""
        if spec.pod_index is not None and proc != "failed":
            detail = f"node {spec.pod_index}"
        kind = {
            "trainer": "training",
            "orchestrator": "eval orchestration",
            "inference": "eval inference",
            "router": "eval routing",
        }.get(spec.component, spec.component)
        rows.append((spec.title, kind, state, detail))
    for server in env_servers or []:
        name = server.env_name or server.pod_name or "env-server"
        index = server.env_index
        state = (server.status or "?").lower()
        detail = f"pod {server.pod_name}" + (f", source #{index}" if index is not None else "")
        if state in ("failed", "error", "crashed") and error:
            detail = error
        rows.append((f"env:{name.split('/')[-1]}", "env server", state, detail))
    if has_evals(run) and not env_servers:
        rows.append(("env servers", "env server", "unknown", "not listed by the platform yet"))
    return rows


class ComponentsPane(FeedMixin, Vertical):
    """Processes of one run with their status: ``ComponentsPane(client, run)``."""

    _ready = False
    DEFAULT_CSS = """
    ComponentsPane { height: 1fr; }
    ComponentsPane > DataTable { height: auto; max-height: 1fr; }
    ComponentsPane > .components--note { color: $text-muted; padding: 0 1; }
    ComponentsPane > .components--error { color: $error; padding: 0 1; }
    """

    # What the table shows; setting one draws it again, and a poll that brings the same run or
    # the same env servers redraws nothing.
    run: var[Run | None] = var(None, init=False)
    """The run as last read (R2): its components and their status."""
    env_servers: var[list[EnvServer] | None] = var(None, init=False)
    """R8's env servers, None until listed."""
    note: var[str] = var("", init=False)
    """Why the env servers could not be listed (kept until a listing works)."""

    def __init__(self, client: Any, run: Run, *, follow: bool = True, id: str | None = None) -> None:
        super().__init__(id=id)
        self.client = client
        self.set_reactive(ComponentsPane.run, run)
        self.run_id = run.id or "run"
        self.follow_enabled = follow

    def compose(self) -> ComposeResult:
        table: DataTable = SafeTable(cursor_type="row", zebra_stripes=True)
        yield table
        yield Static("", classes="components--note")

    def on_mount(self) -> None:
        self._ready = True
        table = self.query_one(DataTable)
        for key, label in (("component", "Component"), ("kind", "Kind"), ("status", "Status"), ("detail", "Detail")):
            table.add_column(label, key=key)
        self.render_rows()
        if self.follow_enabled and self.client is not None:
            self._feed_init()
            self._start_watcher()
            if has_evals(cast("Run", self.run)):  # set in __init__
                self.run_worker(self._poll_env_servers(), group="monitor-feed", exit_on_error=False)

    def on_unmount(self) -> None:
        self.stop_feed()

    async def _poll_env_servers(self) -> None:
        import asyncio

        from primetui.api.models import is_terminal_run_status

        while True:
            try:
                self.set_env_servers(await self.client.list_env_servers(self.run_id))
                self.note = ""
            except Exception as exc:  # noqa: BLE001 - show it, keep the last list, retry
                self.note = f"Env servers: {exc}"
            if self.run is not None and is_terminal_run_status(self.run.status):
                return
            await asyncio.sleep(5.0)

    def on_run_update(self, run: Any) -> None:
        self.run = run

    def watch_run(self) -> None:
        self.render_rows()

    def watch_env_servers(self) -> None:
        self.render_rows()

    def watch_note(self) -> None:
        self.render_rows()

    def set_run(self, run: Any) -> None:
        """Show a newer snapshot of the run."""
        self.on_run_update(run)

    def set_env_servers(self, servers: list[EnvServer]) -> None:
        """Show R8's env-server list."""
        self.env_servers = list(servers)

    _shown: object = None
    """The rows and note the table shows now (an unchanged poll redraws nothing)."""
    _behind = False
    """The run changed while the pane was not on screen: drawn when it is shown."""

    def on_show(self) -> None:
        if self._behind:
            self.render_rows()

    def render_rows(self) -> None:
        if not self._ready:
            return
        if not displayed(self):
            # Another tab is shown: every run poll would clear and refill a table nobody sees.
            self._behind = True
            return
        self._behind = False
        if self.run is None:
            return
        rows = component_rows(self.run, self.env_servers)
        if (rows, self.note) == self._shown:
            return
        self._shown = (rows, self.note)
        table = self.query_one(DataTable)
        table.clear()
        for name, kind, state, detail in rows:
            tone = _TONE.get(state, "")
            style = {"success": "bold", "error": "bold reverse", "warning": "italic", "muted": "dim"}.get(tone, "")
            table.add_row(
                name, kind, Text(f"● {state}" if tone != "muted" else f"○ {state}", style=style), detail, key=name
            )
        update_static(self.query_one(".components--note", Static), plain(self.note))
