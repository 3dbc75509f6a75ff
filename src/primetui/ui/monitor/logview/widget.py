"""The log view widget: a virtual view on Textual's Line API that draws only the visible lines of a store.

The store (``monitor_core.store``) holds a million lines in compact chunks; this widget keeps
only a *row map* (all lines, or the filtered global indices) and draws the rows in view. It
follows the tail only while you are at the bottom (scroll up and it holds still, counting
"N new lines"), pauses and resumes on demand, searches (highlight every match, next/previous)
and filters (only matching lines; text or /regex/, ! to invert, minimum level) as two separate
actions, jumps between error records, wraps or scrolls sideways, copies a line or a range
(OSC 52) and colours prime-rl levels from the theme. Log text is drawn as plain text: it was
neutralised by the parser and is never interpreted as markup or escape sequences.

Its parts: ``render`` (drawing, the strip cache), ``search`` (filter, search, error jumps),
``selection`` (pointer, range, copy, save); what needs no drawing is in
``primetui.viewmodel.logview`` (the query syntax, the status, where a jump lands).
"""

from __future__ import annotations

import re

import numpy as np
from rich.style import Style
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from primetui.monitor_core.filters import LogQuery, QueryError, apply_filter, text_matches
from primetui.ui.monitor.logview.render import LogRender
from primetui.ui.monitor.logview.search import LogSearch
from primetui.ui.monitor.logview.selection import LogSelection
from primetui.ui.widgets import displayed
from primetui.viewmodel.logview import ViewState


