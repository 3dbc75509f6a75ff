"""Browse a volume without a session: folders, sizes (du), and the head of a file.

Opened from the Volumes screen (``b``). It reads through the volume's storage route (V9 ``get``,
read-only), so it opens no session; while a read-write session is live it says the view is as of
the last sync. ``enter`` opens a folder or previews a file (text and JSON as text, jsonl and
parquet as their first rows), ``backspace`` goes up, ``g`` opens the get dialog on the highlighted
file or folder.
"""

from __future__ import annotations

import asyncio
from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static

from primetui.viewmodel.fmt import fmt_bytes
from primetui.viewmodel.volume_view import session_blocks_dispatch
from primetui.ui.safe import SafeTable, plain
from primetui.ui.styles import tcss


class VolumeBrowserScreen(ModalScreen[None]):
    """The browser for one volume."""

    CSS_PATH = tcss("volume_browser.tcss")
    BINDINGS = [
        Binding("escape", "close", "Close", id="browser.close"),
        Binding("backspace", "up", "Up", id="browser.up"),
        Binding("g", "get", "Get", id="browser.get"),
        Binding("E", "export", "Export to S3", id="browser.export"),
    ]

    def __init__(self, client: Any, volume: str, *, settings: Any = None, path: str = "") -> None:
        super().__init__()
        self.client = client
        self.volume = volume
        self.settings = settings
        self.path = path.strip("/")
        self.route: Any = None
        self.listing: Any = None

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(plain(f"{self.volume}:/"), id="browser-title")
            yield Static("", id="browser-note")
            table = SafeTable(id="browser-table", cursor_type="row")
            table.add_columns("Name", "Size", "Files", "Modified")
            yield table
            yield Static("", id="browser-preview")
            yield SafeTable(id="browser-rows")
            yield Static("enter: open / preview  ·  backspace: up  ·  g: get  ·  esc: close", id="browser-hint")

    def on_mount(self) -> None:
        self.query_one("#browser-table", DataTable).focus()
        self.run_worker(self._open(), exclusive=True, group="browse", exit_on_error=False)

    def _say(self, wid: str, text: str) -> None:
        # Kept by hand: one-off messages of the reads as they go (reading, empty, failed); nothing reads them back.
        if self.is_attached:
            self.query_one(f"#{wid}", Static).update(plain(text))

    async def _open(self) -> None:
        from primetui.api.errors import NotFoundError

        self._say("browser-preview", f"Reading {self.volume}…")
        try:
            self.route = await self.client.route_transfer(self.volume, "get", "")
        except NotFoundError:
            self._say(
                "browser-preview",
                "This platform offers no direct storage route, so its files can only be "
                "browsed in a session's shell (o opens one, enter attaches).",
            )
            return
        except Exception as exc:  # noqa: BLE001 - one sentence, the dialog stays
            self._say("browser-preview", f"Could not read {self.volume}: {exc}")
            return
        if self.route.via != "r2":
            self._say("browser-preview", "The platform routed reads through a session; browse in its shell instead.")
            return
        try:
            sessions = await self.client.list_sessions(self.volume)
        except Exception:  # noqa: BLE001 - the note is advice, the listing still works
            sessions = []
        live = [s for s in sessions if session_blocks_dispatch(s)]
        if live:
            self._say(
                "browser-note",
                f"As of the last sync: read-write session {live[0].id} is live, "
                "and its changes appear here once it stops.",
            )
        await self._load()

    def _storage(self) -> Any:
        from primetui.api.volume_storage import VolumeStorage

        return VolumeStorage(self.route)

    async def _load(self) -> None:
        from primetui.api.volume_browse import folder

        def read() -> Any:
            with self._storage() as storage:
                return folder(storage, self.path)

        self._say("browser-title", f"{self.volume}:/{self.path + '/' if self.path else ''}")
        try:
            self.listing = await asyncio.to_thread(read)
        except Exception as exc:  # noqa: BLE001
            self._say("browser-preview", f"Could not list /{self.path}: {exc}")
            return
        table = self.query_one("#browser-table", DataTable)
        table.clear()
        for child in self.listing.children:
            when = child.modified.strftime("%Y-%m-%d %H:%M") if child.modified else "-"
            table.add_row(
                child.name + ("/" if child.is_dir else ""),
                fmt_bytes(child.size),
                str(child.files) if child.is_dir else "",
                when,
                key=child.name,
            )
        more = " (first 50,000 objects)" if self.listing.truncated else ""
        self._say(
            "browser-preview",
            f"{len(self.listing.children)} entries, {fmt_bytes(self.listing.total)}{more}"
            if self.listing.children
            else "This folder is empty.",
        )
        self._rows_visible(False)

    def _highlighted(self) -> Any:
        table = self.query_one("#browser-table", DataTable)
        if self.listing is None or not table.row_count:
            return None
        name = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        return next((c for c in self.listing.children if c.name == name), None)

    def _rel(self, child: Any) -> str:
        return f"{self.path}/{child.name}" if self.path else child.name

    @on(DataTable.RowSelected, "#browser-table")
    def chosen(self, event: DataTable.RowSelected) -> None:
        event.stop()
        child = self._highlighted()
        if child is None:
            return
        if child.is_dir:
            self.path = self._rel(child)
            self.run_worker(self._load(), exclusive=True, group="browse", exit_on_error=False)
        else:
            self.run_worker(self._preview(child), exclusive=True, group="preview", exit_on_error=False)

    async def _preview(self, child: Any) -> None:
        from primetui.api.volume_browse import preview

        rel = self._rel(child)

        def read() -> Any:
            with self._storage() as storage:
                return preview(storage, rel, child.size)

        self._say("browser-preview", f"Reading the head of {rel}…")
        try:
            shown = await asyncio.to_thread(read)
        except Exception as exc:  # noqa: BLE001
            self._say("browser-preview", f"Could not preview {rel}: {exc}")
            return
        if shown.columns:
            rows = self.query_one("#browser-rows", DataTable)
            rows.clear(columns=True)
            rows.add_columns(*shown.columns)
            for row in shown.rows:
                rows.add_row(*row)
            self._rows_visible(True)
            self._say("browser-preview", f"{rel}: first {len(shown.rows)} row(s), columns {', '.join(shown.columns)}")
        else:
            self._rows_visible(False)
            self._say("browser-preview", shown.text)

    def _rows_visible(self, on: bool) -> None:
        self.query_one("#browser-rows", DataTable).set_class(on, "visible")

    def action_up(self) -> None:
        if not self.path:
            return
        self.path = self.path.rsplit("/", 1)[0] if "/" in self.path else ""
        self.run_worker(self._load(), exclusive=True, group="browse", exit_on_error=False)

    def action_get(self) -> None:
        child = self._highlighted()
        if child is None:
            return
        from primetui.ui.transfer import GET, TransferScreen

        source = self._rel(child)  # a folder without "/": the get copies the folder itself
        self.app.push_screen(TransferScreen(self.client, self.volume, GET, settings=self.settings, source=source))

    def action_export(self) -> None:
        """E: export this folder (the highlighted folder, else the one shown) to S3."""
        from primetui.ui.s3_transfers import open_transfer_dialog

        child = self._highlighted()
        folder = self._rel(child) if child is not None and child.is_dir else self.path
        open_transfer_dialog(self, self.client, self.volume, "export", folder)

    def action_close(self) -> None:
        self.dismiss(None)
