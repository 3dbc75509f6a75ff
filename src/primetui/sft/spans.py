"""Map config paths to exact spans in TOML text, with tree-sitter-toml (error tolerant, no textual).

``key_spans(text)`` walks the syntax tree once and records, for every key path, the span of its key
and of its value. Paths use the TOML structure: table names and keys as strings, array-of-table
elements and array items as ints (``("eval", "source", 0, "name")``). The tree is error tolerant,
so a half-typed document still maps every intact key.
"""

from __future__ import annotations

from typing import Any

from functools import lru_cache

from tree_sitter import Language, Node, Parser
import tree_sitter_toml

from primetui.sft.diagnostics import Span

Path = tuple[str | int, ...]


@lru_cache(maxsize=1)
def _parser() -> Parser:
    return Parser(Language(tree_sitter_toml.language()))


class Entry:
    """Where one path is written: ``kind`` is pair, table, array_table, implicit or item.

    Spans are computed on first access (most entries of a big file are never shown).
    """

    __slots__ = ("kind", "header_line", "_key", "_value", "_owner")

    def __init__(
        self,
        kind: str,
        key: Span | Node,
        value: Span | Node | tuple[Any, ...],
        header_line: int = -1,
        owner: SpanMap | None = None,
    ) -> None:
        self.kind = kind
        self.header_line = header_line  # for [table] / [[array_table]] headers
        self._key = key
        self._value = value
        self._owner = owner

    def _to_span(self, v: Span | Node | tuple[Any, ...]) -> Span:
        if isinstance(v, Span):
            return v
        owner = self._owner
        if owner is None:
            raise ValueError("an entry located by a node needs the SpanMap that made it")
        if isinstance(v, tuple):  # (first node, close node or None, fallback key node) of a table header
            first, close, key = v
            line = first.start_point[0]
            end = owner.span(close).end_col if close is not None else owner.span(key).end_col
            return Span(line, owner.span(first).col, line, end)
        return owner.span(v)

    @property
    def key(self) -> Span:
        if not isinstance(self._key, Span):
            self._key = self._to_span(self._key)
        return self._key

    @property
    def value(self) -> Span:
        if not isinstance(self._value, Span):
            self._value = self._to_span(self._value)
        return self._value