class LogView(LogRender, LogSearch, LogSelection, ScrollView, can_focus=True):
    """A virtual view over a ``LogStore`` or ``MergedLog``."""

    BINDINGS = [
        Binding("slash", "search", "Search", id="monitor.log.search"),
        Binding("n", "next_match", "Next match", id="monitor.log.next_match"),
        Binding("N", "prev_match", "Prev match", id="monitor.log.prev_match"),
        Binding("f", "filter", "Filter", id="monitor.log.filter"),
        Binding("L", "cycle_level", "Level", id="monitor.log.level"),
        Binding("e", "first_error", "First error", id="monitor.log.first_error"),
        Binding("right_square_bracket", "next_error", "Next error", id="monitor.log.next_error"),
        Binding("left_square_bracket", "prev_error", "Prev error", show=False, id="monitor.log.prev_error"),
        Binding("space", "toggle_pause", "Pause", id="monitor.log.pause"),
        Binding("end,G", "follow", "Follow", show=False, id="monitor.log.follow"),
        Binding("home,g", "top", "Top", show=False, id="monitor.log.top"),
        Binding("W", "toggle_wrap", "Wrap", id="monitor.log.wrap"),
        Binding("up,k", "pointer_up", "Up", show=False, id="monitor.log.up"),
        Binding("down,j", "pointer_down", "Down", show=False, id="monitor.log.down"),
        Binding("pageup", "page_up", "Page up", show=False, id="monitor.log.page_up"),
        Binding("pagedown", "page_down", "Page down", show=False, id="monitor.log.page_down"),
        Binding("left,h", "scroll_left", "Left", show=False, id="monitor.log.left"),
        Binding("right,l", "scroll_right", "Right", show=False, id="monitor.log.right"),
        Binding("v", "mark", "Mark range", show=False, id="monitor.log.mark"),
        Binding("c", "copy", "Copy", id="monitor.log.copy"),
        Binding("s", "step_to_charts", "Step → charts", id="monitor.log.to_charts"),
        Binding("ctrl+s", "save", "Save", id="monitor.log.save"),
        Binding("ctrl+l", "clear_query", "Clear filter/search", show=False, id="monitor.log.clear"),
    ]

    COMPONENT_CLASSES = {
        "logview--time",
        "logview--debug",
        "logview--info",
        "logview--success",
        "logview--warning",
        "logview--error",
        "logview--critical",
        "logview--step",
        "logview--match",
        "logview--match-current",
        "logview--gap",
        "logview--extra",
        "logview--source",
        "logview--pointer",
    }

    DEFAULT_CSS = """
    LogView { height: 1fr; background: $surface; scrollbar-gutter: stable; }
    LogView:focus { background-tint: $foreground 3%; }
    LogView > .logview--time { color: $text-muted; }
    LogView > .logview--debug { color: $text-muted; }
    LogView > .logview--info { color: $primary; }
    LogView > .logview--success { color: $success; }
    LogView > .logview--warning { color: $warning; }
    LogView > .logview--error { color: $error; }
    LogView > .logview--critical { color: $error; text-style: bold reverse; }
    LogView > .logview--step { text-style: bold; }
    LogView > .logview--match { background: $accent 45%; }
    LogView > .logview--match-current { background: $accent; color: $background; text-style: bold; }
    LogView > .logview--gap { color: $warning; text-style: italic; background: $warning 12%; }
    LogView > .logview--extra { color: $text-muted; }
    LogView > .logview--source { color: $secondary; }
    LogView > .logview--pointer { background: $primary 25%; }
    """

    class Changed(Message):
        """The view's status changed (counts, follow, filter, search)."""

        def __init__(self, view: LogView) -> None:
            super().__init__()
            self.view = view

    class StepPicked(Message):
        """``s`` on a line: show its step on the charts (the run screen moves the step cursor)."""

        def __init__(self, view: LogView, step: int) -> None:
            super().__init__()
            self.view = view
            self.step = step

    class Prompt(Message):
        """The view asks its container for a query (``kind`` = "search", "filter" or "save")."""

        def __init__(self, view: LogView, kind: str, initial: str) -> None:
            super().__init__()
            self.view = view
            self.kind = kind
            self.initial = initial

    wrap: reactive[bool] = reactive(False)

    def __init__(
        self, source, *, source_names: list[str] | None = None, name: str | None = None, id: str | None = None
    ) -> None:
        super().__init__(name=name, id=id)
        self.source = source
        self.source_names = source_names  # set for a merged view: tag each line with its component
        self.rows: np.ndarray | None = None  # filtered global indices; None = every line
        self.filter_query: LogQuery | None = None
        self.min_level = 0
        self.search_query: LogQuery | None = None
        self._search_text_re: re.Pattern[str] | None = None
        self.search_hits = np.empty(0, dtype=np.int64)
        self.search_pos = -1
        self.paused = False
        self.pointer: int | None = None  # virtual row
        self.mark: int | None = None  # virtual row where a copy range starts
        self.new_lines = 0
        self._stick = True
        self._seen_end = source.end
        self._seen_first = source.first
        self._reorders = getattr(source, "reorders", 0)
        self._frame_key: tuple | None = None
        self._frame: list[Strip] = []
        self._line_cache: dict[int, tuple[object, Strip]] = {}
        """Global line -> (what it was drawn from, its whole strip): a frame re-renders only new or changed lines."""
        self._styles: dict[str, Style] = {}
        self.error_message: str | None = None
        self.empty_message = "No log lines yet."  # shown while the view has no lines
        self._current_hit = -1

    # ---- geometry ---------------------------------------------------------------------------
    @property
    def row_count(self) -> int:
        return len(self.rows) if self.rows is not None else len(self.source)

    def global_index(self, row: int) -> int:
        """Global line index of virtual row ``row``."""
        if self.rows is not None:
            return int(self.rows[row])
        return self.source.first + row

    def row_of(self, g: int) -> int:
        """Virtual row showing global line ``g`` (the nearest one after it when filtered out)."""
        if self.rows is not None:
            return min(int(np.searchsorted(self.rows, g)), max(len(self.rows) - 1, 0))
        return max(0, min(g - self.source.first, len(self.source) - 1))

    _size_stale = False
    """Lines were added below a scrolled-back view and the scroll range does not count them yet."""

    def _flush_size(self) -> None:
        if self._size_stale:
            self._update_virtual_size()

    def validate_scroll_y(self, value: float) -> float:
        # Any scroll (keys, wheel, bar, code) first takes in the lines added while scrolled back.
        self._flush_size()
        return super().validate_scroll_y(value)

    def _update_virtual_size(self) -> None:
        self._size_stale = False
        width = (
            0
            if self.wrap
            else self.source.max_width + (len(max(self.source_names or [""], key=len)) + 3 if self.source_names else 0)
        )
        size = Size(width, self.row_count)
        if size == self.virtual_size:
            return
        # Not ``self.virtual_size = size``: that reactive lays the whole screen out again, on every
        # batch of lines, though the view's own size never depends on it (it is 1fr high). Only
        # the scroll range and the scrollbars follow it; a scrollbar that appears or goes still
        # asks for a layout (its own reactive does).
        self.set_reactive(LogView.virtual_size, size)
        self._scroll_update(size)

    @property
    def at_bottom(self) -> bool:
        return self.scroll_offset.y >= self.max_scroll_y

    @property
    def following(self) -> bool:
        return not self.paused and self._stick

    def on_mount(self) -> None:
        self._update_virtual_size()
        self.scroll_end(animate=False, immediate=True, x_axis=False, force=True)

    def on_show(self) -> None:
        self._catch_up()

    def on_resize(self) -> None:
        # A tab that was hidden while lines arrived had no size to scroll in: catch up now.
        self._flush_size()
        self._frame_key = None
        if self._stick and not self.paused:
            self.scroll_end(animate=False, immediate=True, x_axis=False, force=True)

    # ---- data -------------------------------------------------------------------------------
    _behind = False
    """Lines arrived while the view was not on screen (another tab shown): taken in when it is shown."""

    def data_changed(self) -> None:
        """The source gained (or dropped) lines: extend the row map, hits, and follow the tail.

        A view not on screen (its tab is not the one shown) only notes it: the lines are taken in
        (row map, hits, scroll range, status) when it is shown again.
        """
        if not displayed(self):
            self._behind = True
            return
        self._take_in()

    def _catch_up(self) -> None:
        """Take in lines that arrived while the view was hidden (before a query, a jump, a save)."""
        if self._behind:
            self._take_in()

    def _take_in(self) -> None:
        self._behind = False
        was_bottom = self._stick
        source = self.source
        reorders = getattr(source, "reorders", 0)
        # Scrolled back (or paused) over a full screen of unfiltered lines, with lines only added
        # after the end: every row on screen keeps its line, so only the status line's count changes.
        top, height = int(self.scroll_offset.y), self.size.height
        unmoved = (
            not (was_bottom and not self.paused)
            and not self.wrap
            and self.rows is None
            and height > 0
            and reorders == self._reorders
            and source.first == self._seen_first
            and top + height <= self._seen_end - self._seen_first
        )
        self._seen_first = source.first
        if reorders != self._reorders:
            # Lines were inserted above the end (a merged view): row maps must be rebuilt.
            self._reorders = reorders
            self._seen_end = source.end
            if self.filter_query is not None:
                self.rows = apply_filter(source, self.filter_query)
            if self.search_query is not None:
                self.search_hits = text_matches(source, self.search_query)
        start = max(self._seen_end, source.first)
        end = source.end
        if self.rows is not None:
            if len(self.rows) and self.rows[0] < source.first:
                self.rows = self.rows[self.rows >= source.first]
            if end > start and self.filter_query is not None:
                self.rows = np.concatenate((self.rows, apply_filter(source, self.filter_query, start, end)))
        if self.search_query is not None and end > start:
            try:
                new_hits = text_matches(source, self.search_query, start, end)
                self.search_hits = np.concatenate((self.search_hits[self.search_hits >= source.first], new_hits))
            except QueryError:
                pass
        added = max(0, end - start)
        self._seen_end = end
        if unmoved:
            # A new scroll range would only move the scrollbar's thumb (a repaint) while the same
            # rows stay on screen: it waits for the next scroll.
            self._size_stale = True
        else:
            self._update_virtual_size()
            self._frame_key = None
        if was_bottom and not self.paused:
            self._scroll_to_end()
            self.new_lines = 0
        else:
            self.new_lines += added if self.rows is None else 0
        if not unmoved:
            self.refresh()
        self.post_message(self.Changed(self))

    def _scroll_to_end(self) -> None:
        # Now (so state is consistent at once) and again after the next layout, which may add a
        # horizontal scrollbar and so move the bottom by a row.
        self.scroll_end(animate=False, immediate=True, x_axis=False, force=True)
        self.call_after_refresh(self._restick)

    def _restick(self) -> None:
        if self._stick and not self.paused:
            self.scroll_end(animate=False, immediate=True, x_axis=False, force=True)

    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        if self.size.height:
            # Follow sticks only while the view is at the bottom: scrolling up releases it.
            self._stick = new >= self.max_scroll_y
        if self._stick:
            self.new_lines = 0
        self.post_message(self.Changed(self))

    def watch_wrap(self) -> None:
        self._update_virtual_size()
        self._frame_key = None
        self.refresh()
        self.post_message(self.Changed(self))

    def state(self) -> ViewState:
        """Counts and modes for the status line."""
        fq = self.filter_query
        return ViewState(
            total=len(self.source),
            shown=self.row_count,
            following=self.following,
            paused=self.paused,
            new_lines=self.new_lines,
            filter=fq.describe() if fq is not None and fq.active else "",
            search=self.search_query.describe() if self.search_query else "",
            search_pos=self.search_pos,
            search_count=len(self.search_hits),
            wrap=self.wrap,
            pointer=self.pointer,
            mark=self.mark,
        )

    # ---- moving around ----------------------------------------------------------------------
    def _goto_global(self, g: int) -> None:
        self.pointer = self.row_of(g)
        self.paused = True if self.pointer < self.row_count - 1 else self.paused
        self.scroll_to_row(self.pointer)
        self._frame_key = None
        self.refresh()
        self.post_message(self.Changed(self))

    def goto_line(self, g: int) -> None:
        """Point at source line ``g`` (the step cursor, an anomaly); a filtered-out line clears the filter."""
        self._catch_up()
        if self.rows is not None and not np.isin(g, self.rows):
            self.set_filter("", 0)
        self._goto_global(g)

    def scroll_to_row(self, row: int) -> None:
        """Scroll so ``row`` is visible (centred when it was off screen)."""
        top = int(self.scroll_offset.y)
        height = max(self.size.height, 1)
        if not top <= row < top + height:
            self.scroll_to(y=max(0, row - height // 2), animate=False, immediate=True, force=True)

    def action_toggle_pause(self) -> None:
        self.paused = not self.paused
        if not self.paused:
            self.scroll_end(animate=False, immediate=True, x_axis=False, force=True)
            self.new_lines = 0
        self.post_message(self.Changed(self))

    def action_follow(self) -> None:
        self._flush_size()
        self.paused = False
        self.pointer = None
        self.new_lines = 0
        self.scroll_end(animate=False, immediate=True, x_axis=False, force=True)
        self._frame_key = None
        self.refresh()
        self.post_message(self.Changed(self))

    def action_top(self) -> None:
        self._flush_size()
        self.paused = True
        self.pointer = 0 if self.row_count else None
        self.scroll_home(animate=False, immediate=True, force=True)
        self._frame_key = None
        self.refresh()
        self.post_message(self.Changed(self))

    def action_toggle_wrap(self) -> None:
        self.wrap = not self.wrap

    def action_scroll_left(self) -> None:
        self.scroll_to(x=max(0, self.scroll_offset.x - 8), animate=False, immediate=True, force=True)

    def action_scroll_right(self) -> None:
        self.scroll_to(x=self.scroll_offset.x + 8, animate=False, immediate=True, force=True)
