"""What the log view works out without drawing anything: its query syntax, its status line's
state, where a search or error jump lands, and the plain text of a selection.

The widget (``primetui.ui.monitor.logview``) keeps the state and draws; these functions only
compute, over the store's line indices (numpy arrays, sorted).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from primetui.monitor_core import lines as L
from primetui.monitor_core.filters import LogQuery

LEVEL_CYCLE = (0, L.DEBUG, L.INFO, L.WARNING, L.ERROR)
"""The minimum levels ``L`` steps through (0: every line)."""


def parse_query(text: str, min_level: int = 0) -> LogQuery:
    """Read the query syntax: ``!`` in front inverts, ``/.../`` is a regex, else plain text."""
    invert = text.startswith("!")
    if invert:
        text = text[1:]
    regex = len(text) >= 2 and text.startswith("/") and text.endswith("/")
    if regex:
        text = text[1:-1]
    return LogQuery(text=text, regex=regex, invert=invert, min_level=min_level)


def query_text(query: LogQuery | None, *, with_invert: bool = True) -> str:
    """A query back in the syntax ``parse_query`` reads (what a prompt opens with)."""
    if query is None or not query.text:
        return ""
    body = f"/{query.text}/" if query.regex else query.text
    return ("!" if with_invert and query.invert else "") + body


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


def visible_hits(hits: np.ndarray, rows: np.ndarray | None) -> np.ndarray:
    """Search hits that are visible under the filter (``rows``: the lines it keeps; None: all)."""
    if rows is not None and len(hits):
        return hits[np.isin(hits, rows, assume_unique=True)]
    return hits


def visible_errors(starts: np.ndarray, rows: np.ndarray | None) -> np.ndarray:
    """Error records' first lines that are visible under the filter."""
    if rows is not None and len(starts):
        return starts[np.isin(starts, rows, assume_unique=True)]
    return starts


def step_index(marks: np.ndarray, here: int, forward: bool) -> int:
    """Index in ``marks`` (sorted, non-empty) of the next one after line ``here`` (or the one
    before it), wrapping around at either end."""
    if forward:
        i = int(np.searchsorted(marks, here, side="right"))
        return 0 if i >= len(marks) else i
    i = int(np.searchsorted(marks, here, side="left")) - 1
    return len(marks) - 1 if i < 0 else i


def selection_range(pointer: int | None, mark: int | None) -> tuple[int, int]:
    """The rows a selection covers, both ends included ((-1, -1): none)."""
    if pointer is None:
        return -1, -1
    if mark is None:
        return pointer, pointer
    lo, hi = sorted((mark, pointer))
    return lo, hi


def plain_line(source: Any, g: int, source_names: list[str] | None) -> str:
    """Line ``g`` as plain text; a merged view's line starts with its component."""
    r = source.row(g)
    if r is None:
        return ""
    if source_names:
        return f"{source_names[r.source]} | {r.text}"
    return str(r.text)


def _count(n: int) -> str:
    """1,234 below ten thousand; 12.3k, 1.2M above."""
    if n < 10_000:
        return f"{n:,}"
    if n < 1_000_000:
        return f"{n / 1000:.1f}k".replace(".0k", "k")
    return f"{n / 1_000_000:.1f}M".replace(".0M", "M")


def held_note(source: Any) -> str:
    """What a log source holds in memory, once that is not every line it took in ('' until then):
    ``holding 20,000 of 1.2M lines · 2.1 MiB``."""
    held, seen = getattr(source, "held", None), getattr(source, "seen", None)
    if held is None or seen is None or held >= seen:
        return ""
    return f"holding {held:,} of {_count(seen)} lines · {source.held_bytes / 2**20:.1f} MiB"


def covered_note(source: Any) -> str:
    """For a search or filter: the lines it covers, when older ones were dropped altogether."""
    if source.first <= 0:
        return ""
    return f" (in the last {_count(len(source))} lines)"
