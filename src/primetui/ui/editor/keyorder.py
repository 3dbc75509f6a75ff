"""Keys are applied in the order they were typed, also when they arrive in one burst.

Carried fix for Textual issue #6605 (upstream PR #6631, open; Textual 8.2.8 still has the bug):
TextArea and Input type printable keys in their own ``_on_key``, but a bound key (End, Backspace,
ctrl+g) only runs once the event has bubbled up to the App. Keys that arrive in one read (a fast
typist over SSH, a paste of keys, a macro) are all queued at the widget first, so ``End BSpace 4``
typed ``4`` before End and Backspace ran. The widgets here run the bindings the App would run for
the key (the same chain, from the focused widget up) inline, before the next key is handled.

Two more cases the upstream fix does not cover, because our keys reach a widget that no longer
owns them:
- a key queued behind one that moved the focus (ctrl+g opens a dialog, ctrl+f focuses the find
  field) is handed on to where the focus is now, so ``ctrl+g 2 0 enter`` goes to line 20;
- a key with a modifier and a character (``alt+r`` from a terminal is ``alt+r`` with ``r``) runs
  its binding when there is one instead of typing its character;
- a key that reaches the editor screen itself (nothing has focus yet, as right after it opens) runs
  its binding there, inline, and a key queued behind one that pushed a dialog goes to the dialog
  (:func:`screen_key`): else ``ctrl+g 4 enter`` in one read lost ``4`` and enter, which the screen
  let bubble to the App behind ctrl+g, whose binding only then opened the dialog.

Drop this module's inline run when Textual ships #6631; the hand-on stays (it is ours).
"""

from __future__ import annotations

from textual import events
from textual.widget import Widget
from textual.widgets import Input


def _has_modifier(key: str) -> bool:
    return any(key.startswith(mod) for mod in ("alt+", "ctrl+", "super+", "meta+", "hyper+"))


def hand_on(widget: Widget, event: events.Key) -> bool:
    """Give a key queued at ``widget`` to where the focus is now, when an earlier key moved it."""
    app = widget.app
    if app.focused is widget or not widget.is_attached:
        return False
    target = app.focused or app.screen
    if target is widget:
        return False
    event.stop()
    event.prevent_default()
    target.post_message(events.Key(event.key, event.character))
    return True


async def run_bindings_first(widget: Widget, event: events.Key, typed: bool) -> bool:
    """Run the non-priority bindings the App would run for this key, now; True when one ran.

    ``typed``: the widget would type this key itself (a printable key without a modifier, or a key
    it inserts such as enter): those stay the widget's, as in Textual.
    """
    if typed and not _has_modifier(event.key):
        return False
    if not await widget.app._check_bindings(event.key):
        return False
    event.stop()
    event.prevent_default()
    return True


async def screen_key(screen: Widget, event: events.Key) -> bool:
    """For a key that reached ``screen`` (a Screen) itself: hand it to a dialog an earlier key pushed
    above it, else run the key's binding now; True when the key was used."""
    app = screen.app
    if app.screen is not screen and screen.is_attached:
        event.stop()
        event.prevent_default()
        (app.focused or app.screen).post_message(events.Key(event.key, event.character))
        return True
    return await run_bindings_first(screen, event, typed=False)


class OrderedInput(Input):
    """An Input whose bound keys run in typing order and whose alt+letter bindings run (keyorder.py)."""

    async def _on_key(self, event: events.Key) -> None:
        if hand_on(self, event):
            return
        if await run_bindings_first(self, event, event.is_printable):
            return
        await super()._on_key(event)
