"""Rewrap on resize (issue 29 item 6): narrowing never cuts text for good, widening brings it
back, on the screen and in the scrollback, and soft-wrapped rows are known as such."""

from __future__ import annotations

from primetui.shell.term import Terminal
from primetui.shell.term.attrs import attr

LONG = "$ echo " + "abcdefghij" * 3  # 37 cells


def _logical(term: Terminal) -> list[str]:
    """Scrollback and screen as logical lines (soft-wrapped rows joined), blank tail dropped."""
    out: list[str] = []
    joined = ""
    for entry in list(term.scrollback) + term.lines:
        if isinstance(entry, str):
            out.append(joined + entry.rstrip())
            joined = ""
        elif entry.wrapped:
            joined += "".join(entry.chars)
        else:
            out.append(joined + entry.text())
            joined = ""
    while out and not out[-1]:
        out.pop()
    return out


def test_soft_wrap_is_marked_and_a_newline_at_the_margin_is_not() -> None:
    term = Terminal(20, 6)
    term.feed_text(LONG + "\r\n" + "x" * 20 + "\r\n$ ")
    assert [line.wrapped for line in term.lines[:4]] == [True, False, False, False]
    assert term.text_lines()[:2] == [LONG[:20], LONG[20:]]


def test_narrow_then_widen_gives_every_line_back() -> None:
    term = Terminal(40, 6)
    term.feed_text(LONG + "\r\nshort\r\n$ ")
    term.resize(10, 6)
    # As tmux: the rows below the cursor stay, so the first rows of the long line went up.
    assert term.text_lines()[:3] == [LONG[30:], "short", "$"]
    assert term.history_text()[:3] == [LONG[:10], LONG[10:20], LONG[20:30]]
    assert _logical(term) == [LONG, "short", "$"]  # nothing cut: the tail moved to new rows
    term.resize(40, 6)
    assert term.text_lines()[:3] == [LONG, "short", "$"]
    assert term.cursor == (2, 2)
    assert len(term.scrollback) == 0


def test_widen_joins_lines_the_program_wrapped_at_the_old_width() -> None:
    term = Terminal(10, 8)
    term.feed_text(LONG + "\r\n$ ")
    assert term.text_lines()[:4] == [LONG[:10], LONG[10:20], LONG[20:30], LONG[30:]]
    term.resize(50, 8)
    assert term.text_lines()[:2] == [LONG, "$"]
    assert term.cursor == (2, 1)


def test_scrollback_rewraps_too() -> None:
    term = Terminal(30, 4)
    body = [f"line {i} " + "z" * (20 + i) for i in range(12)]
    term.feed_text("\x1b[1m" + "\r\n".join(body) + "\x1b[0m\r\n$ ")
    before = _logical(term)
    assert before == body + ["$"]
    term.resize(12, 4)
    assert all(len(e) <= 12 for e in term.history_text())
    assert _logical(term) == before
    term.resize(60, 4)
    assert term.history_text()[-4:] == body[-3:] + ["$"]
    assert _logical(term) == before
    assert term.lines[0].attrs[0] == attr(flags=1)  # styles travel with their cells


def test_bulk_plain_rows_in_scrollback_rewrap() -> None:
    term = Terminal(30, 4)
    term.feed_text("".join(f"{i:03d} " + "q" * 20 + "\r\n" for i in range(50)) + "$ ")
    assert any(isinstance(e, str) for e in term.scrollback)  # the cheap bulk form is covered
    term.resize(10, 4)
    term.resize(30, 4)
    assert _logical(term) == [f"{i:03d} " + "q" * 20 for i in range(50)] + ["$"]


def test_cursor_inside_a_wrapped_command_line_follows_its_cell() -> None:
    term = Terminal(20, 5)
    term.feed_text(LONG + "\x1b[5D")  # the cursor on the 'f' of the last "abcdefghij"
    assert term.lines[term.cursor[1]].chars[term.cursor[0]] == "f"
    for cols in (7, 13, 50, 20):
        term.resize(cols, 5)
        x, y = term.cursor
        assert term.lines[y].chars[x] == "f", cols
    term.feed_text("X")
    assert _logical(term) == ["$ echo abcdefghijabcdefghijabcdeXghij"]


def test_wide_characters_are_not_split_by_a_rewrap() -> None:
    term = Terminal(11, 5)
    term.feed_text("ab" + "漢字" * 4 + "\r\n$ ")
    term.resize(5, 5)
    rows = [line.chars for line in term.lines if any(c.strip() for c in line.chars)]
    for chars in rows:
        assert chars[-1] != "漢" and chars[-1] != "字"  # never the left half alone at the margin
    assert _logical(term)[0].replace(" ", "") == "ab" + "漢字" * 4
    term.resize(11, 5)
    assert term.text_lines()[:2] == ["ab" + "漢字" * 2, "漢字" * 2]  # as it was first drawn
    term.resize(20, 5)
    assert term.text_lines()[0] == "ab" + "漢字" * 4  # the margin's blank is not taken for text


def test_main_screen_behind_a_full_screen_program_rewraps() -> None:
    term = Terminal(40, 6)
    term.feed_text(LONG + "\r\n$ vim\r\n")
    term.feed_text("\x1b[?1049h\x1b[2J\x1b[Hprogram")
    term.resize(10, 6)
    term.resize(40, 6)
    term.feed_text("\x1b[?1049l")
    assert term.text_lines()[:2] == [LONG, "$ vim"]
    assert term.cursor == (0, 2)


def test_cleared_screen_stays_cleared_across_a_width_change() -> None:
    term = Terminal(30, 5)
    term.feed_text("".join(f"old {i} " + "o" * 30 + "\r\n" for i in range(8)))
    term.feed_text("\x1b[H\x1b[2J$ ")
    term.resize(12, 5)
    assert term.text_lines() == ["$", "", "", "", ""]
    term.resize(30, 5)
    assert term.text_lines() == ["$", "", "", "", ""]
    assert term.cursor == (2, 0)


def test_widening_over_plain_scrollback_rows_keeps_the_screen_rows() -> None:
    """Widening can join the screen's rows into fewer than the screen holds: the scrollback's rows
    then come back onto the screen, and those the fast path kept as plain text become rows again
    (they stayed text, and the next resize crashed on them)."""
    term = Terminal(24, 14, scrollback=50)
    term.resize(43, 1)
    term.feed_text("\r\n" * 5)  # bulk lines: kept in the scrollback as plain text
    term.feed_text(" cz b")
    term.resize(4, 5)
    before = _logical(term)
    term.resize(45, 7)
    assert all(not isinstance(line, str) for line in term.lines)
    assert _logical(term) == before
    assert " cz b" in term.history_text()
