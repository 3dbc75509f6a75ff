"""Small shared widgets: the status bar (header) and the modal dialogs."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, cast

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.reactive import var
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Footer, Input, Label, Static

from primetui.ui.safe import clean, plain
from primetui.ui.styles import tcss

if TYPE_CHECKING:
    from textual.visual import VisualType
    from textual.widget import Widget

TONE_CLASS = {
    "success": "tone-success",
    "error": "tone-error",
    "warning": "tone-warning",
    "accent": "tone-accent",
    "muted": "tone-muted",
    "plain": "tone-plain",
}


def rich_colour(value: str) -> str:
    """A theme variable's colour as rich understands it (``ansi_bright_cyan`` → ``bright_cyan``)."""
    from rich.color import Color, ColorParseError

    value = value.strip()
    for candidate in (value, value.removeprefix("ansi_")):
        try:
            Color.parse(candidate)
        except ColorParseError:
            continue
        return candidate
    return ""


THEME_TONES = ("success", "error", "warning", "accent")  # the tones the theme gives a colour (its variables)


def tone_colour(widget, tone: str) -> str | None:
    """The running app's theme colour of a tone, as rich understands it (None: no colour to give)."""
    variables = widget.app.theme_variables if widget.is_attached else {}
    if tone in THEME_TONES and tone in variables:
        return rich_colour(variables[tone])
    return None


def tone_style(widget, tone: str) -> str:
    """A rich style string for a tone, taken from the running app's theme variables."""
    colour = tone_colour(widget, tone)
    if colour is not None:
        return f"bold {colour}" if colour else "bold"
    if tone == "muted":
        return "dim"
    return ""


def seen(screen) -> bool:  # type: ignore[no-untyped-def]
    """Whether ``screen`` can be seen: on top, or under screens that are all see-through (dialogs).

    Textual repaints the screen just under the top one whenever that screen changes, even when
    the top one hides it completely: a hidden screen that draws costs a repaint of the whole
    terminal for nothing.
    """
    stack = screen.app.screen_stack
    if screen not in stack:
        return False
    return all(above.styles.background.a < 1 for above in stack[stack.index(screen) + 1 :])


def displayed(widget) -> bool:  # type: ignore[no-untyped-def]
    """Whether ``widget`` is on screen: attached, it and every container above it displayed (a
    TabPane not shown is ``display: none``), on a screen that can be seen (``seen``).

    A widget that is not shown need not draw: Textual lays the screen out again for a hidden
    widget whose virtual size changes, and it still renders what a hidden widget refreshes the
    next time it is shown anyway. Work skipped while hidden is caught up when the widget is shown
    (its ``Show`` event).
    """
    if not widget.is_attached:
        return False
    node = widget
    while node is not None and not isinstance(node, Screen):
        if not node.display:
            return False
        node = node.parent
    return node is not None and seen(node)


def content_key(content: object, widget: Static | None = None) -> object:
    """What a Static's content looks like, comparable: a Text's words, base style and spans, or the value itself.

    Any other rich renderable (a table, a group) is compared by the segments it renders to at
    ``widget``'s width; without a widget it never compares equal.
    """
    if isinstance(content, Text):
        return ("text", content.plain, str(content.style), tuple(content.spans), content.justify, content.no_wrap)
    if isinstance(content, str):
        return content
    from textual.content import Content

    if isinstance(content, Content):  # its == compares the words only
        return ("content", content.plain, tuple(content.spans))
    if widget is not None and widget.is_attached and hasattr(content, "__rich_console__"):
        console = widget.app.console
        width = widget.content_size.width or widget.app.size.width
        return ("segments", width, tuple(console.render(content, console.options.update_width(max(1, width)))))
    return object()


def update_static(widget: Static, content: object, *, layout: bool = True) -> None:
    """``widget.update(content)`` unless it already shows exactly that: Static repaints (and re-lays out) on every
    update.

    ``layout=False`` for a widget whose size never depends on its content (a one-line status):
    a layout pass reflows the whole screen.
    """
    key = content_key(content, widget)
    if getattr(widget, "_primetui_shown", None) == key:
        return
    widget._primetui_shown = key  # type: ignore[attr-defined]
    widget.update(cast("VisualType", content), layout=layout)


