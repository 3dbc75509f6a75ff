"""`MetricsFollower`: new metric rows (R10), fetched incrementally with `min_step`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from primetui.api.followers.polling import FollowerEvent, MetricRows, _RunBound, _say_notes

if TYPE_CHECKING:  # the wire models (pydantic) load with the client, not with the followers
    pass


FINAL_MAX_PAGES = 2000
"""Pages the final fetch reads at most (10,000,000 rows at 5,000 a page): it reads on to the last row
(a poll before the end stops at ``max_pages_per_poll``), but a platform whose pages never end cannot
keep it reading."""


class _Noted:
    """A reply that carries only a note (what the follower itself has to say)."""

    def __init__(self, note: str) -> None:
        self.notes = (note,)


class MetricsFollower(_RunBound):
    """Fetches only new metric rows (R10 with `min_step`), never re-downloading rows it has.

        Normal polls ask for `min_step = last_step + 1`. Rows that land late (an eval row, which
        finishes a few steps after the step it measures; a row written during teardown) are caught by
        re-reading the last `late_window` steps every `late_every` polls and at the final fetch;
        values already handed out for a step are dropped, so a platform that merges a step's rows
        into one yields just the new keys. Large histories arrive in pages of `page_size` rows: a poll
    reads at most `max_pages_per_poll` of them (the next poll goes on), the final fetch every one.
    """

    def __init__(
        self,
        client: Any,
        run_id: str,
        *,
        interval: float = 5.0,
        page_size: int = 5000,
        max_pages_per_poll: int = 20,
        late_every: int = 6,
        late_window: int = 64,
        **kw: Any,
    ) -> None:
        super().__init__(client, run_id, interval=interval, **kw)
        self.page_size = page_size
        self.max_pages_per_poll = max_pages_per_poll
        self.late_every = late_every
        self.late_window = max(0, late_window)
        self.last_step: int | None = None
        """The highest step received so far."""
        self.rows_received = 0
        """Rows handed out so far (every row has an int `step`: the client's wire boundary saw to it)."""
        self.notes: list[str] = []
        """What the wire boundary dropped from this run's replies, each note once."""
        self._seen: dict[int, dict[str, Any]] = {}  # values handed out, per recent step

    async def _fetch(self, events: list[FollowerEvent], final: bool) -> None:
        recheck = final or (self.late_every > 0 and self.polls % self.late_every == 0)
        min_step = None
        if self.last_step is not None:
            min_step = max(0, self.last_step - self.late_window) if recheck else self.last_step + 1
        continuing = False
        pages = 0
        while True:
            reply = await self.client.get_metrics(self.run_id, min_step=min_step, limit=self.page_size)
            raw = reply.metrics
            _say_notes(self.notes, reply, events)
            before = self.last_step
            fresh, late = self._take(raw, continuing)
            if late:
                events.append(MetricRows(tuple(late), late=True))
            if fresh:
                events.append(MetricRows(tuple(fresh)))
            pages += 1
            # A full page may stop in the middle of a step: continue from that step, inclusive.
            if len(raw) < self.page_size or self.last_step is None or (continuing and self.last_step == before):
                break  # the last page; or a page from the last step that got no further (a platform ignoring min_step)
            if pages >= (FINAL_MAX_PAGES if final else self.max_pages_per_poll):
                if final:
                    _say_notes(self.notes, _Noted(f"read the first {pages} pages of metric rows only"), events)
                break  # a poll before the end: the next one goes on from here
            min_step = self.last_step
            continuing = True
        self._succeeded(events)

    def _take(self, raw: Sequence[Any], continuing: bool = False) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """Split a reply into fresh rows and late rows, dropping rows already handed out.

        `continuing`: this reply continues a full page, so rows of the last step are still new.
        """
        rows = sorted(raw, key=lambda r: r["step"])
        fresh: list[dict[str, Any]] = []
        late: list[dict[str, Any]] = []
        for row in rows:
            step = row["step"]
            if self.last_step is None or step > self.last_step:
                self.last_step = step
                self._seen[step] = {k: v for k, v in row.items() if k != "step"}
                fresh.append(row)
                continue
            seen = self._seen.get(step)
            if seen is None:
                if step < self.last_step - self.late_window:
                    continue  # older than the steps we track: a platform that ignored min_step re-sent it
                seen = self._seen[step] = {}  # a step that first shows up late (the eval at step 0)
            # A step seen before: keep only values not handed out yet. This drops an exact
            # re-send and, when the platform merges a step's rows into one, reduces the grown
            # row to its new keys (e.g. the eval metrics of a step the trainer has passed), so
            # no point is ever added twice and none is lost.
            delta = {k: v for k, v in row.items() if k != "step" and (k not in seen or seen[k] != v)}
            if not delta or set(delta) <= {"time"}:
                continue
            seen.update(delta)
            if "time" in row:
                delta["time"] = row["time"]
            out = {"step": step, **delta}
            # New if it came in the same batch as the step's first row (or continues a page).
            same_batch = continuing or (fresh and fresh[-1]["step"] == step)
            (fresh if same_batch else late).append(out)
        if self.last_step is not None:
            floor = self.last_step - self.late_window
            for old in [k for k in self._seen if k < floor]:
                del self._seen[old]
        self.rows_received += len(fresh) + len(late)
        return fresh, late
