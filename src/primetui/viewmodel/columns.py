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
