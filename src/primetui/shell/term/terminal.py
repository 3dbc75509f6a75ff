"""The stream side: bytes from a program in, screen operations out.

Speed comes from three layers, tried in order at each position of the input:

1. *Bulk lines*: a run of plain one-cell text separated by CRLF (``seq``, ``cat``, ``ls``, build
   logs) is split with ``str.split`` and, once the cursor sits on the bottom row, whole rows go
   straight into the scrollback deque and only the last screenful becomes cells.
2. *Text runs*: printable text between control characters is drawn a row-slice at a time.
3. *Escape sequences*: matched whole by regular expressions (CSI, OSC, DCS, ESC) and dispatched.

A sequence cut by a chunk boundary is carried over to the next :meth:`Terminal.feed`.
"""

from __future__ import annotations

import base64
import codecs
import re
from collections.abc import Callable

from primetui.shell.term.attrs import DEFAULT, SGR_SPLIT as _SGR_SPLIT, apply_sgr, sgr_cached
from primetui.shell.term.screen import LazyLine, Screen

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_BULK = re.compile(r"[\x20-\x7e]*(?:\r\n[\x20-\x7e]*)+")
# Lines of text and colour changes only (coloured logs): the same bulk treatment.
_BULK_STYLED = re.compile(r"(?:[\x20-\x7e]|\x1b\[[0-9;]*m)*(?:\r\n(?:[\x20-\x7e]|\x1b\[[0-9;]*m)*)+")
_SGR_STRIP = re.compile(r"\x1b\[[0-9;]*m")
_CSI = re.compile(r"\x1b\[([\x30-\x3f]*)([\x20-\x2f]*)([\x40-\x7e])")
_CSI_PREFIX = re.compile(r"\x1b\[[\x30-\x3f]*[\x20-\x2f]*")
_ESC = re.compile(r"\x1b([\x20-\x2f]*)([\x30-\x7e])")
_ESC_PREFIX = re.compile(r"\x1b[\x20-\x2f]*")
# What ends an OSC/DCS/SOS/PM/APC string, as in xterm and tmux: BEL, ST (ESC \\ or C1 \x9c), any
# other ESC (which then starts a sequence of its own), or CAN/SUB, which abort the string. Without
# the last two a stray ``ESC P`` or an OSC that lost its end swallowed every later byte, up to the
# 1 MiB cap, and the pane froze on its last frame while the program ran on.
_STRING_END = re.compile(r"[\x07\x1b\x9c\x18\x1a]")

_MAX_STRING = 1 << 20  # an OSC/DCS longer than this (1 MiB) is dropped, not buffered forever

_DEC_MODES_MOUSE = {9, 1000, 1002, 1003}
_MOUSE_ENCODINGS = {1005: "utf8", 1006: "sgr", 1015: "urxvt"}


def _fill_of(a: tuple[int, int, int]) -> tuple[int, int, int]:
    from primetui.shell.term.attrs import attr

    return attr(-1, a[1], 0)


def _params(raw: str) -> list[list[int]]:
    """Split CSI parameters into colon groups of ints (empty means 0 / default)."""
    if not raw:
        return []
    out = []
    for part in raw.split(";"):
        group = []
        for sub in part.split(":"):
            try:
                group.append(min(int(sub), 65535) if sub else 0)
            except ValueError:
                group.append(0)
        out.append(group)
    return out


