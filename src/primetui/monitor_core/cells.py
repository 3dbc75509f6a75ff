"""Terminal cells of plain text (no rich): what headless tables align by.

A column is sized by what a terminal shows, not by code points: a CJK name takes two cells a
character, ten thousand combining marks take none. Each column is capped, and a longer cell ends
in ``…``, so one name can never make a line thousands of cells wide.
"""

from __future__ import annotations

from wcwidth import wcswidth, wcwidth

ELLIPSIS = "…"


def width(text: str) -> int:
    """Cells ``text`` takes (neutralised text: a character wcwidth cannot size counts as one)."""
    if text.isascii():
        return len(text)
    n = wcswidth(text)
    return n if n >= 0 else sum(max(wcwidth(ch), 0) if wcwidth(ch) >= 0 else 1 for ch in text)


MARKS_PER_CELL = 4
"""Code points a cell may carry (a letter and its accents); past that, zero-width marks are cut too."""


def fit(text: str, cells: int) -> str:
    """``text`` cut to at most ``cells`` cells (and ``MARKS_PER_CELL`` code points a cell), ending in ``…`` when cut."""
    if len(text) <= cells * MARKS_PER_CELL and width(text) <= cells:
        return text
    out: list[str] = []
    used = 0
    for ch in text:
        w = wcwidth(ch)
        w = 1 if w < 0 else w
        if used + w > cells - 1 or len(out) >= (cells - 1) * MARKS_PER_CELL:
            break
        out.append(ch)
        used += w
    return "".join(out) + ELLIPSIS


def pad(text: str, cells: int) -> str:
    """``text`` left-aligned in ``cells`` cells."""
    return text + " " * max(0, cells - width(text))


def table(rows: list[list[str]], caps: list[int], gap: str = "  ") -> str:
    """Rows of cells as aligned lines: each column as wide as its widest (capped) cell."""
    cut = [[fit(cell, cap) for cell, cap in zip(row, caps)] for row in rows]
    widths = [max((width(r[i]) for r in cut), default=0) for i in range(len(caps))]
    return "\n".join(gap.join(pad(c, w) for c, w in zip(r, widths)).rstrip() for r in cut)
