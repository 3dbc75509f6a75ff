"""The volume browser (b on the Volumes screen): folders with du sizes, heads of files (parquet and jsonl as
rows), the last-sync note while a read-write session is live, and the get dialog on a pick."""

from __future__ import annotations

import json

import pytest
from textual.widgets import DataTable, Input, Static

from primetui.api.client import PrimeClient
from primetui.ui.app import PrimeApp
from primetui.ui.screens.volumes import VolumesScreen
from primetui.ui.transfer import TransferScreen
from primetui.ui.volume_browser import VolumeBrowserScreen
from tests.waiting import until

pytestmark = pytest.mark.timeout(120)


def names(screen) -> list[str]:
    table = screen.query_one("#browser-table", DataTable)
    return [str(table.get_row_at(i)[0]) for i in range(table.row_count)]


def text(screen, wid: str) -> str:
    return str(screen.query_one(f"#{wid}", Static).render())


async def open_row(pilot, screen, name: str) -> None:
    await until(pilot, lambda: name in names(screen), f"{name} listed")
    table = screen.query_one("#browser-table", DataTable)
    table.move_cursor(row=names(screen).index(name))
    await pilot.press("enter")


async def test_browse_preview_and_get(local_platform, tmp_path) -> None:
    vol = local_platform.data_dir / "volumes" / "research" / "datasets" / "browse-demo"
    vol.mkdir(parents=True, exist_ok=True)
    (vol / "rows.jsonl").write_text(
        "".join(json.dumps({"prompt": f"p{i}", "completion": f"c{i}"}) + "\n" for i in range(20))
    )
    (vol / "notes.txt").write_text("[bold]not markup[/bold]\n")
    app = PrimeApp(
        PrimeClient(local_platform.base_url, local_platform.token),
        None,
        None,
        poll_scale=0.1,
        platform_label="local test",
    )
    async with app.run_test(size=(130, 44)) as pilot:
        await pilot.press("v")
        await until(
            pilot, lambda: isinstance(app.screen, VolumesScreen) and app.screen.selected == "research", "volumes"
        )
        await pilot.press("b")
        await until(pilot, lambda: isinstance(app.screen, VolumeBrowserScreen), "browser")
        browser = app.screen
        await open_row(pilot, browser, "datasets/")
        await until(pilot, lambda: "browse-demo/" in names(browser) and "reverse-text/" in names(browser), "datasets")
        table = browser.query_one("#browser-table", DataTable)
        row = table.get_row_at(names(browser).index("browse-demo/"))
        assert str(row[2]) == "2"  # files under it (du)
        await open_row(pilot, browser, "browse-demo/")
        await open_row(pilot, browser, "rows.jsonl")
        rows = browser.query_one("#browser-rows", DataTable)
        await until(pilot, lambda: rows.has_class("visible") and rows.row_count == 8, "jsonl rows")
        assert [str(c.label) for c in rows.columns.values()] == ["prompt", "completion"]
        await open_row(pilot, browser, "notes.txt")
        await until(pilot, lambda: "not markup" in text(browser, "browser-preview"), "text head")
        assert "[bold]" in text(browser, "browser-preview")
        await pilot.press("backspace")
        await open_row(pilot, browser, "reverse-text/")
        await open_row(pilot, browser, "data/")
        await open_row(pilot, browser, "train-00000-of-00001.parquet")
        await until(pilot, lambda: rows.has_class("visible") and rows.row_count > 0, "parquet rows")
        assert "first" in text(browser, "browser-preview")
        await pilot.press("g")
        await until(pilot, lambda: isinstance(app.screen, TransferScreen), "get dialog")
        assert (
            app.screen.query_one("#transfer-source", Input).value
            == "datasets/reverse-text/data/train-00000-of-00001.parquet"
        )


async def test_the_last_sync_note_while_a_read_write_session_is_live(local_platform) -> None:
    client = PrimeClient(local_platform.base_url, local_platform.token)
    await client.create_volume("browse-live", "1Gi", warm=False)
    session = await client.create_session("browse-live", read_only=False)
    app = PrimeApp(client, None, None, poll_scale=0.1, platform_label="local test")
    try:
        async with app.run_test(size=(130, 44)) as pilot:
            app.push_screen(VolumeBrowserScreen(client, "browse-live"))
            await until(
                pilot,
                lambda: (
                    isinstance(app.screen, VolumeBrowserScreen)
                    and app.screen.query("#browser-note")
                    and "As of the last sync" in text(app.screen, "browser-note")
                ),
                "last-sync note",
            )
            assert session.id in text(app.screen, "browser-note")
    finally:
        await client.stop_session("browse-live", session.id)
