"""The editor's sweep dialog (F9): pick keys, type their values, see the grid and its GPUs, dispatch.

The same grid, checks and all-or-none dispatch as ``primetui sweep`` (:mod:`primetui.sft.dispatching`).
The grid as a whole (:mod:`primetui.sft.sweep_check`) is shown as you type: runs, GPUs, cost and the
checkpoints of every run on the picked volume, on one line, and the names the platform already has
(F6 adds ``-2`` to the prefix).
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from primetui.sft.sizing import gpus as gpu_count
from primetui.sft.sizing import parse_size
from primetui.sft.sweep import (
    MAX_RUNS,
    SweepError,
    Variant,
    default_prefix,
    expand,
    name_clashes,
    new_prefix,
    parse_sets,
    unique_names,
)
from primetui.sft.sweep_check import GridCheck, Price, clash_sentence, grid_check, platform_run_names, prices_from
from primetui.ui.safe import plain
from primetui.ui.widgets import tone_style
from primetui.ui.styles import tcss

# Keys a sweep usually varies, offered first; any dotted key can be typed.
COMMON_KEYS = (
    "optim.lr",
    "data.batch_size",
    "data.seq_len",
    "max_steps",
    "optim.weight_decay",
    "scheduler.warmup_steps",
    "model.name",
)
AXES = 3


STATUS_ROWS = 4
"""Lines the dialog's status (an error, the result) may take below the scrolling part (see sweep.tcss)."""


