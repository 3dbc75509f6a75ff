"""First run without an API key: enter one (saved where the prime CLI keeps it) or go local."""

from __future__ import annotations

from typing import Any

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.reactive import var
from textual.screen import Screen
from textual.widgets import Button, Footer, Input, Static

from primetui.ui.safe import plain
from primetui.ui.styles import tcss


class WelcomeScreen(Screen):
    """Offers the two ways in. The key is typed into a password field and never shown again."""

    TITLE = "Welcome"
    AUTO_FOCUS = "#api-key"
    BINDINGS = [
        Binding("ctrl+l", "use_local", "Use the local platform", id="welcome.local", priority=True),
        # priority: listed in the footer over the app's hidden ctrl+q, and works from the key field
        Binding("ctrl+q", "app.quit", "Quit", id="welcome.quit", priority=True),
    ]
    CSS_PATH = tcss("welcome.tcss")

    message: var[str] = var("", init=False)
    """What is happening or what went wrong (starting the local platform, a refused key): the line
    under the key field."""

    def __init__(self, connector: Any) -> None:
        super().__init__()
        self.connector = connector

    def watch_message(self, message: str) -> None:
        self.query_one("#welcome-error", Static).update(plain(message))

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("primetui: no API key is configured", id="welcome-title")
            yield Static(
                "Paste a Prime Intellect API key (https://app.primeintellect.ai/dashboard/tokens). "
                "It is saved in ~/.prime/config.json, where the prime CLI keeps it, and never shown.\n\n"
                "Or press ctrl+l to use the embedded local platform: no account, no GPU, demo data included."
            )
            yield Input(placeholder="API key", password=True, id="api-key")
            yield Static("", id="welcome-error")
            with Horizontal():
                yield Button("Save key and connect", id="save", variant="primary")
                yield Button("Use the local platform (ctrl+l)", id="local")
                yield Button("Quit (ctrl+q)", id="quit")
        yield Footer()

    @on(Input.Submitted, "#api-key")
    @on(Button.Pressed, "#save")
    def save_key(self) -> None:
        key = self.query_one("#api-key", Input).value.strip()
        if not key:
            self.message = "Paste your API key first, or press ctrl+l for the local platform."
            return
        self.connect_with_key(key)

    @on(Button.Pressed, "#quit")
    def quit_pressed(self) -> None:
        self.app.exit()

    @on(Button.Pressed, "#local")
    def local_pressed(self) -> None:
        self.action_use_local()

    def action_use_local(self) -> None:
        self.message = "Starting the local platform…"
        self.connect_local()

    @work(exclusive=True, group="welcome")
    async def connect_with_key(self, key: str) -> None:
        try:
            client, settings, label = await self.connector.with_api_key(key)
        except Exception as exc:  # noqa: BLE001 - shown inline; the typed key stays in the field
            from primetui.viewmodel.errors import describe

            self.message = describe(exc)
            return
        self.finish(client, settings, label)

    @work(exclusive=True, group="welcome")
    async def connect_local(self) -> None:
        try:
            client, settings, label = await self.connector.local()
        except Exception as exc:  # noqa: BLE001
            from primetui.local.launcher import LauncherError
            from primetui.viewmodel.errors import describe

            # The launcher's sentences say what to do (add primetui[local], free the data dir): shown as they are.
            text = str(exc) if isinstance(exc, LauncherError) else describe(exc)
            self.message = text
            return
        self.finish(client, settings, label)

    def finish(self, client: Any, settings: Any, label: str) -> None:
        self.app.pop_screen()
        self.app.connected(client, settings, label)  # type: ignore[attr-defined]
