"""Shell tabs: labels, switching, the leave dialog, a read-only tab that looks read-only."""

from __future__ import annotations

import shutil

import pytest

from primetui.shell.term.transport import PtyTransport
from primetui.ui.terminal import ShellScreen, ShellSpec, open_spec
from primetui.ui.terminal.__main__ import LocalShellApp
from primetui.ui.terminal.dialogs import LeaveDialog
from tests.waiting import input_applied, until

BASH = shutil.which("bash")
pytestmark = pytest.mark.skipif(BASH is None, reason="bash is needed for the pty tests")
ARGV = [BASH, "--norc", "--noprofile", "-i"] if BASH else []


def shells(app) -> ShellScreen:
    screen = app.screen
    assert isinstance(screen, ShellScreen), type(screen)
    return screen


async def test_two_tabs_switch_and_leave_back_keeps_shells_running() -> None:
    app = LocalShellApp(ARGV)
    async with app.run_test(size=(90, 24)) as pilot:
        await until(
            pilot,
            lambda: isinstance(app.screen, ShellScreen) and len(app.screen.panes) == 1,
            "isinstance(app.screen, ShellScreen) and len(app.screen.panes) == 1",
        )
        first = shells(app).panes[0]
        await until(pilot, lambda: first.view.running, "first.view.running")
        open_spec(app, ShellSpec(label="second", make_transport=lambda: PtyTransport(ARGV), read_only=True))
        await until(pilot, lambda: len(shells(app).panes) == 2, "len(shells(app).panes) == 2")
        screen = shells(app)
        await until(
            pilot,
            lambda: (
                getattr(screen.current_pane(), "spec", None) is not None
                and screen.current_pane().spec.label == "second"
            ),
            'getattr(screen.current_pane(), "spec", None) is not None and screen.current_pane().spec.label == "second"',
        )
        second = screen.current_pane()
        assert second is not None and second.spec.label == "second" and second.has_class("-read-only")
        await pilot.press("ctrl+pageup")
        await input_applied(pilot)
        assert screen.current_pane() is first and first.view.has_focus
        await pilot.press(*"echo in-first", "enter")
        await until(
            pilot,
            lambda: "in-first" in "\n".join(first.view.term.text_lines()[1:]),
            '"in-first" in "\\n".join(first.view.term.text_lines()[1:])',
        )
        await pilot.press("ctrl+right_square_bracket")
        await until(pilot, lambda: isinstance(app.screen, LeaveDialog), "isinstance(app.screen, LeaveDialog)")
        await pilot.press("b")
        await until(
            pilot,
            lambda: not isinstance(app.screen, (ShellScreen, LeaveDialog)),
            "not isinstance(app.screen, (ShellScreen, LeaveDialog))",
        )
        assert first.view.running and second.view.running  # back on the dashboard, shells alive
        await pilot.press("s")
        await until(pilot, lambda: isinstance(app.screen, ShellScreen), "isinstance(app.screen, ShellScreen)")
        await pilot.press("ctrl+right_square_bracket")
        await until(pilot, lambda: isinstance(app.screen, LeaveDialog), "isinstance(app.screen, LeaveDialog)")
        await pilot.press("c")
        await until(pilot, lambda: len(screen.panes) == 1, "len(screen.panes) == 1")
        assert screen.panes[0] is second


async def test_exited_shell_says_so_in_the_tab() -> None:
    app = LocalShellApp(ARGV)
    async with app.run_test(size=(90, 24)) as pilot:
        await until(
            pilot,
            lambda: isinstance(app.screen, ShellScreen) and len(app.screen.panes) == 1,
            "isinstance(app.screen, ShellScreen) and len(app.screen.panes) == 1",
        )
        pane = shells(app).panes[0]
        await until(pilot, lambda: pane.view.running, "pane.view.running")
        await pilot.press(*"exit 7", "enter")
        await until(pilot, lambda: pane.has_class("-ended"), 'pane.has_class("-ended")')
        assert "exited with status 7" in "\n".join(pane.view.term.text_lines())


