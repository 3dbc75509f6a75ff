"""The 16 ANSI colours the shell pane draws with.

A terminal's first 16 colours are the user's to choose; tmux passes them through, so a program's
red is whatever red the user's terminal shows. The dashboard cannot always do that (Textual turns
ANSI colours into its theme's RGB, where red and magenta are the same), so the pane picks them
itself from the ``shell_palette`` preference:

- ``"xterm"`` (default): xterm's own 16 colours, all distinct;
- ``"terminal"``: pass them as ANSI codes, for your terminal to draw with its own palette (taken
  when the dashboard itself draws in ANSI colours, the ``primetui-ansi`` theme; other themes
  convert ANSI colours to RGB, so there the pane falls back to ``"xterm"``);
- a list of 16 ``"#rrggbb"`` colours (black, red, green, yellow, blue, magenta, cyan, white, then
  the bright ones), e.g. copied from your terminal's configuration.
"""

from __future__ import annotations

import re

RGB = tuple[int, int, int]

XTERM: tuple[RGB, ...] = (
    (0, 0, 0),
    (205, 0, 0),
    (0, 205, 0),
    (205, 205, 0),
    (0, 0, 238),
    (205, 0, 205),
    (0, 205, 205),
    (229, 229, 229),
    (127, 127, 127),
    (255, 0, 0),
    (0, 255, 0),
    (255, 255, 0),
    (92, 92, 255),
    (255, 0, 255),
    (0, 255, 255),
    (255, 255, 255),
)
"""xterm's default palette (its ``XTerm*color0`` .. ``color15`` resources)."""

_HEX = re.compile(r"#?([0-9a-fA-F]{6})")


def parse_palette(value: object) -> tuple[RGB, ...] | None:
    """The 16 colours of a ``shell_palette`` value; None for ``"terminal"`` (native ANSI codes).

    Raises ValueError with one sentence for anything else.
    """
    if value in ("", "xterm", None):
        return XTERM
    if value == "terminal":
        return None
    if isinstance(value, (list, tuple)) and len(value) == 16:
        out = []
        for item in value:
            m = _HEX.fullmatch(str(item).strip())
            if m is None:
                raise ValueError(f"shell_palette colour {str(item)[:20]!r} is not #rrggbb")
            c = int(m.group(1), 16)
            out.append(((c >> 16) & 255, (c >> 8) & 255, c & 255))
        return tuple(out)
    raise ValueError('shell_palette must be "xterm", "terminal" or a list of 16 "#rrggbb" colours')
