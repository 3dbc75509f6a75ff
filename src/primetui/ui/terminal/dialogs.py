"""Leaving a shell: what to do with the session, and the final sync shown until it is done."""

from __future__ import annotations

import asyncio
from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static
from primetui.ui.safe import plain
from primetui.ui.styles import tcss

# Choices the leave dialog returns.
BACK, CLOSE, STOP, CANCEL = "back", "close", "stop", "cancel"

FINAL_PHASES = ("stopped", "failed")


class LeaveDialog(ModalScreen[str]):
    """Asked on ctrl+] (and when a read-write shell exits): back, close, or close and stop."""

    CSS_PATH = tcss("shell_dialogs.tcss")
    BINDINGS = [
        Binding("escape", "choose('cancel')", "Cancel", id="shell.leave_cancel"),
        Binding("b", "choose('back')", "Back to dashboard", show=False, id="shell.leave_back"),
        Binding("c", "choose('close')", "Close shell", show=False, id="shell.leave_close"),
        Binding("s", "choose('stop')", "Stop session", show=False, id="shell.leave_stop"),
    ]

    def __init__(self, label: str, *, read_only: bool, has_session: bool, shell_running: bool) -> None:
        super().__init__()
        self.label = label
        self.read_only = read_only
        self.has_session = has_session
        self.shell_running = shell_running

    def compose(self) -> ComposeResult:
        if self.has_session and not self.read_only:
            body = (
                "This read-write session keeps blocking training on the volume until it stops. "
                "Stopping runs the final sync, which saves your changes to the volume."
            )
        elif self.has_session:
            body = "This read-only session stops by itself after 30 minutes idle; stopping it now frees it at once."
        else:
            body = "Closing the shell ends the program running in it."
        with Vertical():
            yield Static(plain(f"Leave {self.label}?"), id="leave-title")
            yield Static(plain(body), id="leave-body")
            with Vertical(id="leave-buttons"):
                if self.has_session:
                    yield Button(
                        "Stop session and sync (s)" if not self.read_only else "Stop session (s)",
                        id=STOP,
                        variant="warning",
                    )
                yield Button("Close shell, keep session (c)" if self.has_session else "Close shell (c)", id=CLOSE)
                if self.shell_running:
                    yield Button("Back to dashboard (b)", id=BACK, variant="primary")
                yield Button("Cancel (esc)", id=CANCEL)

    def on_mount(self) -> None:
        self._focus_default(always=True)
        self.call_after_refresh(self._focus_default)  # if the buttons were not in the DOM yet

    def _focus_default(self, always: bool = False) -> None:
        default = STOP if self.has_session and not self.read_only else (BACK if self.shell_running else CLOSE)
        buttons = {b.id: b for b in self.query(Button)}
        target = buttons.get(default) or buttons.get(CLOSE) or next(iter(buttons.values()), None)
        if target is not None and (always or self.focused is None):
            target.focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id or CANCEL)

    def action_choose(self, choice: str) -> None:
        if choice == STOP and not self.has_session:
            return
        if choice == BACK and not self.shell_running:
            return
        self.dismiss(choice)


class StopSessionScreen(ModalScreen[str]):
    """Stops a session (V7) and shows its phases (syncing, finalizing) until it is stopped.

    Returns the final phase, or "background" when the user stops watching (the dashboard's
    volumes screen keeps showing it).
    """

    CSS_PATH = tcss("shell_dialogs.tcss")
    BINDINGS = [Binding("escape", "background", "Keep watching in the volumes screen", id="shell.stop_background")]

    def __init__(
        self, client: Any, volume: str, session_id: str, *, poll: float = 1.0, timeout: float = 3600.0
    ) -> None:
        super().__init__()
        self.client = client
        self.volume = volume
        self.session_id = session_id
        self.poll = poll
        self.timeout = timeout
        self.phases: list[str] = []
        self._dismissed = False

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(plain(f"Stopping session {self.session_id} on {self.volume}"), id="stop-title")
            yield Static("Asking the platform to stop it…", id="stop-phase")
            yield Static(
                "The final sync saves your changes to the volume; keep this open until it says stopped (esc hides it).",
                id="stop-hint",
            )

    def on_mount(self) -> None:
        self.run_worker(self._stop(), exclusive=True, exit_on_error=False)

    def _show(self, text: str) -> None:
        self.query_one("#stop-phase", Static).update(plain(text))

    async def _stop(self) -> None:
        try:
            await self.client.stop_session(self.volume, self.session_id)
        except Exception as exc:  # noqa: BLE001 - the message is already one sentence
            self._show(f"Could not stop the session: {exc}")
            self.query_one("#stop-hint", Static).update("Press esc, then retry with s on the volumes screen.")
            return
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.timeout
        failures = 0
        while loop.time() < deadline:
            try:
                session = await self.client.get_session(self.volume, self.session_id)
                failures = 0
            except Exception as exc:  # noqa: BLE001
                failures += 1
                if "404" in str(exc) or "not found" in str(exc).lower():
                    self._done("stopped", "The session is gone; the platform finished it.")
                    return
                self._show(f"Cannot reach the platform ({exc}); retrying…")
                await asyncio.sleep(min(10.0, self.poll * (2**failures)))
                continue
            phase = str(getattr(session, "phase", None) or getattr(session, "status", "") or "").lower()
            if not self.phases or self.phases[-1] != phase:
                self.phases.append(phase)
            progress = getattr(session, "progress", None)
            trail = " → ".join(self.phases)
            if getattr(session, "read_only", False):
                self.query_one("#stop-hint", Static).update("A read-only session has nothing to sync (esc hides this).")
            self._show(f"Phase: {trail}" + (f"\n{progress}" if progress else ""))
            status = str(getattr(session, "status", "")).upper()
            if phase in FINAL_PHASES or status in ("STOPPED", "FAILED", "TERMINATED", "COMPLETED", "TOMBSTONED"):
                if phase == "failed" or status == "FAILED":
                    err = getattr(session, "error_message", None) or "no reason given"
                    self._done(
                        "failed", f"The session failed while stopping ({err}); check the volume before training."
                    )
                elif getattr(session, "read_only", False):  # nothing could be changed, so nothing was synced
                    self._done(
                        "stopped",
                        f"Session {self.session_id} stopped; it was read-only, so {self.volume} is unchanged.",
                    )
                else:
                    self._done(
                        "stopped", f"Session {self.session_id} stopped; your changes are saved on {self.volume}."
                    )
                return
            await asyncio.sleep(self.poll)
        self._show("The platform is still syncing after an hour; it keeps going in the background.")

    def _done(self, phase: str, message: str) -> None:
        self._show(message)
        # One message at a time: the "keep this open" hint no longer applies once it is over.
        self.query_one("#stop-hint", Static).update(
            "This closes by itself." if phase == "stopped" else "Press esc to close."
        )
        self.app.notify(message, severity="information" if phase == "stopped" else "error", timeout=8)
        self.set_timer(1.0, lambda: self._dismiss_once(phase))

    def _dismiss_once(self, result: str) -> None:
        if not self._dismissed:
            self._dismissed = True
            self.dismiss(result)

    def action_background(self) -> None:
        self.app.notify(
            f"Session {self.session_id} is still stopping; the volumes screen shows when its sync is done.", timeout=6
        )
        self._dismiss_once("background")
