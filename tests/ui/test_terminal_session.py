"""The shell pane on a real volume session of the local platform (HTTP + SSH through the gateway):
a command's output, a read-only session leaving the volume untouched, leaving with stop-and-sync, and a reaped
session."""

from __future__ import annotations

import shutil

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Static

asyncssh = pytest.importorskip("asyncssh")
httpx = pytest.importorskip("httpx")

from primetui.config.settings import Settings
from primetui.shell.term.transport import PtyTransport
from primetui.ui.terminal import ShellScreen, ShellSpec, open_shell  # noqa: E402
from primetui.ui.terminal.dialogs import LeaveDialog, StopSessionScreen  # noqa: E402
from shell_helpers import ShellSpecApp  # noqa: E402
from ssh_platform import create_volume, ssh_platform  # noqa: E402
from tests.waiting import eventually, until

BASH = shutil.which("bash")


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


async def leave_with_stop_and_sync(pilot, app, pane) -> StopSessionScreen:
    """ctrl+] then ``s``: the stop screen, once the shell's end (the stop hangs it up) was handled; that end
    must not ask a second time, whichever comes first."""
    await pilot.press("ctrl+right_square_bracket")
    await until(pilot, lambda: isinstance(app.screen, LeaveDialog), "isinstance(app.screen, LeaveDialog)")
    await pilot.press("s")
    stop_screen = await until(
        pilot,
        lambda: next((s for s in app.screen_stack if isinstance(s, StopSessionScreen)), None),
        "a StopSessionScreen in app.screen_stack",
    )
    await until(pilot, lambda: pane.has_class("-ended"), 'pane.has_class("-ended")')
    assert not any(isinstance(s, LeaveDialog) for s in app.screen_stack), [type(s).__name__ for s in app.screen_stack]
    return stop_screen


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
            stop_screen = await leave_with_stop_and_sync(pilot, app, pane)
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


@pytest.mark.skipif(BASH is None, reason="bash is needed for the pty shell")
async def test_stop_and_sync_asks_once_when_the_hung_up_shell_exits_with_a_status(platform) -> None:
    """Stop-and-sync hangs the shell up. A shell that answers with its exit status (bash: 129) ends
    cleanly rather than as a dropped link, which the SSH shell also does when the machine is loaded;
    that end must not open a second leave dialog over (or under) the stop screen."""
    lp, _key = platform
    root = create_volume(lp, "panehup")
    client = lp.client()
    try:
        session = await ready_session(client, "panehup", read_only=False)
        spec = ShellSpec(
            label=f"panehup · {session.id} · RW",
            make_transport=lambda: PtyTransport([BASH or "bash", "--norc", "--noprofile", "-i"], cwd=str(root)),
            volume="panehup",
            session_id=session.id,
            client=client,
        )
        app = ShellSpecApp(spec)
        async with app.run_test(size=(100, 30)) as pilot:
            await until(
                pilot,
                lambda: isinstance(app.screen, ShellScreen) and app.screen.panes and app.screen.panes[0].view.running,
                "isinstance(app.screen, ShellScreen) and app.screen.panes and app.screen.panes[0].view.running",
            )
            pane = app.screen.panes[0]
            stop_screen = await leave_with_stop_and_sync(pilot, app, pane)
            assert pane.view.ended_reason and "status" in pane.view.ended_reason  # the clean end, not a drop
            await until(
                pilot,
                lambda: stop_screen not in app.screen_stack,
                "stop_screen not in app.screen_stack",
            )
            assert stop_screen.phases[-1] == "stopped"
        final = await client.get_session("panehup", session.id)
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
