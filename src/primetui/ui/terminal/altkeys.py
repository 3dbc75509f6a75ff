"""Keep Alt on keys meant for the shell pane.

A terminal sends Alt+key as ESC followed by the key (xterm's metaSendsEscape, tmux, most SSH
clients). Textual's input parser loses that on the way: ``ESC .`` arrives as a plain ``.``,
``ESC 1`` as ``¡``, ``ESC b`` / ``ESC f`` as ctrl+left / ctrl+right, ``ESC /``, ``ESC ,``, ``ESC _``
and ``ESC Enter`` without their Alt. The dashboard keeps Textual's names (so word moves in its
inputs behave as before), but each such key event also carries the bytes the terminal sent, in
``TERMINAL_BYTES``; the pane forwards those, as xterm would.

It also resolves ``ESC`` + a lowercase letter or digit as Alt+key at once. Textual (8.2.8) holds
``ESC r`` as the start of a possible escape sequence until ``ESCDELAY`` (0.1 s) passes; when another
``ESC`` arrives first, it gives up and reissues the held bytes with the ESC turned into ``^``
(``reissue_sequence_as_keys`` in ``textual/_xterm_parser.py``, from upstream PR #570). Another ESC
comes often: a second Alt key in the same burst, a mouse report, and the terminal's answer to the
app's own ``CSI 6n`` (``ui/output_gate.py`` asks after frames), so the find bar's alt+r / alt+c
from a real terminal typed ``^r`` / ``^c`` into its field. No terminal reply or key starts with
``ESC`` + a lowercase letter or digit (replies start ``ESC [``, ``ESC ]``, ``ESC P``, ``ESC _``;
keys ``ESC O``), so nothing is lost by not waiting. No upstream issue covers it yet (related:
Textual #6663, Alt dropped on named keys); drop ``_alt_pair`` once Textual resolves ``ESC x`` itself.

``install()`` makes Textual's Linux drivers build this parser; it must run before the app starts.
"""

from __future__ import annotations

import string
from collections.abc import Iterable

from textual import events
from textual._ansi_sequences import ANSI_SEQUENCES_KEYS
from textual._xterm_parser import XTermParser

ESC = "\x1b"
TERMINAL_BYTES = "primetui_terminal_bytes"  # attribute set on a Key event: the ESC-prefixed bytes


def _esc_pair(sequence: str) -> bool:
    """``ESC x`` that Textual's table turns into another key (``ESC b`` -> ctrl+left, ``ESC 1`` -> ¡)."""
    return (
        len(sequence) == 2 and sequence[0] == ESC and sequence[1] not in (ESC, "\t") and sequence in ANSI_SEQUENCES_KEYS
    )


_ALT_NOW = frozenset(string.ascii_lowercase + string.digits)


def _alt_pair(sequence: str) -> bool:
    """``ESC x`` with x a lowercase letter or digit: Alt+x, whatever follows (see the module docstring)."""
    return len(sequence) == 2 and sequence[0] == ESC and sequence[1] in _ALT_NOW


class AltKeepingParser(XTermParser):
    """Textual's parser, with the terminal's own bytes on every Alt (ESC-prefixed) key."""

    def _sequence_to_key_events(self, sequence: str, alt: bool = False) -> Iterable[events.Key]:
        if _alt_pair(sequence) and sequence not in ANSI_SEQUENCES_KEYS:
            yield from self._sequence_to_key_events(sequence[1], alt=True)
            return
        raw: str | None = None
        if alt and len(sequence) == 1:
            raw = ESC + sequence
        elif _esc_pair(sequence):
            raw = sequence
        for event in super()._sequence_to_key_events(sequence, alt):
            if raw is not None:
                setattr(event, TERMINAL_BYTES, raw.encode("utf-8", "replace"))
            yield event


def terminal_bytes(event: events.Key) -> bytes | None:
    """What the terminal sent for an Alt key, when the parser recorded it."""
    return getattr(event, TERMINAL_BYTES, None)


def install() -> None:
    """Use ``AltKeepingParser`` in Textual's Linux drivers (idempotent)."""
    from textual.drivers import linux_driver

    linux_driver.XTermParser = AltKeepingParser  # type: ignore[misc]
    try:
        from textual.drivers import linux_inline_driver
    except ImportError:  # pragma: no cover - older Textual
        return
    linux_inline_driver.XTermParser = AltKeepingParser  # type: ignore[misc]
