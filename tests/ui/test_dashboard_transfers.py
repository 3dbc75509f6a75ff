"""Pilot tests of S3 transfers in the dashboard: the dialogs (checked before anything starts, credentials by
name only or masked), the Transfers panel's live bar to its end state, cancel on one key, and the
toast, bell and --on-event event when a job ends; against the real platform and a real S3 server (moto)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator

import pytest
from dash_helpers import make_app, notifications
from textual.widgets import DataTable, Input, Static

from primetui.api.client import PrimeClient
from primetui.config.prefs import NotifyPrefs, Prefs
from primetui.local.testing import LocalPlatform
from primetui.ui.screens.volumes import VolumesScreen
from primetui.ui.widgets import FormScreen
from tests.s3_server import Relay, S3Server
from tests.waiting import eventually, until

pytestmark = pytest.mark.timeout(240)
BUCKET = "dash-data"


@pytest.fixture(scope="module")
def s3() -> Iterator[S3Server]:
    server = S3Server.start()
    client = server.client()
    client.create_bucket(Bucket=BUCKET)
    for i in range(12):
        client.put_object(Bucket=BUCKET, Key=f"corpus/part-{i:02d}/shard.jsonl", Body=b'{"text": "x"}\n' * 50)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def lp(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalPlatform]:
    with LocalPlatform.start(
        tmp_path_factory.mktemp("dash-s3"), demo=True, serve_args=("--allow-private-endpoints",)
    ) as lp:
        yield lp


def transfer_rows(app) -> list[str]:
    return [str(k.value) for k in app.screen.query_one("#transfers-table", DataTable).rows]


def cell(app, row: str, column: str) -> str:
    return str(app.screen.query_one("#transfers-table", DataTable).get_cell(row, column))


async def fill(pilot, app, values: dict[str, str]) -> None:
    for key, value in values.items():
        box = app.screen.query_one(f"#field-{key}", Input)
        box.value = value
        box.focus()
    await pilot.pause()


def form_error(app) -> str:
    return str(app.screen.query_one("#form-error", Static).render())


async def test_import_dialog_checks_then_the_panel_follows_the_job_to_its_end(lp, s3, tmp_path, monkeypatch):
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", s3.key)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", s3.secret)
    sink = tmp_path / "events.jsonl"
    hook = f"{sys.executable} -c \"import sys; open({str(sink)!r}, 'a').write(sys.stdin.read())\""
    app = make_app(lp, prefs=Prefs(notify=NotifyPrefs(on_event=hook)))
    bells: list[int] = []
    app.bell = lambda: bells.append(1)  # type: ignore[method-assign]
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.press("v")
        await until(
            pilot, lambda: isinstance(app.screen, VolumesScreen) and app.screen.selected == "research", "volumes"
        )
        await pilot.press("i")
        await until(pilot, lambda: isinstance(app.screen, FormScreen), "the import dialog")
        help_text = str(app.screen.query_one(".form-help", Static).render())
        assert help_text == "Credentials: environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY)."
        assert s3.secret not in help_text and not app.screen.query("#field-secret_key")
        await fill(pilot, app, {"url": "https://bucket/x", "path": "datasets/corpus"})
        await pilot.press("enter")
        await until(pilot, lambda: "must be an S3 URL" in form_error(app), "the URL refused")
        await fill(pilot, app, {"url": f"s3://{BUCKET}/corpus/", "path": "../outside"})
        await pilot.press("enter")
        await until(pilot, lambda: "is not a volume path" in form_error(app), "the path refused")
        await fill(pilot, app, {"path": "datasets/corpus", "endpoint": s3.endpoint})
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, VolumesScreen), "the dialog closed")
        await until(pilot, lambda: any(n.startswith("Import tr_") for n in notifications(app)), "the started toast")
        transfer_id = next(n for n in notifications(app) if n.startswith("Import tr_")).split()[1]
        await until(
            pilot,
            lambda: transfer_id in transfer_rows(app) and cell(app, transfer_id, "state") == "succeeded",
            "the row to end succeeded",
        )
        assert cell(app, transfer_id, "bar").endswith("100%")
        await until(
            pilot,
            lambda: any(
                f"Import into research:/datasets/corpus (s3://{BUCKET}/corpus/): succeeded" in n
                for n in notifications(app)
            ),
            "the end toast",
        )
        assert bells
        await until(pilot, lambda: sink.exists() and sink.read_text().strip(), "the on-event hook ran", timeout=30)
    event = json.loads(sink.read_text().splitlines()[-1])
    assert event["kind"] == "transfer" and event["run_id"] == transfer_id and event["status"] == "succeeded"
    assert (lp.data_dir / "volumes" / "research" / "datasets" / "corpus" / "part-07" / "shard.jsonl").exists()
    assert s3.secret not in sink.read_text()


async def test_typed_credentials_are_masked_and_x_cancels_the_highlighted_transfer(lp, s3, tmp_path, monkeypatch):
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    relay = Relay(s3.port, hold_after=0)  # the job stays live until cancelled
    app = make_app(lp)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("v")
        await until(
            pilot, lambda: isinstance(app.screen, VolumesScreen) and app.screen.selected == "research", "volumes"
        )
        await pilot.press("i")
        await until(pilot, lambda: isinstance(app.screen, FormScreen), "the import dialog")
        assert "type them (masked, never stored)" in str(app.screen.query_one(".form-help", Static).render())
        assert app.screen.query_one("#field-secret_key", Input).password
        assert app.screen.query_one("#field-session_token", Input).password
        await fill(pilot, app, {"url": f"s3://{BUCKET}/corpus/", "path": "held", "endpoint": relay.endpoint})
        await pilot.press("enter")
        await until(pilot, lambda: "Type the access key id" in form_error(app), "credentials asked for")
        await fill(pilot, app, {"access_key": s3.key, "secret_key": s3.secret})
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, VolumesScreen), "the dialog closed")
        await until(
            pilot,
            lambda: any(r.startswith("tr_") and cell(app, r, "state") == "running" for r in transfer_rows(app)),
            "a running row",
        )
        transfer_id = next(r for r in transfer_rows(app) if cell(app, r, "state") == "running")
        assert s3.secret not in str(app.screen.query_one("#transfers-detail", Static).render())
        table = app.screen.query_one("#transfers-table", DataTable)
        table.focus()
        table.move_cursor(row=table.get_row_index(transfer_id))
        await pilot.press("x")
        await until(pilot, lambda: cell(app, transfer_id, "state") == "cancelled", "the row cancelled")
    relay.cut()
    async with PrimeClient(lp.base_url, lp.token) as client:
        assert (await client.get_volume_transfer("research", transfer_id)).status == "cancelled"


async def test_export_this_folder_from_the_volume_browser(lp, s3, monkeypatch):
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", s3.key)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", s3.secret)
    app = make_app(lp)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("v")
        await until(
            pilot, lambda: isinstance(app.screen, VolumesScreen) and app.screen.selected == "research", "volumes"
        )
        await pilot.press("b")
        await until(
            pilot,
            lambda: (
                type(app.screen).__name__ == "VolumeBrowserScreen"
                and "datasets" in [str(k.value) for k in app.screen.query_one("#browser-table", DataTable).rows]
            ),
            "the browser lists datasets",
            timeout=30,
        )
        rows = app.screen.query_one("#browser-table", DataTable)
        rows.focus()
        rows.move_cursor(row=rows.get_row_index("datasets"))
        await pilot.press("E")
        await until(pilot, lambda: isinstance(app.screen, FormScreen), "the export dialog")
        assert app.screen.query_one("#field-path", Input).value == "datasets"
        await fill(pilot, app, {"url": f"s3://{BUCKET}/exported/", "endpoint": s3.endpoint})
        await pilot.press("enter")
        await until(pilot, lambda: any(n.startswith("Export tr_") for n in notifications(app)), "the started toast")
        transfer_id = next(n for n in notifications(app) if n.startswith("Export tr_")).split()[1]
    async with PrimeClient(lp.base_url, lp.token) as client:

        async def ended():
            t = await client.get_volume_transfer("research", transfer_id)
            return t.is_terminal and t

        assert (await eventually(ended, "the export to end")).status == "succeeded"
    keys = [o["Key"] for o in s3.client().list_objects_v2(Bucket=BUCKET, Prefix="exported/")["Contents"]]
    assert "exported/reverse-text/data/train-00000-of-00001.parquet" in keys, keys
