"""``ShellScreen``: shells as tabs (volume · session · mode), with the few keys the dashboard keeps.

Everything typed goes to the shell except:

- ``ctrl+]``: leave this shell (back to the dashboard, close it, or close and stop the session);
- ``ctrl+pageup`` / ``ctrl+pagedown``: previous / next shell;
- ``f12``: full-terminal mode (the dashboard steps aside; ``ctrl+]`` comes back);
- ``shift+pageup``: the scrollback (then ``/`` or ``ctrl+f`` searches, ``esc`` returns).

All of them are bindings with ids (``shell.*``, ``terminal.*``), so a user keymap can move them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Footer, Static, TabbedContent, TabPane

from primetui.shell.term.transport import Transport
from primetui.ui.terminal.dialogs import BACK, CLOSE, STOP, LeaveDialog, StopSessionScreen
from primetui.ui.terminal.view import TerminalView
from primetui.monitor_core.escapes import clean
from primetui.ui.safe import plain
from primetui.ui.styles import tcss


@dataclass
class ShellSpec:
    """One shell to open: how to reach it and how to label it."""

    label: str
    """Tab label, e.g. ``research · vs_1a2b · RW``."""
    make_transport: Callable[[], Transport]
    """Returns a fresh transport (called again on reconnect)."""
    read_only: bool = False
    volume: str | None = None
    session_id: str | None = None
    client: Any = None
    """The platform client, to check the session on reconnect and stop it on leave."""
    notes: list[str] = field(default_factory=list)
    """Lines shown under the tab's title (which key, where the key file is, ...)."""
    local: bool = False
    """The session is on the embedded local platform (its advice differs from the hosted one's)."""


class ShellPane(Vertical):
    """A tab: a one-line header saying where you are and in which mode, then the terminal."""

    DEFAULT_CSS = """
    ShellPane { height: 1fr; }
    ShellPane > .shell-header { height: 1; padding: 0 1; background: $panel; color: $text; }
    ShellPane.-read-only > .shell-header { background: $warning; color: $background; text-style: bold; }
    ShellPane.-ended > .shell-header { background: $error; color: $background; }
    """

    def __init__(self, spec: ShellSpec, *, id: str | None = None) -> None:
        super().__init__(id=id, classes="-read-only" if spec.read_only else "")
        self.spec = spec
        self.view = TerminalView(spec.make_transport, id=f"{id}-view" if id else None)

    def compose(self) -> ComposeResult:
        yield Static(plain(self.header_text()), classes="shell-header")
        yield self.view

    def header_text(self, extra: str = "") -> str:
        spec = self.spec
        if spec.session_id:
            mode = (
                "READ-ONLY · changes never reach the volume"
                if spec.read_only
                else "read-write · blocks training until stopped"
            )
            text = f" {spec.volume} · {spec.session_id} · {mode}"
        else:
            text = f" {spec.label}"
        return text + (f" · {extra}" if extra else "")

    def set_status(self, extra: str) -> None:
        self.query_one(".shell-header", Static).update(plain(self.header_text(extra)))


