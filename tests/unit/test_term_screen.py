"""The terminal screen model: what a program's bytes leave on screen, in scrollback and in modes."""

from __future__ import annotations

import base64

from primetui.shell.term import Terminal, entry_text
from primetui.shell.term.attrs import BOLD, REVERSE, TRUECOLOR, UNDERLINE


def feed(term: Terminal, text: str) -> Terminal:
    term.feed(text.encode())
    return term


def test_plain_lines_scroll_into_bounded_scrollback() -> None:
    term = feed(Terminal(10, 3, scrollback=5), "".join(f"{i}\r\n" for i in range(1, 21)))
    assert term.text_lines() == ["19", "20", ""]
    assert [entry_text(e) for e in term.scrollback] == ["14", "15", "16", "17", "18"]
    assert term.history_pushed == 18


def test_bulk_path_keeps_current_colour_on_scrolled_rows() -> None:
    term = feed(Terminal(10, 2, scrollback=10), "\x1b[31m" + "".join(f"r{i}\r\n" for i in range(6)))
    rows = list(term.scrollback)
    assert [entry_text(e) for e in rows] == ["r0", "r1", "r2", "r3", "r4"]
    assert all(e.attrs[0][0] == 1 for e in rows)  # red survives the bulk path


def test_long_line_wraps_and_is_marked_soft_wrapped() -> None:
    term = feed(Terminal(5, 3), "abcdefgh")
    assert term.text_lines() == ["abcde", "fgh", ""]
    assert term.lines[0].wrapped and not term.lines[1].wrapped


def test_exact_width_line_does_not_leave_a_blank_row() -> None:
    term = feed(Terminal(5, 3), "abcde\r\nf")
    assert term.text_lines() == ["abcde", "f", ""]


def test_sgr_colours_and_flags() -> None:
    term = feed(Terminal(20, 2), "\x1b[1;4;7;38;5;208;48;2;1;2;3mX\x1b[0mY\x1b[38:2::10:20:30mZ")
    fg, bg, flags = term.lines[0].attrs[0]
    assert fg == 208 and bg == TRUECOLOR | 0x010203 and flags == BOLD | UNDERLINE | REVERSE
    assert term.lines[0].attrs[1] == (-1, -1, 0)
    assert term.lines[0].attrs[2][0] == TRUECOLOR | (10 << 16) | (20 << 8) | 30


def test_alternate_screen_restores_main_screen_and_cursor() -> None:
    term = feed(Terminal(20, 4), "shell prompt$ ")
    feed(term, "\x1b[?1049h\x1b[H\x1b[2Jfull screen app\x1b[3;1H~")
    assert term.alt_screen and term.text_lines()[0] == "full screen app"
    feed(term, "\x1b[?1049l")
    assert not term.alt_screen
    assert term.text_lines()[0] == "shell prompt$"
    assert term.cursor == (14, 0)


def test_alt_screen_output_never_reaches_scrollback() -> None:
    term = feed(Terminal(10, 2, scrollback=50), "\x1b[?1049h" + "x\r\n" * 30 + "\x1b[?1049l")
    assert len(term.scrollback) == 0


def test_scroll_region_insert_delete_lines() -> None:
    term = feed(Terminal(10, 5), "a\r\nb\r\nc\r\nd\r\ne")
    feed(term, "\x1b[2;4r\x1b[2;1H\x1b[L")  # insert a blank row at b inside rows 2..4
    assert term.text_lines() == ["a", "", "b", "c", "e"]
    feed(term, "\x1b[2;1H\x1b[2M")
    assert term.text_lines() == ["a", "c", "", "", "e"]


def test_insert_and_delete_chars_and_erase() -> None:
    term = feed(Terminal(10, 2), "abcdef\x1b[1;3H\x1b[2@XY\x1b[1;1H\x1b[1P")
    assert term.text_lines()[0] == "bXYcdef"
    feed(term, "\x1b[1;4H\x1b[K")
    assert term.text_lines()[0] == "bXY"


def test_wide_characters_take_two_cells() -> None:
    term = feed(Terminal(6, 2), "日本語x")
    assert term.lines[0].chars[:2] == ["日", ""]
    assert term.text_lines() == ["日本語", "x"]  # 6 cells full, x wraps


def test_sequences_cut_at_every_byte_give_the_same_screen() -> None:
    text = "\x1b[1;31mé日\x1b]0;title\x07\x1b[2;3Hok\x1b[?25l\r\n" * 3
    whole = feed(Terminal(20, 5), text)
    cut = Terminal(20, 5)
    for b in text.encode():
        cut.feed(bytes([b]))
    assert cut.display() == whole.display()
    assert cut.title == "title" and not cut.cursor_visible


