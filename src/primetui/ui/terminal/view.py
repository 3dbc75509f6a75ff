"""``TerminalView``: a real terminal inside the dashboard.

Bytes from a :class:`~primetui.shell.term.transport.Transport` feed a
:class:`~primetui.shell.term.Terminal`; only rows the program changed are repainted, at most
``FPS`` times a second, so a flood of output costs one frame per tick instead of one per chunk.
Every key except the few the dashboard keeps goes to the program as xterm bytes; pastes are
bracketed when the program asks; mouse events go to programs that enable mouse reporting, and
otherwise scroll the scrollback and select text to copy (OSC 52).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any, cast

from rich.style import Style
from textual import events
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget

from primetui.shell.term import Terminal, entry_text
from primetui.shell.term.keys import WHEEL_DOWN, WHEEL_UP, encode_focus, encode_key, encode_mouse, encode_paste
from primetui.shell.term.transport import Transport
from primetui.ui.terminal.altkeys import terminal_bytes
from primetui.ui.terminal import pane_watchdog as watchdog
from primetui.ui.terminal.render import StripPainter
from primetui.ui.terminal.pane_watchdog import Watchdog

FPS = 60
FLOOD_FPS = 20  # while output pours, fewer frames leave the time to the keyboard and the parser
FLOOD_BYTES = 1 << 16  # more than this between two frames counts as a flood
_FULL_READ = 1 << 16  # a transport hands over at most this much at once; less = nothing more was waiting
PROMPT_DELAY = 0.003  # a frame for output that stopped: soon, so more of it may still arrive in between
_SYNC_HOLD = 0.15  # longest we wait for a program's synchronized update (DEC 2026) to finish
_TYPED_WINDOW = 0.3  # after a key or a paste, frames keep the full rate even in a flood: the echo is due

_TYPEAHEAD_MAX = 4096  # keys kept while connecting; a stuck connect must not grow without end
TransportFactory = Callable[[], Transport]


class TerminalView(Widget, can_focus=True):
    """A terminal pane running one program through a transport."""

    DEFAULT_CSS = """
    TerminalView { width: 1fr; height: 1fr; background: $background; color: $foreground; }
    TerminalView > .terminal--cursor { background: $foreground; color: $background; }
    TerminalView > .terminal--mark { background: $accent; color: $background; }
    TerminalView > .terminal--notice { background: $warning; color: $background; text-style: bold; }
    """
    COMPONENT_CLASSES = {"terminal--cursor", "terminal--mark", "terminal--notice"}
    BINDINGS = [
        Binding("shift+pageup", "scroll_history(-1)", "Scrollback", id="terminal.scroll_up"),
        Binding("shift+pagedown", "scroll_history(1)", "Scroll down", show=False, id="terminal.scroll_down"),
        Binding("ctrl+f", "search", "Search", show=False, id="terminal.search"),
        Binding("r", "reconnect", "Reconnect", id="terminal.reconnect"),
    ]
    # Keys the pane never sends to the program while it runs (besides the bindings above and the
    # ones its container reserves). Search only takes ctrl+f while viewing the scrollback.
    _LIVE_PASSTHROUGH = {"ctrl+f", "r"}

    class Ended(Message):
        """The program or the connection ended; ``reason`` is one sentence for the user."""

        def __init__(self, view: "TerminalView", reason: str) -> None:
            super().__init__()
            self.view = view
            self.reason = reason

    class ReconnectRequested(Message):
        def __init__(self, view: "TerminalView") -> None:
            super().__init__()
            self.view = view

    class TitleChanged(Message):
        def __init__(self, view: "TerminalView", title: str) -> None:
            super().__init__()
            self.view = view
            self.title = title

    def __init__(
        self,
        transport: Transport | TransportFactory | None = None,
        *,
        scrollback: int = 10_000,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._factory: TransportFactory | None = (
            transport if callable(transport) and not hasattr(transport, "read") else None
        )
        self.transport: Transport | None = None if self._factory else transport  # type: ignore[assignment]
        self.term = Terminal(80, 24, scrollback=scrollback)
        self.painter = StripPainter()
        self.running = False
        self.ended_reason: str | None = None
        self._started = False
        self._cache: dict[int, Strip] = {}
        self._painter_ready = False
        self._base_style = Style()
        self._frame_handle: Any = None
        self._frame_due = 0.0
        self._last_frame = 0.0
        self._typed_at = float("-inf")  # when the user last sent the program a key or a paste (monotonic)
        self._sync_since: float | None = None
        self._cursor_drawn: tuple[int, int] | None = None
        self._bell_seen = 0
        self._title_seen = ""
        self._view_top: int | None = None  # absolute history row at the top; None = following output
        self._search: str = ""
        self._match: tuple[int, int, int] | None = None  # (absolute row, start, end)
        self._select_from: tuple[int, int] | None = None
        self._select_to: tuple[int, int] | None = None
        self.bytes_in = 0
        self.frames = 0
        self.start_failed = False  # the last start could not connect (retry makes sense)
        # The dashboard hung the program up itself (stop()): its end is no news to the user.
        self.stop_asked = False
        self._bytes_at_frame = 0
        self.ended = asyncio.Event()
        # Keys and pastes typed while the shell connects: sent, in order, once it is ready (as ssh
        # and tmux do), so typing right after Enter neither fires dashboard keys nor gets lost.
        self._typeahead: list[tuple[str, str | None, bytes | None] | str] = []
        # Full-terminal mode: output also goes to the real terminal, which answers queries itself
        # and owns the size until it hands the program back.
        self.tee: Callable[[bytes], None] | None = None
        self.watchdog = Watchdog(self)

    def on_mount(self) -> None:
        self.set_interval(watchdog.CHECK_EVERY, self.watchdog.check, name="terminal-watchdog")

    def repaint(self) -> None:
        """Redraw every row from the screen model."""
        self.term.mark_all_dirty()
        self._cache.clear()
        self.refresh()

    # ---- lifecycle --------------------------------------------------------------------------
    def on_resize(self, event: events.Resize) -> None:
        if self.tee is None:
            self.sync_size()

    def sync_size(self) -> None:
        """Make the screen and the program's terminal the size of the pane."""
        cols, rows = max(1, self.size.width), max(1, self.size.height)
        if (cols, rows) != (self.term.cols, self.term.rows):
            # A new width rewraps the rows, so row numbers taken before no longer point at the
            # same text: drop the selection and keep a scrolled-back view inside the history.
            self._select_from = self._select_to = None
            self._match = None
        self.term.resize(cols, rows)
        if self._view_top is not None:
            oldest = self.term.history_pushed - len(self.term.scrollback)
            self._view_top = max(oldest, min(self._view_top, self.term.history_pushed))
        self._cache.clear()
        if self.transport is not None and self.running:
            self.transport.resize(cols, rows)
        if not self._started:
            self._started = True
            self.run_worker(self._run(cols, rows), name="terminal-pump", exit_on_error=False)
        self.refresh()

    def start(self, transport: Transport | TransportFactory) -> None:
        """(Re)start on a new transport, keeping the screen and scrollback."""
        if self.running:
            return
        if callable(transport) and not hasattr(transport, "read"):
            self._factory, self.transport = transport, None  # type: ignore[assignment]
        else:
            self.transport = transport  # type: ignore[assignment]
        self.ended_reason = None
        self.stop_asked = False
        self.ended = asyncio.Event()
        self.term.feed_text("\r\n")
        self.run_worker(self._run(self.term.cols, self.term.rows), name="terminal-pump", exit_on_error=False)

    async def _run(self, cols: int, rows: int) -> None:
        if self.transport is None and self._factory is not None:
            self.transport = self._factory()
        transport = self.transport
        if transport is None:
            return
        self.start_failed = False
        try:
            await transport.start(cols, rows)
        except Exception as exc:  # noqa: BLE001 - any failure to connect ends in a message, never a crash
            self.start_failed = True
            self._end(str(exc).rstrip(".") + "." if str(exc) else f"Could not start the shell ({type(exc).__name__}).")
            return
        self.running = True
        self.refresh_bindings()  # the footer: the app's keys now go to the program, no more Reconnect
        if (self.term.cols, self.term.rows) != (cols, rows):
            transport.resize(self.term.cols, self.term.rows)
        self._send_typeahead()
        try:
            while True:
                data = await transport.read()
                if not data:
                    break
                self.bytes_in += len(data)
                self.watchdog.fed()
                self.term.feed(data)
                replies = self.term.take_replies()
                if self.tee is not None:
                    self.tee(data)
                elif replies:
                    transport.write(replies.encode())
                # A short chunk means the program's output has drained for now: draw it promptly
                # (the end of a flood, an echo) instead of at the flood's frame rate.
                self.schedule_frame(prompt=len(data) < _FULL_READ)
                # Let keys and timers in between chunks: a flood must never starve the keyboard.
                await asyncio.sleep(0)
        except Exception as exc:  # noqa: BLE001
            transport.exit_reason = f"The terminal stopped reading: {exc}."
        self.running = False
        self._end(transport.exit_reason or "The shell ended.")

    def _end(self, reason: str) -> None:
        self.running = False
        if self._typeahead:
            reason += f" {len(self._typeahead)} key(s) typed while connecting were not sent."
            self._typeahead.clear()
        self.ended_reason = reason
        self.term.feed_text(f"\x1b[0m\r\n\x1b[7m {reason} \x1b[0m\r\n")
        self.schedule_frame()
        self.ended.set()
        self.post_message(self.Ended(self, reason))
        self.refresh_bindings()

    async def stop(self) -> None:
        """Close the transport (the program gets a hangup)."""
        self.stop_asked = True
        if self.transport is not None:
            await self.transport.close()

    def on_unmount(self) -> None:
        if self.transport is not None:
            asyncio.get_running_loop().create_task(self.transport.close())

    # ---- frames -------------------------------------------------------------------------------
    def schedule_frame(self, prompt: bool = False) -> None:
        """A frame at the frame rate; with ``prompt`` (the output stopped), within a few ms, but
        never sooner than ``1 / FPS`` after the last one; right away while a key's echo is due."""
        now = time.monotonic()
        if now - self._typed_at < _TYPED_WINDOW:
            # A key's echo is due: hand every read to the screen at once; Textual paints at most
            # at its own frame rate, and this way nothing waits for a frame of ours as well.
            if self._frame_handle is not None:
                self._frame_handle.stop()
            self._frame()
            return
        if prompt:
            due = max(now + PROMPT_DELAY, self._last_frame + 1 / FPS)
        else:
            flood = self.bytes_in - self._bytes_at_frame > FLOOD_BYTES and now - self._typed_at > _TYPED_WINDOW
            fps = FLOOD_FPS if flood else FPS
            due = self._last_frame + 1 / fps
        if self._frame_handle is not None:
            if due >= self._frame_due:
                return
            self._frame_handle.stop()  # the trailing edge: output stopped, the flood-rate frame is too far off
        self._frame_due = due
        # a 0 s timer divides by zero
        self._frame_handle = self.set_timer(max(0.001, due - now), self._frame, name="terminal-frame")

    @property
    def frame_due(self) -> float:
        """When the frame last scheduled is due (``time.monotonic()``); read-only."""
        return self._frame_due

    @property
    def bytes_drawn(self) -> int:
        """How many of ``bytes_in`` the last frame drawn had read; read-only."""
        return self._bytes_at_frame

    def _frame(self) -> None:
        self._frame_handle = None
        term = self.term
        now = time.monotonic()
        if term.synchronized:
            # The program is mid-update (DEC 2026): show the finished frame, not a half-drawn one.
            if self._sync_since is None:
                self._sync_since = now
            if now - self._sync_since < _SYNC_HOLD:
                self._frame_due = now + 1 / FPS
                self._frame_handle = self.set_timer(1 / FPS, self._frame, name="terminal-frame")
                return
        self._sync_since = None
        self.watchdog.painted()
        self._last_frame = now
        self._bytes_at_frame = self.bytes_in
        self.frames += 1
        dirty = term.take_dirty()
        if term.clipboard:
            text = term.clipboard[-1]
            term.clipboard.clear()
            self._copy(text, "text the program copied")
        if term.bell != self._bell_seen:
            self._bell_seen = term.bell
            self.app.bell()
        if term.title != self._title_seen:
            self._title_seen = term.title
            self.post_message(self.TitleChanged(self, term.title))
        if self._view_top is not None:
            if dirty:
                self._cache.clear()
                self.refresh()
            return
        cursor = (term.x, term.y)
        if cursor != self._cursor_drawn:
            if self._cursor_drawn is not None:
                dirty.add(self._cursor_drawn[1])
            dirty.add(term.y)
        if not dirty:
            return
        width = self.size.width
        if len(dirty) * 2 > term.rows:
            self._cache.clear()
            self.refresh()
            return
        for row in dirty:
            self._cache.pop(row, None)
        self.refresh(*[Region(0, row, width, 1) for row in dirty])

    # ---- drawing -------------------------------------------------------------------------------
    def get_content_width(self, container: Size, viewport: Size) -> int:
        return container.width

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return container.height

    def _prepare_painter(self) -> None:
        # Resolving CSS styles costs more than drawing a row: do it once until the styles change.
        if self._painter_ready:
            return
        cursor = self.get_component_rich_style("terminal--cursor")
        mark = self.get_component_rich_style("terminal--mark")
        self._base_style = self.rich_style
        self.painter.set_base(self._base_style, cursor, mark, self._palette())
        self._painter_ready = True

    def _palette(self) -> Any:
        """The 16 colours to draw with (see :mod:`primetui.shell.term.palette`); None = ANSI codes."""
        from primetui.shell.term.palette import XTERM, parse_palette

        wanted = getattr(getattr(self.app, "prefs", None), "shell_palette", "xterm")
        try:
            palette = parse_palette(wanted)
        except ValueError:
            return XTERM  # the preferences loader has already said what is wrong with it
        # "terminal" only reaches the terminal when the app draws ANSI colours as such; otherwise
        # Textual converts them to its theme's RGB, where red and magenta are one colour.
        return palette if palette is not None or self.app.native_ansi_color else XTERM

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._painter_ready = False
        self._cache.clear()

    def _on_focus(self, event: events.Focus) -> None:
        self._cache.pop(self.term.y, None)
        self.refresh()
        if self.term.focus_events and self.transport is not None and self.running:
            self.transport.write(encode_focus(True))

    def _on_blur(self, event: events.Blur) -> None:
        self._cache.pop(self.term.y, None)
        self.refresh()
        if self.term.focus_events and self.transport is not None and self.running:
            self.transport.write(encode_focus(False))

    def history_size(self) -> int:
        """Rows available above the screen."""
        return len(self.term.scrollback)

    def _entry(self, absolute: int) -> Any:
        term = self.term
        base = term.history_pushed
        if absolute >= base:
            r = absolute - base
            return term.lines[r] if r < term.rows else ""
        first = base - len(term.scrollback)
        if absolute >= first:
            return term.scrollback[absolute - first]
        return ""

    def render_line(self, y: int) -> Strip:
        self._prepare_painter()
        width = self.size.width
        term = self.term
        if self._view_top is None:
            cached = self._cache.get(y)
            if cached is not None:
                return cached
            if y >= term.rows:
                return Strip.blank(width, self._base_style)
            show_cursor = y == term.y and term.cursor_visible and self.has_focus and self.ended_reason is None
            absolute = term.history_pushed + y
            strip = self.painter.strip(
                term.lines[y], width, cursor_x=term.x if show_cursor else None, marks=self._marks(absolute)
            )
            if show_cursor:
                self._cursor_drawn = (term.x, term.y)
            elif y == term.y:
                self._cursor_drawn = (term.x, term.y)
            self._cache[y] = strip
            return strip
        absolute = self._view_top + y
        strip = self.painter.strip(self._entry(absolute), width, marks=self._marks(absolute))
        if y == 0:
            above = max(0, term.history_pushed - self._view_top)
            notice = f" scrollback: {above} lines up · shift+pgdn down · ctrl+f search · esc back "
            if self._search:
                notice = f" /{self._search} · n next · N previous · esc back "
            style = self.get_component_rich_style("terminal--notice")
            strip = Strip.join([strip.crop(0, max(0, width - len(notice))), Strip([_seg(notice[-width:], style)])])
        return strip

    def _marks(self, absolute: int) -> list[tuple[int, int]] | None:
        marks = []
        if self._match is not None and self._match[0] == absolute:
            marks.append((self._match[1], self._match[2]))
        if self._select_from is not None and self._select_to is not None:
            (r0, c0), (r1, c1) = sorted([self._select_from, self._select_to])
            if r0 <= absolute <= r1:
                start = c0 if absolute == r0 else 0
                end = c1 + 1 if absolute == r1 else self.term.cols
                marks.append((start, end))
        return marks or None

    # ---- input ---------------------------------------------------------------------------------
    @property
    def connecting(self) -> bool:
        """Started (or about to be) and not yet running: typed keys are kept for the shell."""
        return not self.running and self.ended_reason is None

    def type_ahead(self, keys: list[events.Key]) -> None:
        """Keys typed before this pane existed (the shell screen held them): send or keep them."""
        for event in keys:
            self._take_key(event)

    def _take_key(self, event: events.Key) -> None:
        if self.running and self.transport is not None:
            data = encode_key(event.key, event.character, app_cursor=self.term.app_cursor, sent=terminal_bytes(event))
            if data is not None:
                self.transport.write(data)
        elif self.connecting and len(self._typeahead) < _TYPEAHEAD_MAX:
            self._typeahead.append((event.key, event.character, terminal_bytes(event)))

    def _send_typeahead(self) -> None:
        held, self._typeahead = self._typeahead, []
        if self.transport is None:
            return
        for item in held:
            if isinstance(item, str):
                self.transport.write(encode_paste(item, bracketed=self.term.bracketed_paste))
                continue
            key, character, sent = item
            data = encode_key(key, character, app_cursor=self.term.app_cursor, sent=sent)
            if data is not None:
                self.transport.write(data)

    def _reserved_keys(self) -> set[str]:
        keymap: dict[str, str] = getattr(self.app, "_keymap", None) or {}
        keys: set[str] = set()
        for node in self.ancestors_with_self:
            for binding in getattr(node, "BINDINGS", ()):
                if isinstance(binding, Binding) and binding.id and binding.id.split(".")[0] in ("terminal", "shell"):
                    for key in keymap.get(binding.id, binding.key).split(","):
                        keys.add(key.strip())
        if (self.running or self.connecting) and self._view_top is None:
            keys -= self._LIVE_PASSTHROUGH
        return keys

    def _default_keys(self) -> set[str]:
        """Default keys of the pane's bindings that the user's keymap moved elsewhere."""
        keymap: dict[str, str] = getattr(self.app, "_keymap", None) or {}
        keys: set[str] = set()
        for node in self.ancestors_with_self:
            for binding in getattr(node, "BINDINGS", ()):
                if (
                    isinstance(binding, Binding)
                    and binding.id in keymap
                    and binding.id.split(".")[0] in ("terminal", "shell")
                ):
                    keys.update(k.strip() for k in binding.key.split(","))
        return keys

    def check_consume_key(self, key: str, character: str | None) -> bool:
        """Everything but the pane's own keys goes to the program (even the app's ctrl+p, ctrl+q).

        Textual filters the binding chain with this *before* applying the user's keymap, so the
        default keys of the pane's own bindings must survive here too, or a remapped binding would
        vanish; ``on_key`` still sends a freed default key to the program.
        """
        if not (self.running or self.connecting) or self._view_top is not None:
            return False
        return key not in self._reserved_keys() and key not in self._default_keys()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "reconnect":
            return self.ended_reason is not None
        return True

    async def on_key(self, event: events.Key) -> None:
        if self._view_top is not None:
            if self._history_key(event.key):
                event.stop()
                event.prevent_default()
                return
            if event.key in self._reserved_keys():
                return
            self.follow()  # typing returns to the live screen, like any terminal
        if self.connecting and event.key not in self._reserved_keys():
            event.stop()
            event.prevent_default()
            self._take_key(event)
            return
        if not self.running or event.key in self._reserved_keys():
            return
        data = encode_key(event.key, event.character, app_cursor=self.term.app_cursor, sent=terminal_bytes(event))
        if data is None:
            return
        event.stop()
        event.prevent_default()
        self._clear_selection()
        if self.transport is not None:
            self._typed_at = time.monotonic()
            self.transport.write(data)

    def on_paste(self, event: events.Paste) -> None:
        if self.connecting:
            event.stop()
            if len(self._typeahead) < _TYPEAHEAD_MAX:
                self._typeahead.append(event.text)
            return
        if self.running and self.transport is not None:
            event.stop()
            self.follow()
            self._typed_at = time.monotonic()
            self.transport.write(encode_paste(event.text, bracketed=self.term.bracketed_paste))

    def _mouse(self, event: events.MouseEvent, kind: str, button: int) -> bool:
        term = self.term
        if not (self.running and term.mouse_mode and self._view_top is None and self.transport is not None):
            return False
        data = encode_mouse(
            kind,
            button,
            event.x,
            event.y,
            mode=term.mouse_mode,
            encoding=term.mouse_encoding,
            shift=event.shift,
            alt=event.meta,
            ctrl=event.ctrl,
        )
        if data:
            self.transport.write(data)
        return True

    def on_mouse_down(self, event: events.MouseDown) -> None:
        self.focus()
        if self._mouse(event, "press", max(0, event.button - 1)):
            event.stop()
            return
        self._clear_selection()
        self._select_from = self._select_to = (self._top_absolute() + event.y, event.x)
        self.capture_mouse()
        event.stop()

    def on_mouse_move(self, event: events.MouseMove) -> None:
        if self.term.mouse_mode and self._view_top is None:
            kind = "drag" if event.button else "move"
            self._mouse(event, kind, max(0, event.button - 1))
            return
        if self._select_from is not None and event.button:
            self._select_to = (self._top_absolute() + max(0, min(event.y, self.term.rows - 1)), max(0, event.x))
            self._cache.clear()
            self.refresh()

    def on_mouse_up(self, event: events.MouseUp) -> None:
        if self._mouse(event, "release", max(0, event.button - 1)):
            event.stop()
            return
        self.release_mouse()
        if self._select_from is not None and self._select_to is not None and self._select_from != self._select_to:
            text = self.selected_text()
            if text:
                self._copy(text, "selection")
        elif self._select_from == self._select_to:
            self._clear_selection()

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        event.stop()
        if self._mouse(event, "wheel", WHEEL_UP):
            return
        if self.term.alt_screen and self.running and self.transport is not None:
            # xterm's alternate scroll
            self.transport.write(cast(bytes, encode_key("up", app_cursor=self.term.app_cursor)) * 3)
            return
        self.scroll_history(-3)

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        event.stop()
        if self._mouse(event, "wheel", WHEEL_DOWN):
            return
        if self.term.alt_screen and self.running and self.transport is not None:
            self.transport.write(cast(bytes, encode_key("down", app_cursor=self.term.app_cursor)) * 3)
            return
        self.scroll_history(3)

    # ---- selection and copy ---------------------------------------------------------------------
    def _top_absolute(self) -> int:
        return self._view_top if self._view_top is not None else self.term.history_pushed

    def _clear_selection(self) -> None:
        if self._select_from is not None:
            self._select_from = self._select_to = None
            self._cache.clear()
            self.refresh()

    def selected_text(self) -> str:
        if self._select_from is None or self._select_to is None:
            return ""
        (r0, c0), (r1, c1) = sorted([self._select_from, self._select_to])
        out = []
        for absolute in range(r0, r1 + 1):
            entry = self._entry(absolute)
            # A row the text merely wrapped from joins the next one, as in tmux and xterm: a
            # long command copied off the screen pastes as one line.
            wrapped = absolute < r1 and getattr(entry, "wrapped", False)
            text = "".join(entry.chars) if wrapped else entry_text(entry)
            start = c0 if absolute == r0 else 0
            end = c1 + 1 if absolute == r1 else len(text)
            out.append(text[start:end] if wrapped else text[start:end].rstrip() + "\n")
        return "".join(out).removesuffix("\n")

    def _copy(self, text: str, what: str) -> None:
        copy_text = getattr(self.app, "copy_text", None)
        if callable(copy_text):
            copy_text(text, what) if len(text) < 200 else self._copy_quiet(text, what)
        else:
            self._copy_quiet(text, what)

    def _copy_quiet(self, text: str, what: str) -> None:
        self.app.copy_to_clipboard(text)
        self.notify(f"Copied the {what} ({len(text)} characters).", timeout=3)

    # ---- scrollback and search -------------------------------------------------------------------
    def action_scroll_history(self, pages: int) -> None:
        self.scroll_history(pages * max(1, self.term.rows - 1))

    def scroll_history(self, lines: int) -> None:
        """Move the view ``lines`` rows (negative = back in time); reaching the bottom follows output again."""
        term = self.term
        oldest = term.history_pushed - len(term.scrollback)
        top = self._top_absolute() + lines
        top = max(oldest, top)
        if top >= term.history_pushed:
            self.follow()
            return
        self._view_top = top
        self._cache.clear()
        self.refresh()
        self.refresh_bindings()

    @property
    def scrolled_back(self) -> bool:
        """Whether the view shows the scrollback (after a scroll or a search) instead of following output."""
        return self._view_top is not None

    @property
    def match_text(self) -> str | None:
        """The text of the row holding the current search match, or None when nothing is marked."""
        return None if self._match is None else entry_text(self._entry(self._match[0]))

    def follow(self) -> None:
        """Back to the live screen."""
        if self._view_top is not None or self._search:
            self._view_top = None
            self._search = ""
            self._match = None
            self._cache.clear()
            self.refresh()
            self.refresh_bindings()

    def action_search(self) -> None:
        from primetui.ui.terminal.search import SearchPrompt

        def found(query: str | None) -> None:
            if query:
                self.search(query, backwards=True)

        self.app.push_screen(SearchPrompt(self._search), found)

    def search(self, query: str, *, backwards: bool = True) -> bool:
        """Find ``query`` (case-insensitive) in the scrollback and screen, scroll to it and mark it."""
        term = self.term
        self._search = query
        needle = query.lower()
        oldest = term.history_pushed - len(term.scrollback)
        last = term.history_pushed + term.rows - 1
        if self._match is not None:
            start = self._match[0] + (-1 if backwards else 1)
        else:
            start = last
        rows = range(start, oldest - 1, -1) if backwards else range(start, last + 1)
        for absolute in rows:
            text = entry_text(self._entry(absolute)).lower()
            col = text.find(needle)
            if col >= 0:
                self._match = (absolute, col, col + len(needle))
                top = min(max(oldest, absolute - term.rows // 2), term.history_pushed)
                self._view_top = (
                    top if top < term.history_pushed or absolute < term.history_pushed else term.history_pushed
                )
                self._cache.clear()
                self.refresh()
                self.refresh_bindings()
                return True
        self.notify(f"No more matches for {query!r}.", severity="warning", timeout=3)
        return False

    def _history_key(self, key: str) -> bool:
        """Keys while viewing the scrollback: move, search, or any other key returns to the shell."""
        if key in ("up", "k"):
            self.scroll_history(-1)
        elif key in ("down", "j"):
            self.scroll_history(1)
        elif key in ("pageup", "shift+pageup", "b"):
            self.action_scroll_history(-1)
        elif key in ("pagedown", "shift+pagedown", "space"):
            self.action_scroll_history(1)
        elif key in ("home", "g"):
            self.scroll_history(-self.term.history_pushed - self.term.rows)
        elif key in ("end", "G", "escape", "q"):
            self.follow()
        elif key in ("slash", "ctrl+f"):
            self.action_search()
        elif key == "n" and self._search:
            self.search(self._search, backwards=True)
        elif key == "N" and self._search:
            self.search(self._search, backwards=False)
        else:
            return False
        return True

    def action_reconnect(self) -> None:
        if self.ended_reason is not None:
            self.post_message(self.ReconnectRequested(self))


def _seg(text: str, style: Style):
    from rich.segment import Segment

    return Segment(text, style)