async def test_user_keymap_moves_the_leave_key_and_frees_ctrl_bracket() -> None:
    app = LocalShellApp(ARGV)
    async with app.run_test(size=(90, 24)) as pilot:
        app.set_keymap({"shell.leave": "f2"})
        await until(
            pilot,
            lambda: isinstance(app.screen, ShellScreen) and len(app.screen.panes) == 1,
            "isinstance(app.screen, ShellScreen) and len(app.screen.panes) == 1",
        )
        pane = shells(app).panes[0]
        await until(pilot, lambda: pane.view.running, "pane.view.running")
        sent: list[bytes] = []
        original = pane.view.transport.write
        pane.view.transport.write = lambda data: (sent.append(data), original(data))  # type: ignore[method-assign]
        await pilot.press("ctrl+right_square_bracket")
        await until(pilot, lambda: b"\x1d" in sent, "ctrl+] to reach the shell")
        assert b"\x1d" in sent and isinstance(app.screen, ShellScreen)
        await pilot.press("f2")
        await until(pilot, lambda: isinstance(app.screen, LeaveDialog), "isinstance(app.screen, LeaveDialog)")


class DroppingLink(PtyTransport):
    """A pty whose end reads as a dropped connection (what SessionTransport reports on a lost link)."""

    async def read(self) -> bytes:
        data = await super().read()
        if not data:
            self.dropped = True
            self.exit_reason = "The connection to the session dropped (connection reset); reconnect to continue."
        return data


async def test_dropped_link_is_shown_and_r_reconnects() -> None:
    app = LocalShellApp(ARGV)
    starts: list[int] = []

    def make() -> PtyTransport:
        starts.append(1)
        return DroppingLink(ARGV)

    async with app.run_test(size=(90, 24)) as pilot:
        await until(
            pilot,
            lambda: isinstance(app.screen, ShellScreen) and len(app.screen.panes) == 1,
            "isinstance(app.screen, ShellScreen) and len(app.screen.panes) == 1",
        )
        open_spec(app, ShellSpec(label="flaky", make_transport=make))
        await until(
            pilot,
            lambda: len(shells(app).panes) == 2 and shells(app).panes[1].view.running,
            "len(shells(app).panes) == 2 and shells(app).panes[1].view.running",
        )
        pane = shells(app).panes[1]
        await until(pilot, lambda: shells(app).current_pane() is pane, "shells(app).current_pane() is pane")
        await pilot.press(*"exit", "enter")
        await until(pilot, lambda: pane.has_class("-ended"), 'pane.has_class("-ended")')
        assert "press r to reconnect" in str(pane.query_one(".shell-header").render())
        assert "dropped" in "\n".join(pane.view.term.text_lines())
        await pilot.press("r")
        await until(pilot, lambda: pane.view.running and len(starts) == 2, "pane.view.running and len(starts) == 2")
        assert not pane.has_class("-ended")
        await pilot.press(*"echo back-again", "enter")
        await until(
            pilot,
            lambda: "back-again" in "\n".join(pane.view.term.text_lines()).split("dropped")[-1],
            '"back-again" in "\\n".join(pane.view.term.text_lines()).split("dropped")[-1]',
        )


async def test_a_shell_that_cannot_connect_says_why_and_offers_retry() -> None:
    app = LocalShellApp(ARGV)
    async with app.run_test(size=(90, 24)) as pilot:
        await until(
            pilot,
            lambda: isinstance(app.screen, ShellScreen) and len(app.screen.panes) == 1,
            "isinstance(app.screen, ShellScreen) and len(app.screen.panes) == 1",
        )
        open_spec(
            app,
            ShellSpec(
                label="broken",
                make_transport=lambda: PtyTransport(["/nonexistent/shell"]),
                volume="v",
                session_id="vs_x",
            ),
        )
        await until(
            pilot,
            lambda: len(shells(app).panes) == 2 and shells(app).panes[1].has_class("-ended"),
            'len(shells(app).panes) == 2 and shells(app).panes[1].has_class("-ended")',
        )
        pane = shells(app).panes[1]
        assert "press r to retry" in str(pane.query_one(".shell-header").render())
        assert "nonexistent" in "\n".join(pane.view.term.text_lines())
        assert not isinstance(app.screen, LeaveDialog)  # a failed connection is not a finished shell
