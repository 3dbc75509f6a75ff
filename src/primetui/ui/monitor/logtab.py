"""One log tab: the virtual view, its status line, and the prompt for search / filter / save."""

from __future__ import annotations

import os

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.reactive import var
from textual.widgets import Input, Static

from primetui.ui.monitor.logview import LogView
from primetui.ui.safe import clean, plain
from primetui.viewmodel.logview import covered_note, held_note
from primetui.ui.widgets import update_static

_PROMPTS = {
    "search": ("search (text, /regex/; smart case) — enter: go, esc: cancel", "Search"),
    "filter": ("filter: text, /regex/, !text inverts; empty clears — L cycles the level", "Filter"),
    "save": ("save this tab (as filtered) to file", "Save to"),
}


class LogTab(Vertical):
    """A ``LogView`` with a one-line status and an inline prompt."""

    # Only while a prompt is open: otherwise escape goes on to the screen (e.g. "back").
    BINDINGS = [Binding("escape", "cancel_prompt", "Cancel", show=False, id="monitor.log.cancel_prompt")]

    DEFAULT_CSS = """
    LogTab { height: 1fr; }
    LogTab > .logtab--status { height: 1; padding: 0 1; background: $panel; color: $text-muted; }
    LogTab > Input { height: 3; display: none; border: tall $accent; }
    LogTab > Input.-open { display: block; }
    """

    feed_note: var[str] = var("", init=False)
    """What the tab's follower is doing (waiting for the run, retrying, complete): the status line
    and the empty view say it."""

    def __init__(
        self,
        source,
        *,
        title: str,
        source_names: list[str] | None = None,
        default_file: str = "run.log",
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.title = title
        self.view = LogView(source, source_names=source_names)
        self._status = Static("", classes="logtab--status", markup=False)
        self._input = Input()
        self._prompt_kind: str | None = None
        self.default_file = default_file

    def compose(self) -> ComposeResult:
        yield self.view
        yield self._status
        yield self._input

    def on_mount(self) -> None:
        self.update_status()

    # ---- status -----------------------------------------------------------------------------
    def on_log_view_changed(self, event: LogView.Changed) -> None:
        event.stop()
        self.update_status()

    def watch_feed_note(self) -> None:
        if self.is_mounted:
            self.update_status()

    def update_status(self) -> None:
        s = self.view.state()
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(clean(self.title), style="bold")
        held = held_note(self.view.source)
        if s.shown != s.total:
            text.append(f"  {s.shown:,} of {s.total:,} lines")
        elif held:
            text.append(f"  {held}")  # every line is there to scroll to; this says how many are in memory
            held = ""
        else:
            text.append(f"  {s.total:,} lines")
        if s.paused:
            text.append("  ⏸ paused (space resumes)", style="bold")
        elif s.following:
            text.append("  ● following")
        else:
            text.append("  ○ scrolled")
        if s.new_lines:
            text.append(f"  ↓ {s.new_lines:,} new lines (End)", style="reverse")
        covered = covered_note(self.view.source)
        if s.filter:
            text.append(f"  filter {s.filter}{covered}", style="bold")
        if s.search:
            pos = f"{s.search_pos + 1}/{s.search_count}" if s.search_pos >= 0 else f"0/{s.search_count}"
            text.append(f"  search {s.search} {pos}{covered}")
        if s.mark is not None:
            text.append("  range marked (c copies)")
        if s.wrap:
            text.append("  wrap")
        empty = f"No log lines yet: {self.feed_note}" if self.feed_note else "No log lines yet."
        if empty != self.view.empty_message:
            self.view.empty_message = empty
            self.view.refresh()  # kept by hand: the view's empty_message is a plain attribute of LogView
        if held:
            text.append(f"  {held}")
        if self.feed_note:
            text.append(f"  · {self.feed_note}")
        if self.view.error_message:
            text.append(f"  {self.view.error_message}", style="bold")
        update_static(self._status, plain(text), layout=False)  # one line

    # ---- prompt -----------------------------------------------------------------------------
    def on_log_view_prompt(self, event: LogView.Prompt) -> None:
        event.stop()
        self._prompt_kind = event.kind
        placeholder, _ = _PROMPTS[event.kind]
        self._input.placeholder = placeholder
        self._input.value = event.initial if event.kind != "save" else os.path.join(os.getcwd(), self.default_file)
        self._input.add_class("-open")
        self._input.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        kind, value = self._prompt_kind, event.value
        self._close_prompt()
        if kind == "search":
            self.view.set_search(value)
        elif kind == "filter":
            self.view.set_filter(value)
        elif kind == "save":
            self._save(value)
        # A new search or filter is drawn by the view's Changed message (on_log_view_changed).

    def _save(self, path: str) -> None:
        path = os.path.expanduser(path.strip())
        if not path:
            self.notify("No file name given; nothing was saved.", severity="warning")
            return
        try:
            n = self.view.save_to(path)
        except OSError as exc:
            self.notify(
                f"Could not write {path} ({exc.strerror or exc}); pick another path with ctrl+s.", severity="error"
            )
            return
        self.notify(f"Saved {n:,} lines to {path}.")

    def _close_prompt(self) -> None:
        self._prompt_kind = None
        self._input.remove_class("-open")
        self.view.focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "cancel_prompt":
            return self._prompt_kind is not None
        return True

    def action_cancel_prompt(self) -> None:
        self._close_prompt()
