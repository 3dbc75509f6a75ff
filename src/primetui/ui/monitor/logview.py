"""A virtual log view on Textual's Line API: renders only the visible lines of a store.

The store (``monitor_core.store``) holds a million lines in compact chunks; this widget keeps
only a *row map* (all lines, or the filtered global indices) and draws the rows in view. It
follows the tail only while you are at the bottom (scroll up and it holds still, counting
"N new lines"), pauses and resumes on demand, searches (highlight every match, next/previous)
and filters (only matching lines; text or /regex/, ! to invert, minimum level) as two separate
actions, jumps between error records, wraps or scrolls sideways, copies a line or a range
(OSC 52) and colours prime-rl levels from the theme. Log text is drawn as plain text: it was
neutralised by the parser and is never interpreted as markup or escape sequences.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from primetui.config.fileio import atomic_write
from primetui.monitor_core import lines as L
from primetui.monitor_core.filters import LogQuery, Matcher, QueryError, apply_filter, error_starts, text_matches
from primetui.ui.widgets import displayed

_LEVEL_CLASS = {
    L.TRACE: "logview--debug",
    L.DEBUG: "logview--debug",
    L.INFO: "logview--info",
    L.SUCCESS: "logview--success",
    L.WARNING: "logview--warning",
    L.ERROR: "logview--error",
    L.CRITICAL: "logview--critical",
}
_HEAD = re.compile(
    r"(?P<time>\d{2}:\d{2}(?::\d{2})?)\s+\[?(?P<level>TRACE|DEBUG|INFO|SUCCESS|WARNING|WARN|ERROR|CRITICAL|FATAL)\]?"
)
_STEP_WORD = re.compile(r"Step \d+")
LEVEL_CYCLE = (0, L.DEBUG, L.INFO, L.WARNING, L.ERROR)


def parse_query(text: str, min_level: int = 0) -> LogQuery:
    """Read the query syntax: ``!`` in front inverts, ``/.../`` is a regex, else plain text."""
    invert = text.startswith("!")
    if invert:
        text = text[1:]
    regex = len(text) >= 2 and text.startswith("/") and text.endswith("/")
    if regex:
        text = text[1:-1]
    return LogQuery(text=text, regex=regex, invert=invert, min_level=min_level)


@dataclass(slots=True)
class ViewState:
    """What the status line shows about a view."""

    total: int
    shown: int
    following: bool
    paused: bool
    new_lines: int
    filter: str
    search: str
    search_pos: int
    search_count: int
    wrap: bool
    pointer: int | None
    mark: int | None


class LogView(ScrollView, can_focus=True):
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

    def __init__(self, source, *, source_names: list[str] | None = None, name: str | None = None, id: str | None = None) -> None:
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
        width = 0 if self.wrap else self.source.max_width + (len(max(self.source_names or [""], key=len)) + 3 if self.source_names else 0)
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

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles.clear()
        self._line_cache.clear()
        self._frame_key = None

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
        unmoved = (not (was_bottom and not self.paused) and not self.wrap and self.rows is None and height > 0
                   and reorders == self._reorders and source.first == self._seen_first
                   and top + height <= self._seen_end - self._seen_first)
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

    # ---- queries ----------------------------------------------------------------------------
    def set_filter(self, text: str | None = None, min_level: int | None = None) -> None:
        """Show only lines matching ``text`` (query syntax) at or above ``min_level``."""
        self._catch_up()
        if min_level is not None:
            self.min_level = min_level
        current = self.filter_query
        if text is None:
            query = LogQuery(current.text, current.regex, current.invert, self.min_level) if current else LogQuery(min_level=self.min_level)
        else:
            query = parse_query(text, self.min_level)
        keep = self.global_index(self.pointer) if self.pointer is not None and self.row_count else None
        top = self.global_index(min(int(self.scroll_offset.y), self.row_count - 1)) if self.row_count else None
        if not query.active:
            self.filter_query = None
            self.rows = None
        else:
            try:
                rows = apply_filter(self.source, query)
            except QueryError as exc:
                self.error_message = str(exc)
                self.post_message(self.Changed(self))
                return
            self.filter_query = query
            self.rows = rows
        self.error_message = None
        self._seen_end = self.source.end
        self._after_remap(keep, top)

    def _after_remap(self, keep: int | None, top: int | None) -> None:
        self._update_virtual_size()
        self._frame_key = None
        self.pointer = self.row_of(keep) if keep is not None and self.row_count else None
        if self.paused and top is not None and self.row_count:
            self.scroll_to(y=self.row_of(top), animate=False, immediate=True, force=True)
        elif self.pointer is not None:
            self.scroll_to_row(self.pointer)
        else:
            self.scroll_end(animate=False, immediate=True, x_axis=False, force=True)
        self.refresh()
        self.post_message(self.Changed(self))

    def set_search(self, text: str) -> None:
        """Highlight every match of ``text`` and jump to the first one after the pointer."""
        self._catch_up()
        if not text:
            self.search_query = None
            self._search_text_re = None
            self.search_hits = np.empty(0, dtype=np.int64)
            self.search_pos = -1
            self._frame_key = None
            self.refresh()
            self.post_message(self.Changed(self))
            return
        query = parse_query(text)
        query = LogQuery(query.text, query.regex, False, 0)
        try:
            self._search_text_re = Matcher(query).text_pattern
            hits = text_matches(self.source, query)
        except QueryError as exc:
            self.error_message = str(exc)
            self.post_message(self.Changed(self))
            return
        self.error_message = None
        self.search_query = query
        self.search_hits = hits
        self.search_pos = -1
        self._frame_key = None
        self.action_next_match()

    def _visible_hits(self) -> np.ndarray:
        """Search hits that are visible under the current filter."""
        hits = self.search_hits
        if self.rows is not None and len(hits):
            hits = hits[np.isin(hits, self.rows, assume_unique=True)]
        return hits

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

    def step_of_pointer(self) -> int | None:
        """The step the pointed line belongs to: its own step line, else the nearest one above."""
        if self.pointer is None or not self.row_count:
            return None
        g = self.global_index(self.pointer)
        first = self.source.first
        steps = self.source.steps(first, g + 1)
        known = np.flatnonzero(steps >= 0)
        return int(steps[known[-1]]) if len(known) else None

    def action_step_to_charts(self) -> None:
        step = self.step_of_pointer()
        if step is None:
            self.notify("No step line at or above this line (point at a line with ↑/↓ or a click).", timeout=3)
            return
        self.post_message(self.StepPicked(self, step))

    def scroll_to_row(self, row: int) -> None:
        """Scroll so ``row`` is visible (centred when it was off screen)."""
        top = int(self.scroll_offset.y)
        height = max(self.size.height, 1)
        if not top <= row < top + height:
            self.scroll_to(y=max(0, row - height // 2), animate=False, immediate=True, force=True)

    # ---- actions ----------------------------------------------------------------------------
    def action_search(self) -> None:
        initial = ""
        if self.search_query is not None:
            initial = f"/{self.search_query.text}/" if self.search_query.regex else self.search_query.text
        self.post_message(self.Prompt(self, "search", initial))

    def action_filter(self) -> None:
        fq = self.filter_query
        initial = ""
        if fq is not None and fq.text:
            body = f"/{fq.text}/" if fq.regex else fq.text
            initial = ("!" if fq.invert else "") + body
        self.post_message(self.Prompt(self, "filter", initial))

    def action_save(self) -> None:
        self.post_message(self.Prompt(self, "save", ""))

    def action_clear_query(self) -> None:
        self.set_search("")
        self.min_level = 0
        self.set_filter("", 0)

    def action_cycle_level(self) -> None:
        i = LEVEL_CYCLE.index(self.min_level) if self.min_level in LEVEL_CYCLE else 0
        self.set_filter(None, LEVEL_CYCLE[(i + 1) % len(LEVEL_CYCLE)])

    def _step_match(self, forward: bool) -> None:
        hits = self._visible_hits()
        if not len(hits):
            self.search_pos = -1
            self.post_message(self.Changed(self))
            if self.search_query is not None:
                self.app.bell()
            return
        here = self.global_index(self.pointer) if self.pointer is not None and self.row_count else (self.source.first - 1 if forward else self.source.end)
        if forward:
            i = int(np.searchsorted(hits, here, side="right"))
            i = 0 if i >= len(hits) else i
        else:
            i = int(np.searchsorted(hits, here, side="left")) - 1
            i = len(hits) - 1 if i < 0 else i
        self.search_pos = i
        self._goto_global(int(hits[i]))

    def action_next_match(self) -> None:
        self._step_match(True)

    def action_prev_match(self) -> None:
        self._step_match(False)

    def _errors(self) -> np.ndarray:
        starts = error_starts(self.source)
        if self.rows is not None and len(starts):
            starts = starts[np.isin(starts, self.rows, assume_unique=True)]
        return starts

    def action_first_error(self) -> None:
        errors = self._errors()
        if not len(errors):
            self.notify("No error lines in this log.", timeout=3)
            return
        self._goto_global(int(errors[0]))

    def action_next_error(self) -> None:
        errors = self._errors()
        if not len(errors):
            self.notify("No error lines in this log.", timeout=3)
            return
        here = self.global_index(self.pointer) if self.pointer is not None and self.row_count else self.source.first - 1
        i = int(np.searchsorted(errors, here, side="right"))
        self._goto_global(int(errors[i if i < len(errors) else 0]))

    def action_prev_error(self) -> None:
        errors = self._errors()
        if not len(errors):
            self.notify("No error lines in this log.", timeout=3)
            return
        here = self.global_index(self.pointer) if self.pointer is not None and self.row_count else self.source.end
        i = int(np.searchsorted(errors, here, side="left")) - 1
        self._goto_global(int(errors[i if i >= 0 else -1]))

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

    def _move_pointer(self, delta: int) -> None:
        self._flush_size()
        if not self.row_count:
            return
        if self.pointer is None:
            top = int(self.scroll_offset.y)
            self.pointer = min(top + self.size.height - 1, self.row_count - 1) if delta < 0 else top
        else:
            self.pointer = max(0, min(self.row_count - 1, self.pointer + delta))
        top = int(self.scroll_offset.y)
        height = max(self.size.height, 1)
        if self.pointer < top:
            self.scroll_to(y=self.pointer, animate=False, immediate=True, force=True)
        elif self.pointer >= top + height:
            self.scroll_to(y=self.pointer - height + 1, animate=False, immediate=True, force=True)
        self._frame_key = None
        self.refresh()
        self.post_message(self.Changed(self))

    def action_pointer_up(self) -> None:
        self._move_pointer(-1)

    def action_pointer_down(self) -> None:
        self._move_pointer(1)

    def action_page_up(self) -> None:
        self._move_pointer(-max(self.size.height - 1, 1))

    def action_page_down(self) -> None:
        self._move_pointer(max(self.size.height - 1, 1))

    def action_scroll_left(self) -> None:
        self.scroll_to(x=max(0, self.scroll_offset.x - 8), animate=False, immediate=True, force=True)

    def action_scroll_right(self) -> None:
        self.scroll_to(x=self.scroll_offset.x + 8, animate=False, immediate=True, force=True)

    def action_mark(self) -> None:
        if self.pointer is None:
            self._move_pointer(-1)
        self.mark = None if self.mark is not None else self.pointer
        self._frame_key = None
        self.refresh()
        self.post_message(self.Changed(self))

    def selected_text(self) -> str:
        """The pointer line, or the marked range, as plain text (merged view: with components)."""
        if self.pointer is None or not self.row_count:
            return ""
        lo, hi = (self.pointer, self.pointer) if self.mark is None else sorted((self.mark, self.pointer))
        out = []
        for row in range(lo, hi + 1):
            out.append(self._plain(self.global_index(row)))
        return "\n".join(out)

    def _plain(self, g: int) -> str:
        r = self.source.row(g)
        if r is None:
            return ""
        if self.source_names:
            return f"{self.source_names[r.source]} | {r.text}"
        return r.text

    def action_copy(self) -> None:
        text = self.selected_text()
        if not text:
            self.notify("Move to a line first (up/down), then copy; v marks a range.", timeout=3)
            return
        self.app.copy_to_clipboard(text)
        n = text.count("\n") + 1
        self.notify(f"Copied {n} line{'s' if n > 1 else ''} to the clipboard (OSC 52).", timeout=3)
        self.mark = None
        self._frame_key = None
        self.refresh()

    def save_to(self, path: str) -> int:
        """Write the lines in view (filtered or all) to ``path``; returns how many."""
        self._catch_up()
        lines = [self._plain(self.global_index(row)) + "\n" for row in range(self.row_count)]
        atomic_write(Path(path), "".join(lines))
        return len(lines)

    def on_click(self, event) -> None:
        row = int(self.scroll_offset.y) + event.y
        if 0 <= row < self.row_count and not self.wrap:
            self.pointer = row
            self._frame_key = None
            self.refresh()
            self.post_message(self.Changed(self))

    # ---- rendering --------------------------------------------------------------------------
    def _style(self, name: str) -> Style:
        style = self._styles.get(name)
        if style is None:
            style = self._styles[name] = self.get_component_rich_style(name, partial=True)
        return style

    def _line_text(self, g: int) -> Text:
        r = self.source.row(g)
        if r is None:
            return Text("")
        text = Text(r.text, no_wrap=not self.wrap, end="")
        if r.kind == L.GAP:
            text.stylize(self._style("logview--gap"))
        elif r.kind == L.EXTRA:
            text.stylize(self._style("logview--extra"))
        else:
            m = _HEAD.match(r.text) if r.text[:1].isdigit() else None
            level_style = self._style(_LEVEL_CLASS[r.level]) if r.level in _LEVEL_CLASS else None
            if m is not None:
                text.stylize(self._style("logview--time"), m.start("time"), m.end("time"))
                if level_style is not None:
                    text.stylize(level_style + Style(bold=True), m.start("level"), m.end("level"))
                body_from = m.end()
            else:
                body_from = 0
            if level_style is not None and (r.level >= L.WARNING or r.level <= L.DEBUG):
                text.stylize(level_style, body_from)
            if r.step >= 0:
                sm = _STEP_WORD.search(r.text)
                if sm:
                    text.stylize(self._style("logview--step"), sm.start(), sm.end())
        if self._search_text_re is not None:
            current = g == self._current_hit
            style = self._style("logview--match-current" if current else "logview--match")
            for mm in self._search_text_re.finditer(r.text):
                if mm.end() > mm.start():
                    text.stylize(style, mm.start(), mm.end())
        if self.source_names:
            name = self.source_names[r.source] if r.source < len(self.source_names) else "?"
            width = max(len(n) for n in self.source_names)
            text = Text.assemble((f"{name:<{width}} │ ", self._style("logview--source")), text, no_wrap=not self.wrap, end="")
        return text

    def _render_rows(self, width: int, height: int) -> list[Strip]:
        base = self.rich_style
        # The current search hit, computed once per frame (not once per line).
        self._current_hit = -1
        if self._search_text_re is not None and self.search_pos >= 0:
            hits = self._visible_hits()
            if self.search_pos < len(hits):
                self._current_hit = int(hits[self.search_pos])
        pointer_style = self._style("logview--pointer")
        n = self.row_count
        top = int(self.scroll_offset.y)
        if top >= n:
            top = max(0, n - 1)
        lo, hi = (-1, -1)
        if self.pointer is not None:
            lo, hi = (self.pointer, self.pointer) if self.mark is None else sorted((self.mark, self.pointer))
        console = self.app.console
        strips: list[Strip] = []
        if not self.wrap:
            x = int(self.scroll_offset.x)
            cache, kept = self._line_cache, {}
            for row in range(top, min(n, top + height)):
                g = self.global_index(row)
                selected = lo <= row <= hi
                if selected or g == self._current_hit:
                    text = self._line_text(g)
                    if selected:
                        text.stylize(pointer_style)
                    whole = Strip(text.render(console), text.cell_len)
                else:
                    # A line already drawn is reused while its text and the search are the same
                    # (a progress bar redrawn in place changes its text, so it is drawn again).
                    r = self.source.row(g)
                    drawn_from = (r.text if r is not None else None, self._search_text_re)
                    hit = cache.get(g)
                    if hit is not None and hit[0] == drawn_from:
                        whole = hit[1]
                    else:
                        text = self._line_text(g)
                        whole = Strip(text.render(console), text.cell_len)
                    kept[g] = (drawn_from, whole)
                strip = whole.crop_extend(x, x + width, base)
                if selected:
                    strip = Strip(list(Segment.apply_style(strip, post_style=pointer_style)), width)
                strips.append(strip)
            self._line_cache = kept
            return strips
        # Wrap mode: rows are log lines; at the bottom, fill upwards so the newest line shows whole.
        def wrapped(row: int) -> list[Strip]:
            text = self._line_text(self.global_index(row))
            if lo <= row <= hi:
                text.stylize(pointer_style)
            out = []
            for line in text.wrap(console, width, overflow="fold") or [Text("")]:
                segments = list(line.render(console))
                out.append(Strip(segments, line.cell_len).extend_cell_length(width, base))
            return out

        if (self._stick or self.at_bottom) and n:
            row = n - 1
            while row >= 0 and len(strips) < height:
                strips[0:0] = wrapped(row)
                row -= 1
            return strips[-height:]
        row = top
        while row < n and len(strips) < height:
            strips.extend(wrapped(row))
            row += 1
        return strips[:height]

    def render_line(self, y: int) -> Strip:
        width, height = self.size.width, self.size.height
        key = (self.scroll_offset, width, height, self.source.version, self.row_count, self.pointer, self.mark, self.search_pos, self.wrap, id(self.rows))
        if key != self._frame_key:
            self._frame = self._render_rows(width, height)
            self._frame_key = key
        if y < len(self._frame):
            return self._frame[y]
        if y == 0 and self.row_count == 0 and self.empty_message:
            # An empty log says why (waiting for the run, the platform unreachable, ...).
            text = Text(self.empty_message[:width], style=self._style("logview--extra"))
            return Strip(text.render(self.app.console), text.cell_len).extend_cell_length(width, self.rich_style)
        return Strip.blank(width, self.rich_style)
