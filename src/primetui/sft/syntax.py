"""Place a TOML syntax error where the user made it, in words a user reads.

``tomllib`` reports where it noticed the problem: an unclosed array at the next table header, an
unclosed string as "Illegal character '\\n'" at the end of its line, a byte-order mark as "Invalid
statement". ``explain`` rescans the text up to that point (strings, comments, brackets) and names the
opening bracket or quote that was never closed, or the BOM, with a quick fix where one is certain.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from primetui.sft.diagnostics import Fix, Span, TextEdit

_POS = re.compile(r"\(at line (\d+), column (\d+)\)")
_END = "(at end of document)"
BOM = "\ufeff"


@dataclass(frozen=True)
class SyntaxProblem:
    """What to say and where: ``span`` in characters (0-based), ``fix`` only when it is certain."""

    message: str
    span: Span
    fix: Fix | None = None


@dataclass
class _Scan:
    """Where the scan stopped: the unclosed openers and the last string that ran off its line."""

    openers: list[tuple[str, int, int]]  # (bracket, line, col) of each [ / { still open in a value
    open_string: tuple[str, int, int] | None  # (quote, line, col) of a string still open at the stop
    cut_string: tuple[str, int, int, int] | None  # (quote, line, col, offset of its newline)


def _string_end(text: str, i: int, quote: str, triple: bool) -> tuple[int, bool]:
    """Where the string opening at ``i`` ends (just past its closing quotes), and whether it closes at all.

    A one-line string that runs off its line stops at the newline; an unclosed one at the end of ``text``."""
    j = i + (3 if triple else 1)
    while j < len(text):
        c = text[j]
        if c == "\\" and quote == '"':
            j += 2
            continue
        if triple and text.startswith(quote * 3, j):
            j += 3
            while j < len(text) and text[j] == quote:  # up to two quotes may end the content
                j += 1
            return j, True
        if not triple and c == quote:
            return j + 1, True
        if not triple and c == "\n":
            return j, False
        j += 1
    return j, False


def _scan(text: str, stop: int) -> _Scan:
    """Tokenise ``text[:stop]`` just enough to track strings, comments and value brackets."""
    openers: list[tuple[str, int, int]] = []
    cut: tuple[str, int, int, int] | None = None
    line = line_start = 0
    in_value = False
    i, n = 0, min(stop, len(text))
    while i < n:
        ch = text[i]
        if ch == "\n":
            line, line_start = line + 1, i + 1
            if not openers:
                in_value = False
            i += 1
        elif ch == "#":
            j = text.find("\n", i)
            i = len(text) if j < 0 else j
        elif ch in "\"'":
            col = i - line_start
            triple = text.startswith(ch * 3, i)
            j, closed = _string_end(text, i, ch, triple)
            if not closed and not triple:
                cut = (ch, line, col, j)
            if j >= n and not closed:
                return _Scan(openers, (ch * (3 if triple else 1), line, col), cut)
            # a multi-line string moves the line counter
            nl = text.count("\n", i, j)
            if nl:
                line += nl
                line_start = text.rfind("\n", i, j) + 1
            i = j
        elif ch in "[{" and (openers or in_value):
            openers.append((ch, line, i - line_start))
            i += 1
        elif ch in "]}" and openers:
            if openers[-1][0] == ("[" if ch == "]" else "{"):
                openers.pop()
            i += 1
        elif ch == "=" and not openers:
            in_value = True
            i += 1
        else:
            i += 1
    return _Scan(openers, None, cut)


def _offset(text: str, message: str) -> tuple[int, int, int] | None:
    """The (offset, line, col) tomllib's message points at (0-based), end of document included."""
    m = _POS.search(message)
    if m:
        line, col = int(m.group(1)) - 1, int(m.group(2)) - 1
        start = 0
        for _ in range(line):
            j = text.find("\n", start)
            if j < 0:
                break
            start = j + 1
        return start + col, line, col
    if _END in message:
        line = text.count("\n")
        return len(text), line, len(text) - (text.rfind("\n") + 1)
    return None


def _at(line: int, col: int) -> str:
    return f"{line + 1}:{col + 1}"


