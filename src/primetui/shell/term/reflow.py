"""Rewrapping rows to a new width, as tmux does on resize.

A *logical line* is a run of rows where each row but the last has ``wrapped`` set (the text
went on to the next row because it reached the right margin, not because of a newline). On a
width change its cells are laid out again at the new width: narrowing moves the tail of each
too-long line onto more rows, widening joins them back, so no text is lost either way.

Positions (the cursor, the saved cursor, the first screen row) are given as (row index, column)
in the old rows and come back as (row index, column) in the new rows.
"""

from __future__ import annotations

from primetui.shell.term.attrs import DEFAULT, Attr
from primetui.shell.term.charwidth import char_width
from primetui.shell.term.line import LazyLine, Line

Entry = "Line | str"


def _is_wrapped(entry: Line | str) -> bool:
    return not isinstance(entry, str) and entry.wrapped


def _fits(entry: Line | str, cols: int) -> bool:
    """True when the row's text (trailing blanks aside) fits in ``cols`` cells unchanged."""
    if isinstance(entry, str):
        return len(entry) <= cols
    if isinstance(entry, LazyLine) and entry._text is not None:
        return len(entry._text.rstrip(" ")) <= cols
    chars = entry.chars
    extra = len(chars) - cols
    return extra <= 0 or chars[cols:].count(" ") == extra


def _cells(entry: Line | str) -> tuple[list[str], list[Attr]]:
    """The row's cells (its own lists: callers only read or slice them)."""
    if isinstance(entry, str):
        return list(entry), [DEFAULT] * len(entry)
    return entry.chars, entry.attrs


def _starts_wide(entry: Line | str) -> bool:
    first = entry[:1] if isinstance(entry, str) else entry.chars[0]
    return bool(first) and char_width(first[0]) == 2


def _fit_row(entry: Line | str, cols: int) -> Line | str:
    if isinstance(entry, str):
        return entry
    entry.resize(cols)
    return entry


def _content_length(chars: list[str], attrs: list[Attr]) -> int:
    """Cells up to the last one that shows something (a blank with no background is nothing)."""
    n = len(chars)
    joined = "".join(chars)
    if len(joined) == n:  # one character per cell (no wide or combined ones): let C find the end
        text_end = len(joined.rstrip(" "))
        if all(a[1] == -1 and not a[2] for a in set(attrs[text_end:])):
            return text_end
    while n and chars[n - 1] == " " and attrs[n - 1][1] == -1 and not attrs[n - 1][2]:
        n -= 1
    return n


def _new_row(chars: list[str], attrs: list[Attr], cols: int, wrapped: bool) -> Line:
    line = Line.__new__(Line)
    pad = cols - len(chars)
    if pad > 0:
        chars = chars + [" "] * pad
        attrs = attrs + [DEFAULT] * pad
    line.chars, line.attrs, line.wrapped = chars, attrs, wrapped
    return line


def _rewrap(
    group: list[Line | str], cols: int, marks: list[tuple[int, int]]
) -> tuple[list[Line], list[tuple[int, int]]]:
    """Lay one logical line out at ``cols``; ``marks`` (row in the group, column) become (row, column)."""
    chars: list[str] = []
    attrs: list[Attr] = []
    row_start: list[int] = []
    for k, entry in enumerate(group[:-1]):
        c, a = _cells(entry)
        if c and c[-1] == " " and a[-1] is DEFAULT and _starts_wide(group[k + 1]):
            # The blank a wide character left at the margin when it wrapped: not text.
            c, a = c[:-1], a[:-1]
        row_start.append(len(chars))
        chars += c
        attrs += a
    row_start.append(len(chars))
    offsets = [row_start[r] + x for r, x in marks]
    c, a = _cells(group[-1])
    n = _content_length(c, a)
    chars += c[:n]
    attrs += a[:n]
    length = len(chars)
    starts: list[int] = []  # where each new row starts, in cells of the logical line
    rows: list[Line] = []
    pos = 0
    while pos < length or not rows:
        end = min(pos + cols, length)
        if end < length and chars[end] == "" and end - 1 > pos:
            end -= 1  # a wide character does not fit at the end of this row: it starts the next
        starts.append(pos)
        rows.append(_new_row(chars[pos:end], attrs[pos:end], cols, wrapped=True))
        pos = end
    placed = []
    for off in offsets:
        while off >= starts[-1] + cols:  # a cursor past the text: the line goes on in blank rows
            starts.append(starts[-1] + cols)
            rows.append(_new_row([], [], cols, wrapped=True))
        r = max(i for i, s in enumerate(starts) if s <= off)
        placed.append((r, min(off - starts[r], cols - 1)))
    rows[-1].wrapped = False
    return rows, placed


def reflow(
    entries: list[Line | str], cols: int, marks: list[tuple[int, int]]
) -> tuple[list[Line | str], list[tuple[int, int]]]:
    """``entries`` rewrapped at ``cols``, and where each mark (row, column) went."""
    wanted: dict[int, list[tuple[int, int]]] = {}
    for k, (row, x) in enumerate(marks):
        wanted.setdefault(row, []).append((k, x))
    placed: list[tuple[int, int]] = [(0, 0)] * len(marks)
    out: list[Line | str] = []
    n = len(entries)
    i = 0
    while i < n:
        j = i
        while j < n - 1 and _is_wrapped(entries[j]):
            j += 1
        if j == i and not _is_wrapped(entries[i]) and _fits(entries[i], cols):
            for k, x in wanted.get(i, ()):
                placed[k] = (len(out), min(x, cols - 1))
            out.append(_fit_row(entries[i], cols))
            i += 1
            continue
        group = entries[i : j + 1]
        in_group: list[tuple[int, int]] = []
        keys: list[int] = []
        for r in range(i, j + 1):
            for k, x in wanted.get(r, ()):
                keys.append(k)
                in_group.append((r - i, x))
        rows, where = _rewrap(group, cols, in_group)
        for k, (r, x) in zip(keys, where):
            placed[k] = (len(out) + r, x)
        out.extend(rows)
        i = j + 1
    return out, placed