class StatusBar(Static):
    """One line at the top: app, screen, platform, team and connection state (staleness).

    It paints itself from what it watches: the app's ``health``, ``platform_label`` and
    ``team_label`` reactives, its screen's ``title`` and the theme. Nothing calls it: a screen
    that reports a poll's outcome, retitles itself or switches account is shown at once, and a
    value set again unchanged repaints nothing.
    """

    DEFAULT_CSS = """
    StatusBar { dock: top; height: 1; background: $panel; color: $foreground; padding: 0 1; }
    """

    WATCHED = ("health", "platform_label", "team_label", "slow_link")
    """The app's reactives the header shows (an app without them shows what it has)."""

    _shown: tuple[str, ...] | None = None
    _behind = False

    def on_mount(self) -> None:
        app = self.app
        for name in self.WATCHED:
            if name in app._reactives:
                self.watch(app, name, self.paint, init=False)
        self.watch(self.screen, "title", self.paint, init=False)
        app.theme_changed_signal.subscribe(self, lambda _theme: self.paint(), immediate=True)
        self.paint()

    def on_unmount(self) -> None:
        # Textual keeps a signal's subscribers in a WeakKeyDictionary whose value (the callback
        # above) refers to the bar: a closed screen's bar stayed alive until the theme changed.
        self.app.theme_changed_signal.unsubscribe(self)

    def on_click(self) -> None:
        """A click on the header opens the account switcher (whose runs and volumes to show)."""
        action = getattr(self.app, "action_switch_team", None)
        if callable(action):
            action()

    def catch_up(self) -> None:
        """Paint what changed while the screen was covered (its screen calls this as it comes back)."""
        if self._behind:
            self.paint()

    def paint(self) -> None:
        app = self.app
        if self.is_attached and not seen(self.screen):
            self._behind = True  # a covered screen's header is not drawn: caught up when it is seen again
            return
        self._behind = False
        health = getattr(app, "health", None)
        if health is None:
            self.update("primetui")
            return
        tone, conn = health
        # Connection state comes first: at 80 columns it must never be the part that is cut off.
        accent, tone_s = tone_style(self, "accent"), tone_style(self, tone)
        title, platform = clean(self.screen.title or ""), clean(getattr(app, "platform_label", "platform"))
        team = getattr(app, "team_label", "")
        slow = getattr(app, "slow_link", "")
        shown = (accent, tone_s, conn, title, platform, team, slow)
        if shown == self._shown:  # an input that changed without changing the line (the same accent) is not redrawn
            return
        self._shown = shown
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(" primetui ", style=f"bold reverse {accent}")
        text.append(" ")
        text.append(conn, style=tone_s)
        if slow:  # frames are being merged: what is on screen is the latest, drawn less often
            text.append(" " + slow, style=tone_style(self, "warning"))
        text.append(" │ ", style="dim")
        text.append(title, style="bold")
        text.append(" │ ", style="dim")
        text.append(platform)
        if team:
            text.append(" │ ", style="dim")
            text.append(clean(f"team {team}"))
        self.update(text, layout=False)  # one line, docked: its size never follows its text


ESSENTIAL_FOOTER_ACTIONS = frozenset({"help", "letter_quit", "quit"})
"""Footer keys a newcomer needs at any width: how to get help and how to leave."""


def _keys_born_with(widgets: Iterable[Widget], compact: bool) -> Iterator[Widget]:
    """Each footer key already set to the footer's ``compact``.

    A FooterKey is made compact and then bound to its footer: mounting it ran its watcher twice, each
    adding or removing the ``-compact`` class and so styling it again (about 1.5 ms a key on every
    footer rebuild). Born with the footer's value, the watcher finds nothing to change."""
    from textual.widgets._footer import FooterKey

    for widget in widgets:  # every key is yielded, those of a key group too
        # Only the keys bound to the footer's value: the palette key keeps its own (compact).
        if isinstance(widget, FooterKey) and "compact" in (getattr(widget, "_reactive_connect", None) or {}):
            widget.set_reactive(FooterKey.compact, compact)  # its watcher, run as it mounts, sets the class
        yield widget


class SteadyFooter(Footer):
    """Textual's footer that rebuilds its keys only when the keys it shows change.

    The footer recomposes (a dozen key widgets, each styled) whenever the screen's bindings are
    updated: mounting, focus moving to the table, the app gaining focus, a dialog closing over the
    screen, the editor's find bar opening (twice). Mostly for the same keys; the first frame pays for
    one, and then only a change of what is shown does.
    """

    _shown: object = None

    def _keys_shown(self) -> object:
        if not self._bindings_ready:
            return None
        app = self.app
        active = self.screen.active_bindings

        def shown(binding: Binding, enabled: bool, tooltip: str) -> tuple[object, ...]:
            group = (id(binding.group), binding.group.description, binding.group.compact) if binding.group else None
            return (
                binding.key,
                app.get_key_display(binding),
                binding.description,
                binding.action,
                enabled,
                tooltip,
                binding.tooltip,
                group,
            )

        keys = tuple(shown(b, enabled, tooltip) for (_, b, enabled, tooltip) in active.values() if b.show)
        palette = active.get(app.COMMAND_PALETTE_BINDING)
        return keys, palette and shown(*palette[1:]), self.show_command_palette, app.ENABLE_COMMAND_PALETTE

    def compose(self) -> ComposeResult:
        self._shown = self._keys_shown()
        yield from _keys_born_with(super().compose(), self.compact)

    def bindings_changed(self, screen) -> None:  # type: ignore[no-untyped-def]
        self._bindings_ready = True
        if not screen.app.app_focus:
            return
        if self.is_attached and screen is self.screen:
            self.call_after_refresh(self._recompose_if_changed)

    async def _recompose_if_changed(self) -> None:
        if self.is_attached and self._keys_shown() != self._shown:
            await self.recompose()