class SpanMap:
    """Spans of every key path in one document, plus position lookups for the editor."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._raw = text.encode("utf-8")
        self._lines = self._raw.split(b"\n")
        self._ascii = [ln.isascii() for ln in self._lines]
        self._entries: dict[Path, Entry] = {}
        self._pending: dict[Path, list[Node]] = {}  # table bodies not walked yet (walked on first lookup)
        self.tables: list[tuple[Path, int, int]] = []  # (path, header line, last content line)
        self.has_error = False
        tree = _parser().parse(self._raw)
        self._aot_last: dict[Path, int] = {}
        self._walk_document(tree.root_node)

    # -- conversions -------------------------------------------------------------------------
    def _col(self, row: int, byte_col: int) -> int:
        if row >= len(self._lines) or self._ascii[row]:
            return byte_col
        return len(self._lines[row][:byte_col].decode("utf-8", errors="replace"))

    def span(self, node: Node) -> Span:
        (r0, c0), (r1, c1) = node.start_point, node.end_point
        return Span(r0, self._col(r0, c0), r1, self._col(r1, c1))

    # -- walking ------------------------------------------------------------------------------
    def _key_parts(self, node: Node) -> list[tuple[str, Node]]:
        if node.type == "dotted_key":
            parts: list[tuple[str, Node]] = []
            for c in node.children:
                if c.type in ("dotted_key", "bare_key", "quoted_key"):
                    parts.extend(self._key_parts(c))
            return parts
        text = node.text or b""
        raw = text.decode("utf-8", errors="replace")
        if node.type == "quoted_key":
            raw = raw[1:-1]
            if text.startswith(b'"'):
                try:
                    raw = bytes(raw, "utf-8").decode("unicode_escape")
                except (UnicodeDecodeError, ValueError):
                    pass
        return [(raw, node)]

    def _add(self, path: Path, entry: Entry) -> None:
        if path not in self._entries:
            self._entries[path] = entry

    @property
    def entries(self) -> dict[Path, Entry]:
        """Every entry of the document (walks all table bodies; prefer ``get`` / ``locate``)."""
        for path in list(self._pending):
            self._walk_body(path)
        return self._entries

    def get(self, path: Path) -> Entry | None:
        """The entry written at exactly ``path``, walking only the tables that can hold it."""
        path = tuple(path)
        if self._pending:  # only the tables whose path is a prefix of ``path`` (a dict probe per prefix)
            for table in [path[:i] for i in range(len(path) + 1) if path[:i] in self._pending]:
                self._walk_body(table)
        return self._entries.get(path)

    def _walk_body(self, table: Path) -> None:
        for node in self._pending.pop(table, ()):
            for c in node.children:
                if c.type == "pair":
                    self._walk_pair(c, table)
                elif c.type == "ERROR":
                    self.has_error = True
                    self._walk_error(c, table)

    def _walk_document(self, root: Node) -> None:
        prefix: Path = ()
        for child in root.children:
            if child.type == "pair":
                self._walk_pair(child, ())
            elif child.type in ("table", "table_array_element"):
                self._walk_table(child)
            elif child.type == "ERROR":
                self.has_error = True
                self._walk_error(child, prefix)

    def _walk_error(self, node: Node, prefix: Path) -> None:
        for c in node.children:
            if c.type == "pair":
                self._walk_pair(c, prefix)
            elif c.type in ("table", "table_array_element"):
                self._walk_table(c)

    def _resolve(self, parts: list[str]) -> Path:
        """Resolve a header's key parts, entering the latest element of each array of tables."""
        out: list[str | int] = []
        for p in parts:
            out.append(p)
            last = self._aot_last.get(tuple(out))
            if last is not None:
                out.append(last)
        return tuple(out)

    def _walk_table(self, node: Node) -> None:
        key_node = next((c for c in node.children if c.type in ("dotted_key", "bare_key", "quoted_key")), None)
        if key_node is None:
            self.has_error = True
            return
        parts = self._key_parts(key_node)
        names = [p for p, _ in parts]
        header_line = node.start_point[0]
        last_line = header_line
        for c in node.children:
            if c.type == "pair":
                last_line = max(last_line, c.end_point[0])
        first = node.children[0]
        close = next((c for c in node.children if c.type in ("]", "]]")), None)
        head = (first, close, key_node)
        if node.type == "table_array_element":
            base = self._resolve(names[:-1]) + (names[-1],)
            idx = self._aot_last.get(base, -1) + 1
            self._aot_last[base] = idx
            path: Path = base + (idx,)
            self._add(base, Entry("array_table", key_node, head, header_line, self))
            self._entries[path] = Entry("array_table", key_node, head, header_line, self)
        else:
            path = self._resolve(names)
            self._entries[path] = Entry("table", key_node, head, header_line, self)
        for i in range(1, len(path)):
            self._add(path[:i], Entry("implicit", key_node, head, header_line, self))
        self.tables.append((path, header_line, last_line))
        self._pending.setdefault(path, []).append(node)

    def _walk_pair(self, node: Node, prefix: Path) -> None:
        key_node = None
        value_node = None
        for c in node.children:
            if c.type in ("dotted_key", "bare_key", "quoted_key") and key_node is None:
                key_node = c
            elif c.type not in ("=", "comment", "dotted_key", "bare_key", "quoted_key") and key_node is not None:
                if value_node is None:
                    value_node = c
            if c.type == "ERROR":
                self.has_error = True
        if key_node is None:
            return
        parts = self._key_parts(key_node)
        path = prefix
        for i, (name, part_node) in enumerate(parts):
            path = path + (name,)
            if i < len(parts) - 1:
                self._add(path, Entry("implicit", part_node, node, -1, self))
        if value_node is not None:
            self._entries[path] = Entry("pair", key_node, value_node, -1, self)
        else:
            key_span = self.span(key_node)
            self._entries[path] = Entry(
                "pair", key_span, Span(key_span.end_line, key_span.end_col, key_span.end_line, key_span.end_col)
            )
        if value_node is not None:
            self._walk_value(value_node, path)

    def _walk_value(self, node: Node, path: Path) -> None:
        if node.type == "inline_table":
            for c in node.children:
                if c.type == "pair":
                    self._walk_pair(c, path)
        elif node.type == "array":
            idx = 0
            for c in node.children:
                if c.type in ("[", "]", ",", "comment"):
                    continue
                self._entries[path + (idx,)] = Entry("item", c, c, -1, self)
                self._walk_value(c, path + (idx,))
                idx += 1

    # -- queries ------------------------------------------------------------------------------
    def locate(self, path: Path) -> tuple[Path, Entry | None]:
        """The entry for ``path`` or its longest written prefix (a missing field lands on its table)."""
        p = tuple(path)
        while p:
            e = self.get(p)
            if e is not None:
                return p, e
            p = p[:-1]
        return (), None

    def at(self, line: int, col: int) -> tuple[Path, Entry] | None:
        """The key (pair or table header) written at a position, for F1 help."""
        best: tuple[Path, Entry] | None = None
        self._walk_body(self.table_at_line(line))
        for path, e in self._entries.items():
            if e.kind in ("implicit", "item"):
                continue
            raw_key = e._key
            if not isinstance(raw_key, Span) and not (raw_key.start_point[0] <= line <= raw_key.end_point[0]):
                continue
            k = e.key
            if k.line == line and k.col <= col <= k.end_col:
                if best is None or len(path) > len(best[0]):
                    best = (path, e)
        if best is None:
            for path, e in self._entries.items():
                if e.kind == "pair" and e.key.line == line:
                    return path, e
        return best

    def table_at_line(self, line: int) -> Path:
        """The [table] whose body holds ``line`` (root is ``()``)."""
        current: Path = ()
        for path, header, _last in self.tables:
            if header <= line:
                current = path
            else:
                break
        return current

    def table_last_line(self, path: Path) -> int | None:
        for p, _header, last in self.tables:
            if p == path:
                return last
        return None

    def line_text(self, line: int) -> str:
        if 0 <= line < len(self._lines):
            return self._lines[line].decode("utf-8", errors="replace")
        return ""

    @property
    def line_count(self) -> int:
        return len(self._lines)
