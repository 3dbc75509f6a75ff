"""What a check reports: a level, a message, an exact span in the TOML text, maybe a quick fix."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Level = Literal["error", "warning", "hint"]
LEVELS: tuple[Level, ...] = ("error", "warning", "hint")


@dataclass(frozen=True, order=True)
class Span:
    """A range in the document: 0-based line and character column, end exclusive."""

    line: int
    col: int
    end_line: int
    end_col: int

    def contains_line(self, line: int) -> bool:
        return self.line <= line <= self.end_line


@dataclass(frozen=True)
class TextEdit:
    """Replace the text between two (line, col) positions (0-based, end exclusive) with ``text``."""

    start: tuple[int, int]
    end: tuple[int, int]
    text: str


@dataclass(frozen=True)
class Fix:
    """A quick fix the editor can apply in one keystroke; only offered when the fix is certain."""

    title: str
    edits: tuple[TextEdit, ...]


@dataclass(frozen=True)
class Diagnostic:
    """One problem found in an sft.toml.

    ``loc`` is the config path of the offending key (table names and keys, list indices as ints,
    without discriminated-union tags), ``code`` names the rule (see docs/validation-rules.md),
    ``source`` says who would complain: ``toml``, ``prime-rl`` (schema and its validators),
    ``platform`` (the hosted platform's dispatch rules) or ``review`` (advice, never fatal).
    """

    level: Level
    message: str
    span: Span
    code: str
    source: str = "prime-rl"
    loc: tuple[str | int, ...] = ()
    fix: Fix | None = None
    pydantic_type: str | None = field(default=None, compare=False)
    alternatives: tuple[Fix, ...] = field(default=(), compare=False)  # other fixes, after ``fix``
    platform_loc: tuple[str | int, ...] | None = field(default=None, compare=False)  # prime-rl's own loc, for a 422
    platform_message: str | None = field(default=None, compare=False)  # prime-rl's words, when ``message`` adds to them

    @property
    def fixes(self) -> tuple[Fix, ...]:
        """Every quick fix, the preferred one first."""
        return ((self.fix,) if self.fix is not None else ()) + self.alternatives

    def format(self, filename: str) -> str:
        """``file:line:col: level: message`` with 1-based line and column (what editors and CI parse)."""
        return f"{filename}:{self.span.line + 1}:{self.span.col + 1}: {self.level}: {self.message}"

    def to_json(self, filename: str | None = None) -> dict[str, Any]:
        out: dict[str, Any] = {
            "line": self.span.line + 1,
            "col": self.span.col + 1,
            "end_line": self.span.end_line + 1,
            "end_col": self.span.end_col + 1,
            "level": self.level,
            "message": self.message,
            "code": self.code,
            "source": self.source,
            "loc": list(self.loc),
        }
        if filename is not None:
            out = {"file": filename, **out}
        if self.fix is not None:
            out["fix"] = self.fix.title
        return out


def sort_key(d: Diagnostic) -> tuple[Any, ...]:
    return (d.span.line, d.span.col, LEVELS.index(d.level), d.message)


def apply_fix(text: str, fix: Fix) -> str:
    """Apply a fix's edits to ``text`` (edits are applied bottom-up; positions are clamped to the text)."""
    lines = text.split("\n")

    def offset(pos: tuple[int, int]) -> int:
        line, col = pos
        if line >= len(lines):
            return len(text)
        return sum(len(x) + 1 for x in lines[:line]) + min(col, len(lines[line]))

    out = text
    for edit in sorted(fix.edits, key=lambda e: e.start, reverse=True):
        a, b = offset(edit.start), offset(edit.end)
        out = out[:a] + edit.text + out[b:]
    return out
