"""Where keys go: the widget that should take the keyboard when a tab is shown, and whether a
focused widget takes typed letters (so single-letter global bindings must stay quiet)."""

from __future__ import annotations

import sys

from textual.widget import Widget
from textual.widgets import Input


def types_text(widget: Widget | None) -> bool:
    """True when ``widget`` turns letters into text (an Input, or a TextArea you can edit)."""
    if isinstance(widget, Input):
        return True
    # No TextArea exists before its module is imported: the runs list does not pay for it.
    text_area = sys.modules.get("textual.widgets._text_area")
    return text_area is not None and isinstance(widget, text_area.TextArea) and not widget.read_only


def _shown(widget: Widget, root: Widget) -> bool:
    node: Widget | None = widget
    while node is not None and node is not root:
        if not node.display or node.styles.visibility == "hidden":
            return False
        node = node.parent if isinstance(node.parent, Widget) else None
    return True


def key_target(root: Widget) -> Widget | None:
    """The first focusable, displayed widget under ``root`` that is not a tab strip."""
    from textual.widgets import Tabs

    for widget in root.query("*"):
        if isinstance(widget, Tabs) or not widget.focusable:
            continue
        if _shown(widget, root):
            return widget
    return None


def focus_content(root: Widget) -> bool:
    """Give the keyboard to ``root``'s content (its log, table, chart); False when it has none."""
    target = key_target(root)
    if target is None:
        return False
    target.focus(scroll_visible=False)
    return True
