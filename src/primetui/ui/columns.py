"""Which table columns fit the terminal (k9s-like): columns have priorities, the least important
go first when the width runs out, and the table says how many it left out ("+N columns →").

Pure arithmetic on cell widths, no textual: the screens measure their cells and ask ``fit``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

CELL_PAD = 2  # a DataTable cell has one column of padding on each side


def fit(order: Sequence[str], priority: Sequence[str], widths: dict[str, int], room: int) -> tuple[list[str], int]:
    """The columns to show, in ``order``, and how many were left out.

    ``priority`` lists the keys most important first; ``widths`` is each column's widest cell
    (header included). The first column always shows, however narrow the terminal. Priorities
    hold at every width: once a column does not fit, no less important one shows in its place
    (a narrow ETA never stands where the wider Steps and Loss were left out).
    """
    chosen: set[str] = set()
    used = 0
    for key in priority:
        need = widths.get(key, 0) + CELL_PAD
        if chosen and used + need > room:
            break
        chosen.add(key)
        used += need
    shown = [k for k in order if k in chosen]
    return shown, len([k for k in order if k not in chosen])


def widest(label: str, cells: Iterable[object]) -> int:
    """The width a column needs: its header or its widest cell (Rich ``Text`` or ``str``)."""
    width = len(label)
    for cell in cells:
        n = getattr(cell, "cell_len", None)
        width = max(width, n if isinstance(n, int) else len(str(cell)))
    return width


def more_note(hidden: int) -> str:
    return f"+{hidden} column{'s' if hidden != 1 else ''} →" if hidden else ""


def fill_table(table, columns: Sequence[tuple[str, str]], priority: Sequence[str],
               rows: Sequence[tuple[str, dict[str, object]]], room: int | None = None) -> int:
    """Fill a DataTable with the columns that fit (by ``priority``) and say how many are left out.

    ``rows`` are (row key, cells by column key). When columns are left out, the last header shown
    ends with ``+N→``. Returns how many were left out. Rebuilds the columns only when they change,
    and leaves the table alone when neither they nor any cell changed.
    """
    labels = dict(columns)
    order = [k for k, _ in columns]
    widths = {k: widest(labels[k], (cells.get(k, "") for _, cells in rows)) for k in order}
    room = room if room is not None else (table.size.width or 80) - 2
    widths[order[-1]] += 4  # room for the "+N→" mark if it lands on the last column
    shown, hidden = fit(order, [k for k in priority if k in labels], widths, room)
    heads = [labels[k] for k in shown]
    if hidden:
        heads[-1] = f"{heads[-1]} +{hidden}→"
    wanted = list(zip(shown, heads))
    from primetui.ui.widgets import content_key

    # A poll that brings the same rows (the usual case) must not redraw the table.
    content = (wanted, [(row_key, tuple(content_key(cells.get(k, "")) for k in shown)) for row_key, cells in rows])
    if getattr(table, "_primetui_content", None) == content:
        return hidden
    table._primetui_content = content
    if getattr(table, "_primetui_columns", None) != wanted:
        table.clear(columns=True)
        for key, head in wanted:
            table.add_column(head, key=key)
        table._primetui_columns = wanted
    else:
        table.clear()
    for row_key, cells in rows:
        table.add_row(*[cells.get(k, "") for k in shown], key=row_key)
    return hidden
