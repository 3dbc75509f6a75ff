"""SVG snapshots of the S3 import dialog at 80x24 and 160x48: credentials named by their source, never shown."""

from __future__ import annotations

import pytest
from test_screens import SIZES, make_app, settle

from textual.widgets import Input

from primetui.ui.widgets import FormScreen
from tests.waiting import quiet, until


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_s3_import_dialog(snap_compare, size, monkeypatch):
    for name in ("AWS_SESSION_TOKEN", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIASNAPSHOTEXAMPLE")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "never-drawn")
    app = make_app(start="volumes")

    async def ready(pilot):
        await settle(
            pilot,
            lambda: (
                app.state.volumes_loaded
                and "research" in app.state.sessions
                and app.screen.query_one("#transfers-table").row_count >= 3
            ),
            "the sessions and transfers listed",
        )
        await pilot.press("i")
        await until(pilot, lambda: isinstance(app.screen, FormScreen), "the import dialog")
        for box in app.screen.query(Input):
            box.cursor_blink = False  # a blinking cursor would make the snapshot depend on timing
        await quiet(pilot)

    assert snap_compare(app, terminal_size=size, run_before=ready)
