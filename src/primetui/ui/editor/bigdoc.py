"""Keep Textual's TextArea fast on multi-megabyte files.

On every key press TextArea asks its document for the whole text (``render_line`` checks
``not self.text`` for the placeholder, once per rendered row), for its size (the cell width of
every line, in ``_refresh_size``) and its wrapped document for its height (a sum over every line,
once per rendered row). Each is O(lines), so a 200,000-line file took seconds per key even with
highlighting off. Here the text is joined once per edit, line widths are updated only for the
lines an edit touched, and the height is remembered until the next wrap.

``adopt_document`` / ``adopt_wrap`` switch a freshly built Textual object to these subclasses
(same state, a few cached fields more); nothing else in TextArea changes.

A syntax-aware document also reads its text to tree-sitter through a reader that does not keep
the document alive. Textual hands tree-sitter the document's bound ``_read_callable``; the Tree
keeps that callable as its source, and tree-sitter's Tree takes no part in garbage collection,
so document -> tree -> bound method -> document was a cycle never collected: every document an
editor ever built (two per editor opened, a whole file's lines each) stayed in memory.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from textual._cells import cell_len
from textual.document._document import Document, EditResult, Location
from textual.document._wrapped_document import WrappedDocument
from textual.geometry import Size

if TYPE_CHECKING:
    from textual.document._syntax_aware_document import SyntaxAwareDocument


def _cached(base: type) -> type:
    """A subclass of one of Textual's Document classes with cached text and per-line widths."""

    class Cached(base):  # type: ignore[valid-type, misc]
        _text_cache: str | None = None
        _reader: Callable[[int, tuple[int, int]], bytes] | None = None
        _widths: list[int] | None = None
        _widths_tab: int = -1
        edits: list[tuple[int, int, int, int, list[tuple[int, int]]]]
        """Per edit since the text area last looked (syntax-aware documents only): top row, old
        bottom row, new bottom row, lines added (negative: removed), rows whose syntax changed."""

        @property
        def text(self) -> str:
            if self._text_cache is None:
                self._text_cache = super().text
            return self._text_cache

        def get_size(self, tab_width: int) -> Size:
            lines = self._lines
            if self._widths is None or self._widths_tab != tab_width or len(self._widths) != len(lines):
                self._widths = [cell_len(line.expandtabs(tab_width)) for line in lines]
                self._widths_tab = tab_width
            return Size(max(self._widths, default=0), len(lines))

        def replace_range(self, start: Location, end: Location, text: str) -> EditResult:
            self._text_cache = None
            before = len(self._lines)
            old_tree = getattr(self, "_syntax_tree", None)
            result: EditResult = super().replace_range(start, end, text)
            if old_tree is not None:
                # what the text area's highlights must forget (highlight.py): the rows the edit
                # spans, whether rows moved, and the rows whose syntax changed (old_tree was
                # edited in place before the re-parse, as changed_ranges wants)
                changed = [(r.start_point[0], r.end_point[0]) for r in old_tree.changed_ranges(self._syntax_tree)]
                top, bottom = min(start, end)[0], max(start, end)[0]
                self.edits.append((top, bottom, result.end_location[0], len(self._lines) - before, changed))
            widths = self._widths
            if widths is not None:
                lines = self._lines
                top_row = min(start, end)[0]
                added = result.end_location[0] - top_row + 1
                removed = added + before - len(lines)
                tab = self._widths_tab
                widths[top_row : top_row + removed] = [
                    cell_len(line.expandtabs(tab)) for line in lines[top_row : top_row + added]
                ]
            return result

    read = getattr(base, "_read_callable", None)
    if read is not None:

        def _read_callable(self: Cached) -> Callable[[int, tuple[int, int]], bytes]:
            # what SyntaxAwareDocument passes to every parse: a reader that does not own the document
            if self._reader is None:
                self._reader = _weak_reader(self, read)
            return self._reader

        Cached._read_callable = property(_read_callable)  # type: ignore[attr-defined]

    Cached.__name__ = Cached.__qualname__ = f"Cached{base.__name__}"
    return Cached


def _weak_reader(document: Document, read: Callable[..., bytes]) -> Callable[[int, tuple[int, int]], bytes]:
    """``read`` (an unbound ``_read_callable``) on ``document``, through a weak reference to it."""
    ref = weakref.ref(document)

    def read_source(byte_offset: int, point: tuple[int, int]) -> bytes:
        doc = ref()
        return b"" if doc is None else read(doc, byte_offset, point)

    return read_source


_SUBCLASSES: dict[type, type] = {}


def adopt_document(document: object) -> None:
    """Give a Textual Document (or SyntaxAwareDocument) the caches above, in place."""
    cls = type(document)
    if not isinstance(document, Document) or cls in _SUBCLASSES.values():
        return
    cast(Any, document).edits = []  # an attribute of the Cached subclass it is given below
    sub = _SUBCLASSES.get(cls)
    if sub is None:
        sub = _SUBCLASSES[cls] = _cached(cls)
    document.__class__ = sub
    tree = getattr(document, "_syntax_tree", None)
    if tree is not None:
        # the first tree was parsed (in Textual's __init__) with the bound method; a re-parse on
        # the old tree with no edits reuses every node and takes the weak reader as its source
        aware = cast("SyntaxAwareDocument", document)  # only a syntax-aware document has a tree
        aware._syntax_tree = aware._parser.parse(aware._read_callable, tree)


class _CountedWrap(WrappedDocument):
    """WrappedDocument whose height is read off its own row index instead of summed over lines."""

    @property
    def height(self) -> int:
        rows = self._line_index_to_offsets  # per line, the y of each of its visual rows (kept by wrap*)
        if rows and rows[-1]:
            return rows[-1][-1] + 1
        return WrappedDocument.height.fget(self)  # type: ignore[attr-defined]


def adopt_wrap(wrapped: object) -> None:
    """Give a Textual WrappedDocument the cached height, in place."""
    if type(wrapped) is WrappedDocument:
        wrapped.__class__ = _CountedWrap
