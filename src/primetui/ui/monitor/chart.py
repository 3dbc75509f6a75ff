"""One metric chart on the Line API: composes a frame (pure core) and draws it with theme styles."""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip
from textual.widget import Widget

from primetui.monitor_core.chartframe import ChartView, compose
from primetui.monitor_core.metrics import Series

_KEYS = ("title", "value", "muted", "axis", "warn", "error", "marker", "cursor", "nan", "s1", "s2", "s3", "s4")


class MetricChart(Widget):
    """A chart of one metric (and optionally companions) sharing a ``ChartView`` with its grid."""

    COMPONENT_CLASSES = {f"chart--{k}" for k in _KEYS}
    DEFAULT_CSS = """
    MetricChart { height: 1fr; min-height: 8; border: round $panel-lighten-2; padding: 0 0; }
    MetricChart.-selected { border: round $accent; }
    MetricChart > .chart--title { color: $foreground; text-style: bold; }
    MetricChart > .chart--value { color: $accent; text-style: bold; }
    MetricChart > .chart--muted { color: $text-muted; }
    MetricChart > .chart--axis { color: $text-muted; }
    MetricChart > .chart--warn { color: $warning; text-style: bold; }
    MetricChart > .chart--error { color: $error; text-style: bold; }
    MetricChart > .chart--marker { color: $warning; }
    MetricChart > .chart--cursor { color: $accent; }
    MetricChart > .chart--nan { color: $error; text-style: bold; }
    MetricChart > .chart--s1 { color: $primary; }
    MetricChart > .chart--s2 { color: $accent; }
    MetricChart > .chart--s3 { color: $secondary; }
    MetricChart > .chart--s4 { color: $success; }
    """

    def __init__(self, key: str, series: list[Series], view: ChartView, *, markers: bool = False, id: str | None = None) -> None:
        super().__init__(id=id)
        self.key = key
        self.series = series
        self.view = view
        self.markers = markers  # draw eval markers (the loss chart)
        self._frame_key: tuple | None = None
        self._strips: list[Strip] = []
        self._styles: dict[str, Style] = {}

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles.clear()
        self._frame_key = None

    def invalidate(self) -> None:
        """Data or view changed: recompose on the next paint."""
        self._frame_key = None
        self.refresh()

    def _style(self, key: str) -> Style:
        if key[:1] == "s" and key[1:].isdigit() and int(key[1:]) > 4:
            key = f"s{(int(key[1:]) - 1) % 4 + 1}"  # a fifth series (overlaid runs) reuses the palette
        style = self._styles.get(key)
        if style is None:
            style = self._styles[key] = self.get_component_rich_style(f"chart--{key}", partial=True)
        return style

    def frame_rows(self) -> list[list[tuple[str, str]]]:
        """The composed rows (plain text + style keys), for tests and copy."""
        v = self.view
        eval_steps = v.eval_steps
        if not self.markers:
            v.eval_steps = []
        try:
            return compose(self.key, self.series, v, self.content_size.width, self.content_size.height)
        finally:
            v.eval_steps = eval_steps

    def render_line(self, y: int) -> Strip:
        width, height = self.content_size.width, self.content_size.height
        v = self.view
        key = (
            width, height, v.smoothing, v.log_y, v.x_mode, v.zoom, v.domain, v.cursor, v.mode, v.live, v.now,
            len(v.eval_steps) if self.markers else 0, tuple(s.version for s in self.series),
        )
        if key != self._frame_key:
            base = self.rich_style
            strips = []
            for row in self.frame_rows():
                segments = [Segment(text, base + self._style(k)) for text, k in row if text]
                strips.append(Strip(segments).extend_cell_length(width, base).crop(0, width))
            self._strips = strips
            self._frame_key = key
        if y < len(self._strips):
            return self._strips[y]
        return Strip.blank(width, self.rich_style)

    def plain_text(self) -> str:
        """What the chart shows, as text (tests)."""
        return "\n".join("".join(t for t, _ in row) for row in self.frame_rows())