def test_queries_are_answered() -> None:
    term = feed(Terminal(20, 5), "\x1b[3;7H\x1b[6n\x1b[c\x1b[5n")
    assert term.take_replies() == "\x1b[3;7R\x1b[?62;22c\x1b[0n"
    assert term.take_replies() == ""


def test_modes_for_keys_mouse_and_paste() -> None:
    term = feed(Terminal(20, 5), "\x1b[?1h\x1b=\x1b[?1002h\x1b[?1006h\x1b[?2004h")
    assert term.app_cursor and term.app_keypad and term.bracketed_paste
    assert term.mouse_mode == 1002 and term.mouse_encoding == "sgr"
    feed(term, "\x1b[?1l\x1b>\x1b[?1002l\x1b[?2004l")
    assert not (term.app_cursor or term.app_keypad or term.bracketed_paste or term.mouse_mode)


def test_osc52_copy_is_collected_and_reads_are_refused() -> None:
    payload = base64.b64encode("copied text".encode()).decode()
    term = feed(Terminal(20, 5), f"\x1b]52;c;{payload}\x07\x1b]52;c;?\x07")
    assert term.clipboard == ["copied text"]
    assert term.take_replies() == ""


def test_malformed_and_unknown_sequences_are_skipped() -> None:
    term = feed(Terminal(20, 3), "a\x1b[99999;99999Hb\x1b[?9999hc\x1bZd\x1b[1;2;3zq\x00\x7fe")
    assert "e" in "".join(term.text_lines())
    assert term.cursor[0] < 20 and term.cursor[1] < 3


def test_dec_line_drawing() -> None:
    term = feed(Terminal(10, 2), "\x1b(0lqqk\x1b(B ok")
    assert term.text_lines()[0] == "┌──┐ ok"


def test_resize_keeps_cursor_row_and_pushes_top_rows_to_scrollback() -> None:
    term = feed(Terminal(10, 6, scrollback=10), "1\r\n2\r\n3\r\n4\r\n5\r\n$ ")
    term.resize(8, 3)
    assert term.text_lines() == ["4", "5", "$"]
    assert [entry_text(e) for e in term.scrollback] == ["1", "2", "3"]
    term.resize(12, 5)  # growing brings rows back from scrollback, as tmux does
    assert term.rows == 5 and term.cols == 12 and term.cursor == (2, 4)
    assert term.text_lines() == ["2", "3", "4", "5", "$"]
    assert [entry_text(e) for e in term.scrollback] == ["1"]


def test_dirty_rows_are_tracked_and_cleared() -> None:
    term = Terminal(10, 4)
    term.take_dirty()
    feed(term, "\x1b[3;1Hx")
    assert term.take_dirty() == {2}
    assert term.take_dirty() == set()


def test_reverse_index_at_top_scrolls_down() -> None:
    term = feed(Terminal(10, 3), "a\r\nb\r\nc\x1b[H\x1bM")
    assert term.text_lines() == ["", "a", "b"]


def test_erase_uses_current_background() -> None:
    term = feed(Terminal(6, 2), "\x1b[44m\x1b[2J")
    assert term.lines[1].attrs[3][1] == 4


def test_render_ansi_reproduces_the_screen() -> None:
    from primetui.shell.term.ansi import render_ansi

    src = feed(Terminal(30, 6), "\x1b[1;32mgreen\x1b[0m plain\r\n日本\x1b[?1h\x1b[?2004h\x1b[4;5Hcursor")
    copy = Terminal(30, 6)
    copy.feed(render_ansi(src).encode())
    assert copy.display() == src.display()
    assert copy.cursor == src.cursor and copy.app_cursor and copy.bracketed_paste
    assert copy.lines[0].attrs[0] == src.lines[0].attrs[0]


def test_coloured_lines_through_the_bulk_path_keep_runs_and_background() -> None:
    rows = "".join(f"\x1b[32mok\x1b[0m {i} \x1b[44mbg\x1b[0m\r\n" for i in range(50))
    term = feed(Terminal(20, 4, scrollback=100), rows)
    line = term.scrollback[-1]
    assert entry_text(line) == "ok 46 bg"
    assert line.attrs[0][0] == 2 and line.attrs[6][1] == 4 and line.attrs[19] == (-1, -1, 0)
    assert term.text_lines()[:3] == ["ok 47 bg", "ok 48 bg", "ok 49 bg"]
