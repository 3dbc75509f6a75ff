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


_FOLDS_INTO_ASCII = re.compile(b"|".join(re.escape(ch.encode()) for ch in "\u0130\u0131\u017f\u212a"))
"""The characters beyond ASCII that a case-insensitive ``re`` matches to an ASCII letter (İ and ı to i, ſ to s, the
Kelvin sign to k), as UTF-8."""
# A regex that asserts on what lies around a position (lookarounds, \A, \Z) or names a character by its code
# (which the case-insensitive fast path would not lower) can answer differently inside a chunk's blob, where a
# newline and the next line are next to it, than on the line alone: such a query is tried line by line.
_EDGE_SENSITIVE = re.compile(r"\(\?<?[=!]|\\[AZxNuU0-7]")


class Matcher:
    """Finds the lines of a chunk blob that contain a match, at C speed where it can.

    The answer is always the one a search of each line on its own gives (``search``, the tail's way).
    Plain text uses ``bytes.find``/``replace`` (memchr-fast); case-insensitive matching lowers the
    haystack instead of asking ``re`` for IGNORECASE, which disables its fast literal scan. Bytes answer
    as ``str`` does on an ASCII line; a line holding any other character is asked again as ``str``
    when the query is a regex or ignores case (Unicode digits, word characters and case, a "." over a
    two-byte character), and a regex match that runs past its line's end is checked on the line alone.
    """

    __slots__ = ("target", "fold", "text_pattern", "regex", "ascii", "line_by_line")

    def __init__(self, query: LogQuery) -> None:
        self.fold = not query.case_sensitive
        self.regex = query.regex
        self.text_pattern = query.compile_text()
        self.ascii = query.text.isascii()
        self.line_by_line = query.regex and _EDGE_SENSITIVE.search(query.text) is not None
        text = query.text.lower() if self.fold else query.text
        self.target: re.Pattern[bytes] | bytes  # a regex, or plain text
        if query.regex:
            # MULTILINE: the blob holds many lines, and ^ / $ mean a line's start and end.
            # (A regex beyond ASCII is only ever run as str: a bytes "." or class would see UTF-8 bytes.)
            bytes_ok = self.ascii and not self.line_by_line  # (\u and \N exist only for str patterns)
            self.target = re.compile(text.encode("utf-8"), re.MULTILINE) if bytes_ok else b""
        else:
            self.target = text.encode("utf-8")

    @property
    def asks_wide_lines(self) -> bool:
        """:meth:`rows` reads ``wide`` (a regex or a literal ignoring case, on the bytes path)."""
        return (self.regex or self.fold) and not self._line_by_line

    @property
    def asks_folding_lines(self) -> bool:
        """:meth:`rows` reads ``folds`` (a literal ignoring case, on the bytes path)."""
        return self.fold and not self.regex and not self._line_by_line

    @property
    def _line_by_line(self) -> bool:
        return self.line_by_line or (not self.ascii and (self.regex or self.fold))

    def search(self, text: str) -> bool:
        """Does one line match?"""
        return self.text_pattern.search(text) is not None

    def rows(
        self, blob: bytes, offsets: np.ndarray, wide: np.ndarray | None = None, folds: np.ndarray | None = None
    ) -> np.ndarray:
        """Local indices of the lines in ``blob`` (``offsets`` = line starts + end) that match. ``wide``: the
        lines holding a character beyond ASCII (:func:`wide_lines`), ``folds``: those of them holding one that
        folds into ASCII (:func:`folding_lines`); the store keeps both for each chunk."""
        search = self.text_pattern.search
        if self._line_by_line:
            # A query that asserts around a line's edge, or that folds or classes beyond ASCII ("ı" matches "I").
            lines = blob.decode("utf-8", "replace").split("\n")[: len(offsets) - 1]
            return np.asarray([i for i, line in enumerate(lines) if search(line)], dtype=np.int64)
        found = self._bytes_rows(blob, offsets)
        if not (self.regex or self.fold):
            return found  # a literal, case as typed: UTF-8 bytes find what str finds
        wide = wide_lines(blob, offsets) if wide is None else wide
        if not self.regex:  # a literal ignoring case: bytes answer as str does but where a character folds
            wide = folding_lines(blob, offsets, wide) if folds is None else folds
        if not len(wide):
            return found
        # On an ASCII line, bytes classes, case and "." are str's; the other lines are asked again, as str.
        joined = b"\n".join([blob[offsets[i] : offsets[i + 1] - 1] for i in wide.tolist()]).decode("utf-8", "replace")
        again = [i for i, line in zip(wide.tolist(), joined.split("\n")) if search(line)]
        return np.union1d(found[~np.isin(found, wide)], np.asarray(again, dtype=np.int64))

    def _bytes_rows(self, blob: bytes, offsets: np.ndarray) -> np.ndarray:
        hay = blob.lower() if self.fold else blob
        needle = self.target
        if isinstance(needle, re.Pattern):
            return self._hop(hay, needle, offsets)
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

    @staticmethod
    def _hop(hay: bytes, pattern: re.Pattern[bytes], offsets: np.ndarray) -> np.ndarray:
        """Lines with a match: the next match from a line's start skips, at C speed, every line with none; a
        match that runs past its line's end counts only if the pattern matches the line alone."""
        search, find = pattern.search, hay.find
        found: list[int] = []
        pos, end = 0, len(hay)
        while pos < end:
            m = search(hay, pos)
            if m is None:
                break
            at = m.start()
            eol = find(b"\n", at)
            eol = end if eol < 0 else eol
            if m.end() <= eol or search(hay[hay.rfind(b"\n", 0, at) + 1 : eol]) is not None:
                found.append(at)
            pos = eol + 1
        if not found:
            return _EMPTY
        return np.searchsorted(offsets, found, side="right") - 1


def folding_lines(blob: bytes, offsets: np.ndarray, wide: np.ndarray) -> np.ndarray:
    """Those of the ``wide`` lines holding a character that a case-insensitive search matches to an ASCII letter."""
    if not len(wide):
        return _EMPTY
    starts = offsets.tolist()
    search = _FOLDS_INTO_ASCII.search
    return np.asarray([i for i in wide.tolist() if search(blob, starts[i], starts[i + 1])], dtype=np.int64)


def wide_lines(blob: bytes, offsets: np.ndarray) -> np.ndarray:
    """Indices of the lines of ``blob`` holding a byte beyond ASCII (none when the blob is ASCII)."""
    if blob.isascii():
        return _EMPTY
    high = np.frombuffer(blob, dtype=np.uint8) >= 0x80
    return np.flatnonzero(np.logical_or.reduceat(high, offsets[:-1]))


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
