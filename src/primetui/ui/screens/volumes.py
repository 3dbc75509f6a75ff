"""Volumes screen: volumes (V1–V4), their sessions (V5–V8), final sync, S3 transfers (V11–V14), the size helper."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.reactive import var
from textual.widgets import DataTable, Static

from primetui.ui.safe import SafeTable, clean, plain
from primetui.viewmodel.errors import describe, is_refusal
from primetui.viewmodel.fmt import fmt_age, fmt_time
from primetui.viewmodel.volume_view import (
    check_volume_name,
    check_volume_size,
    session_blocks_dispatch,
    session_is_live,
    session_mode,
    volume_status_label,
    volume_usage,
)
from primetui.ui.columns import fill_table
from primetui.ui.screens.base import DashboardScreen
from primetui.ui.s3_transfers import TransfersPanel, open_transfer_dialog
from primetui.viewmodel.sizing_hook import size_report
from primetui.ui.widgets import ConfirmScreen, FormScreen, tone_style, update_static
from primetui.ui.styles import tcss

if TYPE_CHECKING:
    from collections.abc import Callable

    from primetui.api.models import Volume, VolumeSession

    _Done = Callable[[Any], None]  # a dialog's callback (its value is ignored)


VOLUME_COLUMNS = [
    ("name", "Name"),
    ("size", "Size"),
    ("status", "Status"),
    ("cluster", "Cluster"),
    ("created", "Created"),
    ("live", "Live sessions"),
    ("usage", "Used / free"),
]
VOLUME_PRIORITY = ["name", "status", "live", "size", "usage", "created", "cluster"]
SESSION_COLUMNS = [
    ("id", "Session"),
    ("mode", "Mode"),
    ("status", "Status"),
    ("phase", "Phase"),
    ("progress", "Staging progress"),
    ("age", "Age"),
]
SESSION_PRIORITY = ["id", "mode", "phase", "progress", "status", "age"]


class VolumesScreen(DashboardScreen):
    """Volumes on top, the selected volume's sessions below, a loud flag for live RW sessions."""

    TITLE = "Volumes"
    AUTO_FOCUS = "#volumes-table"
    poll_interval = 5.0
    BINDINGS = [
        Binding("c", "create", "Create", id="volumes.create"),
        # Browse and Open RW before Expand and Delete: an 80-column footer has room for four keys besides Help and Quit.
        Binding("b", "browse", "Browse", id="volumes.browse"),
        Binding("o", "open_session(False)", "Open RW", id="volumes.open_rw"),
        Binding("plus", "expand", "Expand", id="volumes.expand"),
        Binding("d", "delete", "Delete", id="volumes.delete"),
        Binding("O", "open_session(True)", "Open RO", show=False, id="volumes.open_ro"),
        Binding("s", "stop_session", "Stop session", show=False, id="volumes.stop_session"),
        Binding("S", "stop_live_rw", "Stop live RW", id="volumes.stop_live_rw"),
        Binding("enter", "shell", "Shell", id="volumes.shell"),
        Binding("z", "size_helper", "Size helper", id="volumes.size_helper"),
        Binding("p", "transfer('put')", "Put", id="volumes.put"),
        Binding("g", "transfer('get')", "Get", id="volumes.get"),
        Binding("i", "s3_transfer('import')", "Import S3", id="volumes.s3_import"),
        Binding("E", "s3_transfer('export')", "Export S3", id="volumes.s3_export"),
        Binding("x", "cancel_transfer", "Cancel transfer", show=False, id="volumes.cancel_transfer"),
        Binding("tab", "app.focus_next", "Next table", show=False, id="volumes.focus_next"),
    ]
    CSS_PATH = tcss("volumes.tcss")

    selected: var[str | None] = var(None, init=False)
    """The volume under the cursor: the table's cursor, its sessions and the size helper follow it."""
    awaiting: str | None = None
    """A volume just created, selected before a list has it (a list fetched earlier does not)."""
    size_inputs: var[dict[str, str]] = var(dict, init=False)
    """What the size helper (``z``) was given: its line below the sessions."""

    def __init__(self) -> None:
        super().__init__()
        self.just_opened: tuple[str, str] | None = None  # (volume, session id) of the last o / O
        self.new_session: str | None = None  # just opened: the sessions table moves to it once listed
        self.ended_age: dict[str, str] = {}  # a stopped session's age, frozen when it was first seen stopped

    def compose_body(self) -> ComposeResult:
        with Vertical():
            yield Static("", id="rw-flag")
            yield SafeTable(id="volumes-table", cursor_type="row", zebra_stripes=True)
            yield Static("", id="volumes-empty")
            yield Static("Sessions", id="sessions-title", classes="section")
            yield SafeTable(id="sessions-table", cursor_type="row")
            yield TransfersPanel(id="transfers-panel")
            yield Static("", id="size-helper")

    def on_mount(self) -> None:
        self.render_volumes()  # the first frame: the volumes may be known already (the palette read them)
        super().on_mount()

    # ---- data -------------------------------------------------------------------------------
    # Volumes (V2) with the sessions of each (V6), one shared resource of the client's FollowerHub.
    def subscribe(self) -> list[Any]:
        return [
            self.hub.resource(
                ("volumes", "with-sessions"),
                self._fetch_volumes,
                self.sink(self.on_volumes),
                interval=self.interval_for(),
            )
        ]

    async def _fetch_volumes(self) -> tuple[list[Volume], dict[str, list[VolumeSession]]]:
        volumes: list[Volume] = list(await self.client.list_volumes())
        # Sessions of every volume: the live-session count per row and the loud RW flag need them.
        sessions: dict[str, list[VolumeSession]] = {}
        for volume in volumes:
            name = volume.name
            try:
                sessions[name] = list(await self.client.list_sessions(name))
            except Exception:  # noqa: BLE001 - keep the last good list for that volume
                continue
        return volumes, sessions

    def fetch_volumes(self) -> None:
        """Refresh now (after an action on a volume or a session)."""
        self.poll()

    def on_volumes(self, result: Any) -> None:
        if not self.alive:
            return
        state = self.prime.state
        if not result.ok:
            self.failed(result.error)  # ``load_error``: the empty line says why nothing is listed
            return
        self.ok()
        volumes, sessions = result.value
        self.prime.say_notes(
            [*getattr(volumes, "notes", ()), *(n for s in sessions.values() for n in getattr(s, "notes", ()))]
        )
        state.volumes = volumes
        state.volumes_loaded = True
        state.sessions.update(sessions)
        for gone in set(state.sessions) - {v.name for v in volumes}:
            state.sessions.pop(gone, None)
        # Kept by hand: the volumes and sessions are the app's shared state (the palette reads
        # them), and each poll is the clock's tick for the sessions' ages. An unchanged table is
        # not redrawn.
        self.render_volumes()
        soon = self.prime.interval(1.5)
        if soon > 0 and self.any_session_moving():
            # Staging or the final sync is in progress: look again soon instead of in 5 s.
            self.set_timer(soon, self.poll_if_current)

    def poll_if_current(self) -> None:
        if self.is_current:
            self.poll()

    def any_session_moving(self) -> bool:
        for sessions in self.prime.state.sessions.values():
            for s in sessions:
                phase = (s.phase or "").lower()
                if session_is_live(s) and phase in ("creating", "staging", "syncing", "finalizing"):
                    return True
        return False

    # ---- rendering --------------------------------------------------------------------------
    def on_resize(self) -> None:
        self.render_volumes()  # kept by hand: which columns fit follows the width, which no reactive holds

    def render_screen(self) -> None:
        self.render_volumes()

    def render_volumes(self) -> None:
        if not self.alive or self.hidden():
            return
        state = self.prime.state
        now = state.now()
        vt = self.query_one("#volumes-table", DataTable)
        rows: list[tuple[str, dict[str, Any]]] = []
        for volume in state.volumes:
            name = volume.name
            live = [s for s in state.sessions.get(name, []) if session_is_live(s)]
            live_text = Text(", ".join(f"{session_mode(s)}" for s in live) or "-")
            if any(session_blocks_dispatch(s) for s in live):
                live_text.stylize(tone_style(self, "error"))
            status = volume.status or "-"
            rows.append(
                (
                    name,
                    {
                        "name": name,
                        "size": (volume.size or "-"),
                        "status": Text(
                            clean(volume_status_label(status)),
                            style=tone_style(self, "success" if status == "RUNNING" else "warning"),
                        ),
                        "cluster": volume.cluster or volume.cluster_id or "-",
                        "created": fmt_time(volume.created_at),
                        "live": live_text,
                        "usage": volume_usage(volume),
                    },
                )
            )
        fill_table(vt, VOLUME_COLUMNS, VOLUME_PRIORITY, rows)
        names = [name for name, _ in rows]
        if self.selected in names:
            self.awaiting = None
        elif self.selected is None or self.selected != self.awaiting:
            # gone, or none yet: the first volume (drawn just below). A volume just created stays
            # selected through a list fetched before it existed (the next list has it).
            self.set_reactive(VolumesScreen.selected, names[0] if names else None)
        empty = self.query_one("#volumes-empty", Static)
        if state.volumes_loaded and not state.volumes:
            update_static(empty, "No volumes yet. Press c to create one (e.g. research, 100Gi).")
            empty.add_class("visible")
        elif not state.volumes_loaded:
            update_static(empty, plain(self.loading_text("Loading volumes…")))
            empty.add_class("visible")
        else:
            empty.remove_class("visible")
        self.show_selected(now)
        self.render_rw_flag()

    def watch_selected(self) -> None:
        if not self.alive or self.hidden():
            return
        if self.selected in self.query_one("#volumes-table", DataTable).rows:
            self.show_selected(self.prime.state.now())
        # else a volume not listed yet (just created): drawn when the list has it

    def watch_size_inputs(self) -> None:
        if self.alive and not self.hidden():
            self.render_size_helper()

    def show_selected(self, now) -> None:
        """The selected volume: the cursor on its row, its sessions, the size helper for it."""
        vt = self.query_one("#volumes-table", DataTable)
        if self.selected in vt.rows:
            vt.move_cursor(row=vt.get_row_index(cast(str, self.selected)), animate=False)
        self.render_sessions(now)
        self.query_one(TransfersPanel).show(self.client, self.selected)
        self.render_size_helper()

    def render_sessions(self, now) -> None:
        st = self.query_one("#sessions-table", DataTable)
        selected_session = self.selected_session_id()
        title = self.query_one("#sessions-title", Static)
        rows: list[tuple[str, dict[str, Any]]] = []
        if not self.selected:
            fill_table(st, SESSION_COLUMNS, SESSION_PRIORITY, rows)
            update_static(title, "Sessions")
            return
        sessions = self.prime.state.sessions.get(self.selected, [])
        update_static(
            title, plain(f"Sessions of {self.selected}  ·  o open read-write · O read-only · s stop · enter shell")
        )
        for s in sessions:
            sid = s.id
            live = session_is_live(s)
            mode = session_mode(s)
            mode_text = Text(mode, style=tone_style(self, "error") if live and mode == "RW" else "")
            phase = s.phase or "-"
            rows.append(
                (
                    sid,
                    {
                        "id": sid,
                        "mode": mode_text,
                        "status": Text(clean(s.status or "-"), style="" if live else "dim"),
                        "phase": Text(
                            clean(phase),
                            style=tone_style(self, "warning") if phase in ("staging", "syncing", "finalizing") else "",
                        ),
                        "progress": self.short_progress(str((s.progress or "") or "-")),
                        "age": self.session_age(s, live, now),
                    },
                )
            )
        listed = {s.id for s in sessions}
        if self.new_session in listed:
            selected_session, self.new_session = self.new_session, None
        if not sessions:
            rows.append(("-none-", {"id": "-", "status": "no sessions"}))
        fill_table(st, SESSION_COLUMNS, SESSION_PRIORITY, rows)
        if sessions and selected_session in listed:
            st.move_cursor(row=st.get_row_index(selected_session), animate=False)

    def session_age(self, s: Any, live: bool, now) -> Text | str:
        """How old a session is; a stopped one stops counting (dim, frozen when first seen stopped)."""
        age = fmt_age(s.created_at, now)
        if live:
            return age
        return Text(self.ended_age.setdefault(s.id, age), style="dim")

    def short_progress(self, text: str) -> str:
        """The rclone stats line, cut to what fits: at 80 columns the percentage and ETA matter most."""
        width = self.size.width or 80
        if width >= 120 or len(text) <= 24:
            return text[:60]
        parts = [p.strip() for p in text.split(",")]
        pct = next((p for p in parts if p.endswith("%")), "")
        eta = next((p for p in parts if p.startswith("ETA")), "")
        return " ".join(p for p in (pct, eta) if p) or text[:24]

    def live_rw_sessions(self) -> list[tuple[str, Any]]:
        out = []
        for name, sessions in self.prime.state.sessions.items():
            out += [(name, s) for s in sessions if session_blocks_dispatch(s)]
        return out

    def render_rw_flag(self) -> None:
        flag = self.query_one("#rw-flag", Static)
        live = self.live_rw_sessions()
        if not live:
            flag.remove_class("visible")
            return
        name, s = live[0]
        phase = s.phase or "live"
        more = f" (+{len(live) - 1} more)" if len(live) > 1 else ""
        if str(phase).lower() in ("syncing", "finalizing"):
            update_static(
                flag,
                plain(
                    f"⚠ READ-WRITE session {s.id} on {name} is {phase} its changes back{more}: dispatch waits until "
                    f"it is stopped."
                ),
            )
        else:
            update_static(
                flag,
                plain(
                    f"⚠ READ-WRITE session {s.id} on {name} is {phase}{more}: it blocks dispatch "
                    "until it stops and syncs. Press S to stop it."
                ),
            )
        flag.add_class("visible")

    def render_size_helper(self) -> None:
        helper = self.query_one("#size-helper", Static)
        volume = self.prime.state.find_volume(self.selected) if self.selected else None
        if volume is None or not self.size_inputs:
            update_static(helper, "z: size helper (checkpoints × keep_last + dataset vs the volume size)")
            return
        update_static(helper, plain(size_report(self.size_inputs, (volume.size or ""))))

    def selected_session_id(self) -> str | None:
        st = self.query_one("#sessions-table", DataTable)
        if not st.row_count:
            return None
        try:
            key = st.coordinate_to_cell_key(st.cursor_coordinate).row_key.value
        except Exception:  # noqa: BLE001
            return None
        return None if key in (None, "-none-") else str(key)

    def selected_session(self) -> Any | None:
        sid = self.selected_session_id()
        if not sid or not self.selected:
            return None
        return next((s for s in self.prime.state.sessions.get(self.selected, []) if s.id == sid), None)

    @on(DataTable.RowHighlighted, "#volumes-table")
    def volume_highlighted(self, event: DataTable.RowHighlighted) -> None:
        name = str(event.row_key.value) if event.row_key and event.row_key.value else None
        if name:
            self.selected = name

    @on(DataTable.RowSelected, "#volumes-table")
    def volume_chosen(self, event: DataTable.RowSelected) -> None:
        # enter on the volume just given a session (o / O): that session's shell, as the docs say "o, enter".
        opened = self.just_opened
        if opened is None or opened[0] != self.selected:
            return
        session = next((s for s in self.prime.state.sessions.get(opened[0], []) if s.id == opened[1]), None)
        if session is None:
            self.notify(f"Session {opened[1]} is still starting; enter again once it is listed.", severity="warning")
            return
        table = self.query_one("#sessions-table", DataTable)
        if opened[1] in [str(k.value) for k in table.rows]:
            table.move_cursor(row=table.get_row_index(opened[1]), animate=False)
        self.action_shell()

    @on(DataTable.RowSelected, "#sessions-table")
    def session_chosen(self, event: DataTable.RowSelected) -> None:
        # enter or a click on a session row: the same as the shell key.
        self.action_shell()

    # ---- actions ----------------------------------------------------------------------------
    def action_create(self) -> None:
        def validate(values: dict[str, str]) -> str | None:
            problem = check_volume_name(values["name"]) or check_volume_size(values["size"])
            if problem:
                return problem
            if self.prime.state.find_volume(values["name"]) is not None:
                return f"A volume named {values['name']} already exists; pick another name."
            return None

        self.app.push_screen(
            FormScreen(
                "Create a volume",
                [("name", "Name", ""), ("size", "Size (Gi or Ti)", "100Gi")],
                validate,
                submit_label="Create",
                help_text="Size it for the dataset plus checkpoints: about 12 bytes per parameter per checkpoint kept.",
            ),
            cast("_Done", lambda values: values and self.do_create(values["name"], values["size"])),
        )

    @work(group="volume-action")
    async def do_create(self, name: str, size: str) -> None:
        self.notify(f"Creating volume {name} ({size})…")
        try:
            await self.client.create_volume(name, size)
        except Exception as exc:  # noqa: BLE001
            self.failed(exc, toast=True)
            return
        self.ok()
        self.awaiting = name
        self.selected = name
        self.notify(f"Volume {name} created.")
        self.fetch_volumes()

    def action_expand(self) -> None:
        volume = self.prime.state.find_volume(self.selected) if self.selected else None
        if volume is None:
            self.notify("Select a volume first.", severity="warning")
            return
        current = volume.size or ""

        def validate(values: dict[str, str]) -> str | None:
            return check_volume_size(values["size"], current)

        name = self.selected
        self.app.push_screen(
            FormScreen(
                f"Expand {name} (now {current})",
                [("size", "New size", "")],
                validate,
                submit_label="Expand",
                help_text="Volumes only grow.",
            ),
            cast("_Done", lambda values: values and self.do_expand(name, values["size"])),
        )

    @work(group="volume-action")
    async def do_expand(self, name: str, size: str) -> None:
        try:
            await self.client.expand_volume(name, size)
        except Exception as exc:  # noqa: BLE001
            self.failed(exc, toast=True)
            return
        self.ok()
        self.notify(f"Volume {name} is now {size}.")
        self.fetch_volumes()

    def action_delete(self) -> None:
        name = self.selected
        if not name:
            self.notify("Select a volume first.", severity="warning")
            return
        runs_on = [r for r in self.prime.state.runs if r.volume_name == name]
        body = (
            f"Everything on {name} is deleted for good: datasets, uploaded models, and the checkpoints of "
            f"every run that wrote to it (runs/)"
            + (f" — {len(runs_on)} known run(s)" if runs_on else "")
            + ". This cannot be undone."
        )
        self.app.push_screen(
            ConfirmScreen(f"Delete volume {name}?", body), cast("_Done", lambda ok: ok and self.do_delete(name))
        )

    @work(group="volume-action")
    async def do_delete(self, name: str) -> None:
        try:
            await self.client.delete_volume(name)
        except Exception as exc:  # noqa: BLE001
            self.failed(exc, toast=True)
            return
        self.ok()
        self.notify(f"Volume {name} is being deleted.")
        self.selected = None
        self.fetch_volumes()

    def action_open_session(self, read_only: bool) -> None:
        if not self.selected:
            self.notify("Select a volume first.", severity="warning")
            return
        self.do_open_session(self.selected, read_only)

    @work(group="volume-action")
    async def do_open_session(self, name: str, read_only: bool) -> None:
        mode = "read-only" if read_only else "read-write"
        try:
            session = await self.client.create_session(name, read_only=read_only)
        except Exception as exc:  # noqa: BLE001
            refused_rw = not read_only and is_refusal(exc) and "read-write" in describe(exc)
            if refused_rw:  # the volume has a writer: one toast, with the way out (not a connection error)
                self.notify(describe(exc) + " Tip: press O for a read-only session.", severity="error", timeout=8)
            else:
                self.failed(exc, toast=True)
            return
        self.ok()
        sid = session.id
        self.new_session = str(sid) if name == self.selected else None  # the table's cursor follows it
        self.just_opened = (name, str(sid))
        self.notify(f"Session {sid} ({mode}) on {name} is starting; enter opens a shell once it is ready, s stops it.")
        self.fetch_volumes()

    def action_stop_session(self) -> None:
        session = self.selected_session()
        if session is None:
            self.notify("Select a session in the lower table first (tab moves there).", severity="warning")
            return
        self.do_stop(self.selected or "", session.id)

    def action_stop_live_rw(self) -> None:
        live = self.live_rw_sessions()
        if not live:
            self.notify("No live read-write session.")
            return
        name, s = live[0]
        self.do_stop(name, s.id)

    @work(group="volume-action")
    async def do_stop(self, name: str, session_id: str) -> None:
        try:
            await self.client.stop_session(name, session_id)
        except Exception as exc:  # noqa: BLE001
            self.failed(exc, toast=True)
            return
        self.ok()
        self.notify(f"Stopping {session_id}: its final sync runs now; the phase column shows it until stopped.")
        self.fetch_volumes()

    def action_shell(self) -> None:
        session = self.selected_session()
        if session is None:
            self.notify("Select a session (tab to the sessions table), then press enter.", severity="warning")
            return
        sid = session.id
        if not session_is_live(session):
            self.notify(
                f"Session {sid} is stopped: o opens a new read-write session, O a read-only one.", severity="warning"
            )
            return
        if (session.phase or "").lower() != "ready" and not session.ssh_connection:
            self.notify(f"Session {sid} is not ready yet (phase {(session.phase or '?')}).", severity="warning")
            return
        self.prime.open_shell(session)

    def action_transfer(self, direction: str) -> None:
        """p / g: put a local file or folder onto the selected volume, or get one back (ui/transfer.py)."""
        if not self.selected:
            self.notify("Select a volume first.", severity="warning")
            return
        from primetui.ui.transfer import TransferScreen

        self.app.push_screen(
            TransferScreen(self.client, self.selected, direction, settings=self.prime.settings),
            lambda _: self.fetch_volumes(),
        )

    def action_browse(self) -> None:
        """b: the selected volume's folders, sizes and file heads, read without a session (ui/volume_browser.py)."""
        if not self.selected:
            self.notify("Select a volume first.", severity="warning")
            return
        from primetui.ui.volume_browser import VolumeBrowserScreen

        self.app.push_screen(VolumeBrowserScreen(self.client, self.selected, settings=self.prime.settings))

    def action_s3_transfer(self, direction: str) -> None:
        """i / E: import an S3 prefix into the selected volume, or export a folder of it to S3."""
        if not self.selected:
            self.notify("Select a volume first.", severity="warning")
            return
        open_transfer_dialog(self, self.client, self.selected, direction)

    def action_cancel_transfer(self) -> None:
        """x: cancel the highlighted transfer (the files already copied stay)."""
        panel = self.query_one(TransfersPanel)
        transfer = panel.highlighted()
        if transfer is None or transfer.is_terminal:
            self.notify("Highlight a live transfer in the Transfers table first (tab moves there).", severity="warning")
            return
        self.do_cancel_transfer(transfer.volume_name, transfer.id)

    @work(group="volume-action")
    async def do_cancel_transfer(self, volume: str, transfer_id: str) -> None:
        try:
            await self.client.cancel_volume_transfer(volume, transfer_id)
        except Exception as exc:  # noqa: BLE001
            self.failed(exc, toast=True)
            return
        self.ok()
        self.notify(f"Cancelling transfer {transfer_id}; the files copied so far stay.", markup=False)
        self.hub.poke_transfers(volume)

    def action_size_helper(self) -> None:
        if not self.selected:
            self.notify("Select a volume first.", severity="warning")
            return
        defaults = self.size_inputs or {"params": "0.6B", "keep_last": "1", "dataset": "1Gi"}

        def validate(values: dict[str, str]) -> str | None:
            from primetui.viewmodel.sizing_hook import parse_inputs

            return parse_inputs(values)[1]

        def done(values: dict[str, str] | None) -> None:
            if values:
                self.size_inputs = values

        self.app.push_screen(
            FormScreen(
                f"Size helper for {self.selected}",
                [
                    ("params", "Model parameters (e.g. 0.6B, 7B)", defaults["params"]),
                    ("keep_last", "Checkpoints kept (ckpt.keep_last)", defaults["keep_last"]),
                    ("dataset", "Dataset size (e.g. 2Gi, 500Mi)", defaults["dataset"]),
                ],
                validate,
                submit_label="Compute",
            ),
            done,
        )
