"""Differential tests: the screen model agrees with pyte (the reference Python emulator) on a
corpus of what shells, editors and loggers write. pyte is a dev-only dependency."""

from __future__ import annotations

import random
import unicodedata

import pytest

from primetui.shell.term import Terminal

pyte = pytest.importorskip("pyte")

COLS, ROWS = 40, 12


def _vim_like() -> str:
    out = ["\x1b[?1049h\x1b[22;0;0t\x1b[1;12r\x1b[?12h\x1b[?12l\x1b[27m\x1b[23m\x1b[29m\x1b[m\x1b[H\x1b[2J"]
    out.append("\x1b[?25l\x1b[1;11r\x1b[11;1H")
    for i in range(1, 12):
        out.append(f"\x1b[{i};1H\x1b[94m~\x1b[m\x1b[K")
    out.append("\x1b[1;1Hdef main():\x1b[2;1H    return 42\x1b[K")
    out.append("\x1b[r\x1b[12;1H\x1b[1m-- INSERT --\x1b[m\x1b[12;30H1,1\x1b[11CAll")
    out.append("\x1b[2;5H\x1b[1L\x1b[2;1H# inserted line\x1b[5;1H\x1b[2M")
    out.append("\x1b[1;5r\x1b[5;1H\n\n\x1b[r\x1b[1;1H\x1b[3@XYZ\x1b[2P\x1b[4X")
    out.append("\x1b[3;3H\x1bM\x1bM\x1bMtop\x1b[?25h")
    return "".join(out)


def _colour_log(rng: random.Random) -> str:
    levels = ["\x1b[32mINFO\x1b[0m", "\x1b[33mWARN\x1b[0m", "\x1b[1;31mERROR\x1b[0m", "\x1b[38;5;244mDEBUG\x1b[0m"]
    lines = []
    for i in range(120):
        msg = " ".join(
            rng.choice(["loss", "step", "grad", "lr", "tokens/s", "0.213", "ckpt"]) for _ in range(rng.randint(1, 12))
        )
        lines.append(f"\x1b[38;2;120;120;{i % 256}m2026-12-02 12:00:{i % 60:02d}\x1b[0m {rng.choice(levels)} {msg}\r\n")
    return "".join(lines)


def _shell_session() -> str:
    return (
        "user@vol:/volume$ ls\r\n\x1b[0m\x1b[01;34mdata\x1b[0m  \x1b[01;32mrun.sh\x1b[0m  notes.txt\r\n"
        "user@vol:/volume$ echo tab\there\r\ntab\there\r\n"
        "user@vol:/volume$ printf 'a\\bb'\r\nab\x08b\r\n"
        "user@vol:/volume$ " + "x" * 95 + "\r\n"
        "wrapped exactly at the edge" + " " * 13 + "next\r\n"
        "\x1b[2J\x1b[Hcleared\r\n\x1b7\x1b[5;10Hsaved\x1b8after\r\n"
        "\x1b[10;1H\x1b[1K\x1b[3;1H\x1b[0J"
    )


CORPUS = {
    "vim": _vim_like(),
    "colour_log": _colour_log(random.Random(7)),
    "shell": _shell_session(),
    "seq": "".join(f"{i}\r\n" for i in range(1, 3000)),
    "utf8": "naïve café ünïcödé ─│┌┐ 日本語テキスト wide\r\n" * 5 + "e\u0301 combining\r\n",
}


def _pyte_screen(text: str):
    screen = pyte.Screen(COLS, ROWS)
    stream = pyte.Stream(screen)
    stream.feed(text)
    return screen


@pytest.mark.parametrize("name", sorted(CORPUS))
@pytest.mark.parametrize("chunk", [1 << 20, 7, 1])
def test_screen_text_and_cursor_match_pyte(name: str, chunk: int) -> None:
    text = CORPUS[name]
    ref = _pyte_screen(text)
    term = Terminal(COLS, ROWS)
    data = text.encode()
    for i in range(0, len(data), chunk):  # cut anywhere, even inside UTF-8 and escape sequences
        term.feed(data[i : i + chunk])
    # pyte composes combining marks (NFC); the cells look the same either way.
    ours = [unicodedata.normalize("NFC", row).rstrip() for row in term.display()]
    assert ours == [row.rstrip() for row in ref.display]
    assert (term.x, term.y) == (ref.cursor.x, ref.cursor.y)


def test_colours_match_pyte_on_coloured_log() -> None:
    text = CORPUS["colour_log"]
    ref = _pyte_screen(text)
    term = Terminal(COLS, ROWS)
    term.feed(text.encode())
    basic = ["black", "red", "green", "brown", "blue", "magenta", "cyan", "white"]
    for y in range(ROWS):
        for x in range(COLS):
            cell = ref.buffer[y][x]
            fg, _bg, flags = term.lines[y].attrs[x]
            if cell.fg in basic:
                assert fg == basic.index(cell.fg), (y, x)
            elif cell.fg == "default":
                assert fg == -1, (y, x)
            assert bool(flags & 1) == cell.bold, (y, x)
