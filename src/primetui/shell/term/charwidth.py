"""Display width of characters as xterm lays them out (0, 1 or 2 cells)."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

# Runs of characters that are certainly one cell wide: printable ASCII, Latin-1 and Latin
# Extended, Greek, Cyrillic (without its combining marks), general punctuation (without the
# zero-width controls), arrows, maths, box drawing, blocks, geometric shapes and braille.
# Text made only of these is drawn with bulk slicing instead of per-character width checks.
NARROW_RUN = re.compile(
    "[\x20-\x7e\u00a0-\u00ac\u00ae-\u02ff\u0370-\u0377\u037a-\u037f\u0384-\u03ff\u0400-\u0482"
    "\u048a-\u052f\u2010-\u2027\u2030-\u205e\u2070-\u209c\u20a0-\u20c0\u2100-\u231f\u2322-\u2328"
    "\u232b-\u23e8\u2500-\u25fc\u25ff-\u2613\u2800-\u28ff]+"
)


@lru_cache(maxsize=4096)
def char_width(ch: str) -> int:
    """Cells taken by ``ch``: 0 for combining marks and zero-width format characters, 2 for wide."""
    if ch < "\u0300":
        return 1
    if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me", "Cf"):
        return 0
    if unicodedata.east_asian_width(ch) in ("W", "F"):
        return 2
    return 1
