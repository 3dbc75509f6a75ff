"""Hub events as Textual messages: how the shared followers' events reach a screen or a pane.

A widget that subscribes to the :class:`primetui.api.hub.FollowerHub` passes ``self.sink(handler)``
as its callback. The hub calls the sink from its poll loop; the sink only posts a
:class:`HubDelivery` to the widget. Textual then runs ``handler`` in the widget's own message
pump: in order with the widget's other messages, never after the widget is removed (a closed
widget drops what is posted to it), and an exception in ``handler`` goes where every other bug
in a handler goes, the app's crash guard (:mod:`primetui.ui.crashguard`: a report file, a
sentence, a non-zero exit), instead of leaving the view stale with nothing said.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from textual.message import Message


class HubDelivery(Message, bubble=False):
    """One hub event for the widget it was posted to (it does not bubble)."""

    def __init__(self, handler: Callable[[Any], Any], item: Any) -> None:
        super().__init__()
        self.handler = handler
        self.item = item


class WidgetSink:
    """The hub's callback for one handler of one widget: posts each event to the widget."""

    __slots__ = ("handler", "widget")

    def __init__(self, widget: Any, handler: Callable[[Any], Any]) -> None:
        self.widget = widget
        self.handler = handler

    def __call__(self, item: Any) -> None:
        self.widget.post_message(HubDelivery(self.handler, item))


class HubSinks:
    """Mixed into a widget or screen that subscribes to the hub."""

    def sink(self, handler: Callable[[Any], Any]) -> WidgetSink:
        """The callback to give the hub for ``handler`` (a method or a closure of this widget)."""
        return WidgetSink(self, handler)

    async def on_hub_delivery(self, message: HubDelivery) -> None:
        result = message.handler(message.item)
        if inspect.isawaitable(result):
            await result
