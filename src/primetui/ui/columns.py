"""Fill a DataTable with the columns that fit the terminal; ``primetui.viewmodel.columns`` decides which."""

from __future__ import annotations

from collections.abc import Sequence

from primetui.ui.widgets import content_key
from primetui.viewmodel.columns import fit, widest


def fill_table(
    table,
    columns: Sequence[tuple[str, str]],
    priority: Sequence[str],
    rows: Sequence[tuple[str, dict[str, object]]],
    room: int | None = None,
) -> int:
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
