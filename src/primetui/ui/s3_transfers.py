"""S3 import and export in the dashboard: the Transfers panel, the dialogs, and the end-of-job notice.

The panel (on the volumes screen) shows the selected volume's transfers from the hub's shared
``TransfersFollower`` (one poll loop per volume, however many screens show it): direction, paths,
a live progress bar, rate, ETA, errors and state; ``x`` cancels the highlighted one. When a job
ends the person hears it once: a toast, the bell and an ``--on-event`` event (``kind: transfer``).

The dialogs (``i`` import, ``E`` export, and ``E`` in the volume browser and on a checkpoint) ask
for the URL, the volume path, the region and the endpoint. Credentials come from the AWS
environment variables or profile, shown by name only, or are typed into masked fields; the URL
and the path are checked before anything starts.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.containers import Vertical
from textual.widgets import DataTable, Static

from primetui.api import aws_credentials
from primetui.api.followers import TransfersUpdate
from primetui.monitor_core.notify import RunEvent
from primetui.ui.columns import fill_table
from primetui.ui.hub_sink import HubSinks
from primetui.ui.safe import SafeTable, plain
from primetui.ui.widgets import FormScreen, tone_style, update_static
from primetui.viewmodel.transfers import transfer_row

COLUMNS = [
    ("dir", "Dir"),
    ("paths", "From → to"),
    ("bar", "Progress"),
    ("rate", "Rate"),
    ("eta", "ETA"),
    ("errors", "Errors"),
    ("state", "State"),
]
PRIORITY = ["dir", "bar", "state", "eta", "rate", "paths", "errors"]
BAR_CELLS = 12


def bar(fraction: float | None) -> str:
    """``██████░░░░░░  50%``: the progress bar cell (``·`` while the size is not known yet)."""
    if fraction is None:
        return "·" * BAR_CELLS
    full = round(fraction * BAR_CELLS)
    return "█" * full + "░" * (BAR_CELLS - full) + f" {int(fraction * 100):3d}%"


class TransfersPanel(HubSinks, Vertical):
    """The selected volume's S3 transfers, live; ``x`` (on the screen) cancels the highlighted one."""

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.volume: str | None = None
        self.transfers: tuple[Any, ...] = ()
        self._sub: Any = None

    def compose(self):
        yield Static("Transfers", id="transfers-title", classes="section")
        yield SafeTable(id="transfers-table", cursor_type="row")
        yield Static("", id="transfers-detail")

    def show(self, client: Any, volume: str | None) -> None:
        """Follow ``volume``'s transfers (the hub's shared follower); None: none."""
        if volume == self.volume and self._sub is not None:
            return
        self.close()
        self.volume, self.transfers = volume, ()
        if volume is not None and client is not None:
            from primetui.api.hub import hub_for

            self._sub = hub_for(client).transfers(volume, self.sink(self.on_update))
        self.render_rows()

    def close(self) -> None:
        if self._sub is not None:
            self._sub.close()
            self._sub = None

    def on_unmount(self) -> None:
        self.close()

    def on_update(self, event: Any) -> None:
        if not isinstance(event, TransfersUpdate) or event.volume != self.volume:
            return
        self.transfers = event.transfers
        for ended in event.ended:
            announce_end(self.app, ended)
        self.render_rows()

    def render_rows(self) -> None:
        if not self.is_mounted:
            return
        table = self.query_one("#transfers-table", DataTable)
        rows: list[tuple[str, dict[str, Any]]] = []
        for t in self.transfers:
            row = transfer_row(t)
            rows.append(
                (
                    row.id,
                    {
                        "dir": "import" if row.direction == "import" else "export",
                        "paths": row.arrow,
                        "bar": Text(bar(row.fraction), style=tone_style(self, row.tone)),
                        "rate": row.rate,
                        "eta": row.eta,
                        "errors": str(row.errors),
                        "state": Text(row.status, style=tone_style(self, row.tone)),
                    },
                )
            )
        if not rows:
            rows.append(("-none-", {"dir": "-", "paths": "no transfers: i imports from S3, E exports to S3"}))
        fill_table(table, COLUMNS, PRIORITY, rows)
        live = sum(1 for t in self.transfers if not t.is_terminal)
        title = f"Transfers of {self.volume}" if self.volume else "Transfers"
        keys = "  ·  i import · E export · x cancel"
        update_static(
            self.query_one("#transfers-title", Static), plain(title + (f" ({live} live)" if live else "") + keys)
        )
        self.render_detail()

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self.render_detail()

    def render_detail(self) -> None:
        """The highlighted transfer in words: its id, paths and progress, or why it failed."""
        transfer = self.highlighted()
        line = ""
        if transfer is not None:
            row = transfer_row(transfer)
            line = f"{row.id}  {row.arrow}  ·  {row.detail}"
        update_static(self.query_one("#transfers-detail", Static), plain(line))

    def highlighted(self) -> Any | None:
        table = self.query_one("#transfers-table", DataTable)
        if not table.row_count:
            return None
        try:
            key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        except Exception:  # noqa: BLE001 - the cursor is outside the table after a clear
            return None
        return next((t for t in self.transfers if t.id == key), None)


