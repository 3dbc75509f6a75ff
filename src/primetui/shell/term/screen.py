"""The screen model: a grid of cells, a cursor, modes, a bounded scrollback, dirty rows.

Each visible row is a :class:`Line` holding one str per cell (``""`` marks the right half of a
wide character) and one interned attribute per cell. Rows that scroll off the top go into the
scrollback either as a ``Line`` or, for plain default-styled text pushed by the bulk path, as a
bare ``str`` (cheap to keep by the thousand). Every operation records the rows it touched in
``dirty`` so a renderer repaints only those.
"""

from __future__ import annotations

from collections import deque

from primetui.shell.term.attrs import DEFAULT, DEFAULT_COLOR, Attr, attr
from primetui.shell.term.charwidth import char_width
from primetui.shell.term.line import LazyLine, Line, is_blank_row, entry_runs, entry_text

__all__ = ["DEC_GRAPHICS", "LazyLine", "Line", "SavedCursor", "Screen", "entry_runs", "entry_text"]

HistoryEntry = "Line | str"

# DEC special graphics (ESC ( 0): the line-drawing set curses uses for boxes.
DEC_GRAPHICS = str.maketrans(
    {
        "`": "◆",
        "a": "▒",
        "b": "␉",
        "c": "␌",
        "d": "␍",
        "e": "␊",
        "f": "°",
        "g": "±",
        "h": "␤",
        "i": "␋",
        "j": "┘",
        "k": "┐",
        "l": "┌",
        "m": "└",
        "n": "┼",
        "o": "⎺",
        "p": "⎻",
        "q": "─",
        "r": "⎼",
        "s": "⎽",
        "t": "├",
        "u": "┤",
        "v": "┴",
        "w": "┬",
        "x": "│",
        "y": "≤",
        "z": "≥",
        "{": "π",
        "|": "≠",
        "}": "£",
        "~": "·",
    }
)


class SavedCursor:
    __slots__ = ("x", "y", "attr", "pending_wrap", "origin", "g0", "g1", "shift_out")

    def __init__(self, x: int = 0, y: int = 0, style: Attr = DEFAULT) -> None:
        self.x, self.y, self.attr = x, y, style
        self.pending_wrap = False
        self.origin = False
        self.g0 = self.g1 = "B"
        self.shift_out = False


