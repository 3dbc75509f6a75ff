"""Whatever a program writes, the screen stays well-formed: right size, cursor inside, no crash."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from primetui.shell.term import Terminal

PIECES = st.sampled_from(
    [
        "a",
        "日",
        "é",
        "\u0301",
        "─",
        "\r",
        "\n",
        "\t",
        "\b",
        "\x07",
        "\x0e",
        "\x0f",
        "\x1b",
        "\x1b[",
        "\x1b]0;t\x07",
        "\x1b[2J",
        "\x1b[K",
        "\x1b[1;31m",
        "\x1b[38;2;1;2;3m",
        "\x1b[0m",
        "\x1b[?1049h",
        "\x1b[?1049l",
        "\x1b[?47h",
        "\x1b[?1047l",
        "\x1b[3;5r",
        "\x1b[r",
        "\x1bM",
        "\x1bD",
        "\x1bE",
        "\x1b7",
        "\x1b8",
        "\x1b[99;99H",
        "\x1b[H",
        "\x1b[5L",
        "\x1b[5M",
        "\x1b[9@",
        "\x1b[9P",
        "\x1b[9X",
        "\x1b[3S",
        "\x1b[3T",
        "\x1b[4h",
        "\x1b[4l",
        "\x1b[?7l",
        "\x1b[?7h",
        "\x1b[?6h",
        "\x1b[?6l",
        "\x1b(0",
        "\x1b(B",
        "\x1b[65535b",
        "\x1b[6n",
        "\x1b[c",
        "\x1bc",
        "\x1b#8",
        "\x1bP+q\x1b\\",
        "\x1b]52;c;aGk=\x07",
        "\x1b[?2026h",
        "line\r\n",
        "\x1b[32mok\x1b[0m\r\n",
        "\xff",
        "\x00",
    ]
)


@settings(max_examples=150, deadline=None)
@given(
    cols=st.integers(1, 30),
    rows=st.integers(1, 12),
    chunks=st.lists(st.lists(PIECES, max_size=30).map("".join), max_size=6),
    resize=st.tuples(st.integers(1, 30), st.integers(1, 12)),
)
def test_any_output_leaves_a_well_formed_screen(
    cols: int, rows: int, chunks: list[str], resize: tuple[int, int]
) -> None:
    term = Terminal(cols, rows, scrollback=20)
    for i, chunk in enumerate(chunks):
        term.feed(chunk.encode("utf-8", "surrogatepass"))
        if i == 1:
            term.resize(*resize)
        assert len(term.lines) == term.rows
        assert all(len(line.chars) == term.cols and len(line.attrs) == term.cols for line in term.lines)
        assert 0 <= term.x < term.cols and 0 <= term.y < term.rows
        assert 0 <= term.top <= term.bottom < term.rows
        assert len(term.scrollback) <= 20
        term.display()
        term.take_replies()
