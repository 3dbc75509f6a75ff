"""Repaint a screen model onto a real terminal (entering full-terminal mode mid-session)."""

from __future__ import annotations

from primetui.shell.term.attrs import (
    BLINK,
    BOLD,
    DIM,
    HIDDEN,
    ITALIC,
    OVERLINE,
    REVERSE,
    STRIKE,
    TRUECOLOR,
    Attr,
    underline_color,
    underline_style,
)
from primetui.shell.term.screen import Screen, entry_runs

_FLAG_SGR = (
    (BOLD, "1"),
    (DIM, "2"),
    (ITALIC, "3"),
    (BLINK, "5"),
    (REVERSE, "7"),
    (HIDDEN, "8"),
    (STRIKE, "9"),
    (OVERLINE, "53"),
)


def _color(value: int, base: int) -> str:
    if value < 0:
        return str(base + 9)
    if value >= TRUECOLOR:
        c = value & 0xFFFFFF
        return f"{base + 8};2;{(c >> 16) & 255};{(c >> 8) & 255};{c & 255}"
    return f"{base + 8};5;{value}"


def sgr(a: Attr) -> str:
    """The SGR sequence that sets exactly attribute ``a``."""
    fg, bg, flags = a
    parts = ["0"] + [code for bit, code in _FLAG_SGR if flags & bit] + [_color(fg, 30), _color(bg, 40)]
    ul = underline_style(flags)
    if ul:
        parts.append("4" if ul == 1 else f"4:{ul}")
        ul_color = underline_color(flags)
        if ul_color >= 0:
            parts.append(_color(ul_color, 50).replace(";", ":"))
    return "\x1b[" + ";".join(parts) + "m"


def mode_sequences(screen: Screen, on: bool = True) -> str:
    """DEC modes the program set that the outer terminal must share (keys, paste, mouse)."""
    out = []
    if screen.app_cursor:
        out.append("\x1b[?1h" if on else "\x1b[?1l")
    if screen.app_keypad:
        out.append("\x1b=" if on else "\x1b>")
    if screen.bracketed_paste:
        out.append("\x1b[?2004h" if on else "\x1b[?2004l")
    if screen.mouse_mode:
        out.append(f"\x1b[?{screen.mouse_mode}{'h' if on else 'l'}")
        enc = {"sgr": 1006, "utf8": 1005, "urxvt": 1015}.get(screen.mouse_encoding)
        if enc:
            out.append(f"\x1b[?{enc}{'h' if on else 'l'}")
    if screen.focus_events:
        out.append("\x1b[?1004h" if on else "\x1b[?1004l")
    return "".join(out)


def render_ansi(screen: Screen) -> str:
    """Bytes (as text) that make a terminal of the same size show this screen, cursor and modes."""
    out = ["\x1b[0m\x1b[H\x1b[2J"]
    if screen.alt_screen:
        out.insert(0, "\x1b[?1049h")
    for y, line in enumerate(screen.lines):
        out.append(f"\x1b[{y + 1};1H")
        runs = entry_runs(line)
        # Never write the bottom-right cell: that would scroll the real terminal.
        if y == screen.rows - 1 and runs:
            text, a = runs[-1]
            runs[-1] = (text[:-1], a)
        for text, a in runs:
            out.append(sgr(a) + text)
    if 0 <= screen.top < screen.bottom < screen.rows and (screen.top, screen.bottom) != (0, screen.rows - 1):
        out.append(f"\x1b[{screen.top + 1};{screen.bottom + 1}r")
    out.append(sgr(screen.attr))
    out.append(f"\x1b[{screen.y + 1};{screen.x + 1}H")
    out.append("\x1b[?25h" if screen.cursor_visible else "\x1b[?25l")
    out.append(mode_sequences(screen))
    return "".join(out)
