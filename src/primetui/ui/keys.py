"""Key bindings as data: collect every binding with an id, apply the user keymap, print docs.

This module is data and lookups only: it imports no screen. ``python -m primetui.ui.keys_doc``
(which sits above the app and every screen) prints docs/keys.md from the same tables the app uses,
so the manual cannot drift from the code.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from textual.binding import Binding

KEY_NAMES = {
    "question_mark": "?",
    "slash": "/",
    "plus": "+",
    "left_square_bracket": "[",
    "right_square_bracket": "]",
    "escape": "esc",
}


@dataclass(frozen=True)
class KeyInfo:
    area: str
    id: str
    keys: str
    description: str


def pretty_keys(keys: str) -> str:
    return ", ".join(KEY_NAMES.get(k.strip(), k.strip()) for k in keys.split(","))


def binding_table(owners: Iterable[tuple[str, type]], keymap: dict[str, str] | None = None) -> list[KeyInfo]:
    """Every binding with an id, per area, with the user's keymap overrides applied."""
    keymap = keymap or {}
    out: list[KeyInfo] = []
    for area, owner in owners:
        for b in owner.__dict__.get("BINDINGS", []) if area != "Everywhere" else getattr(owner, "BINDINGS", []):
            if not isinstance(b, Binding) or not b.id:
                continue
            out.append(KeyInfo(area, b.id, pretty_keys(keymap.get(b.id, b.key)), b.description or b.action))
    return out
