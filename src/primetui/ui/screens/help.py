"""F1 / ? help: generated from the bindings (with ids) active where you pressed it."""

from __future__ import annotations

from typing import cast

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

from primetui.ui.keys import pretty_keys
from primetui.ui.safe import clean, plain
from primetui.ui.styles import tcss


class HelpScreen(ModalScreen[None]):
    """The keys of the screen underneath plus the global ones, as the keymap set them."""

    BINDINGS = [Binding("escape,q,f1,question_mark", "dismiss_help", "Close", id="help.close")]
    CSS_PATH = tcss("help.tcss")

    def __init__(self, under: Screen) -> None:
        super().__init__()
        self.under = under

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(
                plain(f"Keys · {self.under.title or 'primetui'}   (esc closes · ctrl+p finds anything)"),
                id="help-title",
            )
            with VerticalScroll():
                yield Static(self.table(), id="help-body")

    def table(self) -> Table:
        table = Table(box=None, expand=True, show_header=True, header_style="bold")
        table.add_column("Key", no_wrap=True, style="bold")
        table.add_column("Action")
        table.add_column("Id", style="dim", no_wrap=True)
        keymap = getattr(self.app, "_keymap", {}) or {}
        seen: set[str] = set()
        sections = [
            *self.focused_sections(),
            (self.under.title or "This screen", type(self.under)),
            ("Everywhere", type(self.app)),
        ]
        for title, owner in sections:
            rows = [b for b in getattr(owner, "BINDINGS", []) if isinstance(b, Binding) and b.id and b.id not in seen]
            if not rows:
                continue
            table.add_row(Text.assemble((clean(title), "underline")), "", "")
            for b in rows:
                seen.add(cast(str, b.id))  # rows keep only bindings with an id
                enabled = True
                if owner is type(self.under):
                    verdict = self.under.check_action(b.action.split("(")[0], ())
                    enabled = verdict is True
                key = pretty_keys(str(keymap.get(b.id, b.key)))
                desc = b.description or b.action
                cell = Text.assemble((clean(f"{desc} (not now)"), "dim")) if not enabled else plain(desc)
                table.add_row(plain(key), cell, plain(b.id))
        table.add_row("", "", "")
        table.add_row("mouse", "click rows, tabs, buttons and footer keys: same actions as the keys", "")
        return table

    def focused_sections(self) -> list[tuple[str, type]]:
        """The panes around the focused widget that have keys of their own (a tab's pane, a log), innermost first:
        their keys win over the screen's while they hold the focus."""
        focused = getattr(self.under, "focused", None)
        out: list[tuple[str, type]] = []
        for node in [focused, *focused.ancestors] if focused is not None else []:
            if node is self.under:
                break
            owner = type(node)
            if any(isinstance(b, Binding) and b.id for b in owner.__dict__.get("BINDINGS", [])):
                out.append((getattr(owner, "HELP_TITLE", owner.__name__), owner))
        return out

    def action_dismiss_help(self) -> None:
        self.dismiss(None)
