"""Syntax highlighting a block at a time, only where the text area draws.

Textual's TextArea runs its tree-sitter highlight query over the whole document after every edit
(``_build_highlight_map``) and then forgets every rendered line (``_line_cache.clear()``): on a
5,000-line sft.toml that was ~130 ms per key, all of it between the key and its echo. Here the
highlights live in :class:`LazyHighlights`, a mapping TextArea reads exactly as before
(``highlights[line]`` in ``_render_line``) that runs the query for a block of ``BLOCK`` lines
the first time one of its lines is drawn, with a point range, and keeps the result. An edit
forgets only the blocks it touched: the edited rows and their neighbours, and the rows tree-sitter
reports as changed in structure (``Tree.changed_ranges``: a quote that opens a string recolours
every line after it); an edit that adds or removes lines forgets every block from its first row on
(the rows below moved). Rendered lines are forgotten the same way (``forget_rows``).

Each line gets the same ``(start byte, end byte or None, name)`` tuples as Textual's full map: a
node over several lines gives its first line ``(col, None)``, the middle ones ``(0, None)`` and
its last ``(0, end col)``, and the names are applied in the query's capture order.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # it reads a TextArea's document, tree and query: Textual code, though it draws nothing
    from textual.widgets import TextArea

BLOCK = 64
"""Lines per highlight block: two blocks cover any screen."""

Highlight = tuple[int, int | None, str]


class LazyHighlights(dict):
    """line -> highlights, filled a block at a time on first read (see the module docstring)."""

    def __init__(self, area: TextArea) -> None:
        super().__init__()
        self._area = area
        self._blocks: set[int] = set()
        self._rank: tuple[Any, dict[str, int]] = (None, {})
        self.queries = 0
        """How many block queries ran (tests count them)."""

    def __bool__(self) -> bool:  # TextArea skips highlighting when the mapping is falsy
        return self._area._highlight_query is not None

    def __missing__(self, line: int) -> list[Highlight]:
        block = line // BLOCK
        if block not in self._blocks:
            self._fill(block)
            got = dict.get(self, line)
            if got is not None:
                return got
        return []  # nothing on this line (not stored: the block knows it is done)

    def blocks(self) -> set[int]:
        """The blocks highlighted and kept."""
        return set(self._blocks)

    def reset(self) -> None:
        dict.clear(self)
        self._blocks.clear()

    def forget(self, rows: Iterable[int], from_row: int | None = None) -> None:
        """Forget the blocks holding ``rows``, and every block from ``from_row``'s on."""
        drop = {row // BLOCK for row in rows if row >= 0}
        if from_row is not None:
            first = max(0, from_row) // BLOCK
            drop |= {b for b in self._blocks if b >= first}
            for line in [line for line in self if line >= first * BLOCK]:
                del self[line]
        for block in drop & self._blocks:
            for line in range(block * BLOCK, (block + 1) * BLOCK):
                self.pop(line, None)
        self._blocks -= drop

    def _fill(self, block: int) -> None:
        area = self._area
        query = area._highlight_query
        self._blocks.add(block)
        if query is None:
            return
        top, bottom = block * BLOCK, (block + 1) * BLOCK  # rows [top, bottom)
        # from one row above: a node ending at column 0 of `top` still gives `top` its (0, 0) entry
        captures = area.document.query_syntax_tree(query, start_point=(max(0, top - 1), 0), end_point=(bottom, 0))
        self.queries += 1
        if self._rank[0] is not query:
            self._rank = (query, capture_rank(query))
        rank = self._rank[1]
        for name in sorted(captures, key=lambda n: rank.get(n, len(rank))):
            for node in captures[name]:
                start_row, start_col = node.start_point
                end_row, end_col = node.end_point
                if end_row < top or start_row >= bottom:
                    continue
                if start_row == end_row:
                    self._add(start_row, (start_col, end_col, name))
                    continue
                if start_row >= top:
                    self._add(start_row, (start_col, None, name))
                for row in range(max(start_row + 1, top), min(end_row, bottom)):
                    self._add(row, (0, None, name))
                if end_row < bottom:
                    self._add(end_row, (0, end_col, name))

    def _add(self, row: int, highlight: Highlight) -> None:
        got = dict.get(self, row)
        if got is None:
            self[row] = [highlight]
        else:
            got.append(highlight)


def capture_rank(query: Any) -> dict[str, int]:
    """The capture names of ``query`` in the order it declares them."""
    rank: dict[str, int] = {}
    for i in range(query.capture_count):
        rank.setdefault(query.capture_name(i), i)
    return rank


def full_map(area: Any) -> dict[int, list[Highlight]]:
    """The whole document's highlights the way Textual builds them (for tests and the bench)."""
    out: dict[int, list[Highlight]] = {}
    query = area._highlight_query
    if query is None:
        return out
    rank = capture_rank(query)
    captures = area.document.query_syntax_tree(query)
    for name in sorted(captures, key=lambda n: rank.get(n, len(rank))):
        for node in captures[name]:
            (sr, sc), (er, ec) = node.start_point, node.end_point
            if sr == er:
                out.setdefault(sr, []).append((sc, ec, name))
            else:
                out.setdefault(sr, []).append((sc, None, name))
                for row in range(sr + 1, er):
                    out.setdefault(row, []).append((0, None, name))
                out.setdefault(er, []).append((0, ec, name))
    return out
