"""Two fixes for Textual 8, installed once before the first app starts (:func:`install`).

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
"""

from __future__ import annotations

from functools import partial
from types import FunctionType, MethodType
from typing import Any


def install() -> None:
    """Install both fixes (idempotent)."""
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
