"""Small terminals (80x24, the default of most SSH clients): toasts shrink to one line so they do
not hide a third of a chart or a log. The app carries the class ``-compact`` then; the rule that
shrinks them is in primetui/ui/styles/compact.tcss."""

from __future__ import annotations

COMPACT_WIDTH = 100
COMPACT_HEIGHT = 30


def is_compact(width: int, height: int) -> bool:
    """True below 100 columns or 30 rows."""
    return width < COMPACT_WIDTH or height < COMPACT_HEIGHT


def one_line(message: str, title: str = "") -> str:
    """A toast's title and message as one line (``Watched run: Run x: RUNNING → STOPPED``)."""
    text = " ".join(str(message).split())
    return f"{title}: {text}" if title else text
