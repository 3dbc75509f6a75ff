"""Only the cells that changed go to the terminal: Textual's frames diffed against what the terminal shows.

Textual repaints a widget's whole region whenever the widget refreshes, and a screen switch repaints
every line, whether or not the cells differ from what is already on the terminal; each segment carries
its full SGR and a reset. On a fast terminal that costs nothing; through a 1,200 B/s link a repaint of
an 80x24 screen (about 12 kB) takes 10 s, and a chart that redraws identical content each second keeps
the link full.

``FrameDiff`` keeps a copy of the screen as the terminal has been told to draw it (a character and
its SGR per cell) and rewrites each frame into the cells that differ from it: a cursor move where
it skips, an SGR only where the style changes. The result draws exactly what the frame would have.

It reads the vocabulary Textual's frames use: cursor moves (``CSI row;col H``), SGR, ``\\r\\n`` and
text. Mode switches that do not touch cells (cursor shown or hidden, synchronised output, mouse and
paste modes, the output gate's cursor position question) go through in place. Anything else (a
clear, the alternate screen, a control character, an OSC 8 link) makes the copy unknown and the
write goes out unchanged: unknown cells are always written, so the next frames draw them again.
A change of the terminal's size does the same.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from functools import lru_cache

from rich.cells import get_character_cell_size

_TOKEN = re.compile(
    r"\x1b\[(?P<row>\d+);(?P<col>\d+)H"
    r"|\x1b\[(?P<sgr>[\d;]*)m"
    r"|(?P<nl>\r?\n)"
    r"|(?P<csi>\x1b\[[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e])"
    r"|(?P<osc>\x1b\][^\x07\x1b]*(?:\x07|\x1b\\))"
    r"|(?P<text>[^\x00-\x1f\x7f]+)"
    r"|(?P<other>[\x00-\x1f\x7f])",
)
HARMLESS_CSI = re.compile(
    r"\x1b\[(?:\?(?:25|2026|1000|1002|1003|1004|1006|1015|1016|2004)[hl]|6n|>1u|<u|=\d+;\d+u|\?u)\Z"
)
"""Mode switches that change no cell (cursor, synchronised output, mouse, focus, paste, keys, the probe)."""
HARMLESS_OSC = re.compile(r"\x1b\](?:0|1|2|22);")
"""Window title and pointer shape."""

ERASE_AT_LEAST = 4
"""Blanks to a line's end written as one erase (3 bytes) rather than one by one."""
ERASE_CELLS_AT_LEAST = 12
"""Blanks inside a line written as one erase of so many cells and a cursor move (about 10 bytes)."""
UNKNOWN = None
TAIL = ("", "")
"""The right half of a wide character."""
Cell = tuple[str, str]
SHORT_GAP = 5
"""Unchanged cells written again rather than skipped with a cursor move (which costs 6 to 8 bytes)."""


