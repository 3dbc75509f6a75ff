"""Dispatch from the editor: pick a volume, read the pre-flight, dispatch (T4), or see why not."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from primetui.sft import run_name
from primetui.sft.kind import dispatch_mode
from primetui.sft.preflight import Preflight, run_preflight
from primetui.ui.safe import plain
from primetui.ui.styles import tcss

_ICONS = {"ok": ("✓", "success"), "fail": ("✗", "error"), "warn": ("!", "warning"), "skip": ("–", "text-muted")}


@dataclass
class DispatchOutcome:
    """What the dialog ends with: a run id, or the platform's refusal (status, one sentence, 422 issues)."""

    run_id: str | None = None
    volume: str | None = None
    status: int | None = None
    message: str = ""
    issues: list[Any] = field(default_factory=list)
    detail: str | None = None  # the platform's own text (a 400's detail), used to find the field it names


class DispatchScreen(ModalScreen[DispatchOutcome | None]):
    """F5 in the editor. Enter on a volume runs the pre-flight; ``d`` dispatches when nothing fails."""

    CSS_PATH = tcss("dispatch.tcss")
    BINDINGS = [
        Binding("d", "dispatch", "Dispatch", id="editor.dispatch.go"),
        Binding("escape", "cancel", "Cancel", id="editor.dispatch.cancel"),
    ]

    def __init__(self, client: Any, config: dict, text: str, model: str, saved: str | None = None) -> None:
        super().__init__()
        self.saved = saved
        """The file F5 saved before opening the dialog (None: it had no unsaved edits)."""
        self.client = client
        self.config = config
        self.text = text
        self.model = model
        self.volumes: dict[str, Any] = {}
        self.preflight: Preflight | None = None
        self.busy = False

    def compose(self) -> ComposeResult:
        with Vertical():
            title = f"Dispatch {self.model}" + (f" · {self.saved} saved first" if self.saved else "")
            yield Static(plain(title), classes="modal-title")
            # The volumes take the keys once listed: enter here goes back to them (tab would too).
            yield Input(
                run_name.config_name(self.config) or "",
                placeholder="run name (optional; enter goes back to the volumes)",
                id="run-name",
            )
            yield Static(
                "Pick the volume the run reads its dataset from and writes its checkpoints to:"
                if dispatch_mode(self.config) == "sft"
                else "Pick the volume the run writes its checkpoints to:"
            )
            yield OptionList(id="volumes")
            yield Static("", id="preflight")
            yield Static("Loading volumes…", id="dispatch-status")

    def on_mount(self) -> None:
        self.load_volumes()

    def _status(self, text: str | Text) -> None:
        self.query_one("#dispatch-status", Static).update(plain(text))

    @work(exclusive=True, group="volumes")
    async def load_volumes(self) -> None:
        try:
            volumes = await self.client.list_volumes()
        except Exception as exc:  # noqa: BLE001 - PrimeAPIError's str() is the sentence to show
            self._status(Text(f"Could not list volumes: {exc}", style="bold"))
            return
        listing = self.query_one("#volumes", OptionList)
        listing.clear_options()
        self.volumes = {v.name: v for v in volumes}
        for v in volumes:
            label = Text.assemble((v.name, "bold"), f"  {getattr(v, 'status_label', v.status)}  {v.size or ''}")
            listing.add_option(Option(label, id=v.name))
        if not volumes:
            self._status(
                "No volumes yet: create one on the Volumes screen (or `prime volumes create research --size 100Gi`)."
            )
            return
        self._status(
            "enter runs the pre-flight on the highlighted volume · d dispatches · tab names the run · esc cancels"
        )
        listing.highlighted = 0
        listing.focus()

    @on(OptionList.OptionSelected, "#volumes")
    def _volume_selected(self, event: OptionList.OptionSelected) -> None:
        volume = self.volumes.get(str(event.option.id))
        if volume is not None:
            self.check(volume)

    @work(exclusive=True, group="preflight")
    async def check(self, volume: Any) -> None:
        self.preflight = None
        self.query_one("#preflight", Static).update(plain(f"Checking {volume.name}…"))
        result = await run_preflight(self.client, volume, self.config, self.text)
        self.preflight = result
        self.query_one("#preflight", Static).update(plain(self._render_preflight(result)))
        if result.blocked:  # the ✗ lines come first, so a short terminal still shows them
            failed = ", ".join(c.name for c in result.checks if c.state == "fail")
            self._status(f"✗ {failed}: fix the ✗ line(s) at the top, then press enter again · esc cancels")
        else:
            self._status(Text.assemble(("d", "bold"), f" dispatches to {volume.name} · esc cancels"))

    def _render_preflight(self, p: Preflight) -> Text:
        variables = self.app.get_css_variables()
        text = Text()
        for c in sorted(p.checks, key=lambda c: c.state != "fail"):  # stable: the failures first, else in order
            icon, var = _ICONS[c.state]
            color = variables.get(var, "")
            if not color or color.startswith("auto") or " " in color:
                color = "dim"  # e.g. $text-muted is "auto 60%", which is no Rich colour
            text.append(f" {icon} ", style=f"bold {color}")
            text.append(f"{c.name:<9}", style="bold")
            text.append(c.detail + "\n")
        return text

    def run_name(self) -> str | None:
        """The name typed in the dialog (it starts as the file's own ``name``); None for an unnamed run."""
        return self.query_one("#run-name", Input).value.strip() or None

    @on(Input.Submitted, "#run-name")
    def _name_entered(self) -> None:
        self.query_one("#volumes", OptionList).focus()

    def action_dispatch(self) -> None:
        if self.busy:
            return
        name = self.run_name()
        if name is not None and (why := run_name.problem(name)):
            self._status(f"Run name: {why}")
            return
        if self.preflight is None:
            self._status("Pick a volume and press enter to run the pre-flight first.")
            return
        if self.preflight.blocked:
            self._status("The pre-flight has ✗ lines: fix them first (or pick another volume).")
            return
        self.dispatch_run(self.preflight.volume)

    @work(exclusive=True, group="dispatch")
    async def dispatch_run(self, volume: str) -> None:
        self.busy = True
        self._status(f"Dispatching to {volume}…")
        try:
            reply = await self.client.create_run(
                self.config, volume=volume, name=self.run_name(), mode=dispatch_mode(self.config)
            )
        except Exception as exc:  # noqa: BLE001 - mapped back onto the editor's lines
            self.busy = False
            detail = getattr(exc, "detail", None)
            self.dismiss(
                DispatchOutcome(
                    None,
                    volume,
                    getattr(exc, "status_code", None),
                    str(exc),
                    list(getattr(exc, "issues", []) or []),
                    detail if isinstance(detail, str) else None,
                )
            )
            return
        self.busy = False
        self.dismiss(DispatchOutcome(reply.run_id, volume))

    def action_cancel(self) -> None:
        if not self.busy:
            self.dismiss(None)
