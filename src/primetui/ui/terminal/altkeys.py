"""Keep Alt on keys meant for the shell pane.

A terminal sends Alt+key as ESC followed by the key (xterm's metaSendsEscape, tmux, most SSH
clients). Textual's input parser loses that on the way: ``ESC .`` arrives as a plain ``.``,
``ESC 1`` as ``¡``, ``ESC b`` / ``ESC f`` as ctrl+left / ctrl+right, ``ESC /``, ``ESC ,``, ``ESC _``
and ``ESC Enter`` without their Alt. The dashboard keeps Textual's names (so word moves in its
inputs behave as before), but each such key event also carries the bytes the terminal sent, in
``TERMINAL_BYTES``; the pane forwards those, as xterm would.

``install()`` makes Textual's Linux drivers build this parser; it must run before the app starts.
"""

from __future__ import annotations

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


class AltKeepingParser(XTermParser):
    """Textual's parser, with the terminal's own bytes on every Alt (ESC-prefixed) key."""

    def _sequence_to_key_events(self, sequence: str, alt: bool = False) -> Iterable[events.Key]:
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