def announce_end(app: Any, transfer: Any) -> None:
    """A toast, the bell and the ``--on-event`` event, once per transfer (every dashboard shares the claim)."""
    from primetui.ui.notify import announce

    announce(app, RunEvent.transfer_ended(transfer), key=f"transfer:{transfer.status}")


def open_transfer_dialog(
    widget: Any,
    client: Any,
    volume: str,
    direction: str,
    path: str = "",
    env: dict[str, str] | None = None,
    on_started: Any = None,
) -> None:
    """Push the import/export dialog for ``volume``; on submit, start the transfer (V11) and toast its id."""
    found = aws_credentials.find(env)
    fields = [
        ("url", "S3 URL (s3://bucket/prefix)", ""),
        ("path", "Volume path (a folder)", path),
        ("region", "Region", "us-east-1"),
        ("endpoint", "Endpoint (blank: AWS; else MinIO, R2, …)", ""),
    ]
    if found is None:
        fields += [
            ("access_key", "Access key id", ""),
            ("secret_key", "Secret access key", ""),
            ("session_token", "Session token (temporary credentials only)", ""),
        ]
        where = "Credentials: none in the AWS environment variables or profile; type them (masked, never stored)."
    else:
        where = f"Credentials: {found.source}."

    def validate(values: dict[str, str]) -> str | None:
        problem = aws_credentials.check_s3_url(values["url"]) or aws_credentials.check_volume_path(
            values["path"], direction
        )
        if problem:
            return problem
        if found is None and not (values.get("access_key") and values.get("secret_key")):
            return (
                "Type the access key id and the secret access key (or set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)."
            )
        return None

    def submit(values: dict[str, str] | None) -> None:
        if not values:
            return
        credentials = (
            found.wire()
            if found is not None
            else {
                "accessKeyId": values["access_key"],
                "secretAccessKey": values["secret_key"],
                "sessionToken": values.get("session_token") or None,
            }
        )
        widget.run_worker(
            _start(widget, client, volume, direction, values, credentials, on_started),
            group="s3-transfer",
            exit_on_error=False,
        )

    verb = "Import into" if direction == "import" else "Export from"
    widget.app.push_screen(
        FormScreen(
            f"{verb} volume {volume}",
            fields,
            validate,
            submit_label="Start import" if direction == "import" else "Start export",
            help_text=where,
            password={"secret_key", "session_token"},
        ),
        submit,
    )


async def _start(
    widget: Any,
    client: Any,
    volume: str,
    direction: str,
    values: dict[str, str],
    credentials: dict[str, Any],
    on_started: Any,
) -> None:
    try:
        transfer = await client.start_volume_transfer(
            volume,
            direction,
            values["path"].strip().strip("/"),
            values["url"],
            credentials,
            region=values["region"] or None,
            endpoint_url=values["endpoint"] or None,
        )
    except Exception as exc:  # noqa: BLE001 - one sentence in a toast
        from primetui.viewmodel.errors import describe

        widget.notify(
            describe(exc), title=f"{direction.capitalize()} not started", severity="error", timeout=10, markup=False
        )
        return
    finally:
        credentials.clear()  # the typed secret goes with the request
    widget.notify(
        f"{direction.capitalize()} {transfer.id} started on {volume}; the Transfers panel follows it.", markup=False
    )
    from primetui.api.hub import hub_for

    hub_for(client).poke_transfers(volume)
    if on_started is not None:
        on_started(transfer)
