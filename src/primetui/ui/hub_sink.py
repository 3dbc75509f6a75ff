"""Hub events through Textual's message pump: how the shared followers' events reach a screen or a pane.

A widget that subscribes to the :class:`primetui.api.hub.FollowerHub` passes ``self.sink(handler)``
as its callback. The hub calls the sink from its poll loop; the sink only posts the delivery to the
app's message pump (``app.call_later``). Textual then runs ``handler`` there: in order with the
other deliveries, dropped once the widget is no longer attached (a closed widget gets nothing
more), and an exception in ``handler`` goes where every other bug in a handler goes, the app's
crash guard (:mod:`primetui.ui.crashguard`: a report file, a sentence, a non-zero exit), instead
of leaving the view stale with nothing said.

Why the app's pump and not the widget's own: a message handled by a screen gives that screen an
Idle event, and Textual (8.2) answers the Idle of a screen under the top one (one of the app's
"background screens") that has anything to redraw with a full repaint of the top screen, and marks
itself for another one on its next Idle. A covered runs list receiving its poll results so wrote
the whole screen on every poll (10.7 KB per 0.5 s over the run screen; tests/e2e/test_idle_repaint.py).
The app's own Idle redraws nothing.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any


class WidgetSink:
    """The hub's callback for one handler of one widget: posts each event to the app's pump."""

    __slots__ = ("handler", "widget")

    def __init__(self, widget: Any, handler: Callable[[Any], Any]) -> None:
        self.widget = widget
        self.handler = handler

    def __call__(self, item: Any) -> None:
        self.widget.app.call_later(self._deliver, item)

    async def _deliver(self, item: Any) -> None:
        if not self.widget.is_attached:  # closed: what was posted to it is dropped
            return
        result = self.handler(item)
        if inspect.isawaitable(result):
            await result


class HubSinks:
    """Mixed into a widget or screen that subscribes to the hub."""

    def sink(self, handler: Callable[[Any], Any]) -> WidgetSink:
        """The callback to give the hub for ``handler`` (a method or a closure of this widget)."""
        return WidgetSink(self, handler)