class Terminal(Screen):
    """A VT/xterm screen fed with the bytes a program writes (``TERM=xterm-256color``)."""

    def __init__(self, cols: int = 80, rows: int = 24, scrollback: int = 10_000) -> None:
        super().__init__(cols, rows, scrollback)
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._carry = ""
        self._sgr_cache: dict[tuple[tuple[int, int, int], str], tuple[int, int, int]] = {}
        self._sgr_ends: dict[tuple[tuple[int, int, int], tuple[str, ...]], tuple[int, int, int]] = {}

    # -- input ---------------------------------------------------------------------------------
    def feed(self, data: bytes) -> None:
        """Feed raw bytes (UTF-8, possibly cut mid-character or mid-sequence)."""
        self.feed_text(self._decoder.decode(data))

    def feed_text(self, data: str) -> None:
        """Feed decoded text."""
        if self._carry:
            data = self._carry + data
            self._carry = ""
        n = len(data)
        pos = 0
        find_control = _CONTROL.search
        bulk = _BULK.match
        bulk_styled = _BULK_STYLED.match
        while pos < n:
            m = bulk(data, pos)
            if m is not None:
                self._bulk(m.group())
                pos = m.end()
                continue
            if data[pos] in "\x1b\r" or data[pos] >= " ":
                m = bulk_styled(data, pos)
                if m is not None:  # a sequence cut at the end of the data is not part of the match
                    self._bulk(m.group(), styled=True)
                    pos = m.end()
                    continue
            m = find_control(data, pos)
            if m is None:
                self.draw(data[pos:])
                return
            i = m.start()
            if i > pos:
                self.draw(data[pos:i])
            c = data[i]
            if c == "\x1b":
                pos = self._escape(data, i)
                if pos < 0:  # incomplete: wait for more input
                    self._carry = data[i:]
                    return
            else:
                self._control(c)
                pos = i + 1

    def pending_length(self) -> int:
        """Characters of an unfinished escape sequence held until the rest arrives."""
        return len(self._carry)

    def drop_pending(self) -> None:
        """Give up an unfinished sequence (the pane's watchdog, when it never ends): its introducer
        is dropped and what came after it is drawn."""
        held, self._carry = self._carry, ""
        if held:
            self.feed_text(held[2:])

    def _control(self, c: str) -> None:
        if c == "\r":
            self.carriage_return()
        elif c in "\n\x0b\x0c":
            self.linefeed()
        elif c == "\x08":
            self.backspace()
        elif c == "\t":
            self.tab()
        elif c == "\x07":
            self.bell += 1
        elif c == "\x0e":
            self.shift_out = True
        elif c == "\x0f":
            self.shift_out = False
        # Other C0/C1 controls (NUL, ENQ, ...) are ignored, as xterm does.

    # -- the bulk path ---------------------------------------------------------------------------
    def sgr(self, params: str) -> None:
        """Apply an SGR parameter string (cached: logs repeat the same few colour changes)."""
        key = (self.attr, params)
        found = self._sgr_cache.get(key)
        if found is None:
            if len(self._sgr_cache) > 4096:
                self._sgr_cache.clear()
            found = self._sgr_cache[key] = apply_sgr(self.attr, _params(params))
        self.attr = found

    def _draw_styled(self, part: str) -> None:
        pieces = _SGR_SPLIT.split(part)
        if pieces[0]:
            self.draw(pieces[0])
        for i in range(1, len(pieces), 2):
            self.sgr(pieces[i])
            if pieces[i + 1]:
                self.draw(pieces[i + 1])

    def _bulk(self, block: str, styled: bool = False) -> None:
        parts = block.split("\r\n")
        draw = self._draw_styled if styled else self.draw
        if parts[0]:
            draw(parts[0])
        rest = parts[1:]
        # Row by row until the cursor reaches the bottom of a full-screen region.
        i = 0
        k = len(rest)
        # (A region below a fixed top, like a status line, counts too: its rows leave no history.)
        while i < k and not (self.y == self.bottom == self.rows - 1):
            self.carriage_return()
            self.linefeed()
            if rest[i]:
                draw(rest[i])
            i += 1
        if i == k:
            return
        rest = rest[i:] if i else rest
        cols = self.cols
        if styled:
            if self.insert_mode or self.charset == "0" or not self._bulk_scroll_styled(rest):
                for part in rest:
                    self.carriage_return()
                    self.linefeed()
                    if part:
                        draw(part)
            return
        if self.insert_mode or self.charset == "0" or max(map(len, rest)) > cols:
            for part in rest:
                self.carriage_return()
                self.linefeed()
                if part:
                    self.draw(part)
            return
        self._bulk_scroll(rest)

    def _bulk_scroll_styled(self, rest: list[str]) -> bool:
        """Like :meth:`_bulk_scroll` for rows with colour changes; False (nothing done) if a row is too wide."""
        cols = self.cols
        findall = _SGR_SPLIT.findall
        strip_sgr = _SGR_STRIP.sub
        ends = self._sgr_ends
        attr = self.attr
        made: list[LazyLine] = []
        for part in rest:
            fill = DEFAULT if attr[1] == -1 else _fill_of(attr)  # blank cells keep only the background
            if "\x1b" not in part:
                if len(part) > cols:
                    return False
                made.append(LazyLine(part, cols, attr, fill))
                continue
            text = strip_sgr("", part)
            if len(text) > cols:
                return False
            # Only the attribute at the end of the row is needed now; its runs wait until drawn.
            params = tuple(findall(part))
            key = (attr, params)
            end = ends.get(key)
            if end is None:
                end = attr
                for raw in params:
                    end = sgr_cached(end, raw)
                if len(ends) > 4096:
                    ends.clear()
                ends[key] = end
            made.append(LazyLine(text, cols, attr, fill, raw=part))
            attr = end
        self.attr = attr
        self._scroll_in(made, len(rest[-1]) if "\x1b" not in rest[-1] else len(made[-1]._text or ""))
        return True

    def _scroll_in(self, made: list, last_len: int) -> None:
        rows, cols = self.rows, self.cols
        top = self.top
        if top:
            self._scroll_in_region(made, top)
        else:
            self._scroll_in_full(made)
        if last_len >= cols:
            self.x, self.pending_wrap = cols - 1, True
        else:
            self.x, self.pending_wrap = last_len, False
        self.dirty.update(range(top, rows))

    def _scroll_in_region(self, made: list, top: int) -> None:
        """Rows in below a region that starts at ``top`` > 0: the rows above it stay, and rows that
        leave its top are gone (xterm keeps no history for them)."""
        height = self.rows - top
        k = len(made)
        if k >= height:
            self.lines = self.lines[:top] + made[k - height :]
        else:
            self.lines = self.lines[:top] + self.lines[top + k :] + made
        if self.alt_screen:
            self._alt_lines = self.lines

    def _scroll_in_full(self, made: list) -> None:
        rows = self.rows
        k = len(made)
        cap = self.scrollback.maxlen or 0
        keep_history = not self.alt_screen and cap
        if k >= rows:
            if keep_history:
                self.scrollback.extend(self.lines)
                self.scrollback.extend(made[max(0, k - rows - cap) : k - rows])
                self.history_pushed += k
            self.lines = made[k - rows :]
        else:
            if keep_history:
                self.scrollback.extend(self.lines[:k])
                self.history_pushed += k
            self.lines = self.lines[k:] + made
        if self.alt_screen:
            self._alt_lines = self.lines

    def _bulk_scroll(self, rest: list[str]) -> None:
        """Append whole rows below the bottom row, as if each were preceded by CR LF."""
        rows, cols = self.rows, self.cols
        k = len(rest)
        style, fill = self.attr, self.fill
        if self.top:
            height = rows - self.top
            self._scroll_in([LazyLine(p, cols, style, fill) for p in rest[max(0, k - height) :]], len(rest[-1]))
            return
        plain = style is fill and style[1] == -1 and style[2] == 0 and style[0] == -1
        cap = self.scrollback.maxlen or 0
        keep_history = not self.alt_screen and cap
        if k >= rows:
            if keep_history:
                self.scrollback.extend(self.lines)
                gone = rest[: k - rows]
                if plain:
                    # Only the tail that fits matters; the deque drops older rows itself.
                    self.scrollback.extend(gone[-cap:])
                else:
                    self.scrollback.extend(LazyLine(p, cols, style, fill) for p in gone[-cap:])
                self.history_pushed += k
            self.lines = [LazyLine(p, cols, style, fill) for p in rest[k - rows :]]
        else:
            if keep_history:
                self.scrollback.extend(self.lines[:k])
                self.history_pushed += k
            self.lines = self.lines[k:] + [LazyLine(p, cols, style, fill) for p in rest]
        if self.alt_screen:
            self._alt_lines = self.lines
        last = len(rest[-1])
        if last >= cols:
            self.x, self.pending_wrap = cols - 1, True
        else:
            self.x, self.pending_wrap = last, False
        self.dirty.update(range(rows))

    # -- escape sequences ------------------------------------------------------------------------
    def _escape(self, data: str, i: int) -> int:
        """Handle the sequence starting at ``data[i] == ESC``; return the next position or -1."""
        n = len(data)
        if i + 1 >= n:
            return -1
        kind = data[i + 1]
        if kind == "[":
            m = _CSI.match(data, i)
            if m is None:
                prefix = _CSI_PREFIX.match(data, i)
                assert prefix is not None  # data[i : i + 2] is ESC [, which the prefix always matches
                end = prefix.end()
                return -1 if end >= n else end  # malformed: drop what was read so far
            self._csi(m.group(1), m.group(2), m.group(3))
            return m.end()
        if kind in "]P_^X":
            m = _STRING_END.search(data, i + 2)
            if m is None:
                return -1 if n - i < _MAX_STRING else n
            end = m.start()
            stop = data[end]
            if stop in "\x18\x1a":
                return end + 1  # cancelled: dropped undone
            if kind == "]":
                self._osc(data[i + 2 : end])
            if stop == "\x1b":
                if end + 1 >= n:
                    return -1  # ESC at the end of the data: wait to see whether it is ST
                return end + 2 if data[end + 1] == "\\" else end
            return end + 1
        m = _ESC.match(data, i)
        if m is None:
            prefix = _ESC_PREFIX.match(data, i)
            assert prefix is not None  # data[i] is ESC, which the prefix always matches
            end = prefix.end()
            return -1 if end >= n else end + 1
        self._esc(m.group(1), m.group(2))
        return m.end()

    def _esc(self, inter: str, final: str) -> None:
        if not inter:
            if final == "7":
                self.save_cursor()
            elif final == "8":
                self.restore_cursor()
            elif final == "D":
                self.index()
            elif final == "E":
                self.carriage_return()
                self.index()
            elif final == "M":
                self.reverse_index()
            elif final == "H":
                self.set_tabstop()
            elif final == "c":
                self.reset()
            elif final == "=":
                self.app_keypad = True
            elif final == ">":
                self.app_keypad = False
        elif inter == "(":
            self.g0 = final
        elif inter == ")":
            self.g1 = final
        elif inter == "#" and final == "8":
            self.alignment_test()

    def _osc(self, body: str) -> None:
        code, _, rest = body.partition(";")
        if code in ("0", "2"):
            self.title = rest[:256]
        elif code == "52":
            _, _, payload = rest.partition(";")
            if payload and payload != "?":  # never answer a clipboard read: it would leak it
                try:
                    self.clipboard.append(base64.b64decode(payload, validate=False).decode("utf-8", "replace"))
                except (ValueError, TypeError):
                    pass
                del self.clipboard[:-8]

    def _csi(self, raw: str, inter: str, final: str) -> None:
        private = ""
        if raw and raw[0] in "<=>?":
            private, raw = raw[0], raw[1:]
        params = _params(raw)
        p0 = params[0][0] if params else 0
        n = p0 or 1  # most sequences treat 0 and missing as 1
        if private == "?":
            self._csi_dec(params, p0, inter, final)
        elif private == ">":
            if final == "c":
                self.replies.append("\x1b[>41;330;0c")  # an xterm, version 330
        elif private:
            return
        elif inter:
            if inter == "!" and final == "p":
                self._soft_reset()
            # DECSCUSR (cursor shape) and the like change nothing we draw
        else:
            handler = _CSI_HANDLERS.get(final)
            if handler is not None:
                handler(self, raw, params, p0, n)

    def _csi_dec(self, params: list[list[int]], p0: int, inter: str, final: str) -> None:
        """CSI ? ...: DEC private modes, selective erases, the cursor report and DECRQM."""
        if final in "hl" and not inter:
            for group in params:
                self._dec_mode(group[0], final == "h")
        elif final == "J":
            self.erase_in_display(p0)
        elif final == "K":
            self.erase_in_line(p0)
        elif final == "n" and p0 == 6:
            self.replies.append(f"\x1b[?{self.y + 1};{self.x + 1}R")
        elif final == "p" and inter == "$":
            self.replies.append(f"\x1b[?{p0};{self._mode_state(p0)}$y")

    def _csi_cup(self, params: list[list[int]], n: int) -> None:
        col = params[1][0] if len(params) > 1 else 0
        self.move_to((col or 1) - 1, n - 1)

    def _csi_next_line(self, dy: int) -> None:
        self.move_rel(dy=dy)
        self.carriage_return()

    def _csi_scroll_down(self, params: list[list[int]], n: int) -> None:
        if len(params) <= 1:  # with more parameters it is xterm's mouse highlight tracking
            self.scroll_down(n)

    def _csi_margins(self, params: list[list[int]], p0: int) -> None:
        top = p0 or 1
        bottom = params[1][0] if len(params) > 1 and params[1][0] else self.rows
        self.set_margins(top - 1, bottom - 1)

    def _csi_ansi_modes(self, params: list[list[int]], on: bool) -> None:
        for group in params:
            if group[0] == 4:
                self.insert_mode = on
            elif group[0] == 20:
                self.newline_mode = on

    def _csi_device_attributes(self, p0: int) -> None:
        if p0 == 0:
            self.replies.append("\x1b[?62;22c")  # VT220 with ANSI colour

    def _csi_status_report(self, p0: int) -> None:
        if p0 == 5:
            self.replies.append("\x1b[0n")
        elif p0 == 6:
            y = self.y - self.top if self.origin_mode else self.y
            self.replies.append(f"\x1b[{y + 1};{self.x + 1}R")

    def _csi_window_report(self, p0: int) -> None:
        if p0 == 18:
            self.replies.append(f"\x1b[8;{self.rows};{self.cols}t")

    def _mode_state(self, mode: int) -> int:
        """DECRQM answer: 1 set, 2 reset, 0 unknown."""
        known = {
            1: self.app_cursor,
            6: self.origin_mode,
            7: self.autowrap,
            25: self.cursor_visible,
            1049: self.alt_screen,
            47: self.alt_screen,
            1047: self.alt_screen,
            2004: self.bracketed_paste,
            1004: self.focus_events,
            2026: self.synchronized,
            1006: self.mouse_encoding == "sgr",
        }
        if mode in _DEC_MODES_MOUSE:
            return 1 if self.mouse_mode == mode else 2
        if mode in known:
            return 1 if known[mode] else 2
        return 0

    def _dec_mode(self, mode: int, on: bool) -> None:
        if mode == 1:
            self.app_cursor = on
        elif mode == 6:
            self.origin_mode = on
            self.move_to(0, 0)
        elif mode == 7:
            self.autowrap = on
        elif mode == 25:
            self.cursor_visible = on
            self.dirty.add(self.y)
        elif mode == 1049:
            if on:
                self.save_cursor()
                self.enter_alt_screen(clear=True)
            else:
                self.leave_alt_screen()
                self.restore_cursor()
        elif mode == 1047:
            if on:
                self.enter_alt_screen(clear=False)
            else:
                self.leave_alt_screen(clear=True)
        elif mode == 47:
            if on:
                self.enter_alt_screen(clear=False)
            else:
                self.leave_alt_screen()
        elif mode == 1048:
            if on:
                self.save_cursor()
            else:
                self.restore_cursor()
        elif mode in _DEC_MODES_MOUSE:
            self.mouse_mode = mode if on else 0
        elif mode in _MOUSE_ENCODINGS:
            self.mouse_encoding = _MOUSE_ENCODINGS[mode] if on else ""
        elif mode == 2004:
            self.bracketed_paste = on
        elif mode == 1004:
            self.focus_events = on
        elif mode == 2026:
            self.synchronized = on

    def _soft_reset(self) -> None:
        """DECSTR: modes back to defaults, screen contents kept."""
        self.insert_mode = self.origin_mode = self.app_cursor = self.app_keypad = False
        self.autowrap = self.cursor_visible = True
        self.top, self.bottom = 0, self.rows - 1
        self.attr = apply_sgr(self.attr, [])
        self.g0 = self.g1 = "B"
        self.shift_out = False


