"""Underline styles and colours, overline and the 16-colour palette (issue 29 item 6)."""

from __future__ import annotations

import pytest

from primetui.shell.term import Terminal
from primetui.shell.term.ansi import sgr
from primetui.shell.term.attrs import (
    OVERLINE,
    TRUECOLOR,
    UL_CURLY,
    UL_DASHED,
    UL_DOTTED,
    UL_DOUBLE,
    UL_SINGLE,
    underline_color,
    underline_style,
)
from primetui.shell.term.palette import XTERM, parse_palette


def _attr_of(seq: str):
    term = Terminal(20, 2)
    term.feed_text(seq + "X")
    return term.lines[0].attrs[0]


@pytest.mark.parametrize(
    ("seq", "style"),
    [
        ("\x1b[4m", UL_SINGLE),
        ("\x1b[4:1m", UL_SINGLE),
        ("\x1b[4:2m", UL_DOUBLE),
        ("\x1b[21m", UL_DOUBLE),
        ("\x1b[4:3m", UL_CURLY),
        ("\x1b[4:4m", UL_DOTTED),
        ("\x1b[4:5m", UL_DASHED),
        ("\x1b[4:3m\x1b[4:0m", 0),
        ("\x1b[4:3m\x1b[24m", 0),
        ("\x1b[4:3m\x1b[0m", 0),
        ("\x1b[4:3m\x1b[4m", UL_SINGLE),
    ],
)
def test_underline_styles_are_kept(seq: str, style: int) -> None:
    assert underline_style(_attr_of(seq)[2]) == style


def test_underline_colour_is_kept_and_cleared() -> None:
    assert underline_color(_attr_of("\x1b[4:3;58:2::255:0:0m")[2]) == TRUECOLOR | 0xFF0000
    assert underline_color(_attr_of("\x1b[4;58;5;196m")[2]) == 196
    assert underline_color(_attr_of("\x1b[4;58;5;9m")[2]) == 9
    assert underline_color(_attr_of("\x1b[4;58;5;196;59m")[2]) == -1
    assert underline_color(_attr_of("\x1b[4;58;5;196m\x1b[0m")[2]) == -1
    a = _attr_of("\x1b[31;4:3;58:5:4m")
    assert a[0] == 1 and underline_style(a[2]) == UL_CURLY  # the text colour is untouched


def test_overline_on_and_off() -> None:
    assert _attr_of("\x1b[53m")[2] & OVERLINE
    assert not _attr_of("\x1b[53;55m")[2] & OVERLINE


def test_full_terminal_repaint_sends_them_back_as_received() -> None:
    code = sgr(_attr_of("\x1b[53;4:3;58:2::1:2:3m"))
    assert "53" in code.split(";") and "4:3" in code and "58:2:1:2:3" in code


def test_palette_default_has_16_distinct_colours() -> None:
    assert len(set(XTERM)) == 16
    assert parse_palette("xterm") is XTERM and parse_palette("terminal") is None
    custom = parse_palette([f"#{i:02x}0000" for i in range(16)])
    assert custom is not None and custom[3] == (3, 0, 0)
    with pytest.raises(ValueError):
        parse_palette(["#12"] * 16)