class FrameDiff:
    """The terminal's screen as drawn so far, and each write rewritten into what changed."""

    def __init__(self, size: Callable[[], tuple[int, int]] | None = None, erase: bool = False) -> None:
        self.size = size
        self.erase = erase
        """The terminal erases in the current background (terminfo ``bce``): blank line ends go as one erase."""
        """(columns, rows) of the terminal, asked at each write: a new size forgets the screen."""
        self._size: tuple[int, int] | None = None
        self.rows: dict[int, list[Cell | None]] = {}
        self.written = 0
        """Characters of frames as Textual wrote them."""
        self.sent = 0
        """Characters after the diff."""

    def forget(self) -> None:
        """The terminal's screen is unknown: every cell is written again."""
        self.rows = {}

    def _row(self, y: int) -> list[Cell | None]:
        row = self.rows.get(y)
        if row is None:
            row = self.rows[y] = []
        return row

    def _check_size(self) -> None:
        if self.size is None:
            return
        try:
            now = self.size()
        except OSError:
            now = None
        if now != self._size:
            self._size = now
            self.forget()

    def __call__(self, text: str) -> str:
        """``text`` as it should go to the terminal: the cells that differ from what it shows."""
        self._check_size()
        self.written += len(text)
        try:
            ops = self._parse(text)
            out = text if ops is None else self._emit(ops)
        except Exception:  # never in the way of a frame: it goes out whole, and the screen is unknown
            self.forget()
            out = text
        self.sent += len(out)
        return out

    def _parse(self, text: str) -> list[tuple] | None:
        """Cells ((y, x, char, sgr)) and pass-through sequences in order, or None (the screen is now unknown)."""
        ops: list[tuple] = []
        y = x = 0
        sgr = ""
        moved = False
        for m in _TOKEN.finditer(text):
            kind = m.lastgroup
            if kind == "text":
                x = _cells(ops, m.group(), y, x, sgr)
                if x < 0:
                    self.forget()
                    return None
            elif kind == "col":  # the cursor move (its last group)
                y, x, moved = int(m.group("row")) - 1, int(m.group("col")) - 1, True
            elif kind == "sgr":
                sgr = _apply_sgr(sgr, m.group("sgr"))
            elif kind == "nl":  # Textual follows it with a cursor move
                y, x = y + 1, 0 if m.group().startswith("\r") else x
            elif kind == "csi" and HARMLESS_CSI.match(m.group()):
                ops.append(("raw", m.group()))
            elif kind == "osc" and HARMLESS_OSC.match(m.group()):
                ops.append(("raw", m.group()))
            else:
                self.forget()
                return None
        if any(op[0] == "cell" for op in ops) and not moved:
            self.forget()  # text at a cursor we did not place
            return None
        ops.append(("end", y, x, moved))
        return ops

    def _emit(self, ops: list[tuple]) -> str:
        out: list[str] = []
        self._at: tuple[int, int] | None = None
        self._style: str | None = None
        i = 0
        while i < len(ops):
            kind = ops[i][0]
            if kind == "cell":
                i = self._cell(ops, i, out)
                continue
            if kind == "raw":
                out.append(ops[i][1])
            else:
                self._end(ops[i], out)
            i += 1
        return "".join(out)

    def _end(self, op: tuple, out: list[str]) -> None:
        _, y, x, moved = op
        if self._style:
            out.append("\x1b[0m")
        if moved and self._at != (y, x):
            out.append(f"\x1b[{y + 1};{x + 1}H")

    def _cell(self, ops: list[tuple], i: int, out: list[str]) -> int:
        """Write the cell ``ops[i]`` if it changed (with the blanks after it, to the line's end, in one erase)."""
        _, y, x, ch, sgr, width = ops[i]
        row = self._row(y)
        if len(row) < x + width:
            row.extend([UNKNOWN] * (x + width - len(row)))
        cell = (ch, sgr)
        if row[x] == cell and (width == 1 or row[x + 1] == TAIL):
            return i + 1
        if self._at != (y, x):
            out.append(self._gap(row, self._at, y, x, self._style) or move(self._at, y, x))
        if sgr != self._style and not (ch == " " and self._style is not None and blank_style(self._style) == sgr):
            out.append(sgr_change(self._style, sgr))
            self._style = sgr
        end, to_edge = self._blank_run(ops, i)
        if end:  # erased in the current background: to the line's end, or so many cells
            out.append("\x1b[K" if to_edge else f"\x1b[{end - i}X")
            if len(row) < x + end - i:
                row.extend([UNKNOWN] * (x + end - i - len(row)))
            for j in range(i, end):
                self._place(row, ops[j][2], cell, 1)
            self._at = (y, x)  # an erase does not move the cursor
            return end
        out.append(ch)
        self._place(row, x, cell, width)
        self._at = (y, x + width)
        return i + 1

    def _blank_run(self, ops: list[tuple], i: int) -> tuple[int, bool]:
        """(the index past a run of blanks of one style from ``ops[i]``, whether it reaches the right edge) when
        the run is worth an erase, or (0, False) (or the terminal does not erase in the current background)."""
        _, y, x, ch, sgr, _width = ops[i]
        if not self.erase or self._size is None or ch != " " or not plain_background(sgr):
            return 0, False
        j = i
        while j < len(ops) and ops[j][0] == "cell" and ops[j][1:5] == ("cell", y, x + j - i, " ", sgr)[1:]:
            j += 1
        run = j - i
        if x + run == self._size[0] and run >= ERASE_AT_LEAST:
            return j, True
        return (j, False) if run >= ERASE_CELLS_AT_LEAST else (0, False)

    @staticmethod
    def _gap(row: list[Cell | None], at: tuple[int, int] | None, y: int, x: int, style: str | None) -> str:
        """The few unchanged cells between the cursor and ``x`` written again, when cheaper than a cursor move."""
        if at is None or at[0] != y or not 0 < x - at[1] <= SHORT_GAP:
            return ""
        cells = row[at[1] : x]
        if style is None or any(c is None or c == TAIL or len(c[0]) != 1 or not shows(c, style) for c in cells):
            return ""
        return "".join(c[0] for c in cells if c is not None)

    @staticmethod
    def _place(row: list[Cell | None], x: int, cell: Cell, width: int) -> None:
        if row[x] == TAIL and x > 0:
            row[x - 1] = UNKNOWN  # the wide character this overwrote half of is gone
        if x + width < len(row) and row[x + width] == TAIL:
            row[x + width] = UNKNOWN  # the tail of a wide character that started here
        row[x] = cell
        if width == 2:
            row[x + 1] = TAIL


