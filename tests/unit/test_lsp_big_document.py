"""The language server's fast paths on big documents give the same answers as the slow ones they replace:
a line's start found by bisection, the [table] window around the cursor, and pygls's incremental change."""

from __future__ import annotations

import random

from lsprotocol import types as T
from pygls.workspace import TextDocument

from primetui.commands.lsp import _Document
from primetui.sft.assist import _window
from primetui.sft.positions import LineIndex, line_start

PIECES = [
    "a = 1",
    "[t]",
    "  [[x.y]]",
    "",
    "b = 2",
    "# c",
    "\t[z]",
    "q = [1]",
    "é😀 = 'x'",
    "long = '" + "x" * 5000 + "'",
]


def _texts(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return [
        "\n".join(rng.choice(PIECES) for _ in range(rng.randint(0, 40))) + rng.choice(["", "\n"]) for _ in range(count)
    ]


def _window_by_split(text: str, line: int) -> tuple[str, int]:
    """What hover read before: the text split into lines, the header above to the next header."""
    lines = text.split("\n")
    top = next((i for i in range(min(line, len(lines) - 1), -1, -1) if lines[i].lstrip().startswith("[")), 0)
    end = next((i for i in range(line + 1, len(lines)) if lines[i].lstrip().startswith("[")), len(lines))
    return "\n".join(lines[top:end]) + "\n", top


def test_line_start_and_the_table_window_match_splitting_the_text():
    for text in _texts(150, 1):
        lines = text.split("\n")
        for line in range(len(lines) + 2):
            expected = sum(len(x) + 1 for x in lines[:line]) if line < len(lines) else None
            assert line_start(text, line) == expected, (text[:80], line)
            assert _window(text, line) == _window_by_split(text, line), (text[:80], line)


def test_a_one_line_index_converts_positions_like_the_whole_text_index():
    for text in _texts(50, 2):
        whole = LineIndex(text)
        for line in range(text.count("\n") + 2):
            one = LineIndex.of_line(text, line)
            for character in (0, 1, 2, 5, 9999):
                assert one.code_point_col(line, character) == whole.code_point_col(line, character)
            _line, col = whole.code_point_col(line, 3)
            assert one.position(line, col) == whole.position(line, col)


def _utf16(s: str) -> int:
    return sum(2 if ord(ch) > 0xFFFF else 1 for ch in s)


def test_incremental_changes_give_the_text_pygls_gives():
    """Ranges inside the text (pygls keeps a column past a line's end, LSP says clamp it: not compared)."""
    rng = random.Random(3)
    for text in _texts(80, 4):
        ours, theirs = _Document("file:///sft.toml", text), TextDocument("file:///sft.toml", text)
        for _ in range(6):
            lines = theirs.source.split("\n")
            first, last = sorted(rng.randint(0, len(lines) - 1) for _ in range(2))
            cols = [_utf16(lines[n][: rng.randint(0, len(lines[n]))]) for n in (first, last)]
            if first == last:
                cols.sort()
            change = T.TextDocumentContentChangePartial(
                range=T.Range(T.Position(first, cols[0]), T.Position(last, cols[1])),
                text=rng.choice(["", "q", "\n", "😀x\n", "[t]\n"]),
            )
            ours.apply_change(change)
            theirs.apply_change(change)
            assert ours.source == theirs.source
