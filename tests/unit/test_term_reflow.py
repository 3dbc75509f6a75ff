"""The pane's screen across resizes, as tmux does it (issue 18 item 21): rows that went to
scrollback when the pane shrank come back when it grows, and the shell's lines above its prompt
survive a full-screen program that exits after a resize."""

from __future__ import annotations

from primetui.shell.term import Terminal


def _seq(term: Terminal, n: int) -> None:
    term.feed_text("".join(f"{i}\r\n" for i in range(1, n + 1)) + "$ ")


def test_shrink_then_grow_refills_the_screen_from_scrollback() -> None:
    term = Terminal(80, 30)
    _seq(term, 25)
    assert term.text_lines()[:25] == [str(i) for i in range(1, 26)]
    term.resize(80, 20)
    assert term.text_lines()[-1] == "$"
    assert term.text_lines()[0] == "7"
    term.resize(80, 40)
    lines = term.text_lines()
    assert lines[:26] == [str(i) for i in range(1, 26)] + ["$"]  # all 25 back, as in tmux
    assert lines[26:] == [""] * 14
    assert term.cursor == (2, 25)
    assert term.history_text()[:26] == [str(i) for i in range(1, 26)] + ["$"]  # nothing doubled


def test_grow_pulls_only_what_scrollback_holds() -> None:
    term = Terminal(40, 10)
    _seq(term, 30)  # 21 rows went to scrollback
    term.resize(40, 50)
    assert term.text_lines()[:31] == [str(i) for i in range(1, 31)] + ["$"]
    assert len(term.scrollback) == 0
    term.feed_text("echo\r\n")
    assert term.text_lines()[30] == "$ echo" and term.cursor == (0, 31)


def test_lines_above_the_prompt_survive_a_full_screen_program_across_resizes() -> None:
    term = Terminal(80, 40)
    _seq(term, 5)
    term.feed_text("vim\r\n")
    term.feed_text("\x1b[?1049h\x1b[2J\x1b[Hfull screen program")
    term.resize(80, 20)
    term.resize(80, 30)
    term.feed_text("\x1b[2J\x1b[Hredrawn")
    term.feed_text("\x1b[?1049l")
    lines = term.text_lines()
    assert lines[:6] == ["1", "2", "3", "4", "5", "$ vim"]
    assert term.cursor[1] == 6  # the prompt comes back below them


def test_full_screen_program_exit_after_shrink_keeps_the_prompt_row() -> None:
    term = Terminal(80, 40)
    _seq(term, 30)  # prompt on row 30
    term.feed_text("\x1b[?1049h\x1b[Hprogram")
    term.resize(80, 20)
    term.feed_text("\x1b[?1049l")
    lines = term.text_lines()
    assert lines[-1] == "$"  # the prompt stayed on screen, the rows above it went to scrollback
    assert lines[0] == "12" and term.cursor[1] == 19
    term.resize(80, 40)
    assert term.text_lines()[:31] == [str(i) for i in range(1, 31)] + ["$"]