def explain(text: str, message: str) -> SyntaxProblem | None:
    """A better place and wording for tomllib's ``message`` about ``text``; None keeps tomllib's."""
    if text.startswith(BOM):
        fix = Fix("Remove the byte-order mark", (TextEdit((0, 0), (0, 1), ""),))
        return SyntaxProblem(
            "the file starts with a UTF-8 byte-order mark (BOM), which TOML does not allow — "
            "remove it (quick fix) or save the file as UTF-8 without BOM.",
            Span(0, 0, 0, 1),
            fix,
        )
    twice = _explain_duplicate(text, message)
    if twice is not None:
        return twice
    where = _offset(text, message)
    if where is None:
        return None
    offset, _line, _col = where
    scan = _scan(text, offset)
    if scan.open_string is not None and len(scan.open_string[0]) == 3:
        quote, line, col = scan.open_string
        return SyntaxProblem(
            f"unterminated multi-line string starting at {_at(line, col)} — close it with {quote}.",
            Span(line, col, line, col + 3),
        )
    if (
        scan.cut_string is not None
        and abs(scan.cut_string[3] - offset) <= 1
        and ("Illegal character" in message or "Unclosed" in message or _END in message or "Expected" in message)
    ):
        quote, line, col, _nl = scan.cut_string
        return SyntaxProblem(
            f"unterminated string starting at {_at(line, col)} — close it with {quote} on the "
            f"same line (use {quote * 3} for text over several lines).",
            Span(line, col, line, col + 1),
        )
    for word, bracket, close in (("Unclosed array", "[", "]"), ("Unclosed inline table", "{", "}")):
        if message.startswith(word) or (bracket == "{" and _inline_table_cut(text, message, offset, _line, scan)):
            opener = next((o for o in reversed(scan.openers) if o[0] == bracket), None)
            if opener is None:
                return None
            _b, line, col = opener
            what = "array" if bracket == "[" else "inline table (it must close on the same line)"
            return SyntaxProblem(
                f"unclosed {what} `{bracket}` opened at {_at(line, col)} — close it with `{close}`.",
                Span(line, col, line, col + 1),
            )
    return None


def _inline_table_cut(text: str, message: str, offset: int, line: int, scan: _Scan) -> bool:
    """An inline table whose line ended after a comma (or right after its ``{``): tomllib wants the
    next key there and says "Invalid initial character for a key part" at the line's end. It is the
    unclosed ``{`` of that line that is wrong (an inline table closes on the line it opens)."""
    if not message.startswith("Invalid initial character for a key part") or not scan.openers:
        return False
    bracket, opened_on, _col = scan.openers[-1]
    end = text.find("\n", offset)
    rest = text[offset : len(text) if end < 0 else end].strip()
    return bracket == "{" and opened_on == line and (not rest or rest.startswith("#"))


_DUP_VALUE = re.compile(r"Cannot overwrite a value \(at line (\d+), column \d+\)")
_DUP_TABLE = re.compile(r"Cannot declare \((.*)\) twice \(at line (\d+), column \d+\)")
_PAIR_KEY = re.compile(r"\s*([A-Za-z0-9_\-.\"' ]+?)\s*=")


def _explain_duplicate(text: str, message: str) -> SyntaxProblem | None:
    """A key or table written twice: name it and the line of its first writing (one error, one cause)."""
    lines = text.split("\n")
    m = _DUP_VALUE.match(message)
    if m:
        line = int(m.group(1)) - 1
        km = _PAIR_KEY.match(lines[line]) if line < len(lines) else None
        if km is None:
            return None
        key = km.group(1).strip()
        for i in range(line - 1, -1, -1):
            if lines[i].lstrip().startswith("["):
                break
            other = _PAIR_KEY.match(lines[i])
            if other and other.group(1).strip() == key:
                col = len(lines[line]) - len(lines[line].lstrip())
                fix = Fix(f"Remove this second {key}", (TextEdit((line, 0), (line + 1, 0), ""),))
                return SyntaxProblem(
                    f"`{key}` is set twice in this table (first on line {i + 1}) — TOML allows a key "
                    "once per table; keep one.",
                    Span(line, col, line, col + len(key)),
                    fix,
                )
        return None
    m = _DUP_TABLE.match(message)
    if m:
        line = int(m.group(2)) - 1
        header = lines[line].strip() if line < len(lines) else ""
        first = next((i for i in range(line) if lines[i].strip() == header), None)
        if first is None or not header:
            return None
        col = len(lines[line]) - len(lines[line].lstrip())
        return SyntaxProblem(
            f"{header} is declared twice (first on line {first + 1}) — TOML allows a table once; "
            "merge the two into one.",
            Span(line, col, line, col + len(header)),
        )
    return None
