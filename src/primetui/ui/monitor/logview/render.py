"""How the log view draws: a line's text coloured from the theme, a strip cached per line (a
frame renders only new or changed lines), the frame of the rows in view, wrapped or not."""

from __future__ import annotations

import re

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.strip import Strip

from primetui.monitor_core import lines as L
from primetui.ui.monitor.logview.base import LogViewBase
from primetui.viewmodel.logview import selection_range

LEVEL_CLASS = {
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


class LogRender(LogViewBase):
    """The drawing half of ``LogView`` (a mixin: the view's state is the widget's)."""

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
            level_style = self._style(LEVEL_CLASS[r.level]) if r.level in LEVEL_CLASS else None
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
            text = Text.assemble(
                (f"{name:<{width}} │ ", self._style("logview--source")), text, no_wrap=not self.wrap, end=""
            )
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
        lo, hi = selection_range(self.pointer, self.mark)
        console = self.app.console
        strips: list[Strip] = []
        if not self.wrap:
            x = int(self.scroll_offset.x)
            kept: dict[int, tuple[object, Strip]]
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
        key = (
            self.scroll_offset,
            width,
            height,
            self.source.version,
            self.row_count,
            self.pointer,
            self.mark,
            self.search_pos,
            self.wrap,
            id(self.rows),
        )
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

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles.clear()
        self._line_cache.clear()
        self._frame_key = None
