"""The runs list over every run: rows kept between frames, the filter, and the page shown.

The list holds every run of the account (thousands), but draws one page of the filtered,
sorted rows. A key must reach the screen in well under 100 ms at 10,000 runs, so a run's
:class:`~primetui.viewmodel.run_rows.RunRow` is built once and kept until the run, its metric
rows, or (for a run that has not ended, whose Elapsed and ETA move) the second changes.
"""

from __future__ import annotations

import math
from datetime import datetime

from primetui.api.plainrun import Run
from primetui.viewmodel.progress import RunProgress
from primetui.viewmodel.run_rows import RunRow, run_row
from primetui.viewmodel.statuses import TERMINAL_RUN_STATUSES, run_status


class RowCache:
    """``run_row`` of each run, rebuilt only when what it shows can have changed.

    Also keeps each row's filter text (lower case) and an index of the runs by id, so a key
    pressed in the filter costs one pass of ``in`` over strings, not a row built per run."""

    def __init__(self) -> None:
        self._by_obj: dict[int, tuple[Run, tuple[int, int, int], RunRow, str]] = {}
        self._signature: tuple[object, ...] = ()
        self._rows: list[RunRow] = []
        self._hay: list[str] = []
        self.by_id: dict[str, Run] = {}
        """Every run by its id (the runs of the last :meth:`rows`)."""
        self.kinds: set[str] = set()
        """The kinds (``rl``, ``sft``) among the runs of the last :meth:`rows`."""

    def rows(self, runs: list[Run], progress: dict[str, RunProgress], now: datetime) -> list[RunRow]:
        second = int(now.timestamp())
        signature = (id(runs), len(runs), tuple((k, id(p), p.revision) for k, p in progress.items()), second)
        if signature[:3] == self._signature[:3] and (signature[3] == self._signature[3] or not self._live):
            return self._rows
        kept: dict[int, tuple[Run, tuple[int, int, int], RunRow, str]] = {}
        rows: list[RunRow] = []
        hay: list[str] = []
        by_id: dict[str, Run] = {}
        live_any = False
        for run in runs:
            found = self._by_obj.get(id(run))
            if found is not None and found[0] is run:
                run_id, live = found[2].id, found[2].status not in TERMINAL_RUN_STATUSES
            else:
                run_id = run.id
                live = run_status(run) not in TERMINAL_RUN_STATUSES
            prog = progress.get(run_id)
            key = (id(prog), prog.revision if prog is not None else -1, second if live else 0)
            if found is None or found[0] is not run or found[1] != key:
                row = run_row(run, prog, now)
                found = (run, key, row, " ".join((row.id, row.name, row.status, row.model, row.volume)).lower())
            kept[id(run)] = found
            rows.append(found[2])
            hay.append(found[3])
            by_id[run_id] = run
            live_any = live_any or live
        self._by_obj, self._rows, self._hay, self.by_id = kept, rows, hay, by_id
        self.kinds = {row.kind for row in rows}
        self._held = (runs, list(progress.values()))  # held, so no new list or progress takes their ids
        self._signature, self._live = signature, live_any
        return rows

    _live = False

    def filtered(self, query: str) -> list[RunRow]:
        """The rows of the last :meth:`rows` that the filter keeps (the terms of :func:`run_matches`).

        A query that extends the last one (a key typed into the filter) keeps a subset of what
        the last one kept, so only those are looked at again."""
        query = query.lower()
        terms = query.split()
        if not terms:
            return self._rows
        last = self._last_filter
        hay = self._hay
        if last is not None and last[0] is self._rows and query.startswith(last[1]):
            kept = last[2]
        else:
            kept = [i for i, text in enumerate(hay) if terms[0] in text]
            terms = terms[1:]
        for term in terms:  # one pass per word, each over what the words before kept
            kept = [i for i in kept if term in hay[i]]
        self._last_filter = (self._rows, query, kept)
        return [self._rows[i] for i in kept]

    _last_filter: tuple[list[RunRow], str, list[int]] | None = None


def page_count(shown: int, size: int) -> int:
    return max(1, math.ceil(shown / size))


def page_slice(rows: list[RunRow], page: int, size: int) -> list[RunRow]:
    """Page ``page`` (from 1, clamped to the last) of ``rows``."""
    page = min(max(1, page), page_count(len(rows), size))
    return rows[(page - 1) * size : page * size]


def loaded_note(loaded: int, total: int | None, complete: bool) -> str | None:
    """``312 of 334 loaded`` while pages are still being read; None once every run is here."""
    if complete or total is None:
        return None
    return f"{min(loaded, total)} of {total} loaded"
