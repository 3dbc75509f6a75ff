"""Make outside text harmless: run names, messages, file names and log lines never drive the terminal.

A log line may carry SGR colour codes (prime-rl's loguru always writes them, even into files),
cursor moves, OSC title or clipboard writes, bidi overrides, bells. We:

- drop well-formed SGR sequences (``ESC [ params m``): they only colour text, and the monitor
  colours lines itself from the theme, so removing them loses nothing and keeps lines readable;
- show every other control character as a visible Unicode "control picture" (``ESC`` -> ``␛``,
  ``BEL`` -> ``␇``, C1 controls, bidi overrides and every other invisible format character such
  as a zero-width space -> ``�``), so the rest of the sequence appears as plain text, nothing
  reaches the terminal, and two names that differ never look the same;
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
# Every invisible format character (Unicode category Cf, 15.0): zero-width space/joiners (U+200B-D),
# word joiner (U+2060), BOM (U+FEFF), soft hyphen, bidi marks, overrides and isolates (which could
# reorder what the user reads), tag characters. Invisible, they let two names that look the same
# differ; shown, the difference is seen.
_FORMAT = (
    "\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f\u202a-\u202e"
    "\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U00013438"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f"
)
_FORMAT_RANGES = re.findall(r"(.)(?:-(.))?", _FORMAT)
for _lo, _hi in _FORMAT_RANGES:
    for _code in range(ord(_lo), ord(_hi or _lo) + 1):
        _TABLE[_code] = "\ufffd"
for _code in (0x2028, 0x2029):
    _TABLE[_code] = "\ufffd"  # U+2028/9 break lines

_CONTROL = re.compile(f"[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029{_FORMAT}]")

REPLACED: frozenset[int] = frozenset(_TABLE)
"""Every code point :func:`neutralise` and :func:`clean` replace with a visible one (tab, expanded, is not
listed): the one list. A fast path that decides a text needs no neutralising reads it from here."""
UNSAFE = re.compile(f"[\x00-\x1f\x7f-\x9f\u2028\u2029{_FORMAT}]")
"""One character a terminal would act on or not show: :data:`REPLACED` and tab."""


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
    return UNSAFE.search(text) is None
