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

BASH = shutil.which("bash")
pytestmark = pytest.mark.skipif(BASH is None, reason="bash is needed for the pty tests")
ARGV = [BASH, "--norc", "--noprofile", "-i"] if BASH else []


async def wait_for(pilot, predicate, tries: int = 250) -> None:
    for _ in range(tries):
        await pilot.pause(0.02)
        if predicate():
            return
    raise AssertionError("condition not reached")


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
        await wait_for(pilot, lambda: isinstance(app.screen, ShellScreen) and len(app.screen.panes) == 1)
        open_spec(app, ShellSpec(label="flaky", make_transport=lambda: DroppingLink(ARGV)))
        await wait_for(pilot, lambda: len(app.screen.panes) == 2 and app.screen.panes[1].view.running)
        pane = app.screen.panes[1]
        await wait_for(pilot, lambda: app.screen.current_pane() is pane and pane.view.has_focus)
        await pilot.pause(0.2)
        keys = footer(app)
        assert "f12" in keys
        assert not {"n", "s", "q", "ctrl+p"} & set(keys), keys  # typed into the shell, so not offered
        await pilot.press(*"exit", "enter")
        await wait_for(pilot, lambda: pane.has_class("-ended"))
        await wait_for(pilot, lambda: footer(app).get("r") == "Reconnect")
        await pilot.press("r")
        await wait_for(pilot, lambda: pane.view.running)
        await pilot.pause(0.2)
        keys = footer(app)
        assert "r" not in keys and "Reconnect" not in keys.values(), keys
