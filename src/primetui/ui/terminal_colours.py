"""What the terminal can show, when the user has not chosen: the theme that suits it, and NO_COLOR.

Detection runs on every start without a chosen theme (the preferences file keeps only choices), so
the Linux console, a 16-colour terminal or NO_COLOR are recognised however often the app ran before.
"""

from __future__ import annotations

import os

from textual.filter import LineFilter, Monochrome, NoColor

from primetui.ui.themes import DEFAULT_THEME

ANSI_THEME = "primetui-ansi"
FEW_COLOUR_TERMS = ("linux", "vt100", "vt220", "ansi", "dumb", "cons25")
"""Terminals with only their own 16 (or 8) colours and no braille glyphs to speak of: the Linux console first."""


def pick_default_theme(env: dict[str, str] | None = None) -> str:
    """ANSI-16 where the terminal's own 16 colours are all there is (or NO_COLOR); dark elsewhere.

    A terminal that promises truecolor (COLORTERM) gets the dark theme whatever TERM says; a
    TERM that names 8 or 16 colours, or the Linux console, gets the ANSI theme.
    """
    env = dict(os.environ) if env is None else env
    if "NO_COLOR" in env:
        return ANSI_THEME
    if env.get("COLORTERM", "").lower() in ("truecolor", "24bit"):
        return DEFAULT_THEME
    term = env.get("TERM", "").lower()
    if term in FEW_COLOUR_TERMS or term.endswith(("-16color", "-8color")):
        return ANSI_THEME
    return DEFAULT_THEME


def honour_no_color(filters: list[LineFilter], no_color: bool) -> list[LineFilter]:
    """With NO_COLOR, strip every colour (Textual's Monochrome filter still sends 256-colour greys)."""
    if not no_color:
        return filters
    return [NoColor() if isinstance(f, Monochrome) else f for f in filters]
