"""The shell pane on a real volume session of the local platform (HTTP + SSH through the gateway):
a command's output, a read-only session leaving the volume untouched, leaving with stop-and-sync, and a reaped
session."""

from __future__ import annotations


import pytest
from textual.app import App, ComposeResult
from textual.widgets import Static

asyncssh = pytest.importorskip("asyncssh")
httpx = pytest.importorskip("httpx")

from primetui.config.settings import Settings
from primetui.ui.terminal import ShellScreen, open_shell  # noqa: E402
from primetui.ui.terminal.dialogs import LeaveDialog, StopSessionScreen  # noqa: E402
from ssh_platform import create_volume, ssh_platform  # noqa: E402
from tests.waiting import eventually, until


@pytest.fixture(scope="module")
def platform(tmp_path_factory):
    with ssh_platform(tmp_path_factory.mktemp("pane-platform")) as (lp, key):
        yield lp, key


async def ready_session(client, volume: str, read_only: bool):
    s = await client.create_session(volume, read_only=read_only)

    async def settled():
        got = await client.get_session(volume, s.id)
        return got if got.phase in ("ready", "failed") else None

    s = await eventually(settled, f"session {s.id} on {volume} to be ready or failed")
    assert s.phase == "ready", s
    return s


class Dashboard(App):
    def __init__(self, client, session, settings) -> None:
        super().__init__()
        self.client, self.session, self.settings = client, session, settings

    def compose(self) -> ComposeResult:
        yield Static("dashboard")

    def on_mount(self) -> None:
        open_shell(self, self.client, self.session, self.settings)


def pane_text(app) -> str:
    screen = app.get_screen("primetui-shells")
    return "\n".join(screen.panes[0].view.term.history_text()) if screen.panes else ""


async def test_read_write_shell_runs_commands_then_stop_syncs_to_the_volume(platform) -> None:
    lp, key = platform
    root = create_volume(lp, "panerw")
    client = lp.client()
    try:
        session = await ready_session(client, "panerw", read_only=False)
        settings = Settings(api_key=lp.token, base_url=lp.base_url, ssh_key_path=key)
        app = Dashboard(client, session, settings)
        async with app.run_test(size=(100, 30)) as pilot:
            await until(
                pilot,
                lambda: isinstance(app.screen, ShellScreen) and app.screen.panes and app.screen.panes[0].view.running,
                "isinstance(app.screen, ShellScreen) and app.screen.panes and app.screen.panes[0].view.running",
            )
            pane = app.screen.panes[0]
            assert pane.spec.label == f"panerw · {session.id} · RW"
            await pilot.press(*"echo made-in-pane > pane.txt; echo done-$((40+2)); stty size", "enter")
            await until(pilot, lambda: "done-42" in pane_text(app), '"done-42" in pane_text(app)')
            rows, cols = pane.view.term.rows, pane.view.term.cols
            assert f"{rows} {cols}" in pane_text(app)  # the remote PTY has the pane's size
            await pilot.press("ctrl+right_square_bracket")
            await until(pilot, lambda: isinstance(app.screen, LeaveDialog), "isinstance(app.screen, LeaveDialog)")
            await pilot.press("s")
            await until(
                pilot, lambda: isinstance(app.screen, StopSessionScreen), "isinstance(app.screen, StopSessionScreen)"
            )
            stop_screen = app.screen
            # The final sync copies the session back to the volume: allow a loaded machine a minute.
            await until(
                pilot,
                lambda: not isinstance(app.screen, StopSessionScreen),
                "not isinstance(app.screen, StopSessionScreen)",
            )
            assert stop_screen.phases[-1] == "stopped"
        assert (root / "pane.txt").read_text() == "made-in-pane\n"
        final = await client.get_session("panerw", session.id)
        assert final.phase == "stopped"
    finally:
        await client.aclose()


async def test_read_only_shell_refuses_writes_and_a_stopped_session_offers_no_false_reconnect(platform) -> None:
    lp, key = platform
    root = create_volume(lp, "panero")
    (root / "data.txt").write_text("original\n")
    client = lp.client()
    try:
        session = await ready_session(client, "panero", read_only=True)
        settings = Settings(api_key=lp.token, base_url=lp.base_url, ssh_key_path=key)
        app = Dashboard(client, session, settings)
        async with app.run_test(size=(100, 30)) as pilot:
            await until(
                pilot,
                lambda: isinstance(app.screen, ShellScreen) and app.screen.panes and app.screen.panes[0].view.running,
                "isinstance(app.screen, ShellScreen) and app.screen.panes and app.screen.panes[0].view.running",
            )
            pane = app.screen.panes[0]
            assert pane.has_class("-read-only") and "READ-ONLY" in pane.header_text()
            # As root too: the copy is a read-only mount, so the write fails at once.
            await pilot.press(*"echo evil > data.txt; echo rc=$?", "enter")
            await until(
                pilot,
                lambda: "rc=" in pane_text(app).split("echo rc=$?")[-1],
                '"rc=" in pane_text(app).split("echo rc=$?")[-1]',
            )
            assert "Read-only file system" in pane_text(app) and "rc=1" in pane_text(app)
            # The platform stops the session under the shell (as the idle reaper would).
            await client.stop_session("panero", session.id)
            await until(pilot, lambda: pane.has_class("-ended"), 'pane.has_class("-ended")')
            assert "stopped" in pane.view.ended_reason or "closed" in pane.view.ended_reason
            await pilot.press("r")
            await until(pilot, lambda: "open a new session" in pane_text(app), '"open a new session" in pane_text(app)')
            assert not pane.view.running
        assert (root / "data.txt").read_text() == "original\n"
    finally:
        await client.aclose()
