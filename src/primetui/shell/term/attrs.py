"""Cell attributes: one interned ``(fg, bg, flags)`` tuple per distinct style.

Colours are ints: ``-1`` is the terminal default, ``0..255`` the xterm palette, and
``TRUECOLOR | 0xRRGGBB`` a 24-bit colour. Interning keeps identical styles as the same object,
so a renderer can group cells by identity and cache one toolkit style per attribute.
"""

from __future__ import annotations

import re

DEFAULT_COLOR = -1
TRUECOLOR = 1 << 24

BOLD = 1
DIM = 2
ITALIC = 4
UNDERLINE = 8
BLINK = 16
REVERSE = 32
HIDDEN = 64
STRIKE = 128
OVERLINE = 256
# The underline's style (SGR 4:n, 21) sits in three bits; 0 with UNDERLINE set is a single line.
UL_SHIFT = 9
UL_MASK = 7 << UL_SHIFT
UL_SINGLE, UL_DOUBLE, UL_CURLY, UL_DOTTED, UL_DASHED = 1, 2, 3, 4, 5
# The underline's colour (SGR 58/59), stored above every flag as colour + 2 (0 = the text's colour).
UL_COLOR_SHIFT = 12


def underline_style(flags: int) -> int:
    """0 for no underline, else one of ``UL_SINGLE`` .. ``UL_DASHED``."""
    if not flags & UNDERLINE:
        return 0
    return (flags & UL_MASK) >> UL_SHIFT or UL_SINGLE


def underline_color(flags: int) -> int:
    """The underline's own colour (SGR 58), or ``DEFAULT_COLOR`` to follow the text."""
    return (flags >> UL_COLOR_SHIFT) - 2 if flags >> UL_COLOR_SHIFT else DEFAULT_COLOR


Attr = tuple[int, int, int]

SGR_SPLIT = re.compile(r"\x1b\[([0-9;]*)m")
"""An SGR sequence; ``split`` gives text, params, text, ... (the terminal and lazy rows share it)."""

_interned: dict[Attr, Attr] = {}


def attr(fg: int = DEFAULT_COLOR, bg: int = DEFAULT_COLOR, flags: int = 0) -> Attr:
    """The interned attribute for these colours and flags."""
    key = (fg, bg, flags)
    found = _interned.get(key)
    if found is None:
        if len(_interned) > 65536:  # a hostile stream of truecolours must not grow memory forever
            _interned.clear()
        _interned[key] = found = key
    return found


DEFAULT: Attr = attr()


def rgb(color: int) -> tuple[int, int, int] | None:
    """The (r, g, b) of a truecolor value, or None for palette/default colours."""
    if color < TRUECOLOR:
        return None
    c = color & 0xFFFFFF
    return (c >> 16) & 255, (c >> 8) & 255, c & 255


def _extended_color(params: list[list[int]], i: int) -> tuple[int | None, int]:
    """Parse the colour after 38/48/58 at ``params[i]``; return (colour or None, next index).

    Accepts both the ``38;5;n`` / ``38;2;r;g;b`` form and the ITU ``38:5:n`` / ``38:2::r:g:b`` form.
    """
    group = params[i]
    if len(group) > 1:  # colon sub-parameters, all in this group
        sub = group[1:]
        if sub and sub[0] == 5 and len(sub) >= 2:
            return (sub[1] & 255), i + 1
        if sub and sub[0] == 2:
            vals = sub[1:]
            if len(vals) >= 4:  # 38:2:colourspace:r:g:b
                vals = vals[1:4]
            if len(vals) >= 3:
                r, g, b = (max(0, min(255, v)) for v in vals[:3])
                return TRUECOLOR | (r << 16) | (g << 8) | b, i + 1
        return None, i + 1
    if i + 1 < len(params):
        mode = params[i + 1][0]
        if mode == 5 and i + 2 < len(params):
            return params[i + 2][0] & 255, i + 3
        if mode == 2 and i + 4 < len(params):
            r, g, b = (max(0, min(255, params[i + k][0])) for k in (2, 3, 4))
            return TRUECOLOR | (r << 16) | (g << 8) | b, i + 5
        return None, i + 2
    return None, i + 1


