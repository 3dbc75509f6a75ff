"""OSC/DCS/SOS/PM/APC strings end as in xterm and tmux (issue 29 item 6, the frozen pane): an
unterminated one must not swallow the output that follows it."""

from __future__ import annotations

import pytest

from primetui.shell.term import Terminal


@pytest.mark.parametrize("intro", ["\x1bP", "\x1b]0;", "\x1bX", "\x1b^", "\x1b_"])
def test_an_unfinished_string_does_not_swallow_what_follows(intro: str) -> None:
    term = Terminal(40, 5)
    term.feed_text("first frame\r\n" + intro + "never ended")
    for i in range(3):  # a top-like program redrawing: each update starts with ESC [
        term.feed_text(f"\x1b[H\x1b[2Kframe {i}")
        assert term.text_lines()[0] == f"frame {i}"
    assert term.pending_length() == 0


def test_can_and_sub_cancel_a_string_and_esc_backslash_ends_it() -> None:
    term = Terminal(40, 3)
    term.feed_text("\x1b]2;cancelled\x18A\x1b]2;kept\x1b\\B\x1b]2;bel\x07C\x1bPdcs\x1aD")
    assert term.text_lines()[0] == "ABCD"
    assert term.title == "bel"


def test_a_string_cut_between_chunks_is_still_whole() -> None:
    term = Terminal(40, 3)
    term.feed_text("\x1b]2;half")
    term.feed_text(" and half\x1b")
    assert term.pending_length()  # the ESC may be the start of ST: wait for the next byte
    term.feed_text("\\X")
    assert term.title == "half and half" and term.text_lines()[0] == "X"


def test_drop_pending_draws_what_the_held_sequence_covered() -> None:
    term = Terminal(40, 3)
    term.feed_text("\x1b]52;c;" + "A" * 100)
    assert term.pending_length()
    term.drop_pending()
    assert term.pending_length() == 0 and term.text_lines()[0].endswith("A" * 30)
