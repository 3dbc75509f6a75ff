"""The log view's queries: a filter (only matching lines, a minimum level) and a search
(highlight every match, next/previous), kept apart; and the jumps between error records."""

from __future__ import annotations

import numpy as np

from primetui.monitor_core.filters import LogQuery, Matcher, QueryError, apply_filter, error_starts, text_matches
from primetui.ui.monitor.logview.base import LogViewBase
from primetui.viewmodel.logview import LEVEL_CYCLE, parse_query, query_text, step_index, visible_errors, visible_hits


class LogSearch(LogViewBase):
    """Filter, search and error jumps of ``LogView`` (a mixin: the view's state is the widget's)."""

    def set_filter(self, text: str | None = None, min_level: int | None = None) -> None:
        """Show only lines matching ``text`` (query syntax) at or above ``min_level``."""
        self._catch_up()
        if min_level is not None:
            self.min_level = min_level
        current = self.filter_query
        if text is None:
            query = (
                LogQuery(current.text, current.regex, current.invert, self.min_level)
                if current
                else LogQuery(min_level=self.min_level)
            )
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
        return visible_hits(self.search_hits, self.rows)

    def action_search(self) -> None:
        self.post_message(self.Prompt(self, "search", query_text(self.search_query, with_invert=False)))

    def action_filter(self) -> None:
        self.post_message(self.Prompt(self, "filter", query_text(self.filter_query)))

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
        here = (
            self.global_index(self.pointer)
            if self.pointer is not None and self.row_count
            else (self.source.first - 1 if forward else self.source.end)
        )
        i = step_index(hits, here, forward)
        self.search_pos = i
        self._goto_global(int(hits[i]))

    def action_next_match(self) -> None:
        self._step_match(True)

    def action_prev_match(self) -> None:
        self._step_match(False)

    def _errors(self) -> np.ndarray:
        return visible_errors(error_starts(self.source), self.rows)

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
        self._goto_global(int(errors[step_index(errors, here, True)]))

    def action_prev_error(self) -> None:
        errors = self._errors()
        if not len(errors):
            self.notify("No error lines in this log.", timeout=3)
            return
        here = self.global_index(self.pointer) if self.pointer is not None and self.row_count else self.source.end
        self._goto_global(int(errors[step_index(errors, here, False)]))