class Screen:
    """Terminal state and the operations escape sequences map to (no parsing here)."""

    def __init__(self, cols: int = 80, rows: int = 24, scrollback: int = 10_000) -> None:
        self.cols = max(1, cols)
        self.rows = max(1, rows)
        self.scrollback: deque[Line | str] = deque(maxlen=max(0, scrollback))
        self.dirty: set[int] = set()
        self.replies: list[str] = []  # answers to the program's queries (DA, DSR, ...), to send back
        self.clipboard: list[str] = []  # text the program asked to copy (OSC 52), oldest first
        self.title = ""
        self.bell = 0
        self.history_pushed = 0  # lines ever pushed to scrollback (keeps a scrolled-back view steady)
        self.reset()

    # -- state -------------------------------------------------------------------------------
    def reset(self) -> None:
        """Full reset (RIS): blank screen, home cursor, default modes. Scrollback is kept."""
        self.lines: list[Line] = [Line(self.cols) for _ in range(self.rows)]
        self._main_lines: list[Line] | None = None
        self._alt_lines: list[Line] | None = None
        self.x = self.y = 0
        self.pending_wrap = False
        self.attr: Attr = DEFAULT
        self.top, self.bottom = 0, self.rows - 1
        self.insert_mode = False
        self.autowrap = True
        self.origin_mode = False
        self.newline_mode = False
        self.app_cursor = False
        self.app_keypad = False
        self.cursor_visible = True
        self.alt_screen = False
        self.mouse_mode = 0  # 0 off, 9 X10, 1000 press/release, 1002 +drag, 1003 any motion
        self.mouse_encoding = ""  # "" classic, "sgr" (1006), "utf8" (1005), "urxvt" (1015)
        self.bracketed_paste = False
        self.focus_events = False
        self.synchronized = False
        self.g0 = self.g1 = "B"
        self.shift_out = False
        self._saved = SavedCursor()
        self._saved_alt = SavedCursor()
        self.tabstops = set(range(8, self.cols, 8))
        self.mark_all_dirty()

    def mark_all_dirty(self) -> None:
        self.dirty.update(range(self.rows))

    def take_dirty(self) -> set[int]:
        """The rows changed since the last call (and forget them)."""
        d, self.dirty = self.dirty, set()
        return d

    def take_replies(self) -> str:
        out = "".join(self.replies)
        self.replies.clear()
        return out

    @property
    def fill(self) -> Attr:
        """Attribute for erased cells: the current background only (xterm's bce)."""
        bg = self.attr[1]
        return DEFAULT if bg == DEFAULT_COLOR else attr(DEFAULT_COLOR, bg, 0)

    def blank_line(self) -> Line:
        return Line(self.cols, self.fill)

    @property
    def charset(self) -> str:
        return self.g1 if self.shift_out else self.g0

    # -- text ----------------------------------------------------------------------------------
    def draw(self, text: str) -> None:
        """Draw printable text at the cursor (wide and combining characters handled)."""
        if self.charset == "0":
            text = text.translate(DEC_GRAPHICS)
        if text.isascii():
            self.draw_narrow(text)
            return
        from primetui.shell.term.charwidth import NARROW_RUN

        pos = 0
        for m in NARROW_RUN.finditer(text):
            if m.start() > pos:
                self._draw_chars(text[pos : m.start()])
            self.draw_narrow(m.group())
            pos = m.end()
        if pos < len(text):
            self._draw_chars(text[pos:])

    def draw_narrow(self, text: str) -> None:
        """Draw text whose characters are all one cell wide, a row-slice at a time."""
        cols = self.cols
        n = len(text)
        pos = 0
        style = self.attr
        while pos < n:
            if self.pending_wrap:
                self.pending_wrap = False
                if self.autowrap:
                    self.lines[self.y].wrapped = True
                    self.index()
                    self.x = 0
            x = self.x
            line = self.lines[self.y]
            room = cols - x
            if not self.autowrap and n - pos > room:
                # Without autowrap the last column is overwritten by every further character.
                chunk = text[pos : pos + room - 1] + text[n - 1]
                pos = n
            else:
                chunk = text[pos : pos + room] if (pos or n > room) else text
                pos += len(chunk)
            k = len(chunk)
            chars = line.chars
            if x and chars[x] == "":
                chars[x - 1] = " "  # overwrote the right half of a wide character
            if self.insert_mode:
                chars[x:x] = chunk
                del chars[cols:]
                line.attrs[x:x] = [style] * k
                del line.attrs[cols:]
            else:
                chars[x : x + k] = chunk
                line.attrs[x : x + k] = [style] * k
                if x + k < cols and chars[x + k] == "":
                    chars[x + k] = " "  # overwrote the left half of a wide character
            self.dirty.add(self.y)
            if x + k >= cols:
                self.x = cols - 1
                self.pending_wrap = True
            else:
                self.x = x + k

    def _draw_chars(self, text: str) -> None:
        cols = self.cols
        for ch in text:
            w = char_width(ch)
            if w == 0:
                # Combining mark: joins the previous cell's character.
                x = self.x if self.pending_wrap else self.x - 1
                line = self.lines[self.y]
                if x >= 0:
                    if line.chars[x] == "" and x > 0:
                        x -= 1
                    line.chars[x] += ch
                    self.dirty.add(self.y)
                continue
            if self.pending_wrap or (w == 2 and self.x == cols - 1 and self.autowrap):
                self.pending_wrap = False
                if self.autowrap:
                    self.lines[self.y].wrapped = True
                    self.index()
                    self.x = 0
            if w == 2 and cols < 2:
                continue
            x = min(self.x, cols - w)
            line = self.lines[self.y]
            if self.insert_mode:
                self.insert_chars(w)
            if x and line.chars[x] == "":
                line.chars[x - 1] = " "
            line.chars[x] = ch
            line.attrs[x] = self.attr
            if w == 2:
                line.chars[x + 1] = ""
                line.attrs[x + 1] = self.attr
            if x + w < cols and line.chars[x + w] == "":
                line.chars[x + w] = " "
            self.dirty.add(self.y)
            if x + w >= cols:
                self.x = cols - 1
                self.pending_wrap = True
            else:
                self.x = x + w

    def repeat_last(self, n: int) -> None:
        """REP: repeat the character left of the cursor ``n`` times."""
        x = self.x if self.pending_wrap else self.x - 1
        if x >= 0:
            ch = self.lines[self.y].chars[x] or " "
            self.draw(ch * min(n, self.cols * self.rows))

    # -- cursor movement -------------------------------------------------------------------------
    def carriage_return(self) -> None:
        self.x = 0
        self.pending_wrap = False

    def backspace(self) -> None:
        if self.x > 0 and not self.pending_wrap:
            self.x -= 1
        self.pending_wrap = False

    def tab(self, n: int = 1) -> None:
        for _ in range(n):
            nxt = [t for t in self.tabstops if t > self.x]
            self.x = min(nxt) if nxt else self.cols - 1
        self.pending_wrap = False

    def back_tab(self, n: int = 1) -> None:
        for _ in range(n):
            prv = [t for t in self.tabstops if t < self.x]
            self.x = max(prv) if prv else 0
        self.pending_wrap = False

    def set_tabstop(self) -> None:
        self.tabstops.add(self.x)

    def clear_tabstop(self, mode: int) -> None:
        if mode == 0:
            self.tabstops.discard(self.x)
        elif mode == 3:
            self.tabstops.clear()

    def linefeed(self) -> None:
        self.index()
        if self.newline_mode:
            self.x = 0

    def index(self) -> None:
        """IND: down one row, scrolling the region at its bottom."""
        self.pending_wrap = False
        if self.y == self.bottom:
            self.scroll_up(1)
        elif self.y < self.rows - 1:
            self.y += 1

    def reverse_index(self) -> None:
        """RI: up one row, scrolling the region down at its top."""
        self.pending_wrap = False
        if self.y == self.top:
            self.scroll_down(1)
        elif self.y > 0:
            self.y -= 1

    def move_to(self, x: int, y: int) -> None:
        """CUP with 0-based coordinates (relative to the region in origin mode)."""
        if self.origin_mode:
            y += self.top
            self.y = max(self.top, min(self.bottom, y))
        else:
            self.y = max(0, min(self.rows - 1, y))
        self.x = max(0, min(self.cols - 1, x))
        self.pending_wrap = False

    def move_rel(self, dx: int = 0, dy: int = 0) -> None:
        """Relative moves (CUU/CUD/CUF/CUB) stop at the scroll margins when inside them."""
        if dy:
            y = self.y + dy
            if self.top <= self.y <= self.bottom:
                y = max(self.top, min(self.bottom, y))
            self.y = max(0, min(self.rows - 1, y))
        if dx:
            self.x = max(0, min(self.cols - 1, self.x + dx))
        self.pending_wrap = False

    def set_column(self, x: int) -> None:
        self.x = max(0, min(self.cols - 1, x))
        self.pending_wrap = False

    def set_row(self, y: int) -> None:
        self.move_to(self.x, y)

    def save_cursor(self) -> None:
        s = self._saved_alt if self.alt_screen else self._saved
        s.x, s.y, s.attr, s.pending_wrap = self.x, self.y, self.attr, self.pending_wrap
        s.origin, s.g0, s.g1, s.shift_out = self.origin_mode, self.g0, self.g1, self.shift_out

    def restore_cursor(self) -> None:
        s = self._saved_alt if self.alt_screen else self._saved
        self.x, self.y = min(s.x, self.cols - 1), min(s.y, self.rows - 1)
        self.attr, self.pending_wrap = s.attr, s.pending_wrap
        self.origin_mode, self.g0, self.g1, self.shift_out = s.origin, s.g0, s.g1, s.shift_out

    def set_margins(self, top: int, bottom: int) -> None:
        """DECSTBM with 0-based inclusive rows; invalid regions are ignored like xterm does."""
        bottom = min(bottom, self.rows - 1)
        if 0 <= top < bottom:
            self.top, self.bottom = top, bottom
            self.move_to(0, 0)

    # -- scrolling -------------------------------------------------------------------------------
    def _push_history(self, lines: list[Line]) -> None:
        if self.alt_screen or self.top != 0 or not self.scrollback.maxlen:
            return
        self.scrollback.extend(lines)
        self.history_pushed += len(lines)

    def scroll_up(self, n: int = 1) -> None:
        """SU: the region moves up ``n`` rows; rows leaving the top of the screen go to scrollback."""
        top, bottom = self.top, self.bottom
        n = max(0, min(n, bottom - top + 1))
        if not n:
            return
        gone = self.lines[top : top + n]
        self._push_history(gone)
        del self.lines[top : top + n]
        for _ in range(n):
            self.lines.insert(bottom - n + 1, self.blank_line())
        self.dirty.update(range(top, bottom + 1))

    def scroll_down(self, n: int = 1) -> None:
        """SD: the region moves down ``n`` rows, blank rows appear at its top."""
        top, bottom = self.top, self.bottom
        n = max(0, min(n, bottom - top + 1))
        if not n:
            return
        del self.lines[bottom - n + 1 : bottom + 1]
        for _ in range(n):
            self.lines.insert(top, self.blank_line())
        self.dirty.update(range(top, bottom + 1))

    def insert_lines(self, n: int) -> None:
        """IL: blank rows at the cursor row, pushing the region below it down."""
        if not self.top <= self.y <= self.bottom:
            return
        saved_top, self.top = self.top, self.y
        self.scroll_down(n)
        self.top = saved_top
        self.x = 0
        self.pending_wrap = False

    def delete_lines(self, n: int) -> None:
        """DL: remove rows at the cursor row, pulling the region below it up."""
        if not self.top <= self.y <= self.bottom:
            return
        saved_top, self.top = self.top, self.y
        n = max(0, min(n, self.bottom - self.y + 1))
        del self.lines[self.y : self.y + n]
        for _ in range(n):
            self.lines.insert(self.bottom - n + 1, self.blank_line())
        self.dirty.update(range(self.y, self.bottom + 1))
        self.top = saved_top
        self.x = 0
        self.pending_wrap = False

    # -- erasing -----------------------------------------------------------------------------------
    def _erase(self, line: Line, start: int, end: int) -> None:
        start, end = max(0, start), min(self.cols, end)
        if start >= end:
            return
        if start and line.chars[start] == "":
            line.chars[start - 1] = " "
        if end < self.cols and line.chars[end] == "":
            line.chars[end] = " "
        line.chars[start:end] = " " * (end - start)
        line.attrs[start:end] = [self.fill] * (end - start)

    def erase_in_line(self, mode: int = 0) -> None:
        line = self.lines[self.y]
        if mode == 0:
            self._erase(line, self.x, self.cols)
        elif mode == 1:
            self._erase(line, 0, self.x + 1)
        elif mode == 2:
            self._erase(line, 0, self.cols)
        line.wrapped = False if mode != 1 else line.wrapped
        self.dirty.add(self.y)

    def erase_in_display(self, mode: int = 0) -> None:
        if mode == 0:
            self.erase_in_line(0)
            rows = range(self.y + 1, self.rows)
        elif mode == 1:
            self.erase_in_line(1)
            rows = range(0, self.y)
        elif mode == 2:
            rows = range(self.rows)
        elif mode == 3:
            self.scrollback.clear()
            return
        else:
            return
        for r in rows:
            self.lines[r] = self.blank_line()
            self.dirty.add(r)

    def erase_chars(self, n: int) -> None:
        """ECH: blank ``n`` cells from the cursor without moving anything."""
        self._erase(self.lines[self.y], self.x, self.x + max(1, n))
        self.dirty.add(self.y)
        self.pending_wrap = False

    def insert_chars(self, n: int) -> None:
        """ICH: open ``n`` blank cells at the cursor, shifting the rest of the row right."""
        line = self.lines[self.y]
        n = max(1, min(n, self.cols - self.x))
        line.chars[self.x : self.x] = " " * n
        line.attrs[self.x : self.x] = [self.fill] * n
        del line.chars[self.cols :]
        del line.attrs[self.cols :]
        self.dirty.add(self.y)
        self.pending_wrap = False

    def delete_chars(self, n: int) -> None:
        """DCH: remove ``n`` cells at the cursor, shifting the rest left and blank-filling the end."""
        line = self.lines[self.y]
        n = max(1, min(n, self.cols - self.x))
        del line.chars[self.x : self.x + n]
        del line.attrs[self.x : self.x + n]
        line.chars.extend(" " * n)
        line.attrs.extend([self.fill] * n)
        self.dirty.add(self.y)
        self.pending_wrap = False

    def alignment_test(self) -> None:
        """DECALN: fill the screen with E."""
        for r in range(self.rows):
            line = Line(self.cols)
            line.chars = ["E"] * self.cols
            self.lines[r] = line
        self.top, self.bottom = 0, self.rows - 1
        self.move_to(0, 0)
        self.mark_all_dirty()

    # -- alternate screen --------------------------------------------------------------------------
    def enter_alt_screen(self, clear: bool) -> None:
        if self.alt_screen:
            if clear:
                self.lines = [Line(self.cols) for _ in range(self.rows)]
                self.mark_all_dirty()
            return
        self._main_lines = self.lines
        if clear or self._alt_lines is None:
            self._alt_lines = [Line(self.cols) for _ in range(self.rows)]
        self.lines = self._alt_lines
        self.alt_screen = True
        self.mark_all_dirty()

    def leave_alt_screen(self, clear: bool = False) -> None:
        if not self.alt_screen:
            return
        if clear:
            self._alt_lines = [Line(self.cols) for _ in range(self.rows)]
        else:
            self._alt_lines = self.lines
        self.lines = self._main_lines or [Line(self.cols) for _ in range(self.rows)]
        self._main_lines = None
        self.alt_screen = False
        self.mark_all_dirty()

    # -- size ------------------------------------------------------------------------------------------
    def resize(self, cols: int, rows: int) -> None:
        """New size, as tmux does it. A new width rewraps the main screen and its scrollback
        (soft-wrapped rows join and split again, so narrowing never cuts text for good); the
        alternate screen, which its program redraws, is cut or padded. Then the main screen's rows
        above its cursor go to scrollback when it shrinks and come back from scrollback when it
        grows. With a full-screen program on the alternate screen, the main screen is kept around
        its saved cursor (the shell's prompt), so the lines above the prompt are there when the
        program exits."""
        cols, rows = max(1, cols), max(1, rows)
        if (cols, rows) == (self.cols, self.rows):
            return
        if cols != self.cols:
            self._rewrap_main(cols)
        buffers = [self.lines]
        if self._main_lines is not None:
            buffers.append(self._main_lines)
        if self._alt_lines is not None and self._alt_lines is not self.lines:
            buffers.append(self._alt_lines)
        for buf in buffers:
            for line in buf:
                line.resize(cols)
        self.cols = cols
        for buf in buffers:
            self._fit_height(buf, rows, cols)
        self.rows = rows
        self._clamp_to_size(cols, rows)

    def _fit_height(self, buf: list[Line], rows: int, cols: int) -> None:
        """Give one screen buffer ``rows`` rows, keeping its cursor row on screen."""
        is_active = buf is self.lines
        is_main = (buf is self.lines and not self.alt_screen) or buf is self._main_lines
        # The row to keep on screen: the cursor, or for the main screen behind a full-screen
        # program, the cursor saved on entering it (DECSC / mode 1049).
        cursor_y = self.y if is_active else (self._saved.y if is_main else None)
        if len(buf) > rows:
            self._shrink_height(buf, rows, is_active, is_main, cursor_y)
        elif len(buf) < rows and is_main and self.scrollback:
            back = self._pull_history(min(rows - len(buf), len(self.scrollback)), cols)
            buf[:0] = back
            if is_active:
                self.y += len(back)
            else:
                self._saved.y += len(back)
        while len(buf) < rows:
            buf.append(Line(cols))

    def _shrink_height(self, buf: list[Line], rows: int, is_active: bool, is_main: bool, cursor_y: int | None) -> None:
        excess = len(buf) - rows
        if is_main and cursor_y is not None:
            # As tmux: empty rows below the cursor go first, then rows from the top go to
            # the scrollback (the cursor moves up with the text); only what is still too
            # much is cut from below.
            empty = 0
            while empty < excess and len(buf) - 1 - empty > cursor_y and is_blank_row(buf[len(buf) - 1 - empty]):
                empty += 1
            del buf[len(buf) - empty :]
            excess -= empty
            from_top = min(excess, cursor_y)
        else:
            # Keep the cursor row on screen: drop rows from the top, at most as many as
            # the cursor is below the new bottom; the rest are cut from below.
            from_top = excess if cursor_y is None else max(0, min(excess, cursor_y - rows + 1))
        if from_top:
            if is_main and self.scrollback.maxlen:
                self.scrollback.extend(buf[:from_top])
                self.history_pushed += from_top
            del buf[:from_top]
            if is_active:
                self.y -= from_top
            elif is_main:
                self._saved.y -= from_top
        del buf[rows:]

    def _clamp_to_size(self, cols: int, rows: int) -> None:
        """Margins, cursors and tab stops inside the new size; every row to redraw."""
        self.top, self.bottom = 0, rows - 1
        self.x = min(self.x, cols - 1)
        self.y = max(0, min(self.y, rows - 1))
        self.pending_wrap = False
        kept = {t for t in self.tabstops if t < cols}
        self.tabstops = kept | set(range(8 * ((max(self.tabstops, default=0) // 8) + 1), cols, 8))
        for s in (self._saved, self._saved_alt):
            s.x, s.y = min(s.x, cols - 1), min(s.y, rows - 1)
        self.dirty = set(range(rows))

    def _rewrap_main(self, cols: int) -> None:
        """Lay the scrollback and the main screen out again at ``cols`` (see :mod:`.reflow`)."""
        from primetui.shell.term.reflow import reflow

        main = self._main_lines if self.alt_screen else self.lines
        if main is None:
            return
        history = list(self.scrollback)
        h = len(history)
        saved = self._saved
        cursor = (saved.y, saved.x) if self.alt_screen else (self.y, self.x)
        marks = [(h + cursor[0], cursor[1]), (h + saved.y, saved.x)]
        rows, (cur, sav) = reflow([*history, *main], cols, marks)
        # As tmux: the screen is the last rows of it all, so the rows below the cursor stay as
        # many as they were and the cursor keeps its distance from the bottom; the cursor's row
        # is never left above the screen.
        start = min(max(0, len(rows) - len(main)), cur[0])
        rows.extend(Line(cols) for _ in range(len(main) - (len(rows) - start)))
        self.scrollback.clear()
        self.scrollback.extend(rows[:start])
        self.history_pushed += start - h
        # Plain-text rows of the scrollback that land on the screen (it grew back over them) become rows.
        main[:] = [Line.from_text(r[:cols], cols, DEFAULT, DEFAULT) if isinstance(r, str) else r for r in rows[start:]]
        if self.alt_screen:
            saved.y, saved.x = cur[0] - start, cur[1]
        else:
            self.y, self.x = cur[0] - start, cur[1]
            saved.y, saved.x = max(0, sav[0] - start), sav[1]
        self.cols = cols

    def _pull_history(self, n: int, cols: int) -> list[Line]:
        """Take the newest ``n`` scrollback rows back onto the screen (oldest first)."""
        back: list[Line] = []
        for _ in range(n):
            entry = self.scrollback.pop()
            if isinstance(entry, str):
                entry = Line.from_text(entry[:cols], cols, DEFAULT, DEFAULT)
            else:
                entry.resize(cols)
            back.append(entry)
        back.reverse()
        self.history_pushed -= n
        return back

    # -- reading ---------------------------------------------------------------------------------------
    def display(self) -> list[str]:
        """The visible rows as text, padded to the width (wide characters keep their two cells)."""
        return ["".join(c if c else "" for c in line.chars) for line in self.lines]

    def text_lines(self) -> list[str]:
        """Visible rows, trailing blanks removed."""
        return [line.text() for line in self.lines]

    def history_text(self) -> list[str]:
        """Scrollback then screen, as text, oldest first."""
        return [entry_text(e) for e in self.scrollback] + self.text_lines()

    @property
    def cursor(self) -> tuple[int, int]:
        """Where the cursor is drawn (column, row)."""
        return self.x, self.y