class DashboardFooter(SteadyFooter):
    """The dashboard screens' footer: a :class:`SteadyFooter` whose keys fit its width (see ``_fit_keys``)."""

    def compose(self) -> ComposeResult:
        yield from super().compose()
        self.call_after_refresh(self._fit_keys)

    def on_resize(self) -> None:
        self._fit_keys()

    def _fit_keys(self) -> None:
        """Show Help and Quit at any width; the other keys fit in what is left, in order, and the
        first that does not fit hides the rest (the palette key goes before Help and Quit do)."""
        from textual.widgets._footer import FooterKey

        room = self.size.width
        if not room or not self.is_attached:
            return
        keys = list(self.query(FooterKey))
        palette = [k for k in keys if k.has_class("-command-palette")]
        essential = [k for k in keys if k.action in ESSENTIAL_FOOTER_ACTIONS and k not in palette]
        optional = [k for k in keys if k not in essential and k not in palette]

        def width(key: FooterKey) -> int:
            return key.get_content_width(self.size, self.app.size) + key.styles.gutter.width + key.styles.margin.width

        used = sum(width(k) for k in essential)
        for key in palette:
            key.display = used + width(key) <= room
            room -= width(key) if key.display else 0
        fits = True
        for key in optional:
            fits = fits and used + width(key) <= room
            key.display = fits
            used += width(key) if fits else 0


class ConfirmScreen(ModalScreen[bool]):
    """Ask before a destructive action; the text says exactly what will be lost."""

    BINDINGS = [
        Binding("y", "answer(True)", "Yes", id="confirm.yes"),
        Binding("n,escape", "answer(False)", "No", id="confirm.no"),
    ]
    CSS_PATH = tcss("dialogs.tcss")

    def __init__(self, title: str, body: str, confirm_label: str = "Delete") -> None:
        super().__init__()
        self.title_text = title
        self.body = body
        self.confirm_label = confirm_label

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(plain(self.title_text), id="confirm-title")
            yield Static(plain(self.body), id="confirm-body")
            with Horizontal():
                yield Button("Cancel (n)", id="no")
                yield Button(f"{self.confirm_label} (y)", id="yes", variant="error")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, value: bool) -> None:
        self.dismiss(value)


class FormScreen(ModalScreen[dict[str, str] | None]):
    """A small form: labelled inputs checked by ``validate`` before it returns its values.

    ``validate(values)`` returns None or a one-sentence problem shown inline; nothing the user
    typed is lost when a check fails.
    """

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="form.cancel")]
    CSS_PATH = tcss("dialogs.tcss")

    problem: var[str] = var("", init=False)
    """Why the values were refused (one sentence, under the fields); empty while none was."""

    def __init__(
        self,
        title: str,
        fields: list[tuple[str, str, str]],
        validate: Callable[[dict[str, str]], str | None],
        submit_label: str = "OK",
        help_text: str = "",
        password: set[str] | None = None,
    ) -> None:
        super().__init__()
        self.form_title = title
        self.fields = fields  # (key, label, initial value)
        self.validate = validate
        self.submit_label = submit_label
        self.help_text = help_text
        self.password = password or set()

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(plain(self.form_title), classes="form-title")
            for key, label, value in self.fields:
                yield Label(plain(label))
                yield Input(value=value, id=f"field-{key}", password=key in self.password)
            if self.help_text:
                yield Static(plain(self.help_text), classes="form-help")
            yield Static("", id="form-error")
            with Horizontal():
                yield Button("Cancel (esc)", id="cancel")
                yield Button(self.submit_label, id="submit", variant="primary")

    def watch_problem(self, problem: str) -> None:
        self.query_one("#form-error", Static).update(plain(problem))

    def values(self) -> dict[str, str]:
        return {key: self.query_one(f"#field-{key}", Input).value.strip() for key, _, _ in self.fields}

    def submit(self) -> None:
        values = self.values()
        problem = self.validate(values)
        if problem:
            self.problem = problem
            return
        self.dismiss(values)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.submit()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "submit":
            self.submit()
        else:
            self.dismiss(None)

    def action_cancel(self) -> None:
        self.dismiss(None)
