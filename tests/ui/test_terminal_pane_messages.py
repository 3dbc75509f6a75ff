"""The shell pane's messages fit the platform in use, and no toast covers the end of a shell
(issue 29 item 6)."""

from __future__ import annotations

import socket

from textual.app import App
from textual.widgets import Static

from primetui.api.client import PrimeClient
from primetui.ui.terminal.screen import ShellScreen, ShellSpec
from shell_helpers import ShellSpecApp


class _DroppedLink:
    """An SSH shell whose link dropped after a prompt (what the pane sees when the platform dies)."""

    def __init__(self) -> None:
        self.exit_reason: str | None = None
        self.dropped = False
        self._sent = False

    async def start(self, cols: int, rows: int) -> None:
        pass

    async def read(self) -> bytes:
        if not self._sent:
            self._sent = True
            return b"root@host:/volume# "
        self.dropped = True
        self.exit_reason = "The connection to the session dropped (connection reset)."
        return b""

    def write(self, data: bytes) -> None:
        pass

    def resize(self, cols: int, rows: int) -> None:
        pass

    async def close(self) -> None:
        pass


def _dead_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed again at once: nothing listens there


async def wait_for(pilot, predicate, what: str, tries: int = 500) -> None:
    for _ in range(tries):
        await pilot.pause(0.02)
        if predicate():
            return
    raise AssertionError(f"never reached: {what}")


def _spec(client: PrimeClient, *, local: bool) -> ShellSpec:
    return ShellSpec(
        label="research · vs_1 · RW",
        make_transport=lambda: _DroppedLink(),
        volume="research",
        session_id="vs_1",
        client=client,
        local=local,
    )


def _pane_text(app: App) -> str:
    screen = app.get_screen("primetui-shells")
    return "\n".join(screen.panes[0].view.term.history_text())


async def _press_r_after_the_drop(local: bool) -> tuple[str, str]:
    client = PrimeClient(f"http://127.0.0.1:{_dead_port()}", "key", timeout=2)
    app = ShellSpecApp(_spec(client, local=local))
    try:
        async with app.run_test(size=(100, 24)) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, ShellScreen) and app.screen.panes, "the shell tab")
            pane = app.screen.panes[0]
            await wait_for(pilot, lambda: pane.has_class("-ended"), "the dropped link")
            await pilot.press("r")
            await wait_for(
                pilot, lambda: "cannot be checked" in _pane_text(app) or "Cannot check" in _pane_text(app), "r's answer"
            )
            header = str(pane.query_one(".shell-header", Static).render())
            return _pane_text(app), header
    finally:
        await client.aclose()


async def test_r_after_the_local_platform_died_gives_local_advice() -> None:
    text, header = await _press_r_after_the_drop(local=True)
    assert "local platform" in text and "primetui local serve" in text
    assert "PRIME_BASE_URL" not in text and "config.json" not in text
    assert "local platform" in header


async def test_r_on_the_hosted_platform_keeps_the_hosted_advice() -> None:
    text, _ = await _press_r_after_the_drop(local=False)
    assert "PRIME_BASE_URL" in text


async def test_a_toast_does_not_cover_the_end_of_shell_message() -> None:
    client = PrimeClient(f"http://127.0.0.1:{_dead_port()}", "key", timeout=2)
    app = ShellSpecApp(_spec(client, local=True))
    try:
        async with app.run_test(size=(100, 24), notifications=True) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, ShellScreen) and app.screen.panes, "the shell tab")
            pane = app.screen.panes[0]
            await wait_for(pilot, lambda: pane.has_class("-ended"), "the dropped link")
            view = pane.view
            row = next(i for i, t in enumerate(view.term.text_lines()) if "connection" in t and "dropped" in t)
            app.notify("A platform toast\nwith two lines", timeout=30)
            await wait_for(pilot, lambda: list(app.screen.query("Toast")), "the toast")
            toast = app.screen.query_one("Toast")
            message_row = view.region.y + row
            assert not (toast.region.y <= message_row < toast.region.bottom), (toast.region, message_row)
    finally:
        await client.aclose()


async def test_a_toast_does_not_cover_an_end_message_at_the_bottom() -> None:
    client = PrimeClient(f"http://127.0.0.1:{_dead_port()}", "key", timeout=2)

    class _Full(_DroppedLink):
        async def read(self) -> bytes:
            if not self._sent:
                self._sent = True
                return b"".join(b"line %d\r\n" % i for i in range(40)) + b"root@host:/volume# "
            return await super().read()

    spec = _spec(client, local=True)
    spec.make_transport = lambda: _Full()
    app = ShellSpecApp(spec)
    try:
        async with app.run_test(size=(100, 24), notifications=True) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, ShellScreen) and app.screen.panes, "the shell tab")
            pane = app.screen.panes[0]
            await wait_for(pilot, lambda: pane.has_class("-ended"), "the dropped link")
            view = pane.view
            row = next(i for i, t in enumerate(view.term.text_lines()) if "connection" in t and "dropped" in t)
            assert row > view.term.rows // 2
            app.notify("A platform toast\nwith two lines", timeout=30)
            await wait_for(pilot, lambda: list(app.screen.query("Toast")), "the toast")
            toast = app.screen.query_one("Toast")
            message_row = view.region.y + row
            assert not (toast.region.y <= message_row < toast.region.bottom), (toast.region, message_row)
    finally:
        await client.aclose()
