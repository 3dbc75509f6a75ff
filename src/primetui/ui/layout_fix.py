"""A widget laid out twice before it next idles keeps the size of its first content (a fix for Textual 8).

Textual counts a widget's layout requests in ``_layout_updates``, part of the key its box model is cached
under, but bumps the count only for the first request until the widget next idles. When a layout of the
screen runs in between (the first one after mount, or one a sibling asked for), it measures the old
content and caches that size under the count; the second request, not counted, then finds that entry
and the widget keeps its old height. The run screen's summary showed this on Python 3.12 and 3.13 in a
real terminal: "Loading run…" measured at one row, the run's ten rows then drawn in that one row.

:func:`install` counts every request (idempotent): a request after a layout gets a new key, and one
before it costs a measure that would have been made anyway.
"""

from __future__ import annotations

from typing import Any


def install() -> None:
    """Count every layout request of every widget (idempotent)."""
    from textual.widget import Widget

    if getattr(Widget, "_primetui_layout_fix", False):
        return
    Widget._primetui_layout_fix = True  # type: ignore[attr-defined]
    refresh = Widget.refresh

    def counted(self: Any, *regions: Any, repaint: bool = True, layout: bool = False, recompose: bool = False) -> Any:
        if layout and self._layout_required:
            self._layout_updates += 1  # Textual counts only the first request before the widget idles
        return refresh(self, *regions, repaint=repaint, layout=layout, recompose=recompose)

    Widget.refresh = counted  # type: ignore[method-assign]
