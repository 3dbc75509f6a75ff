"""Pilot tests: volumes and sessions, every action, against the real local platform."""

from __future__ import annotations

import asyncio

import pytest
from tests.waiting import quiet, until
from dash_helpers import make_app, notifications, screen_text
from textual.widgets import DataTable, Input

from primetui.ui.screens.volumes import VolumesScreen
from primetui.ui.widgets import ConfirmScreen, FormScreen

pytestmark = pytest.mark.timeout(150)


def rows(app, table_id: str) -> list[str]:
    return [str(k.value) for k in app.screen.query_one(table_id, DataTable).rows]


async def fill(pilot, app, values: dict[str, str]) -> None:
    """Type into the form's fields and leave the focus in the last one (enter then submits)."""
    for key, value in values.items():
        box = app.screen.query_one(f"#field-{key}", Input)
        box.value = value
        box.focus()
    await pilot.pause()


async def test_create_checks_name_and_size_then_expand_and_delete(local_platform):
    app = make_app(local_platform)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("v")
        await until(
            pilot,
            lambda: isinstance(app.screen, VolumesScreen) and "research" in rows(app, "#volumes-table"),
            "volumes listed",
        )
        await pilot.press("c")
        await until(pilot, lambda: isinstance(app.screen, FormScreen), "create form")
        await fill(pilot, app, {"name": "Bad Name", "size": "100Gi"})
        await pilot.press("enter")
        await until(
            pilot, lambda: "lowercase letters" in str(app.screen.query_one("#form-error").render()), "name refused"
        )
        assert app.screen.query_one("#field-name", Input).value == "Bad Name"  # nothing typed is lost
        await fill(pilot, app, {"name": "dash-vol-a", "size": "100GB"})
        await pilot.press("enter")
        await until(
            pilot,
            lambda: "whole number of Gi or Ti" in str(app.screen.query_one("#form-error").render()),
            "size refused",
        )
        await fill(pilot, app, {"size": "20Gi"})
        await pilot.click("#submit")  # the mouse works too
        await until(pilot, lambda: isinstance(app.screen, VolumesScreen), "form closed")
        await until(pilot, lambda: "dash-vol-a" in rows(app, "#volumes-table"), "new volume listed")
        assert app.screen.selected == "dash-vol-a"
        # Expand: a smaller size is refused before anything is sent.
        await pilot.press("plus")
        await until(pilot, lambda: isinstance(app.screen, FormScreen), "expand form")
        await fill(pilot, app, {"size": "10Gi"})
        await pilot.press("enter")
        await until(pilot, lambda: "only grow" in str(app.screen.query_one("#form-error").render()), "shrink refused")
        await fill(pilot, app, {"size": "40Gi"})
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, VolumesScreen) and "40Gi" in screen_text(app), "expanded")
        # Size helper: 0.6B params × 1 checkpoint + 1Gi dataset against 40Gi.
        await pilot.press("z")
        await until(pilot, lambda: isinstance(app.screen, FormScreen), "size helper form")
        await fill(pilot, app, {"params": "0.6B", "keep_last": "2", "dataset": "1Gi"})
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, VolumesScreen), "helper closed")
        helper = screen_text(app)
        assert "6.7 GiB per checkpoint × 2 kept + 1.0 GiB dataset = 14.4 GiB → fits in 40Gi" in helper
        # Delete asks first and says what is lost.
        await pilot.press("d")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "delete confirmation")
        assert "deleted for good" in str(app.screen.query_one("#confirm-body").render())
        await pilot.press("y")
        await until(
            pilot,
            lambda: isinstance(app.screen, VolumesScreen) and "dash-vol-a" not in rows(app, "#volumes-table"),
            "volume gone",
            timeout=60,
        )


