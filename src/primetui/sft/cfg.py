"""Read a parsed sft.toml the way prime-rl resolves it: written value, else the schema default."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from primetui.sft.diagnostics import Fix, Level
from primetui.sft.schema import resolve

_MISSING = object()


class Cfg:
    """A thin view over the TOML dict; ``get`` falls back to prime-rl defaults, ``"None"`` reads as None."""

    MISSING = _MISSING  # what ``written`` returns for a key the document does not set

    def __init__(self, raw: dict[str, Any]) -> None:
        self.raw = raw

    def written(self, dotted: str) -> Any:
        node: Any = self.raw
        for part in dotted.split("."):
            if not isinstance(node, dict) or part not in node:
                return _MISSING
            node = node[part]
        return node

    def is_set(self, dotted: str) -> bool:
        v = self.written(dotted)
        return v is not _MISSING and v != "None" and v is not None

    def has_table(self, dotted: str) -> bool:
        """An optional sub-config is on when written as a table (an empty table enables it)."""
        return isinstance(self.written(dotted), dict)

    def get(self, dotted: str, default: Any = None) -> Any:
        v = self.written(dotted)
        if v is _MISSING:
            spec, _cls = resolve(tuple(dotted.split(".")), self.raw)
            if spec is None:
                return default
            d = spec.default_value()
            return default if d is ... else d
        return None if v == "None" else v

    def num(self, dotted: str) -> int | float | None:
        """A numeric value, or None when absent or of the wrong type (a type error is reported elsewhere)."""
        v = self.get(dotted)
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            return None
        return v

    def str_(self, dotted: str) -> str | None:
        v = self.get(dotted)
        return v if isinstance(v, str) else None


@dataclass
class Finding:
    """A rule's verdict before it is placed in the text: ``path`` is where it points."""

    level: Level
    code: str
    message: str
    path: tuple[str | int, ...]
    source: str = "prime-rl"
    on_key: bool = False  # point at the key instead of the value
    fix: Fix | None = None
    fix_builder: Any = field(default=None, repr=False)  # callable(spans) -> Fix | None
    detail: str = ""  # the numbers behind the message, for people; the platform answers ``message`` alone
    loc: tuple[str | int, ...] | None = None  # where prime-rl reports it (pydantic's loc), when not ``path``