def _cells(ops: list[tuple], text: str, y: int, x: int, sgr: str) -> int:
    """Append ``text``'s cells from column ``x`` of row ``y`` to ``ops``; the column after them (-1: a
    combining character with no cell before it)."""
    for ch in text:
        width = get_character_cell_size(ch)
        if width == 0:  # combines with the cell before it
            if not ops or ops[-1][0] != "cell":
                return -1
            _, cy, cx, prev, psgr, pw = ops[-1]
            ops[-1] = ("cell", cy, cx, prev + ch, psgr, pw)
            continue
        ops.append(("cell", y, x, ch, blank_style(sgr) if ch == " " else sgr, width))
        x += width
    return x


def move(at: tuple[int, int] | None, y: int, x: int) -> str:
    """The shortest of the cursor moves from ``at`` (None: unknown) to row ``y``, column ``x`` (0-based)."""
    if at is not None:
        if at[0] == y and x > at[1]:
            return f"\x1b[{x - at[1]}C" if x - at[1] > 1 else "\x1b[C"
        if x == 0 and at[0] == y:
            return "\r"
        if x == 0 and at[0] + 1 == y:
            return "\r\n"  # never past the last row: ``y`` is a row the frame draws on
    return f"\x1b[{y + 1};{x + 1}H"


_OFF = {"1": "22", "2": "22", "3": "23", "4": "24", "5": "25", "7": "27", "8": "28", "9": "29", "21": "24", "53": "55"}


def _parts(sgr: str) -> tuple[set[str], str, str, str]:
    """An SGR's attributes, foreground, background and underline colour ("" when the default)."""
    params = sgr.split(";") if sgr else []
    attrs: set[str] = set()
    colours = {"38": "", "48": "", "58": ""}
    i = 0
    while i < len(params):
        p = params[i]
        if p in colours:
            n = 3 if params[i + 1 : i + 2] == ["5"] else 5
            colours[p] = ";".join(params[i : i + n])
            i += n
            continue
        if p in ("39", "49", "59"):
            colours[str(int(p) - 1)] = ""
        elif p != "0":
            attrs.add(p)
        i += 1
    return attrs, colours["38"], colours["48"], colours["58"]


def sgr_change(old: str | None, new: str) -> str:
    """The shorter SGR that turns ``old`` (None: unknown) into ``new``: a reset and ``new``, or what differs."""
    full = f"\x1b[0;{new}m" if new else "\x1b[0m"
    if old is None or not new:
        return full
    (a0, fg0, bg0, ul0), (a1, fg1, bg1, ul1) = _parts(old), _parts(new)
    dropped = a0 - a1
    if any(a not in _OFF for a in dropped):
        return full
    codes = sorted({_OFF[a] for a in dropped})
    codes += sorted(a for a in a1 if a not in a0 or _OFF.get(a) in codes)  # 22 drops bold and dim alike
    for now, before, default in ((fg1, fg0, "39"), (bg1, bg0, "49"), (ul1, ul0, "59")):
        if now != before:
            codes.append(now or default)
    delta = f"\x1b[{';'.join(codes)}m"
    return delta if len(delta) < len(full) else full


def _apply_sgr(sgr: str, params: str) -> str:
    """The SGR in force after ``params`` on top of ``sgr`` (a leading 0 resets)."""
    if params in ("", "0"):
        return ""
    if params.startswith("0;"):
        return params[2:]
    return f"{sgr};{params}" if sgr else params


@lru_cache(maxsize=256)
def blank_style(sgr: str) -> str:
    """The style a blank shows: its background alone (a foreground, bold or italic draw nothing on a blank),
    unless an underline, reverse or strike-through draws on it."""
    if not plain_background(sgr):
        return sgr
    params = sgr.split(";") if sgr else []
    i = 0
    while i < len(params):
        n = (3 if params[i + 1 : i + 2] == ["5"] else 5) if params[i] in ("38", "48", "58") else 1
        if params[i] == "48":
            return ";".join(params[i : i + n])
        i += n
    return ""


def shows(cell: Cell, style: str) -> bool:
    """Whether ``cell`` drawn in ``style`` looks as it should (a blank needs only its background)."""
    return cell[1] == (blank_style(style) if cell[0] == " " else style)


def plain_background(sgr: str) -> bool:
    """True when a blank in ``sgr`` looks like an erased cell in that background (no underline, reverse, strike)."""
    params = sgr.split(";") if sgr else []
    i = 0
    while i < len(params):
        if params[i] in ("38", "48", "58"):
            i += 3 if params[i + 1 : i + 2] == ["5"] else 5
            continue
        if params[i] in ("4", "7", "9", "21", "53"):
            return False
        i += 1
    return True


def erases_in_background(fd: int) -> bool:
    """Whether the terminal (``TERM``'s terminfo) erases in the current background colour (``bce``)."""
    try:
        import curses

        curses.setupterm(os.environ.get("TERM"), fd)
        return curses.tigetflag("bce") == 1
    except Exception:  # no terminfo, no curses: write the blanks
        return False


__all__ = ["FrameDiff", "erases_in_background"]
