"""The editor's sweep dialog (F9): pick keys, type their values, see the grid and its GPUs, dispatch.

The same grid, checks and all-or-none dispatch as ``primetui sweep`` (:mod:`primetui.sft.dispatching`).
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from primetui.sft.sweep import MAX_RUNS, SweepError, default_prefix, expand, parse_sets
from primetui.ui.safe import plain
from primetui.ui.styles import tcss

# Keys a sweep usually varies, offered first; any dotted key can be typed.
COMMON_KEYS = ("optim.lr", "data.batch_size", "data.seq_len", "max_steps", "optim.weight_decay",
               "scheduler.warmup_steps", "model.name")
AXES = 3


def gpu_count(config: dict[str, Any]) -> int:
    """GPUs one run of ``config`` holds (train plus inference), as the runs list counts them."""
    from primetui.viewmodel.present import gpu_split

    split = gpu_split({"runConfig": config})
    return sum(split) if split is not None else 1


class SweepScreen(ModalScreen[list[str] | None]):
    """F9 in the editor: up to three keys, their values, the grid, then F5 dispatches every run (or none)."""

    CSS_PATH = tcss("sweep.tcss")
    BINDINGS = [
        Binding("f5", "dispatch", "Dispatch all", id="editor.sweep.go"),
        Binding("escape", "cancel", "Cancel", id="editor.sweep.cancel"),
    ]

    def __init__(self, client: Any, text: str, path: Path | None) -> None:
        super().__init__()
        self.client = client
        self.text = text
        self.path = path or Path("sft.toml")
        self.volumes: list[str] = []
        self.busy = False
        self.grid_error: str | None = None
        self.runs = 0

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Sweep: one run per point of the grid", classes="modal-title")
            yield Input(default_prefix(self.text, self.path.stem), placeholder="name prefix", id="sweep-prefix")
            for n in range(AXES):
                with Horizontal():
                    yield Input(COMMON_KEYS[0] if n == 0 else "", placeholder="key (e.g. optim.lr)",
                                classes="sweep-key", id=f"sweep-key-{n}")
                    yield Input("", placeholder="values, comma-separated TOML (1e-5, 3e-5)",
                                classes="sweep-values", id=f"sweep-values-{n}")
            yield Static("Common keys (enter puts one in the first empty key box):")
            yield OptionList(*[Option(k, id=k) for k in COMMON_KEYS], id="sweep-keys")
            yield Static("Volume:")
            yield OptionList(id="sweep-volumes")
            yield Static("", id="sweep-grid")
            yield Static("Loading volumes…", id="sweep-status")

    def on_mount(self) -> None:
        self.query_one("#sweep-values-0", Input).focus()
        self.update_grid()
        self.load_volumes()

    def _status(self, text: str | Text) -> None:
        self.query_one("#sweep-status", Static).update(plain(text))

    @work(exclusive=True, group="volumes")
    async def load_volumes(self) -> None:
        try:
            volumes = await self.client.list_volumes()
        except Exception as exc:  # noqa: BLE001 - PrimeAPIError's str() is the sentence to show
            self._status(f"Could not list volumes: {exc}")
            return
        listing = self.query_one("#sweep-volumes", OptionList)
        self.volumes = [v.name for v in volumes]
        for name in self.volumes:
            listing.add_option(Option(plain(name), id=name))
        if self.volumes:
            listing.highlighted = 0
            self._status("F5 checks every run, then dispatches them all (or none) · esc cancels")
        else:
            self._status("No volumes yet: create one on the Volumes screen first.")

    def sets(self) -> list[str]:
        out = []
        for n in range(AXES):
            key = self.query_one(f"#sweep-key-{n}", Input).value.strip()
            values = self.query_one(f"#sweep-values-{n}", Input).value.strip()
            if key or values:
                out.append(f"{key}={values}")
        return out

    def prefix(self) -> str:
        return self.query_one("#sweep-prefix", Input).value.strip() or self.path.stem

    @on(Input.Changed)
    def _changed(self) -> None:
        self.update_grid()

    @on(OptionList.OptionSelected, "#sweep-keys")
    def _key_picked(self, event: OptionList.OptionSelected) -> None:
        boxes = [self.query_one(f"#sweep-key-{n}", Input) for n in range(AXES)]
        target = next((b for b in boxes if not b.value.strip()), boxes[-1])
        target.value = str(event.option.id)
        self.query_one(f"#sweep-values-{boxes.index(target)}", Input).focus()

    def update_grid(self) -> None:
        """The runs the grid makes, each with its GPUs, and the total; or why there is no grid yet."""
        import tomllib

        grid = self.query_one("#sweep-grid", Static)
        self.runs = 0
        try:
            variants = expand(self.text, parse_sets(self.sets()), self.prefix())
        except SweepError as exc:
            self.grid_error = str(exc)
            grid.update(plain(Text(f"No grid yet: {exc}", style="dim")))
            return
        self.grid_error = None
        self.runs = len(variants)
        text = Text()
        total = 0
        for v in variants:
            gpus = gpu_count(tomllib.loads(v.text))
            total += gpus
            text.append(f"  {v.name}", style="bold")
            text.append(f"  {gpus} GPU{'s' if gpus != 1 else ''}\n")
        text.append(f"{len(variants)} run(s), {total} GPUs in all (at most {MAX_RUNS} runs in one sweep)")
        grid.update(plain(text))

    def action_dispatch(self) -> None:
        if self.busy:
            return
        if self.grid_error is not None:
            self._status(self.grid_error)
            return
        listing = self.query_one("#sweep-volumes", OptionList)
        if listing.highlighted is None or not self.volumes:
            self._status("Pick the volume the runs use first.")
            return
        self.dispatch_all(self.volumes[listing.highlighted])

    @work(exclusive=True, group="sweep")
    async def dispatch_all(self, volume: str) -> None:
        from primetui.sft.dispatching import Dispatched, sweep_text

        self.busy = True
        self._status(f"Checking {self.runs} runs on {volume}…")
        lines = io.StringIO()
        try:
            result = await sweep_text(self.client, self.text, self.path, volume, self.sets(), self.prefix(), lines)
        finally:
            self.busy = False
        if isinstance(result, Dispatched):
            if result.stopped is not None:
                self._status(result.stopped.message)
                return
            self.dismiss([run_id for run_id, _ in result.runs])
            return
        problems = [line for line in lines.getvalue().splitlines() if "error" in line or "FAIL" in line][:6]
        self.query_one("#sweep-grid", Static).update(plain("\n".join(problems)))
        self._status(result.message)

    def action_cancel(self) -> None:
        if not self.busy:
            self.dismiss(None)