class SweepScreen(ModalScreen[list[str] | None]):
    """F9 in the editor: up to three keys, their values, the grid, then F5 dispatches every run (or none)."""

    CSS_PATH = tcss("sweep.tcss")
    BINDINGS = [
        Binding("f5", "dispatch", "Dispatch all", id="editor.sweep.go"),
        Binding("f6", "suffix", "New names (-2)", id="editor.sweep.suffix"),
        Binding("escape", "cancel", "Cancel", id="editor.sweep.cancel"),
    ]

    def __init__(self, client: Any, text: str, path: Path | None) -> None:
        super().__init__()
        self.client = client
        self.text = text
        self.path = path or Path("sft.toml")
        self.volumes: list[str] = []
        self.volume_bytes: dict[str, int | None] = {}
        self.busy = False
        self.grid_error: str | None = None
        self.runs = 0
        self.existing: frozenset[str] = frozenset()  # run names on the platform (loaded on open)
        self.prices: list[Price] = []
        self.unique = False  # F6: a name the grid gives twice gets -2, -3 (a taken prefix gets -2 in its box)
        self.grid: GridCheck | None = None
        self.names: list[str] = []
        self.clash_confirmed: tuple[str, ...] | None = None  # F5 once more dispatches these names as they are

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Sweep: one run per point of the grid", classes="modal-title")
            yield from self._body()
            yield Static("Loading volumes…", id="sweep-status")  # below the scrolling part: always on screen

    def _body(self) -> ComposeResult:
        """The boxes, lists and grid line: one part that scrolls on a small terminal (the focused box stays in view)."""
        with VerticalScroll(id="sweep-body"):
            yield Input(default_prefix(self.text, self.path.stem), placeholder="name prefix", id="sweep-prefix")
            for n in range(AXES):
                with Horizontal():
                    yield Input(
                        COMMON_KEYS[0] if n == 0 else "",
                        placeholder="key (e.g. optim.lr)",
                        classes="sweep-key",
                        id=f"sweep-key-{n}",
                    )
                    yield Input(
                        "",
                        placeholder="values, comma-separated TOML (1e-5, 3e-5)",
                        classes="sweep-values",
                        id=f"sweep-values-{n}",
                    )
            yield Static("Common keys (enter puts one in the first empty key box):")
            yield OptionList(*[Option(k, id=k) for k in COMMON_KEYS], id="sweep-keys")
            yield Static("Volume:")
            yield OptionList(id="sweep-volumes")
            yield Static("", id="sweep-grid")

    def on_resize(self, event: events.Resize) -> None:
        """The scrolling part gets what the dialog's 95 % leaves after its border, title and status lines."""
        room = event.size.height * 95 // 100 - 2 - 1 - STATUS_ROWS
        self.query_one("#sweep-body").styles.max_height = max(4, room)

    def on_mount(self) -> None:
        self.query_one("#sweep-values-0", Input).focus()
        self.update_grid()
        self.load_volumes()
        self.load_names()

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
        self.volume_bytes = {v.name: parse_size(getattr(v, "size", None)) for v in volumes}
        for name in self.volumes:
            listing.add_option(Option(plain(name), id=name))
        if self.volumes:
            listing.highlighted = 0
            self._status("F5 checks every run, then dispatches them all (or none) · esc cancels")
        else:
            self._status("No volumes yet: create one on the Volumes screen first.")
        self.update_grid()

    @work(exclusive=True, group="names")
    async def load_names(self) -> None:
        """The platform's run names (a sweep's names are checked against them) and on-demand prices."""
        try:
            self.existing = frozenset(await platform_run_names(self.client))
        except Exception as exc:  # noqa: BLE001 - PrimeAPIError's str() is the sentence to show
            self._status(f"Could not list the platform's runs ({exc}); the names are not checked.")
        try:
            self.prices = prices_from(await self.client.list_models())
        except Exception:  # noqa: BLE001 - no price: the grid line says none is listed
            self.prices = []
        self.update_grid()

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

    @on(OptionList.OptionHighlighted, "#sweep-volumes")
    def _volume_picked(self) -> None:
        self.update_grid()

    def volume(self) -> str | None:
        listing = self.query_one("#sweep-volumes", OptionList)
        if listing.highlighted is None or listing.highlighted >= len(self.volumes):
            return None
        return self.volumes[listing.highlighted]

    @on(OptionList.OptionSelected, "#sweep-keys")
    def _key_picked(self, event: OptionList.OptionSelected) -> None:
        boxes = [self.query_one(f"#sweep-key-{n}", Input) for n in range(AXES)]
        target = next((b for b in boxes if not b.value.strip()), boxes[-1])
        target.value = str(event.option.id)
        self.query_one(f"#sweep-values-{boxes.index(target)}", Input).focus()

    def variants(self) -> list[Variant]:
        """The grid's runs; raises SweepError with the sentence that says why there is none."""
        variants = expand(self.text, parse_sets(self.sets()), self.prefix())
        return unique_names(variants) if self.unique else variants

    def update_grid(self) -> None:
        """The grid as a whole on one line (runs, GPUs, cost, space on the picked volume), the names
        already taken, then each run with its GPUs; or why there is no grid yet."""
        import tomllib

        grid = self.query_one("#sweep-grid", Static)
        self.runs = 0
        self.grid = None
        try:
            variants = self.variants()
        except SweepError as exc:
            self.grid_error = str(exc)
            grid.update(plain(Text(f"No grid yet: {exc}", style="dim")))
            return
        self.grid_error = None
        self.runs = len(variants)
        self.names = [v.name for v in variants]
        volume = self.volume()
        configs = [tomllib.loads(v.text) for v in variants]
        self.grid = check = grid_check(
            configs, self.names, self.volume_bytes.get(volume) if volume else None, self.prices, self.existing
        )
        tone = {"fail": "error", "warn": "warning"}.get(check.state)
        text = Text()
        text.append("Grid: ", style="bold")
        text.append(
            check.line() + (f" (on {volume})" if volume else " (pick a volume)") + "\n",
            style=tone_style(self, tone) if tone else "",
        )
        if clash := self.clash_text():
            text.append(f"⚠ {clash}\n", style=tone_style(self, "warning"))
        for v, config in zip(variants, configs):
            gpus = gpu_count(config)
            text.append(f"  {v.name}", style="bold")
            text.append(f"  {gpus} GPU{'s' if gpus != 1 else ''}")
            text.append(
                "  (name taken)\n" if v.name in check.taken else "\n",
                style=tone_style(self, "warning") if v.name in check.taken else "",
            )
        text.append(f"{len(variants)} run(s), {check.gpus} GPUs in all (at most {MAX_RUNS} runs in one sweep)")
        grid.update(plain(text))

    def clash_text(self) -> str | None:
        """The warning about taken names with the F6 offer, or None when every name is new."""
        check = self.grid
        if check is None:
            return None
        suggestion = new_prefix(self.prefix(), self.names, self.existing) if check.taken else None
        offer = (f"F6 (prefix {suggestion})" if suggestion else "F6") if check.taken or not self.unique else None
        return clash_sentence(check.runs, check.taken, check.twice, self.prefix(), offer)

    def action_suffix(self) -> None:
        """F6: make every name new: ``-2`` (``-3``, …) on the prefix when the platform has one of the
        names, ``-2`` on a name the grid gives twice."""
        if self.grid is None:
            self._status(self.grid_error or "No grid yet.")
            return
        taken, twice = name_clashes(self.names, self.existing)
        if not taken and not twice:
            self._status("Every run name is new already.")
            return
        self.unique = True
        if taken:
            prefix = new_prefix(self.prefix(), self.names, self.existing)
            self.query_one("#sweep-prefix", Input).value = prefix  # Input.Changed redraws the grid
            self._status(f"The prefix is now {prefix}: every run name is new.")
        else:
            self.update_grid()
            self._status("A name given twice now ends in -2: every run name is new.")

    def action_dispatch(self) -> None:
        if self.busy:
            return
        if self.grid_error is not None:
            self._status(self.grid_error)
            return
        volume = self.volume()
        if volume is None or not self.volumes:
            self._status("Pick the volume the runs use first.")
            return
        if self.grid is not None and self.grid.blocked:
            self._status(f"The {self.runs} runs do not fit on {volume} together: {self.grid.space.detail}.")
            return
        clash = self.clash_text()
        if clash and self.clash_confirmed != tuple(self.names):
            self.clash_confirmed = tuple(self.names)
            self._status(f"{clash.rstrip('.')}; F5 again dispatches the names as they are.")
            return
        self.dispatch_all(volume)

    @work(exclusive=True, group="sweep")
    async def dispatch_all(self, volume: str) -> None:
        from primetui.sft.dispatching import Dispatched, sweep_text

        self.busy = True
        self._status(f"Checking {self.runs} runs on {volume}…")
        lines = io.StringIO()
        try:
            result = await sweep_text(
                self.client,
                self.text,
                self.path,
                volume,
                self.sets(),
                self.prefix(),
                lines,
                suffix=self.unique,
                offer=lambda p: f"F6 (prefix {p})" if p else "F6",
            )
        finally:
            self.busy = False
        if isinstance(result, Dispatched):
            if result.stopped is not None:
                self._status(result.stopped.message)
                return
            self.dismiss([run_id for run_id, _ in result.runs])
            return
        problems = [line for line in lines.getvalue().splitlines() if "error" in line or "FAIL" in line]
        if len(problems) > 6:  # the first runs' problems, and the grid's line (the last) when it failed
            problems = problems[:5] + problems[-1:]
        self.query_one("#sweep-grid", Static).update(plain("\n".join(problems)))
        self._status(result.message)

    def action_cancel(self) -> None:
        if not self.busy:
            self.dismiss(None)
