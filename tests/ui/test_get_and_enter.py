"""The get dialog opens on a checkpoint (g on the run screen), and enter after o opens the shell of the
session just opened."""

from __future__ import annotations

import pytest
from dash_helpers import dispatch_walkthrough, make_app, wait_status
from textual.widgets import DataTable, Input

from primetui.ui.screens.run import RunScreen
from primetui.ui.screens.volumes import VolumesScreen
from primetui.ui.transfer import TransferScreen
from tests.waiting import until

pytestmark = pytest.mark.timeout(150)


async def test_g_on_a_checkpoint_opens_the_get_dialog_on_it(local_platform) -> None:
    run_id = await dispatch_walkthrough(local_platform, max_steps=2)
    assert await wait_status(local_platform, run_id, {"COMPLETED"}) == "COMPLETED"
    app = make_app(local_platform)
    async with app.run_test(size=(130, 44)) as pilot:
        app.open_run(run_id)
        await until(
            pilot,
            lambda: (
                isinstance(app.screen, RunScreen)
                and app.screen.checkpoints
                and app.screen.query_one("#run-checkpoints", DataTable).row_count
            ),
            "checkpoints listed",
        )
        step = app.screen.checkpoints[0]
        await pilot.press("g")
        await until(pilot, lambda: isinstance(app.screen, TransferScreen), "get dialog")
        source = app.screen.query_one("#transfer-source", Input).value
        assert source.startswith(f"runs/{run_id}/checkpoints/step_") and step is not None
        assert app.screen.volume == "research"


async def test_enter_after_o_opens_the_new_sessions_shell(local_platform, monkeypatch) -> None:
    app = make_app(local_platform)
    opened: list[str] = []
    async with app.run_test(size=(130, 44)) as pilot:
        monkeypatch.setattr(app, "open_shell", lambda session: opened.append(str(session.id)))
        await pilot.press("v")
        await until(
            pilot, lambda: isinstance(app.screen, VolumesScreen) and app.screen.selected == "research", "volumes"
        )
        screen = app.screen
        screen.query_one("#volumes-table", DataTable).focus()
        await pilot.press("O")  # read-only: the shared volume stays free for other tests' runs
        await until(pilot, lambda: screen.just_opened is not None, "session opened")
        sid = screen.just_opened[1]
        await until(
            pilot,
            lambda: any(str(s.id) == sid and str(s.phase) == "ready" for s in app.state.sessions.get("research", [])),
            "session ready",
            timeout=90,
        )
        assert screen.query_one("#volumes-table", DataTable).has_focus
        await pilot.press("enter")
        await until(pilot, lambda: opened == [sid], "its shell opened")
        await app.client.stop_session("research", sid)