# CSI final byte -> what it does (no private marker, no intermediate): handler(term, raw, params, p0, n),
# where p0 is the first parameter (0 when missing) and n the count most sequences read (0 and missing are 1).
_CsiHandler = Callable[[Terminal, str, list[list[int]], int, int], None]
_CSI_HANDLERS: dict[str, _CsiHandler] = {
    "m": lambda t, raw, params, p0, n: t.sgr(raw),
    "H": lambda t, raw, params, p0, n: t._csi_cup(params, n),
    "f": lambda t, raw, params, p0, n: t._csi_cup(params, n),
    "A": lambda t, raw, params, p0, n: t.move_rel(dy=-n),
    "B": lambda t, raw, params, p0, n: t.move_rel(dy=n),
    "e": lambda t, raw, params, p0, n: t.move_rel(dy=n),
    "C": lambda t, raw, params, p0, n: t.move_rel(dx=n),
    "a": lambda t, raw, params, p0, n: t.move_rel(dx=n),
    "D": lambda t, raw, params, p0, n: t.move_rel(dx=-n),
    "E": lambda t, raw, params, p0, n: t._csi_next_line(n),
    "F": lambda t, raw, params, p0, n: t._csi_next_line(-n),
    "G": lambda t, raw, params, p0, n: t.set_column(n - 1),
    "`": lambda t, raw, params, p0, n: t.set_column(n - 1),
    "d": lambda t, raw, params, p0, n: t.set_row(n - 1),
    "J": lambda t, raw, params, p0, n: t.erase_in_display(p0),
    "K": lambda t, raw, params, p0, n: t.erase_in_line(p0),
    "L": lambda t, raw, params, p0, n: t.insert_lines(n),
    "M": lambda t, raw, params, p0, n: t.delete_lines(n),
    "@": lambda t, raw, params, p0, n: t.insert_chars(n),
    "P": lambda t, raw, params, p0, n: t.delete_chars(n),
    "X": lambda t, raw, params, p0, n: t.erase_chars(n),
    "S": lambda t, raw, params, p0, n: t.scroll_up(n),
    "T": lambda t, raw, params, p0, n: t._csi_scroll_down(params, n),
    "r": lambda t, raw, params, p0, n: t._csi_margins(params, p0),
    "b": lambda t, raw, params, p0, n: t.repeat_last(n),
    "I": lambda t, raw, params, p0, n: t.tab(n),
    "Z": lambda t, raw, params, p0, n: t.back_tab(n),
    "g": lambda t, raw, params, p0, n: t.clear_tabstop(p0),
    "h": lambda t, raw, params, p0, n: t._csi_ansi_modes(params, True),
    "l": lambda t, raw, params, p0, n: t._csi_ansi_modes(params, False),
    "s": lambda t, raw, params, p0, n: t.save_cursor(),
    "u": lambda t, raw, params, p0, n: t.restore_cursor(),
    "c": lambda t, raw, params, p0, n: t._csi_device_attributes(p0),
    "n": lambda t, raw, params, p0, n: t._csi_status_report(p0),
    "t": lambda t, raw, params, p0, n: t._csi_window_report(p0),
}
