"""The runs list over every run: rows kept between frames, the filter, and the page shown.

The list holds every run of the account (thousands), but draws one page of the filtered,
sorted rows. A key must reach the screen in well under 100 ms at 10,000 runs, so a run's
:class:`~primetui.viewmodel.present.RunRow` is built once and kept until the run, its metric
rows, or (for a run that has not ended, whose Elapsed and ETA move) the second changes.
"""

from __future__ import annotations

import math
from datetime import datetime
from typing import Any

from primetui.viewmodel import present
from primetui.viewmodel.present import RunProgress, RunRow


class RowCache:
    """``run_row`` of each run, rebuilt only when what it shows can have changed."""

    def __init__(self) -> None:
        self._rows: dict[str, tuple[tuple, RunRow]] = {}

    def rows(self, runs: list[Any], progress: dict[str, RunProgress], now: datetime) -> list[RunRow]:
        out: list[RunRow] = []
        kept: dict[str, tuple[tuple, RunRow]] = {}
        second = int(now.timestamp())
        for run in runs:
            run_id = str(present.field(run, "id"))
            prog = progress.get(run_id)
            live = present.run_status(run) not in present.TERMINAL_RUN_STATUSES
            key = (id(run), id(prog), len(prog.rows) if prog is not None else -1, second if live else 0)
            found = self._rows.get(run_id)
            if found is None or found[0] != key:
                found = (key, present.run_row(run, prog, now))
            kept[run_id] = found
            out.append(found[1])
        self._rows = kept  # runs gone from the list are forgotten
        return out


def filtered(rows: list[RunRow], query: str) -> list[RunRow]:
    """The rows the filter keeps (:func:`present.run_matches`), every row without one."""
    return [r for r in rows if present.run_matches(r, query)] if query else rows


def page_count(shown: int, size: int) -> int:
    return max(1, math.ceil(shown / size))


def page_slice(rows: list[RunRow], page: int, size: int) -> list[RunRow]:
    """Page ``page`` (from 1, clamped to the last) of ``rows``."""
    page = min(max(1, page), page_count(len(rows), size))
    return rows[(page - 1) * size: page * size]


def loaded_note(loaded: int, total: int | None, complete: bool) -> str | None:
    """``312 of 334 loaded`` while pages are still being read; None once every run is here."""
    if complete or total is None:
        return None
    return f"{min(loaded, total)} of {total} loaded"
