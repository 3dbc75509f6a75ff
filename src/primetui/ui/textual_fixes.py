"""Three fixes for Textual 8, installed once before the first app starts (:func:`install`).

**A widget laid out twice before it next idles keeps the size of its first content.** Textual counts a
widget's layout requests in ``_layout_updates``, part of the key its box model is cached under, but
bumps the count only for the first request until the widget next idles. When a layout of the screen
runs in between (the first one after mount, or one a sibling asked for), it measures the old content
and caches that size under the count; the second request, not counted, then finds that entry and the
widget keeps its old height. The run screen's summary showed this on Python 3.12 and 3.13 in a real
terminal: "Loading run…" measured at one row, the run's ten rows then drawn in that one row. Every
request is now counted: a request after a layout gets a new key, and one before it costs a measure
that would have been made anyway.

**Every ``call_later`` read its callback's signature.** ``call_later(f, *args)`` posts
``partial(f, *args)``, and Textual counts a callable's parameters once per object, caching the count
on it: a partial is new each time, so each call ran ``inspect.signature`` on ``f`` again.
A screen's every widget gets such calls (Pilot's and the app's own waits for queues to drain); a
profile of the ui tests found 1.2 % of its samples there. A partial's count is now its function's cached
count less what the partial binds.

**Every stylesheet parsed all of its CSS again.** A stylesheet caches the rules it parsed from each
source, but the cache is its own: the app's stylesheet starts empty, and each new screen's CSS and
each theme change (``reparse``) builds a fresh stylesheet that parses every source again, the default
CSS of every widget class included: a dashboard started on a run parsed 68 times for 33 distinct
sources. The rules parsed from a source depend only on its text, where it came from, its place
among the sources and the CSS variables (the theme), and no one changes a parsed rule, so one cache
per process now serves every stylesheet: a screen's CSS or a theme seen before is not parsed again.
"""

from __future__ import annotations

from functools import partial
from types import FunctionType, MethodType
from typing import Any

from textual.cache import LRUCache
from textual.css.stylesheet import Stylesheet

PARSED_SOURCES = 1024
"""How many parsed sources the process keeps (a source per widget class with CSS, per theme in use)."""

textual_parse = Stylesheet._parse_rules
"""Textual's own parse of one source, with its stylesheet's own cache only."""
_parsed: LRUCache[tuple, list] = LRUCache(PARSED_SOURCES)
_themes: dict[tuple, int] = {}  # each set of variables seen, numbered: a key hashes a number, not 150 pairs


def install() -> None:
    """Install the three fixes (idempotent)."""
    import textual._callback as callback
    import textual.reactive as reactive
    from textual.widget import Widget

    if getattr(Widget, "_primetui_textual_fixes", False):
        return
    Widget._primetui_textual_fixes = True  # type: ignore[attr-defined]
    refresh = Widget.refresh

    def counted(self: Any, *regions: Any, repaint: bool = True, layout: bool = False, recompose: bool = False) -> Any:
        if layout and self._layout_required:
            self._layout_updates += 1  # Textual counts only the first request before the widget idles
        return refresh(self, *regions, repaint=repaint, layout=layout, recompose=recompose)

    Widget.refresh = counted  # type: ignore[method-assign]

    count = callback.count_parameters

    def count_parameters(func: Any) -> int:
        # A partial is new at each call_later: count its function once, on the function. A builtin (a list's
        # append, a future's set_result) keeps no count: Textual's own way reads its signature as before.
        if isinstance(func, partial) and isinstance(func.func, FunctionType | MethodType | partial):
            return count_parameters(func.func) - (len(func.args) + len(func.keywords))
        return count(func)

    callback.count_parameters = count_parameters
    reactive.count_parameters = count_parameters  # type: ignore[attr-defined]

    share_parsed_css()


def share_parsed_css() -> None:
    """The third fix alone (idempotent): the test suite's own apps take it too, once Textual is loaded."""
    Stylesheet._parse_rules = _shared_parse  # type: ignore[method-assign]


def parsed_css_shared() -> bool:
    """Whether this process's stylesheets share parsed rules (:func:`share_parsed_css` ran)."""
    return Stylesheet._parse_rules is _shared_parse


def _theme_key(sheet: Any) -> int:
    # The variables are replaced, never changed in place (Textual's own token cache relies on that too).
    variables = sheet._variables
    kept = sheet.__dict__.get("_primetui_theme_key")
    if kept is None or kept[0] is not variables:
        kept = (variables, _themes.setdefault(tuple(variables.items()), len(_themes)))
        sheet.__dict__["_primetui_theme_key"] = kept
    return kept[1]


def _shared_parse(
    self: Any, css: str, read_from: Any, is_default_rules: bool = False, tie_breaker: int = 0, scope: str = ""
) -> list:
    key = (css, read_from, is_default_rules, tie_breaker, scope, _theme_key(self))
    rules = _parsed.get(key)
    if rules is None:  # a source that fails to parse raises and is not kept, as in Textual's own cache
        rules = textual_parse(self, css, read_from, is_default_rules, tie_breaker, scope)
        _parsed[key] = rules
    return rules
