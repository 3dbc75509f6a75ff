"""Make outside text harmless: run names, messages, file names and log lines never drive the terminal.

A log line may carry SGR colour codes (prime-rl's loguru always writes them, even into files),
cursor moves, OSC title or clipboard writes, bidi overrides, bells. We:

- drop well-formed SGR sequences (``ESC [ params m``): they only colour text, and the monitor
  colours lines itself from the theme, so removing them loses nothing and keeps lines readable;
- show every other control character as a visible Unicode "control picture" (``ESC`` -> ``␛``,
  ``BEL`` -> ``␇``, C1 controls and bidi overrides -> ``�``), so the rest of the sequence appears
  as plain text and nothing reaches the terminal;
- expand tabs to spaces (the view measures cells).
"""

from __future__ import annotations

import re

_SGR = re.compile(r"\x1b\[[0-9;:]*m")

_TABLE: dict[int, str] = {}
for _code in range(0x20):
    if _code != 0x09:  # tab is expanded separately
        _TABLE[_code] = chr(0x2400 + _code)
_TABLE[0x7F] = "\u2421"  # DEL
for _code in range(0x80, 0xA0):  # C1 controls (CSI, OSC, ... as single bytes)
    _TABLE[_code] = "\ufffd"
for _code in (*range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x200E, 0x200F, 0x061C, 0x2028, 0x2029, 0xFEFF):
    _TABLE[_code] = "\ufffd"  # bidi overrides/isolates could reorder what the user reads; U+2028/9 break lines


_CONTROL = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c\u2028\u2029\ufeff]")


def _picture(match: re.Match[str]) -> str:
    return _TABLE[ord(match.group())]


def strip_sgr(text: str) -> str:
    """Remove SGR colour sequences only (cheap when the text has no ESC)."""
    if "\x1b" not in text:
        return text
    return _SGR.sub("", text)


def neutralise(text: str) -> str:
    """Return ``text`` with SGR removed and every other control character made visible.

    Works on a single line or on a ``\\n``-joined batch (``\\n`` itself is kept so a batch can be
    split afterwards); callers pass lines that no longer contain ``\\r``.
    """
    if "\x1b" in text:
        text = _SGR.sub("", text)
    if "\t" in text:
        text = text.expandtabs(8)
    # A C-speed scan first: most lines hold no control character at all, and str.translate
    # is slow on non-ASCII text.
    if _CONTROL.search(text) is None:
        return text
    return _CONTROL.sub(_picture, text)


def clean(value: object) -> str:
    """Any outside value (a run name, a message, a file name) as one line of harmless text.

    ``None`` becomes ``""``; anything else is ``str()``-ed and passed through :func:`neutralise`,
    so a newline shows as ``␊`` and an ESC sequence (CSI, OSC 0/2/8/52, DCS, APC) as ``␛`` followed
    by its printable rest. The one neutraliser for every screen, toast, title and headless line.
    """
    if value is None:
        return ""
    text = value if isinstance(value, str) else str(value)
    if text.isascii() and text.isprintable():
        return text
    # Unlike log lines, a name keeps its SGR codes visible too: ``␛[31m`` says what was sent.
    return _CONTROL.sub(_picture, text.replace("\t", " "))


def clean_block(text: str) -> str:
    """:func:`clean` for several lines: ``\n`` is kept, every other control is made visible."""
    return "\n".join(clean(line) for line in text.split("\n"))


def is_safe(text: str) -> bool:
    """True when ``text`` contains nothing a terminal would interpret."""
    return not any(ord(ch) in _TABLE or ch == "\t" for ch in text)