class ShellScreen(Screen):
    """All open shells, one tab each."""

    CSS_PATH = tcss("shell.tcss")
    BINDINGS = [
        Binding("ctrl+right_square_bracket", "leave", "Leave shell", id="shell.leave"),
        Binding("ctrl+pageup", "switch(-1)", "Prev shell", id="shell.prev"),
        Binding("ctrl+pagedown", "switch(1)", "Next shell", id="shell.next"),
        Binding("f12", "full_terminal", "Full terminal", id="shell.full_terminal"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self._count = 0
        self._held: list[events.Key] | None = None  # keys typed between "open a shell" and its tab

    # ---- keys typed while a shell opens ---------------------------------------------------------
    def hold_keys(self) -> None:
        """From now until the new tab exists, typed keys wait here for it (no binding fires from them).

        Called the moment a shell is asked for, with this screen already pushed, so even keys typed
        within a few milliseconds of Enter reach the shell instead of the dashboard or another tab.
        """
        if self._held is None:
            self._held = []
        self.set_focus(None)

    def hand_keys_to(self, view: TerminalView | None) -> None:
        """Give the held keys to the new (or already open) shell's view; None drops them."""
        held, self._held = self._held or [], None
        if view is not None and held:
            view.type_ahead(held)

    def on_screen_resume(self) -> None:
        if self._held is not None:
            self.set_focus(None)  # auto-focus must not hand held keys to another tab

    def _own_keys(self) -> set[str]:
        keymap: dict[str, str] = getattr(self.app, "_keymap", None) or {}
        return {
            k.strip()
            for b in self.BINDINGS
            if isinstance(b, Binding) and b.id
            for k in keymap.get(b.id, b.key).split(",")
        }

    def on_key(self, event: events.Key) -> None:
        if event.key in self._own_keys():
            return
        if self._held is not None:
            self._held.append(event)
        else:
            # A key queued here before the new tab took the focus: it is still the new shell's.
            pane = self.current_pane()
            if pane is None or not pane.view.connecting:
                return
            pane.view.type_ahead([event])
        event.stop()
        event.prevent_default()

    def compose(self) -> ComposeResult:
        yield TabbedContent(id="shell-tabs")
        yield Footer(show_command_palette=False)  # ctrl+p is the shell's (previous history) here

    # ---- tabs ---------------------------------------------------------------------------------
    @property
    def panes(self) -> list[ShellPane]:
        return list(self.query(ShellPane))

    def current_pane(self) -> ShellPane | None:
        tabs = self.query_one(TabbedContent)
        active = tabs.active
        if not active:
            return None
        for pane in self.panes:
            if pane.id == f"{active}-shell":
                return pane
        return None

    async def add_shell(self, spec: ShellSpec) -> ShellPane:
        """Open a new tab running ``spec`` and focus it."""
        self._count += 1
        tab_id = f"shell-{self._count}"
        pane = ShellPane(spec, id=f"{tab_id}-shell")
        title = spec.label + (" (read-only)" if spec.read_only else "")
        tabs = self.query_one(TabbedContent)
        await tabs.add_pane(TabPane(title, pane, id=tab_id))
        tabs.active = tab_id
        self.hand_keys_to(pane.view)
        pane.view.focus()
        return pane

    def find(self, session_id: str) -> ShellPane | None:
        return next((p for p in self.panes if p.spec.session_id == session_id), None)

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        pane = self.current_pane()
        if pane is not None:
            pane.view.focus()

    def action_switch(self, step: int) -> None:
        tabs = self.query_one(TabbedContent)
        ids = [p.id for p in tabs.query(TabPane)]
        if len(ids) < 2 or tabs.active not in ids:
            return
        tabs.active = cast(str, ids[(ids.index(tabs.active) + step) % len(ids)])  # every pane has an id

    async def close_pane(self, pane: ShellPane) -> None:
        await pane.view.stop()
        tab_id = (pane.id or "").removesuffix("-shell")
        tabs = self.query_one(TabbedContent)
        await tabs.remove_pane(tab_id)
        if not self.panes:
            self.dismiss_or_pop()
        else:
            current = self.current_pane()
            if current is not None:
                current.view.focus()

    def dismiss_or_pop(self) -> None:
        if self.app.screen is self and len(self.app.screen_stack) > 1:
            self.app.pop_screen()
        elif self.app.screen is self:
            self.app.exit()

    # ---- leaving ------------------------------------------------------------------------------
    def action_leave(self) -> None:
        pane = self.current_pane()
        if pane is None:
            self.dismiss_or_pop()
            return
        self.ask_leave(pane)

    def ask_leave(self, pane: ShellPane) -> None:
        spec = pane.spec
        dialog = LeaveDialog(
            spec.label,
            read_only=spec.read_only,
            has_session=bool(spec.session_id and spec.client),
            shell_running=pane.view.running,
        )

        async def chosen(choice: str | None) -> None:
            if choice == BACK:
                self.dismiss_or_pop()
            elif choice == CLOSE:
                if spec.session_id and not spec.read_only:
                    self.app.notify(
                        f"Session {spec.session_id} is still running and keeps {spec.volume} blocked for training; "
                        "stop it from the volumes screen (s) when you are done.",
                        severity="warning",
                        timeout=10,
                    )
                await self.close_pane(pane)
            elif choice == STOP:
                # The stop screen first: hanging the shell up waits for the link (up to 10 s on a dead one)
                self.app.push_screen(
                    StopSessionScreen(spec.client, spec.volume or "", spec.session_id or ""),
                    cast("Callable[[Any], None]", lambda _r: self.call_later(self.close_pane, pane)),
                )
                await pane.view.stop()

        self.app.push_screen(dialog, chosen)

    # ---- end of a shell ---------------------------------------------------------------------------
    def on_terminal_view_ended(self, event: TerminalView.Ended) -> None:
        pane = next((p for p in self.panes if p.view is event.view), None)
        if pane is None:
            return
        pane.add_class("-ended")
        self._toasts_clear_of(pane)
        transport = event.view.transport
        dropped = bool(getattr(transport, "dropped", False))
        if event.view.start_failed:
            pane.set_status("could not connect: press r to retry, ctrl+] to leave")
            return
        if dropped and not event.view.stop_asked:  # a hang-up we asked for is no lost link
            pane.set_status(f"disconnected: press r to reconnect, ctrl+] to leave · {event.reason.rstrip('.')}")
            return
        pane.set_status("ended: ctrl+] to leave")
        if (
            pane.spec.session_id
            and not pane.spec.read_only
            and pane is self.current_pane()
            and not event.view.stop_asked
        ):
            # A read-write shell that exited: this is the moment people forget to stop the session.
            # Not when the user chose to stop it here: the stop screen is already on its way.
            self.ask_leave(pane)

    async def on_terminal_view_reconnect_requested(self, event: TerminalView.ReconnectRequested) -> None:
        pane = next((p for p in self.panes if p.view is event.view), None)
        if pane is None:
            return
        spec = pane.spec
        if spec.client is not None and spec.volume and spec.session_id:
            try:
                session = await spec.client.get_session(spec.volume, spec.session_id)
            except Exception as exc:  # noqa: BLE001
                self._say(pane, _cannot_check(spec, exc))
                return
            phase = str(getattr(session, "phase", "") or "").lower()
            status = str(getattr(session, "status", "") or "").upper()
            if getattr(session, "is_dead", False) or phase in ("stopped", "failed", "syncing", "finalizing"):
                why = phase or status.lower()
                self._say(pane, f"Session {spec.session_id} is {why}; open a new session from the volumes screen (v).")
                return
            if phase and phase != "ready":
                self._say(pane, f"Session {spec.session_id} is {phase}; press r again when it is ready.")
                return
        pane.remove_class("-ended")
        self.remove_class("-toasts-top")
        pane.set_status("reconnecting…")
        pane.view.start(spec.make_transport)
        pane.set_status("")

    def _say(self, pane: ShellPane, sentence: str) -> None:
        """Answer to r in the pane itself, under the end-of-shell message, where the user looks."""
        pane.view.term.feed_text(f"\r\n\x1b[7m {clean(sentence)} \x1b[0m\r\n")
        pane.view.schedule_frame()
        pane.set_status(sentence)
        self._toasts_clear_of(pane)

    def _toasts_clear_of(self, pane: ShellPane) -> None:
        """Keep toasts off the row the pane's last message is on: they go to the other half."""
        view = pane.view
        row = view.region.y + min(view.term.y, view.term.rows - 1)
        self.set_class(row >= self.size.height // 2, "-toasts-top")

    # ---- full terminal ----------------------------------------------------------------------------
    async def action_full_terminal(self) -> None:
        pane = self.current_pane()
        if pane is None or not pane.view.running:
            self.app.notify("No running shell to hand the terminal to.", severity="warning")
            return
        from textual.app import SuspendNotSupported

        from primetui.ui.terminal.fullterm import run_full_terminal

        try:
            reason = await run_full_terminal(
                pane.view, banner=f"{pane.spec.label} · full terminal · ctrl+] returns to the dashboard"
            )
        except SuspendNotSupported:
            self.app.notify("Full-terminal mode needs a real terminal (not available here).", severity="warning")
            return
        self.app.notify(reason, timeout=4)


def _cannot_check(spec: ShellSpec, exc: Exception) -> str:
    """Why r could not check the session, with advice for the platform in use."""
    from primetui.api.errors import APITimeoutError, UnreachableError

    if spec.local and isinstance(exc, (UnreachableError, APITimeoutError)):
        url = str(getattr(spec.client, "base_url", "") or "")
        where = f" at {url}" if url else ""
        return (
            f"The local platform{where} is not answering, so session {spec.session_id} cannot be checked; "
            "start it again (`primetui local serve`, or restart `primetui --local`), then press r."
        )
    from primetui.viewmodel.errors import describe

    return f"Cannot check session {spec.session_id}: {describe(exc)}"
