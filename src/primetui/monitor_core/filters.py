"""Search and filter over a log store (or a merged view).

Search and filter share one query language but are two separate actions: a search highlights
every match and moves between them; a filter shows only the matching lines.

- Plain text by default, *smart case*: all-lowercase text matches any case, text with a capital
  letter matches exactly (as in vim and ripgrep).
- Regex when asked (Python syntax), with the same smart-case rule.
- A filter can be inverted (show the lines that do not match) and can require a minimum level.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from primetui.monitor_core.lines import LEVEL_NAMES


class QueryError(ValueError):
    """The query cannot be used (a broken regex); str() says what to fix."""


@dataclass(frozen=True, slots=True)
class LogQuery:
    """What to look for: text (or regex), whether to invert, and a minimum level."""

    text: str = ""
    regex: bool = False
    invert: bool = False
    min_level: int = 0

    @property
    def has_text(self) -> bool:
        return bool(self.text)

    @property
    def active(self) -> bool:
        """True when the query restricts anything."""
        return bool(self.text) or self.min_level > 0

    @property
    def case_sensitive(self) -> bool:
        return any(ch.isupper() for ch in self.text)

    def describe(self) -> str:
        """A short label for the status line, e.g. ``!/err(or)?/ ≥WARNING``."""
        parts = []
        if self.text:
            body = f"/{self.text}/" if self.regex else repr(self.text)
            parts.append(("not " if self.invert else "") + body)
        if self.min_level:
            parts.append(f"≥{LEVEL_NAMES[self.min_level]}")
        return " ".join(parts) or "everything"

    def compile_text(self) -> re.Pattern[str]:
        """The same pattern for ``str`` (highlighting the visible lines)."""
        flags = 0 if self.case_sensitive else re.IGNORECASE
        source = self.text if self.regex else re.escape(self.text)
        try:
            return re.compile(source, flags)
        except re.error as exc:
            raise QueryError(
                f"That regex does not compile ({exc.msg} at position {exc.pos}); fix it or turn regex off."
            ) from exc


class Matcher:
    """Finds the lines of a chunk blob that contain a match, at C speed where it can.

    Plain text uses ``bytes.count``/``find``/``replace`` (memchr-fast); case-insensitive
    matching lowers the haystack instead of asking ``re`` for IGNORECASE, which disables its
    fast literal scan.
    """

    __slots__ = ("target", "fold", "text_pattern")

    def __init__(self, query: LogQuery) -> None:
        self.fold = not query.case_sensitive
        self.text_pattern = query.compile_text()
        text = query.text.lower() if self.fold else query.text
        self.target: re.Pattern[bytes] | bytes  # a regex, or plain text
        if query.regex:
            try:
                # MULTILINE: the blob holds many lines, and ^ / $ mean a line's start and end.
                self.target = re.compile(text.encode("utf-8"), re.MULTILINE)
            except re.error as exc:
                raise QueryError(
                    f"That regex does not compile ({exc.msg} at position {exc.pos}); fix it or turn regex off."
                ) from exc
        else:
            self.target = text.encode("utf-8")

    def search(self, text: str) -> bool:
        """Does one line match?"""
        return self.text_pattern.search(text) is not None

    def rows(self, blob: bytes, offsets: np.ndarray) -> np.ndarray:
        """Local indices of the lines in ``blob`` (``offsets`` = line starts + end) that match."""
        hay = blob.lower() if self.fold else blob
        needle = self.target
        if isinstance(needle, re.Pattern):
            positions = [m.start() for m in needle.finditer(hay)]
        else:
            # Hop from hit to hit (one find per matching line: one pass over the chunk for a
            # selective query); past one hit in eight lines, one bulk pass is cheaper.
            limit = max(64, len(offsets) // 8)
            positions = []
            find = hay.find
            pos = find(needle)
            dense_at = int(offsets[min(128, len(offsets) - 1)])
            while pos >= 0:
                positions.append(pos)
                # Too many hits, or 16 hits within the first 128 lines: go bulk.
                if len(positions) > limit or (len(positions) == 16 and pos < dense_at):
                    # Many hits: mark them with NUL bytes (log text never holds NUL: controls
                    # are neutralised) and reduce per line in numpy, with no Python work per hit.
                    marked = hay.replace(needle, b"\x00" * len(needle))
                    zero = np.frombuffer(marked, dtype=np.uint8) == 0
                    return np.flatnonzero(np.logical_or.reduceat(zero, offsets[:-1]))
                eol = find(b"\n", pos)
                if eol < 0:
                    break
                pos = find(needle, eol + 1)
        if len(positions) == 0:
            return _EMPTY
        return np.unique(np.searchsorted(offsets, positions, side="right") - 1)


_EMPTY = np.empty(0, dtype=np.int64)


class LineSource(Protocol):
    """What the filters read: a log store, or the merged view of several (``monitor_core.store``)."""

    @property
    def first(self) -> int: ...

    @property
    def end(self) -> int: ...

    def match(self, matcher: Matcher, g0: int | None = None, g1: int | None = None) -> np.ndarray: ...

    def levels(self, g0: int, g1: int) -> np.ndarray: ...


def text_matches(source: LineSource, query: LogQuery, g0: int | None = None, g1: int | None = None) -> np.ndarray:
    """Sorted global indices of lines in [g0, g1) whose text matches (ignores invert/level)."""
    return source.match(Matcher(query), g0, g1)


def apply_filter(source: LineSource, query: LogQuery, g0: int | None = None, g1: int | None = None) -> np.ndarray:
    """Sorted global indices of lines in [g0, g1) that pass ``query`` as a filter."""
    g0 = source.first if g0 is None else max(g0, source.first)
    g1 = source.end if g1 is None else min(g1, source.end)
    if g1 <= g0:
        return np.empty(0, dtype=np.int64)
    keep = np.ones(g1 - g0, dtype=bool)
    if query.text:
        hits = text_matches(source, query, g0, g1) - g0
        mask = np.zeros(g1 - g0, dtype=bool)
        mask[hits] = True
        keep = ~mask if query.invert else mask
    if query.min_level:
        keep &= source.levels(g0, g1) >= query.min_level
    return np.flatnonzero(keep) + g0


def error_starts(source: LineSource, g0: int | None = None, g1: int | None = None, min_level: int = 6) -> np.ndarray:
    """Global indices where an error record starts (a line at ERROR+ after one below it)."""
    g0 = source.first if g0 is None else max(g0, source.first)
    g1 = source.end if g1 is None else min(g1, source.end)
    if g1 <= g0:
        return np.empty(0, dtype=np.int64)
    lo = max(g0 - 1, source.first)
    levels = source.levels(lo, g1) >= min_level
    prev = np.concatenate(([False], levels[:-1]))
    starts = np.flatnonzero(levels & ~prev) + lo
    return starts[starts >= g0]
