"""`AllRuns`: every run of the account, fetched page by page (R1) and kept, for the runs list.

The platform lists runs one page at a time (R1: ``page`` and ``limit``, newest first). The runs
list filters, sorts and compares over all of them, so this pager reads them all, progressively:

- the first request is the dashboard's usual first page (``first`` runs, the one
  :mod:`primetui.api.prefetch` may already hold), so the first frame comes as fast as before;
- then pages of ``chunk`` runs, one request per :meth:`AllRuns.step`, until ``total`` are held.
  Each step returns a :class:`RunsSnapshot` whose ``loading`` is true until then, which tells the
  hub's resource loop to ask again at once rather than after the poll interval;
- once complete, a step re-reads the first page (new runs) and every page that holds a run that
  has not ended (its status moves); a change of ``total`` (a run added or deleted) starts a new
  sweep, during which the runs already held stay listed.

It is the ``fetch`` of one shared :meth:`primetui.api.hub.FollowerHub.all_runs` resource: every
screen that lists runs shares it, and no screen pages on its own.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

CHUNK = 100
"""Runs per request once the first page is shown (R1 allows ``limit`` up to 1000; 100 keeps a reply small)."""


@dataclass(frozen=True, eq=True)
class RunsSnapshot:
    """Every run held so far, newest first, and how many the platform has."""

    runs: tuple[Any, ...]
    total: int | None
    complete: bool
    notes: tuple[str, ...] = ()

    @property
    def loaded(self) -> int:
        return len(self.runs)

    @property
    def loading(self) -> bool:
        """More pages to fetch: the resource loop asks again at once."""
        return not self.complete


def _runs_of(reply: Any) -> list[Any]:
    """The runs of an R1 reply (the client's ``RLRunPage``; a plain list or dict from a test double)."""
    if isinstance(reply, list):
        return list(reply)
    runs = reply.get("runs") if isinstance(reply, dict) else getattr(reply, "runs", None)
    return list(runs or [])


def _id_of(run: Any) -> str:
    return str(run.get("id", "") if isinstance(run, dict) else getattr(run, "id", ""))


def _kept(held: list[Any], runs: list[Any]) -> list[Any]:
    """``runs`` of a page read again, each one equal to a run held before replaced by the one held:
    a list whose runs did not change is made of the very same objects (the runs list keeps its rows)."""
    before = {_id_of(run): run for run in held}
    out = []
    for run in runs:
        old = before.get(_id_of(run))
        out.append(old if old is not None and old == run else run)
    return out


def _terminal(run: Any) -> bool:
    if isinstance(run, dict):
        return str(run.get("status", "")) in ("COMPLETED", "FAILED", "STOPPED", "PAUSED")
    return bool(getattr(run, "is_terminal", True))


class AllRuns:
    """The pager behind the shared all-runs resource (see the module docstring)."""

    def __init__(self, client: Any, *, first: int = 20, chunk: int = CHUNK) -> None:
        self.client = client
        self.first = first
        self.chunk = chunk
        self._head: list[Any] | None = None
        """The first small page, shown until chunk page 1 replaces it."""
        self._pages: dict[int, list[Any]] = {}
        self._next = 1
        self.total: int | None = None
        self.complete = False
        self.requests = 0

    @property
    def pages(self) -> int:
        """Chunk pages the platform has (by ``total``)."""
        return max(1, math.ceil((self.total or 0) / self.chunk))

    async def _list(self, page: int, limit: int) -> Any:
        self.requests += 1
        return await self.client.list_runs(page=page, limit=limit)

    async def step(self) -> RunsSnapshot:
        """One request (several once complete: the pages with live runs); the runs held after it."""
        notes: list[str] = []
        if self._head is None and not self._pages:
            reply = await self._list(1, self.first)
            self._head = _runs_of(reply)
            notes.extend(getattr(reply, "notes", ()) or ())
            self._learn_total(reply, len(self._head), self.first)
            if self.total is not None and self.total <= self.first:
                self._pages = {1: self._head}
                self.complete = True
        elif not self.complete:
            reply = await self._list(self._next, self.chunk)
            notes.extend(getattr(reply, "notes", ()) or ())
            self._pages[self._next] = _runs_of(reply)
            self._learn_total(reply, len(self._pages[self._next]), self.chunk, page=self._next)
            self._next += 1
            if self._next > self.pages or not self._pages[self._next - 1]:
                self._pages = {p: runs for p, runs in self._pages.items() if p <= self.pages}
                self.complete = True
        else:
            await self._refresh(notes)
        return RunsSnapshot(tuple(self._merged()), self.total, self.complete, tuple(notes))

    async def _refresh(self, notes: list[str]) -> None:
        live = [p for p, runs in sorted(self._pages.items()) if p > 1 and not all(_terminal(r) for r in runs)]
        before = self.total
        for page in [1, *live]:
            reply = await self._list(page, self.chunk)
            notes.extend(getattr(reply, "notes", ()) or ())
            self._pages[page] = _kept(self._pages.get(page, []), _runs_of(reply))
            self._learn_total(reply, len(self._pages[page]), self.chunk, page=page)
            if self.total != before:
                # A run was added or deleted: every later page moved; read them all again.
                self.complete = False
                self._next = 2
                return

    def _learn_total(self, reply: Any, got: int, limit: int, *, page: int = 1) -> None:
        total = reply.get("total") if isinstance(reply, dict) else getattr(reply, "total", None)  # a list: None
        if total is None:  # an older backend without a total: a short page is the last one
            total = (page - 1) * limit + got if got < limit else max(self.total or 0, page * limit + 1)
        self.total = int(total)

    def _merged(self) -> list[Any]:
        pages = self._pages if 1 in self._pages or self._head is None else {1: self._head, **self._pages}
        seen: set[str] = set()
        out: list[Any] = []
        for page in sorted(pages):
            for run in pages[page]:
                run_id = _id_of(run)
                if run_id not in seen:
                    seen.add(run_id)
                    out.append(run)
        return out
