"""Sessions table after opening a session (issue 18 items 22 and 24): the cursor moves to the new
session, enter on a stopped session says it is stopped, and a stopped session's age stops counting."""

from __future__ import annotations

from datetime import timedelta

import pytest
from tests.waiting import until
from dash_helpers import make_app, notifications
from textual.widgets import DataTable

from primetui.ui.screens.volumes import VolumesScreen

pytestmark = pytest.mark.timeout(150)


def _cursor_session(app) -> str | None:
    return app.screen.selected_session_id()


async def test_cursor_follows_the_new_session_and_stopped_ones_say_so(local_platform):
    app = make_app(local_platform)
    async with app.run_test(size=(120, 36)) as pilot:
        await app.client.create_volume("cursor-vol", "10Gi")
        old = await app.client.create_session("cursor-vol", read_only=True)
        await app.client.stop_session("cursor-vol", old.id)
        await pilot.press("v")
        await until(pilot, lambda: isinstance(app.screen, VolumesScreen), "volumes screen")
        app.screen.selected = "cursor-vol"
        app.screen.fetch_volumes()
        await until(
            pilot,
            lambda: any(
                s.id == old.id and s.phase in ("stopped", "failed") for s in app.state.sessions.get("cursor-vol", [])
            ),
            "the old session stopped",
            timeout=60,
        )
        await until(pilot, lambda: _cursor_session(app) == old.id, "the stopped session listed under the cursor")

        # Enter on the stopped session: it is stopped, not "not ready yet".
        app.screen.query_one("#sessions-table", DataTable).focus()
        await pilot.pause()
        await pilot.press("enter")
        await until(pilot, lambda: any(f"Session {old.id} is stopped" in n for n in notifications(app)), "stopped said")
        assert not any("not ready yet" in n for n in notifications(app))

        # A stopped session's age is frozen.
        st = app.screen.query_one("#sessions-table", DataTable)
        row = st.get_row_index(old.id)
        before = str(st.get_row_at(row)[-1])
        later = app.state.now() + timedelta(hours=3)
        app.screen.render_sessions(later)
        assert str(st.get_row_at(st.get_row_index(old.id))[-1]) == before

        # O opens a read-only session: the cursor moves to it.
        await pilot.press("O")
        await until(
            pilot, lambda: any("(read-only) on cursor-vol" in n for n in notifications(app)), "RO session opened"
        )
        await until(pilot, lambda: _cursor_session(app) not in (None, old.id), "the cursor on the new session")
        new_id = _cursor_session(app)
        assert any(s.id == new_id and s.phase not in ("stopped", "failed") for s in app.state.sessions["cursor-vol"])
        await app.client.stop_session("cursor-vol", new_id)
        await until(
            pilot,
            lambda: all(s.phase in ("stopped", "failed") for s in app.state.sessions["cursor-vol"]),
            "stopped",
            timeout=60,
        )
        await app.client.delete_volume("cursor-vol")
