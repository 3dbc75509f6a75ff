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
  let bubble to the App behind ctrl+g, whose binding only then opened the dialog;
- and symmetrically, a key queued behind the enter that closes a dialog goes to the screen below
  (:class:`AnswersEnterNow`): ``ctrl+g 1 enter end backspace 4`` edits line 1 as if typed slowly;
- every key for such a dialog goes to the dialog itself, never straight to its field, both a key
  handed on (:func:`_target`) and a key from the terminal (:func:`route_to_dialog`, called by the
  App): the dialog feeds them to its field from one queue, in order. Else, as the terminal's keys
  reach the App one by one, ``4`` went to the dialog while its field had no focus yet and
  ``enter`` to the field a moment later, which answered first ("`` is not a line number", seen in
  full CI runs, never under Pilot, whose keys are all queued at once).

Drop this module's inline run when Textual ships #6631; the hand-on stays (it is ours).
"""

from __future__ import annotations

from textual import events
from textual.app import App
from textual.widget import Widget
from textual.widgets import Input


def _has_modifier(key: str) -> bool:
    return any(key.startswith(mod) for mod in ("alt+", "ctrl+", "super+", "meta+", "hyper+"))


def hand_on(widget: Widget, event: events.Key) -> bool:
    """Give a key queued at ``widget`` to where the focus is now, when an earlier key moved it."""
    app = widget.app
    if app.focused is widget or not widget.is_attached:
        return False
    target = _target(widget)
    if target is widget:
        return False
    _deliver(widget, target, event)
    return True


def _target(widget: Widget) -> Widget:
    """Where a key handed on from ``widget`` goes: a dialog that answers typed-ahead keys, else the focus."""
    app = widget.app
    if isinstance(app.screen, AnswersEnterNow):
        return app.screen  # one queue for the burst: the dialog feeds its field in order (TypeAhead)
    return app.focused or app.screen


def _deliver(source: Widget, target: Widget, event: events.Key) -> None:
    """Post a copy of ``event`` to ``target``; from a closed dialog, after the callbacks queued at ``target``.

    A dialog's result reaches the screen below through ``call_next`` on the widget that opened it
    (Textual's ``ResultCallback``): a key posted straight away ran before it (``end`` moved the cursor
    on the old line before go-to-line had moved it). Queued with ``call_next`` too, keys keep both
    their order and their place behind the result.
    """
    event.stop()
    event.prevent_default()
    key = events.Key(event.key, event.character)
    if source.screen in source.app.screen_stack:
        target.post_message(key)
    else:  # the dialog was closed by an earlier key of the burst
        target.call_next(target.post_message, key)


class KeysToDialogs(App[object]):
    """App mixin: a key from the terminal goes to a dialog that answers typed-ahead keys (:func:`route_to_dialog`)."""

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key) and await route_to_dialog(self, event):
            return
        await super().on_event(event)


async def route_to_dialog(app: App[object], event: events.Key) -> bool:
    """For the App, a key from the terminal: to a dialog that answers typed-ahead keys, whole; True when sent.

    What Textual's ``App.on_event`` does for a key, with the dialog as the target instead of its
    focused field (priority bindings first, as there).
    """
    if event.is_forwarded or not isinstance(app.screen, AnswersEnterNow):
        return False
    app.app_focus = True
    if not await app._check_bindings(event.key, priority=True):
        app.screen._forward_event(event)
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


def hand_on_from_screen(screen: Widget, event: events.Key) -> bool:
    """A key that reached ``screen`` (a Screen) while another screen is on top goes to that one: to a
    dialog an earlier key pushed above the editor, or, from a dialog an earlier key closed, to the
    screen below it. True when the key was handed on."""
    app = screen.app
    if app.screen is screen or not screen.is_attached:
        return False
    _deliver(screen, _target(screen), event)
    return True


async def screen_key(screen: Widget, event: events.Key) -> bool:
    """For a key that reached ``screen`` (a Screen) itself: hand it to a dialog an earlier key pushed
    above it, else run the key's binding now; True when the key was used."""
    return hand_on_from_screen(screen, event) or await run_bindings_first(screen, event, typed=False)


class AnswersEnterNow:
    """Mixin for a dialog that answers its field's enter before the next key is handled.

    Input posts ``Submitted`` on enter and the dialog answers it (and closes) only once that message
    has made its way up, after the keys queued behind enter: ``ctrl+g 1 enter end backspace 4`` in
    one read had ``end backspace 4`` land in the closing dialog's field and be lost. An
    :class:`OrderedInput` in such a dialog calls :meth:`answer_enter` inline instead, so a key behind
    enter finds the dialog closed and is handed on (:func:`hand_on`, :func:`hand_on_from_screen`) to
    the screen below, in order. Ours, beyond Textual #6605 / PR #6631 (which only runs bindings inline).
    """

    def answer_enter(self, event: Input.Submitted) -> None:
        raise NotImplementedError


class OrderedInput(Input):
    """An Input whose bound keys run in typing order and whose alt+letter bindings run (keyorder.py)."""

    async def _on_key(self, event: events.Key) -> None:
        if hand_on(self, event):
            return
        await self.take_key(event)

    async def take_key(self, event: events.Key) -> None:
        """Handle ``event`` now, as this field handles a key typed into it (its dialog feeds it keys)."""
        if await run_bindings_first(self, event, event.is_printable):
            return
        await super()._on_key(event)

    async def action_submit(self) -> None:
        screen = self.screen
        if not isinstance(screen, AnswersEnterNow):
            await super().action_submit()
            return
        validation = self.validate(self.value) if "submitted" in self.validate_on else None
        screen.answer_enter(self.Submitted(self, self.value, validation))  # now, before the next key
