"""Keys typed right after Enter on a session reach the shell once it is ready (as with ssh or
tmux); none of them fires a dashboard binding (``e`` opened the editor, ``t`` changed the theme)."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest
from dash_helpers import until
from ssh_platform import create_volume, ssh_platform
from test_terminal_session import pane_text, ready_session
from textual.widgets import DataTable

from primetui.api.client import PrimeClient
from primetui.shell.term.transport import SessionTransport
from primetui.ui.app import PrimeApp
from primetui.ui.screens.volumes import VolumesScreen
from primetui.ui.terminal import ShellScreen

pytestmark = pytest.mark.timeout(180)


async def test_keys_typed_while_the_shell_connects_go_to_the_shell(tmp_path, monkeypatch) -> None:
    with ssh_platform(tmp_path) as (lp, key):
        create_volume(lp, "research")
        async with lp.client() as api:
            session = await ready_session(api, "research", read_only=True)
        settings = SimpleNamespace(ssh_key_path=str(key), base_url=lp.base_url)
        app = PrimeApp(PrimeClient(lp.base_url, lp.token), settings, None, poll_scale=0.1, platform_label="local test")
        # Hold the connection until the keys are typed: the window a slow gateway or handshake opens.
        gate = asyncio.Event()
        connect = SessionTransport.start

        async def slow_start(self, cols: int, rows: int) -> None:
            await gate.wait()
            await connect(self, cols, rows)

        monkeypatch.setattr(SessionTransport, "start", slow_start)
        editors: list[object] = []
        monkeypatch.setattr(app, "open_editor", lambda path: editors.append(path))
        async with app.run_test(size=(120, 36)) as pilot:
            await pilot.press("v")
            await until(pilot, lambda: isinstance(app.screen, VolumesScreen), "volumes screen")
            volumes = app.screen
            volumes.selected = "research"
            volumes.fetch_volumes()
            await until(pilot, lambda: volumes.selected_session_id() == session.id, "the ready session under the cursor")
            volumes.query_one("#sessions-table", DataTable).focus()
            theme = app.theme
            await pilot.press("enter", *"echo typed$((6*7))", "enter")
            assert isinstance(app.screen, ShellScreen)
            assert not app.screen.panes or not app.screen.panes[0].view.running
            assert editors == [], "a typed e opened the editor"
            assert app.theme == theme, "a typed t changed the theme"
            gate.set()
            await until(pilot, lambda: app.screen.panes and app.screen.panes[0].view.running, "the shell running")
            await until(pilot, lambda: any(line.strip() == "typed42" for line in pane_text(app).splitlines()), "the typed command's output")
            assert editors == [] and app.theme == theme
            assert isinstance(app.screen, ShellScreen)
