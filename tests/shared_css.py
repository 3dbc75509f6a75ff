"""One parse of each stylesheet source per test worker, not one per Pilot app (``PRIMETUI_SHARED_CSS=0`` turns it off).

Textual parses the CSS of every widget class and of the app again for each ``App`` it starts: its cache of
parsed rules belongs to the app's stylesheet (``Stylesheet._parse_cache``, 64 entries), so the hundreds of
apps one test worker starts parse the same sources hundreds of times, about a tenth of a Pilot test's CPU.
This keeps the rules parsed from one source under the same theme variables for the worker's later apps:
the key is Textual's own (the CSS text, where it was read from, default or not, tie breaker, scope) plus the
variables it was parsed with. Textual already hands the same parsed rules to every later parse of a source
within one app (its own cache), so they are not changed after parsing; the SVG snapshots, compared cell by
cell, and ``tests/test_shared_css.py`` show the rules are the ones a fresh parse gives.
"""

from __future__ import annotations

import os
from typing import Any

from textual.css.stylesheet import Stylesheet

textual_parse = Stylesheet._parse_rules
"""Textual's own parse of one source (with its own stylesheet's cache only)."""
_parsed: dict[tuple[Any, ...], Any] = {}


def shared_parse(
    self: Stylesheet,
    css: str,
    read_from: tuple[str, str],
    is_default_rules: bool = False,
    tie_breaker: int = 0,
    scope: str = "",
) -> Any:
    key = (css, read_from, is_default_rules, tie_breaker, scope, tuple(sorted(self._variables.items())))
    try:
        return _parsed[key]
    except KeyError:
        pass
    rules = textual_parse(self, css, read_from, is_default_rules, tie_breaker, scope)
    _parsed[key] = rules
    return rules


def install() -> None:
    """Share parsed rules between this process's apps, unless ``PRIMETUI_SHARED_CSS=0``."""
    if os.environ.get("PRIMETUI_SHARED_CSS") != "0" and not installed():
        Stylesheet._parse_rules = shared_parse  # type: ignore[method-assign]


def installed() -> bool:
    """Whether this process's stylesheets share parsed rules."""
    return Stylesheet._parse_rules is shared_parse