_SET_FLAG = {1: BOLD, 2: DIM, 3: ITALIC, 5: BLINK, 6: BLINK, 7: REVERSE, 8: HIDDEN, 9: STRIKE, 53: OVERLINE}
_CLEAR_FLAG = {
    22: BOLD | DIM,
    23: ITALIC,
    24: UNDERLINE | UL_MASK,
    25: BLINK,
    27: REVERSE,
    28: HIDDEN,
    29: STRIKE,
    55: OVERLINE,
}
_LOW_FLAGS = (1 << UL_COLOR_SHIFT) - 1


def _underline(flags: int, style: int) -> int:
    flags &= ~(UNDERLINE | UL_MASK)
    if style:  # a single underline is UNDERLINE alone, as it always was
        flags |= UNDERLINE | ((min(style, UL_DASHED) if style != UL_SINGLE else 0) << UL_SHIFT)
    return flags


def apply_sgr(current: Attr, params: list[list[int]]) -> Attr:
    """The attribute after an SGR sequence. ``params`` is a list of colon groups (``[[38], [5], [196]]``)."""
    fg, bg, flags = current
    if not params:
        return DEFAULT
    i = 0
    n = len(params)
    while i < n:
        p = params[i][0]
        if p == 0:
            fg, bg, flags = DEFAULT_COLOR, DEFAULT_COLOR, 0
        elif 30 <= p <= 37:
            fg = p - 30
        elif 40 <= p <= 47:
            bg = p - 40
        elif 90 <= p <= 97:
            fg = p - 90 + 8
        elif 100 <= p <= 107:
            bg = p - 100 + 8
        elif p == 39:
            fg = DEFAULT_COLOR
        elif p == 49:
            bg = DEFAULT_COLOR
        elif p == 4:  # 4 or 4:1 single, 4:0 none, 4:2 double, 4:3 curly, 4:4 dotted, 4:5 dashed
            flags = _underline(flags, params[i][1] if len(params[i]) > 1 else UL_SINGLE)
        elif p == 21:  # xterm: doubly underlined
            flags = _underline(flags, UL_DOUBLE)
        elif p == 59:
            flags &= _LOW_FLAGS
        elif p in _SET_FLAG:
            flags |= _SET_FLAG[p]
        elif p in _CLEAR_FLAG:
            flags &= ~_CLEAR_FLAG[p]
        elif p in (38, 48, 58):
            color, nxt = _extended_color(params, i)
            if color is not None:
                if p == 38:
                    fg = color
                elif p == 48:
                    bg = color
                else:
                    flags = (flags & _LOW_FLAGS) | ((color + 2) << UL_COLOR_SHIFT)
            i = nxt
            continue
        i += 1
    return attr(fg, bg, flags)


_sgr_cache: dict[tuple[Attr, str], Attr] = {}


def sgr_cached(current: Attr, raw: str) -> Attr:
    """``apply_sgr`` for a raw parameter string (``"1;38;5;208"``), cached: logs repeat a few."""
    key = (current, raw)
    found = _sgr_cache.get(key)
    if found is None:
        if len(_sgr_cache) > 8192:
            _sgr_cache.clear()
        groups = []
        for part in raw.split(";") if raw else ():
            group = []
            for sub in part.split(":"):
                group.append(min(int(sub), 65535) if sub.isdigit() else 0)
            groups.append(group)
        found = _sgr_cache[key] = apply_sgr(current, groups)
    return found


def runs_of(raw_line: str, start: Attr, splitter) -> list[tuple[str, Attr]]:
    """(text, attr) runs of a row of text and SGR sequences, starting in attribute ``start``."""
    pieces = splitter(raw_line)
    a = start
    runs = [(pieces[0], a)] if pieces[0] else []
    for i in range(1, len(pieces), 2):
        a = sgr_cached(a, pieces[i])
        if pieces[i + 1]:
            runs.append((pieces[i + 1], a))
    return runs
