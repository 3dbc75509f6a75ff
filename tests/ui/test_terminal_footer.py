"""The shell screen's footer (issue 18 item 24) lists only keys that do what it says: while the
shell runs, the app's single letters go to the program and are not listed; "Reconnect" is listed
while the link is down and gone once reconnected."""

from __future__ import annotations

import shutil

import pytest
from textual.widgets._footer import FooterKey

from primetui.shell.term.transport import PtyTransport
from primetui.ui.terminal import ShellScreen, ShellSpec, open_spec
from primetui.ui.terminal.__main__ import LocalShellApp
from tests.waiting import until

BASH = shutil.which("bash")
pytestmark = pytest.mark.skipif(BASH is None, reason="bash is needed for the pty tests")
ARGV = [BASH, "--norc", "--noprofile", "-i"] if BASH else []


def footer(app) -> dict[str, str]:
    return {k.key: k.description for k in app.screen.query(FooterKey)}


class DroppingLink(PtyTransport):
    """Slow to connect (as an SSH session is), and its end reads as a dropped link."""

    async def start(self, cols: int, rows: int) -> None:
        import asyncio

        await asyncio.sleep(0.5)
        await super().start(cols, rows)

    async def read(self) -> bytes:
        data = await super().read()
        if not data:
            self.dropped = True
            self.exit_reason = "The connection to the session dropped; reconnect to continue."
        return data


async def test_footer_lists_no_key_that_goes_to_the_shell_and_drops_reconnect_once_back() -> None:
    app = LocalShellApp(ARGV)
    async with app.run_test(size=(120, 24)) as pilot:
        await until(
            pilot,
            lambda: isinstance(app.screen, ShellScreen) and len(app.screen.panes) == 1,
            "isinstance(app.screen, ShellScreen) and len(app.screen.panes) == 1",
        )
        open_spec(app, ShellSpec(label="flaky", make_transport=lambda: DroppingLink(ARGV)))
        await until(
            pilot,
            lambda: len(app.screen.panes) == 2 and app.screen.panes[1].view.running,
            "len(app.screen.panes) == 2 and app.screen.panes[1].view.running",
        )
        pane = app.screen.panes[1]
        await until(
            pilot,
            lambda: app.screen.current_pane() is pane and pane.view.has_focus,
            "app.screen.current_pane() is pane and pane.view.has_focus",
        )
        await until(pilot, lambda: "f12" in footer(app), "the footer of a focused shell (f12 leaves)")
        keys = footer(app)
        assert not {"n", "s", "q", "ctrl+p"} & set(keys), keys  # typed into the shell, so not offered
        await pilot.press(*"exit", "enter")
        await until(pilot, lambda: pane.has_class("-ended"), 'pane.has_class("-ended")')
        await until(pilot, lambda: footer(app).get("r") == "Reconnect", 'footer(app).get("r") == "Reconnect"')
        await pilot.press("r")
        await until(pilot, lambda: pane.view.running, "pane.view.running")
        await until(pilot, lambda: "r" not in footer(app), "the footer to drop reconnect once the shell is back")
        keys = footer(app)
        assert "r" not in keys and "Reconnect" not in keys.values(), keys
