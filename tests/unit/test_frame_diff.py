"""Frames cut to the cells that changed draw exactly what the whole frames drew (primetui.ui.frame_diff).

Two pyte terminals side by side: one is fed Textual-style frames as written, the other the same frames
through ``FrameDiff``; after every frame both show the same characters in the same colours.
"""

from __future__ import annotations

import random

import pyte

from primetui.ui.frame_diff import FrameDiff

COLS, ROWS = 40, 10
STYLES = [
    "",
    "38;5;189;48;5;16",
    "1;38;5;45;48;5;17",
    "7",
    "4;38;5;7",
    "48;5;23",
    "7;38;5;189;48;5;16",
    "1;38;5;189;48;5;16",
]
GLYPHS = "ab c·█▁▅ "


def frame(lines: dict[int, list[tuple[str, str]]], x0: int = 0, cursor: tuple[int, int] = (0, 0)) -> str:
    """A frame as Textual writes it: each line a cursor move then styled segments, lines joined by ``\\n``."""
    parts = []
    for i, (y, segments) in enumerate(sorted(lines.items())):
        if i:
            parts.append("\n")
        parts.append(f"\x1b[{y + 1};{x0 + 1}H")
        parts.extend(f"\x1b[{style}m{text}\x1b[0m" if style else text for text, style in segments)
    parts.append(f"\x1b[{cursor[1] + 1};{cursor[0] + 1}H")
    return "".join(parts)


def random_line(rng: random.Random, width: int) -> list[tuple[str, str]]:
    segments, used = [], 0
    while used < width:
        style = rng.choice(STYLES)
        if rng.random() < 0.3:
            text = " " * rng.randint(1, width - used)
        else:
            text = ""
            while used + len(text) < width and rng.random() < 0.8:
                if rng.random() < 0.1 and used + len(text) + 2 <= width:
                    text += "漢"  # a wide character: two cells
                    used += 1
                else:
                    text += rng.choice(GLYPHS)
            text = text or "x"
        segments.append((text, style))
        used += len(text)
    return segments


def screen() -> tuple[pyte.Screen, pyte.Stream]:
    s = pyte.Screen(COLS, ROWS)
    return s, pyte.Stream(s)


def look(c) -> tuple:
    """What a cell shows: on a blank without underline or reverse, only its background."""
    if c.data == " " and not (c.reverse or c.underscore or c.strikethrough):
        return (" ", c.bg)
    return (c.data, c.fg, c.bg, c.bold, c.reverse, c.underscore)


def cells(s: pyte.Screen) -> list[list[tuple]]:
    return [[look(s.buffer[y][x]) for x in range(COLS)] for y in range(ROWS)]


def test_diffed_frames_draw_what_the_whole_frames_drew():
    rng = random.Random(41)
    whole, whole_stream = screen()
    cut, cut_stream = screen()
    diff = FrameDiff(lambda: (COLS, ROWS), erase=True)
    written = sent = 0
    text = ""
    for n in range(300):
        if n % 7 == 0 and text:  # the same frame again, as a widget that refreshed with nothing new
            text = text
        else:
            if n % 3 == 0:  # a full screen
                x0, width, rows = 0, COLS, range(ROWS)
            else:  # a widget's region
                x0 = rng.randrange(COLS - 4)
                width = rng.randint(4, COLS - x0)
                top = rng.randrange(ROWS)
                rows = range(top, rng.randint(top + 1, ROWS))
            lines = {y: random_line(rng, width) for y in rows}
            text = frame(lines, x0, (rng.randrange(COLS), rng.randrange(ROWS)))
        whole_stream.feed(text)
        out = diff(text)
        cut_stream.feed(out)
        written, sent = written + len(text), sent + len(out)
        assert cells(cut) == cells(whole), f"frame {n} drew differently once diffed"
        assert (cut.cursor.x, cut.cursor.y) == (whole.cursor.x, whole.cursor.y)
    assert sent < written


def test_an_unchanged_frame_sends_only_the_cursor_and_a_changed_cell_only_itself():
    diff = FrameDiff(lambda: (COLS, ROWS))
    line = [("Steps ", "1;38;5;189"), ("204/100000", "38;5;189;48;5;16"), (" " * 24, "48;5;16")]
    first = frame({3: line}, 0, (4, 1))
    assert len(diff(first)) > 40
    assert diff(first) == "\x1b[2;5H", "nothing changed: only the cursor is put back"
    changed = [("Steps ", "1;38;5;189"), ("205/100000", "38;5;189;48;5;16"), (" " * 24, "48;5;16")]
    assert diff(frame({3: changed}, 0, (4, 1))) == "\x1b[4;9H\x1b[0;38;5;189;48;5;16m5\x1b[0m\x1b[2;5H"


def test_blank_line_ends_are_erased_when_the_terminal_erases_in_the_background():
    blank = frame({0: [("x", ""), (" " * (COLS - 1), "48;5;16")]})
    assert "\x1b[K" in FrameDiff(lambda: (COLS, ROWS), erase=True)(blank)
    assert "\x1b[K" not in FrameDiff(lambda: (COLS, ROWS), erase=False)(blank)
    underlined = frame({0: [("x", ""), (" " * (COLS - 1), "4;48;5;16")]})
    assert "\x1b[K" not in FrameDiff(lambda: (COLS, ROWS), erase=True)(underlined), "an erase draws no underline"


def test_what_it_cannot_follow_goes_out_unchanged_and_the_next_frame_is_whole():
    diff = FrameDiff(lambda: (COLS, ROWS))
    text = frame({0: [("hello", "")]})
    diff(text)
    assert diff("\x1b[?1049h") == "\x1b[?1049h"  # the alternate screen: what it shows is unknown
    assert "hello" in diff(text)
    diff(text)
    assert diff("\x1b[2J" + text) == "\x1b[2J" + text
    assert "hello" in diff(text)
    passthrough = ["\x1b[?2026h", "\x1b[?2026l", "\x1b[6n", "\x1b[?25l", "\x1b]22;default\x07"]
    for seq in passthrough:
        assert diff(seq) == seq
    assert "hello" not in diff(text), "mode switches change no cell: the screen is still known"


def test_a_new_terminal_size_writes_everything_again():
    size = [(COLS, ROWS)]
    diff = FrameDiff(lambda: size[0])
    text = frame({0: [("hello", "")]})
    diff(text)
    assert "hello" not in diff(text)
    size[0] = (COLS + 1, ROWS)
    assert "hello" in diff(text)


def test_a_combining_mark_belongs_to_the_cell_before_it():
    diff = FrameDiff(lambda: (COLS, ROWS))
    accented = frame({0: [("cafe\u0301!", "")]})
    diff(accented)
    assert diff(accented) == "\x1b[1;1H", "the same accented text: nothing written"
    changed = diff(frame({0: [("cafe!", "")]}))
    assert "e" in changed and "caf" not in changed and "!" not in changed
