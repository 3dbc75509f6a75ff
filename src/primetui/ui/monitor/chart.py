"""One metric chart on the Line API: composes a frame (pure core) and draws it with theme styles."""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip
from textual.widget import Widget

from primetui.monitor_core.chartframe import RUN_COLOURS, ChartView, compose, run_colour
from primetui.monitor_core.metrics import Series
from primetui.ui.widgets import displayed

_KEYS = (
    "title",
    "value",
    "muted",
    "axis",
    "warn",
    "error",
    "marker",
    "cursor",
    "nan",
    "s1",
    "s2",
    "s3",
    "s4",
    *(f"r{n + 1}" for n in range(RUN_COLOURS)),
)


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
    MetricChart > .chart--r1 { color: $primary; }
    MetricChart > .chart--r2 { color: $accent; }
    MetricChart > .chart--r3 { color: $success; }
    MetricChart > .chart--r4 { color: $warning; }
    MetricChart > .chart--r5 { color: $secondary; }
    MetricChart > .chart--r6 { color: $error; }
    MetricChart > .chart--r7 { color: $foreground; }
    MetricChart > .chart--r8 { color: $primary-lighten-3; }
    """

    def __init__(
        self,
        key: str,
        series: list[Series],
        view: ChartView,
        *,
        markers: bool = False,
        id: str | None = None,
        glyphs: list[str] | None = None,
        title: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.title = title or key  # what the chart's first row says (an RL chart names its band and source)
        # Overlaid runs (compare): series n gets run colour r{n+1} and glyphs[n] along its curve.
        self.glyphs = glyphs
        self.slots: list[int] | None = None  # series n is run slots[n] (its colour stays when others hide)
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

    @property
    def composed(self) -> bool:
        """Whether the chart's frame is composed for its data and view: False after ``invalidate``
        until the next paint (a chart in a hidden tab waits until it is shown). Read-only."""
        return self._frame_key is not None

    def invalidate(self) -> None:
        """Data or view changed: recompose on the next paint."""
        self._frame_key = None
        if displayed(self):  # a chart in a tab not shown is drawn (recomposed) when the tab is shown
            self.refresh()  # kept by hand: the series and the ChartView are plain objects the chart paints from

    def run_style_key(self, n: int) -> str:
        """The style key of overlaid run ``n`` (0-based)."""
        return f"r{run_colour(n) + 1}"

    def series_style_key(self, n: int) -> str:
        """The style key of series ``n`` of an overlay: its run's colour."""
        return self.run_style_key(self.slots[n] if self.slots and n < len(self.slots) else n)

    def _style(self, key: str) -> Style:
        if self.glyphs is not None and key[:1] == "s" and key[1:].isdigit():
            key = self.series_style_key((int(key[1:]) - 1) // 2)  # raw and smoothed layers of a run share its colour
        elif key[:1] == "s" and key[1:].isdigit() and int(key[1:]) > 4:
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
            return compose(self.title, self.series, v, self.content_size.width, self.content_size.height, self.glyphs)
        finally:
            v.eval_steps = eval_steps

    def render_line(self, y: int) -> Strip:
        width, height = self.content_size.width, self.content_size.height
        v = self.view
        key = (
            width,
            height,
            v.smoothing,
            v.log_y,
            v.x_mode,
            v.zoom,
            v.domain,
            v.cursor,
            v.mode,
            v.live,
            v.now,
            len(v.eval_steps) if self.markers else 0,
            tuple(s.version for s in self.series),
            tuple(s.name for s in self.series),
            tuple(self.glyphs or ()),
            tuple(self.slots or ()),
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