async def test_read_write_session_is_flagged_and_stopped_through_final_sync(local_platform):
    app = make_app(local_platform)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("v")
        await until(
            pilot,
            lambda: isinstance(app.screen, VolumesScreen) and "research" in rows(app, "#volumes-table"),
            "volumes listed",
        )
        await app.client.create_volume("dash-vol-s", "10Gi")
        app.screen.fetch_volumes()
        await until(pilot, lambda: "dash-vol-s" in rows(app, "#volumes-table"), "volume listed")
        # Highlight it as a user would, and let every highlight already in flight land first: a poll's
        # render can still be reporting the old row.
        volumes_table = app.screen.query_one("#volumes-table", DataTable)
        volumes_table.move_cursor(row=volumes_table.get_row_index("dash-vol-s"))
        await until(pilot, lambda: app.screen.selected == "dash-vol-s", "dash-vol-s highlighted")
        await quiet(pilot)
        await until(pilot, lambda: app.screen.selected == "dash-vol-s", "dash-vol-s still highlighted")
        await pilot.press("o")  # read-write session
        await until(
            pilot,
            lambda: any(
                "(read-write) on dash-vol-s" in n or "ould not" in n or "annot" in n for n in notifications(app)
            ),
            "the session started or refused",
        )
        assert any("(read-write) on dash-vol-s" in n for n in notifications(app)), notifications(app)
        flag = app.screen.query_one("#rw-flag")
        await until(pilot, lambda: flag.has_class("visible"), "loud RW flag")
        assert "blocks dispatch" in str(flag.render()) and "Press S" in str(flag.render())
        await until(pilot, lambda: "ready" in screen_text(app), "session ready")
        # enter on a ready session opens the volume shell (engineer 8's pane) on it.
        sessions_table = app.screen.query_one("#sessions-table", DataTable)
        sessions_table.focus()
        rw = next(s for s in app.state.sessions["dash-vol-s"] if not s.read_only and s.phase == "ready")
        sessions_table.move_cursor(row=sessions_table.get_row_index(rw.id))
        await pilot.press("enter")
        await until(pilot, lambda: type(app.screen).__name__ == "ShellScreen", "shell screen")
        app.pop_screen()
        await until(pilot, lambda: isinstance(app.screen, VolumesScreen), "back on volumes")
        app.screen.query_one("#volumes-table", DataTable).focus()
        await pilot.press("S")
        await until(pilot, lambda: any("final sync" in n for n in notifications(app)), "stop sent")
        await until(
            pilot,
            lambda: not flag.has_class("visible") and "stopped" in screen_text(app),
            "the flag gone and the session stopped after the sync",
            timeout=60,
        )
        # A read-only session, stopped from the sessions table with s.
        await pilot.press("O")
        await until(pilot, lambda: any("(read-only) on dash-vol-s" in n for n in notifications(app)), "RO session")
        assert not flag.has_class("visible")
        await until(pilot, lambda: "RO" in screen_text(app), "RO row")
        app.screen.query_one("#sessions-table", DataTable).focus()
        sessions = app.state.sessions["dash-vol-s"]
        ro = next(s for s in sessions if s.read_only and s.phase not in ("stopped", "failed"))
        table = app.screen.query_one("#sessions-table", DataTable)
        table.move_cursor(row=table.get_row_index(ro.id))
        await pilot.press("s")
        await until(pilot, lambda: any(f"Stopping {ro.id}" in n for n in notifications(app)), "RO stop sent")
        await until(
            pilot,
            lambda: all(s.phase in ("stopped", "failed") for s in app.state.sessions["dash-vol-s"]),
            "all stopped",
            timeout=60,
        )
        await app.client.delete_volume("dash-vol-s")


async def test_second_read_write_session_is_refused_with_a_tip(local_platform):
    app = make_app(local_platform)
    async with app.run_test(size=(100, 30)) as pilot:
        await app.client.create_volume("dash-vol-w", "10Gi")
        first = await app.client.create_session("dash-vol-w", read_only=False)
        await pilot.press("v")
        await until(
            pilot,
            lambda: isinstance(app.screen, VolumesScreen) and "dash-vol-w" in rows(app, "#volumes-table"),
            "listed",
        )
        app.screen.selected = "dash-vol-w"
        await pilot.press("o")
        await until(  # the 409 explained, with the tip
            pilot,
            lambda: any(("read-write" in n or "dash-vol-w" in n) and "Tip: press O" in n for n in notifications(app)),
            "the answer to o (a toast) with its tip",
        )
        assert len([n for n in notifications(app) if "HTTP 409" in n]) == 1, notifications(app)  # once, not twice
        assert "unreachable" not in app.health[1], app.health  # a refusal, not a connection error
        await app.client.stop_session("dash-vol-w", first.id)


async def test_a_volume_just_created_stays_selected_through_a_list_fetched_before_it(local_platform):
    """A full CI run: a poll answered before the create (without the new volume) landed after it and
    reset the selection to the first volume, so `+` or `d` right after acted on `research`.

    The order is made the same at any load: no periodic polls (``poll_scale=0``), and the list the
    screen asks for after the create is held until the stale answer has landed (on a loaded machine
    the fresh list came first, which a user can never see: one resource's polls land in order)."""
    app = make_app(local_platform, poll_scale=0)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("v")
        await until(pilot, lambda: isinstance(app.screen, VolumesScreen) and rows(app, "#volumes-table"), "listed")
        screen = app.screen
        stale = list(app.state.volumes)  # the list as a poll in flight before the create has it
        release = asyncio.Event()
        asked: list[bool] = []
        list_volumes = app.client.list_volumes

        async def the_list_after_the_create(*args, **kwargs):
            asked.append(True)
            await release.wait()
            return await list_volumes(*args, **kwargs)

        app.client.list_volumes = the_list_after_the_create
        screen.do_create("dash-vol-c", "10Gi")
        await until(pilot, lambda: asked, "the create answered and the screen asked for the list again")
        app.state.volumes = stale
        screen.render_volumes()  # that poll's answer lands now
        assert screen.selected == "dash-vol-c"
        release.set()
        await until(pilot, lambda: "dash-vol-c" in rows(app, "#volumes-table"), "the next list has it")
        assert screen.selected == "dash-vol-c"
        await app.client.delete_volume("dash-vol-c")
