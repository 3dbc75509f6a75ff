"""Keys typed right after Enter on a session reach the shell once it is ready (as with ssh or
tmux); none of them fires a dashboard binding (``e`` opened the editor, ``t`` changed the theme)."""

from __future__ import annotations

import asyncio

import pytest
from ssh_platform import create_volume, ssh_platform
from test_terminal_session import pane_text, ready_session
from textual.widgets import DataTable

from primetui.config.settings import Settings
from primetui.api.client import PrimeClient
from primetui.shell.term.transport import SessionTransport
from primetui.ui.app import PrimeApp
from primetui.ui.screens.volumes import VolumesScreen
from primetui.ui.terminal import ShellScreen
from tests.waiting import quiet, until

pytestmark = pytest.mark.timeout(180)


async def test_keys_typed_while_the_shell_connects_go_to_the_shell(tmp_path, monkeypatch) -> None:
    with ssh_platform(tmp_path) as (lp, key):
        create_volume(lp, "research")
        async with lp.client() as api:
            session = await ready_session(api, "research", read_only=True)
        settings = Settings(api_key=lp.token, base_url=lp.base_url, ssh_key_path=key)
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
            await until(
                pilot, lambda: volumes.selected_session_id() == session.id, "the ready session under the cursor"
            )
            volumes.query_one("#sessions-table", DataTable).focus()
            theme = app.theme
            await pilot.press("enter", *"echo typed$((6*7))", "enter")
            await quiet(pilot)
            assert isinstance(app.screen, ShellScreen)
            assert not app.screen.panes or not app.screen.panes[0].view.running
            assert editors == [], "a typed e opened the editor"
            assert app.theme == theme, "a typed t changed the theme"
            gate.set()
            await until(pilot, lambda: app.screen.panes and app.screen.panes[0].view.running, "the shell running")
            await until(
                pilot,
                lambda: any(line.strip() == "typed42" for line in pane_text(app).splitlines()),
                "the typed command's output",
            )
            assert editors == [] and app.theme == theme
            assert isinstance(app.screen, ShellScreen)


async def test_keys_typed_while_a_second_shell_opens_never_reach_the_first(monkeypatch) -> None:
    import shutil

    from primetui.shell.term.transport import PtyTransport
    from primetui.ui.terminal import ShellSpec, open_spec
    from primetui.ui.terminal.__main__ import LocalShellApp
    from primetui.ui.terminal.dialogs import LeaveDialog

    bash = shutil.which("bash")
    if bash is None:
        pytest.skip("bash is needed for the pty tests")
    argv = [bash, "--norc", "--noprofile", "-i"]
    gate = asyncio.Event()

    class SlowPty(PtyTransport):
        async def start(self, cols: int, rows: int) -> None:
            await gate.wait()
            await super().start(cols, rows)

    app = LocalShellApp(argv)
    async with app.run_test(size=(90, 24)) as pilot:
        await until(
            pilot,
            lambda: isinstance(app.screen, ShellScreen) and app.screen.panes and app.screen.panes[0].view.running,
            "the first shell",
        )
        screen = app.screen
        first = screen.panes[0]
        await pilot.press("ctrl+right_square_bracket")
        await until(pilot, lambda: isinstance(app.screen, LeaveDialog), "the leave dialog")
        await pilot.press("b")
        await until(
            pilot, lambda: app.screen is not screen and not isinstance(app.screen, LeaveDialog), "back on the dashboard"
        )
        open_spec(app, ShellSpec(label="second", make_transport=lambda: SlowPty(argv)))
        await pilot.press(*"echo to-$((40+2))", "enter")
        await quiet(pilot)
        assert app.screen is screen
        gate.set()
        await until(pilot, lambda: len(screen.panes) == 2 and screen.panes[1].view.running, "the second shell")
        second = screen.panes[1]
        await until(
            pilot,
            lambda: any(line.strip() == "to-42" for line in second.view.term.history_text()),
            "the typed command's output in the second shell",
        )
        assert not any("to-" in line for line in first.view.term.history_text())
