"""Positions as other tools count them: LSP ranges (0-based line, UTF-16 code units).

Diagnostics and fixes hold 0-based (line, column) with the column in Unicode code points, as Python
indexes a line. Editors speaking LSP count UTF-16 code units (a character outside the Basic
Multilingual Plane, such as an emoji, counts 2), so ``--json`` and the language server convert here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypedDict

from primetui.sft.diagnostics import Diagnostic, Fix, Span, TextEdit

POSITION_ENCODING = "utf-16"


class LspPosition(TypedDict):
    line: int
    character: int


class LspRange(TypedDict):
    start: LspPosition
    end: LspPosition


class LspEdit(TypedDict):
    range: LspRange
    newText: str


class LspFix(TypedDict):
    title: str
    edits: list[LspEdit]


def _unit_len(encoding: str) -> Callable[[str], int]:
    if encoding == "utf-8":
        return lambda ch: len(ch.encode("utf-8"))
    if encoding == "utf-32":
        return lambda ch: 1
    return lambda ch: 2 if ord(ch) > 0xFFFF else 1


class LineIndex:
    """Converts (line, code-point column) to and from LSP positions for one text.

    ``encoding`` is the position encoding agreed with an LSP client (UTF-16 unless it asks otherwise).
    """

    def __init__(self, text: str, encoding: str = POSITION_ENCODING) -> None:
        self.lines = text.split("\n")
        self._units = _unit_len(encoding)

    def _clamp(self, line: int, col: int) -> tuple[int, int]:
        if line >= len(self.lines):  # past the end (a fix that appends): the end of the text
            return len(self.lines) - 1, len(self.lines[-1])
        line = max(0, line)
        return line, max(0, min(col, len(self.lines[line])))

    def position(self, line: int, col: int) -> LspPosition:
        line, col = self._clamp(line, col)
        return {"line": line, "character": sum(map(self._units, self.lines[line][:col]))}

    def code_point_col(self, line: int, character: int) -> tuple[int, int]:
        """The inverse of :meth:`position`: an LSP position as (line, code-point column)."""
        if line >= len(self.lines):
            return self._clamp(line, 0)
        text, units = self.lines[line], 0
        for i, ch in enumerate(text):
            if units >= character:
                return line, i
            units += self._units(ch)
        return line, len(text)

    def range(self, span: Span) -> LspRange:
        return {"start": self.position(span.line, span.col), "end": self.position(span.end_line, span.end_col)}

    def edit(self, edit: TextEdit) -> LspEdit:
        return {"range": {"start": self.position(*edit.start), "end": self.position(*edit.end)}, "newText": edit.text}

    def fix(self, fix: Fix) -> LspFix:
        return {"title": fix.title, "edits": [self.edit(e) for e in fix.edits]}


def diagnostic_json(d: Diagnostic, index: LineIndex) -> dict[str, Any]:
    """``Diagnostic.to_json`` plus an LSP ``range`` and, for a fix, its edits in LSP form."""
    out = d.to_json()
    out["range"] = index.range(d.span)
    if d.fix is not None:
        out["fix"] = index.fix(d.fix)
    if d.alternatives:
        out["other_fixes"] = [index.fix(f) for f in d.alternatives]
    return out
