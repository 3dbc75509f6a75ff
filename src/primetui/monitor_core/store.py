"""The bounded, indexed log store, and the time-merged view over several stores.

Lines live in frozen chunks: one UTF-8 ``bytes`` blob per chunk plus an offsets array, and
numpy columns for level, kind, step and clock. A million 100-character lines cost about
110 MB instead of the ~160 MB a list of ``str`` would, and a search runs one C-speed regex
scan per chunk instead of a Python loop per line. The newest lines stay in a small mutable
tail so a progress bar can replace its previous state in place.

Every line has a *global index* that never changes; when the store is over its bound it drops
whole chunks from the front, and ``first`` moves forward.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass

import numpy as np

from primetui.monitor_core.lines import GAP, Batch, gap_line


@dataclass(slots=True)
class Row:
    """One line as the view needs it."""

    text: str
    level: int
    kind: int
    step: int
    source: int = 0  # component number in a merged view


class _Chunk:
    __slots__ = ("start", "blob", "offsets", "levels", "kinds", "steps", "times")

    def __init__(self, start: int, texts: list[str], levels, kinds, steps, times) -> None:
        self.start = start
        # Line by line: a few non-ASCII lines do not turn the whole join into a wide string.
        self.blob = b"\n".join([t.encode("utf-8", "replace") for t in texts]) + b"\n"
        newlines = np.flatnonzero(np.frombuffer(self.blob, dtype=np.uint8) == 10)
        self.offsets = np.concatenate(([0], newlines + 1)).astype(np.int64)
        self.levels = np.asarray(levels, dtype=np.uint8)
        self.kinds = np.asarray(kinds, dtype=np.uint8)
        self.steps = np.asarray(steps, dtype=np.int64)
        self.times = np.asarray(times, dtype=np.float64)

    def __len__(self) -> int:
        return len(self.levels)

    def text(self, i: int) -> str:
        return self.blob[self.offsets[i] : self.offsets[i + 1] - 1].decode("utf-8", "replace")



class LogStore:
    """The display lines of one log (one component, pod or env server)."""

    def __init__(self, name: str = "", max_lines: int = 2_000_000, chunk_lines: int = 4096) -> None:
        self.name = name
        self.max_lines = max_lines
        self.chunk_lines = chunk_lines
        self._chunks: list[_Chunk] = []
        self._starts: list[int] = []
        self.first = 0  # global index of the oldest kept line
        self._tail_start = 0
        # The mutable tail: texts in a list, the columns in numpy buffers (filled up to
        # len(self._texts)), so batches go in and chunks come out without Python int lists.
        self._texts: list[str] = []
        self._levels = np.zeros(0, dtype=np.uint8)
        self._kinds = np.zeros(0, dtype=np.uint8)
        self._steps = np.zeros(0, dtype=np.int64)
        self._times = np.zeros(0, dtype=np.float64)
        self._tail_key: str | None = None  # progress key of the last line, if it is a progress line
        self.max_width = 0
        self.version = 0  # bumps on every change (for render caches)

    # ---- size -------------------------------------------------------------------------------
    @property
    def end(self) -> int:
        """Global index one past the newest line."""
        return self._tail_start + len(self._texts)

    def __len__(self) -> int:
        return self.end - self.first

    # ---- writing ----------------------------------------------------------------------------
    def append(self, batch: Batch) -> tuple[int, bool]:
        """Append parsed lines; returns (global index of the first new line, last line replaced).

        Progress lines (tqdm bars) replace the previous line when it is the same bar, so a bar
        costs one line however many updates it prints.
        """
        n = len(batch)
        if n == 0:
            return self.end, False
        replaced = False
        texts = batch.texts
        levels, kinds, steps, times = batch.levels, batch.kinds, batch.steps, batch.times
        if batch.keys:
            texts, levels, kinds, steps, times, replaced = self._collapse(batch)
        else:
            self._tail_key = None
        start = self.end
        if texts:
            t0 = len(self._texts)
            t1 = t0 + len(texts)
            if t1 > len(self._levels):
                cap = max(t1, 2 * len(self._levels), self.chunk_lines + 1)
                self._levels = np.resize(self._levels, cap)
                self._kinds = np.resize(self._kinds, cap)
                self._steps = np.resize(self._steps, cap)
                self._times = np.resize(self._times, cap)
            self._levels[t0:t1] = levels
            self._kinds[t0:t1] = kinds
            self._steps[t0:t1] = steps
            self._times[t0:t1] = times
            self._texts.extend(texts)
            width = max(map(len, texts))
            if width > self.max_width:
                self.max_width = width
        self.version += 1
        if len(self._texts) > self.chunk_lines:
            self._freeze()
        return start, replaced

    def append_gap(self, message: str) -> int:
        """Add a visible gap marker; returns its global index."""
        p = gap_line(message)
        # The marker sits where the hole is: at the clock of the line before it.
        p = p._replace(t=float(self._times[len(self._texts) - 1]) if self._texts else -1.0)
        batch = Batch()
        batch.add(p)
        start, _ = self.append(batch)
        return start

    def _collapse(self, batch: Batch):
        """Drop progress states that a later state of the same bar replaces (only bar rows are
        visited, so a batch with a few bars costs what a batch without them does)."""
        keys = batch.keys
        n = len(batch)
        drop: set[int] = set()
        tail_repl: int | None = None  # the batch row that replaces the store's newest line
        for r in sorted(keys):
            k = keys[r]
            if r == 0:
                if self._texts and self._tail_key == k:
                    tail_repl = 0
                    drop.add(0)
            elif keys.get(r - 1) == k:
                drop.add(r - 1)
                if tail_repl == r - 1:
                    tail_repl = r
                    drop.add(r)
        replaced = False
        if tail_repl is not None:
            text = batch.texts[tail_repl]
            last = len(self._texts) - 1
            self._texts[last] = text
            self._levels[last] = int(batch.levels[tail_repl])
            self._times[last] = float(batch.times[tail_repl])
            if len(text) > self.max_width:
                self.max_width = len(text)
            replaced = True
        # The newest line is now a bar only if the batch ends with one.
        self._tail_key = keys.get(n - 1)
        levels, kinds, steps, times = (np.asarray(a) for a in (batch.levels, batch.kinds, batch.steps, batch.times))
        texts = batch.texts
        if drop:
            keep = np.ones(n, dtype=bool)
            keep[list(drop)] = False
            texts = [t for t, k in zip(texts, keep.tolist()) if k]
            levels, kinds, steps, times = levels[keep], kinds[keep], steps[keep], times[keep]
        return texts, levels, kinds, steps, times, replaced

    def _freeze(self) -> None:
        # Keep the newest line mutable (a progress bar may still replace it).
        total = len(self._texts)
        k = total - 1
        chunk = _Chunk(
            self._tail_start, self._texts[:k], self._levels[:k].copy(), self._kinds[:k].copy(), self._steps[:k].copy(), self._times[:k].copy()
        )
        self._chunks.append(chunk)
        self._starts.append(self._tail_start)
        self._tail_start += k
        del self._texts[:k]
        for column in (self._levels, self._kinds, self._steps, self._times):
            column[: total - k] = column[k:total]
        while self._chunks and self.end - self._chunks[0].start - len(self._chunks[0]) >= self.max_lines:
            dropped = self._chunks.pop(0)
            self._starts.pop(0)
            self.first = dropped.start + len(dropped)

    # ---- reading ----------------------------------------------------------------------------
    def _locate(self, g: int) -> tuple[_Chunk | None, int]:
        if g >= self._tail_start:
            return None, g - self._tail_start
        k = bisect_right(self._starts, g) - 1
        chunk = self._chunks[k]
        return chunk, g - chunk.start

    def text(self, g: int) -> str | None:
        """The display text of line ``g``, or None when it was dropped or does not exist."""
        if g < self.first or g >= self.end:
            return None
        chunk, i = self._locate(g)
        return self._texts[i] if chunk is None else chunk.text(i)

    def row(self, g: int) -> Row | None:
        """Line ``g`` with its level, kind and step (None when dropped)."""
        if g < self.first or g >= self.end:
            return None
        chunk, i = self._locate(g)
        if chunk is None:
            return Row(self._texts[i], int(self._levels[i]), int(self._kinds[i]), int(self._steps[i]))
        return Row(chunk.text(i), int(chunk.levels[i]), int(chunk.kinds[i]), int(chunk.steps[i]))

    def _column(self, name: str, g0: int, g1: int) -> np.ndarray:
        g0 = max(g0, self.first)
        g1 = min(g1, self.end)
        parts = []
        dtype = {"levels": np.uint8, "kinds": np.uint8, "steps": np.int64, "times": np.float64}[name]
        if g0 >= g1:
            return np.empty(0, dtype=dtype)
        k = max(bisect_right(self._starts, g0) - 1, 0)
        for chunk in self._chunks[k:]:
            if chunk.start >= g1:
                break
            lo = max(g0 - chunk.start, 0)
            hi = min(g1 - chunk.start, len(chunk))
            if lo < hi:
                parts.append(getattr(chunk, name)[lo:hi])
        if g1 > self._tail_start:
            lo = max(g0 - self._tail_start, 0)
            parts.append(getattr(self, "_" + name)[lo : g1 - self._tail_start].astype(dtype))
        return np.concatenate(parts) if parts else np.empty(0, dtype=dtype)

    def levels(self, g0: int, g1: int) -> np.ndarray:
        """Level codes of lines [g0, g1) (clipped to what is kept)."""
        return self._column("levels", g0, g1)

    def kinds(self, g0: int, g1: int) -> np.ndarray:
        """Kind codes of lines [g0, g1)."""
        return self._column("kinds", g0, g1)

    def times(self, g0: int, g1: int) -> np.ndarray:
        """Clock (seconds since midnight, -1 unknown) of lines [g0, g1)."""
        return self._column("times", g0, g1)

    def steps(self, g0: int, g1: int) -> np.ndarray:
        """Step numbers of lines [g0, g1) (-1 for lines that are not step lines)."""
        return self._column("steps", g0, g1)

    def match(self, matcher, g0: int | None = None, g1: int | None = None) -> np.ndarray:
        """Sorted global indices of lines in [g0, g1) that ``matcher`` (filters.Matcher) accepts."""
        g0 = self.first if g0 is None else max(g0, self.first)
        g1 = self.end if g1 is None else min(g1, self.end)
        found: list[np.ndarray] = []
        k = max(bisect_right(self._starts, g0) - 1, 0)
        for chunk in self._chunks[k:]:
            if chunk.start >= g1:
                break
            rows = matcher.rows(chunk.blob, chunk.offsets) + chunk.start
            found.append(rows[(rows >= g0) & (rows < g1)])
        if g1 > self._tail_start:
            lo = max(g0 - self._tail_start, 0)
            texts = self._texts[lo : g1 - self._tail_start]
            search = matcher.search
            hits = [i for i, t in enumerate(texts) if search(t)]
            found.append(np.asarray(hits, dtype=np.int64) + self._tail_start + lo)
        return np.concatenate(found) if found else np.empty(0, dtype=np.int64)

    def all_text(self, g0: int | None = None, g1: int | None = None) -> list[str]:
        """Texts of lines [g0, g1) (for save and copy)."""
        g0 = self.first if g0 is None else max(g0, self.first)
        g1 = self.end if g1 is None else min(g1, self.end)
        return [t for t in (self.text(g) for g in range(g0, g1)) if t is not None]


class MergedLog:
    """Several stores interleaved by their lines' clocks, each line tagged with its source.

    Holds only (source, global index, clock) per line, so the merged view costs 17 bytes a
    line, not a copy of the text. Lines are ordered by their clock, but a component's own order
    never changes: a line whose clock is earlier than the one before it in its component (or
    that has no clock) takes that previous line's clock. Equal clocks (whole seconds) keep the
    order in which the lines arrived here. A line that arrives late (another component's poll
    came first) is inserted where its clock puts it, after every line of the same second that
    arrived before it, and ``reorders`` counts such insertions so views can recompute their
    filters. A component's first lines without a clock go where they arrive (at the end).
    """

    def __init__(self, stores: list[LogStore], max_lines: int = 2_000_000) -> None:
        self.stores = stores
        self.max_lines = max_lines
        self._src = np.empty(0, dtype=np.uint8)
        self._idx = np.empty(0, dtype=np.int64)
        self._t = np.empty(0, dtype=np.float64)
        self._filled = 0
        self.first = 0
        self._seen = [s.end for s in stores]
        self._clock = [-np.inf for _ in stores]  # each component's last clock so far
        self.version = 0
        self.reorders = 0
        self.name = "all"

    @property
    def end(self) -> int:
        return self.first + self._filled

    def __len__(self) -> int:
        return self._filled

    @property
    def max_width(self) -> int:
        return max((s.max_width for s in self.stores), default=0)

    def add_store(self, store: LogStore) -> int:
        """Add a source; returns its number."""
        self.stores.append(store)
        self._seen.append(store.first)
        self._clock.append(-np.inf)
        return len(self.stores) - 1

    def sync(self) -> int:
        """Take in every line the stores gained since the last sync; returns how many."""
        srcs, idxs, times = [], [], []
        for n, store in enumerate(self.stores):
            start = max(self._seen[n], store.first)
            stop = store.end
            if stop > start:
                srcs.append(np.full(stop - start, n, dtype=np.uint8))
                idxs.append(np.arange(start, stop, dtype=np.int64))
                times.append(self._in_order(n, store.times(start, stop)))
            self._seen[n] = stop
        if not srcs:
            return 0
        src = np.concatenate(srcs)
        idx = np.concatenate(idxs)
        t = np.concatenate(times)
        if len(srcs) > 1:
            order = np.argsort(t, kind="stable")
            src, idx, t = src[order], idx[order], t[order]
        self._insert(src, idx, t)
        self.version += 1
        return len(src)

    def _in_order(self, n: int, t: np.ndarray) -> np.ndarray:
        """Component ``n``'s clocks made non-decreasing (unknown or earlier: the previous clock)."""
        t = np.where(t < 0, -np.inf, t.astype(np.float64))
        t = np.maximum.accumulate(np.concatenate(([self._clock[n]], t)))[1:]
        if not np.isfinite(t[0]):  # the component's first lines have no clock: where they arrive
            t[~np.isfinite(t)] = float(self._t[self._filled - 1]) if self._filled else 0.0
        self._clock[n] = float(t[-1])
        return t

    def _insert(self, src: np.ndarray, idx: np.ndarray, t: np.ndarray) -> None:
        n = self._filled
        cur_t = self._t[:n]
        if n == 0 or t[0] >= cur_t[-1]:
            self._append(src, idx, t)
        else:
            pos = np.searchsorted(cur_t, t, side="right")
            self._src = np.insert(self._src[:n], pos, src)
            self._idx = np.insert(self._idx[:n], pos, idx)
            self._t = np.insert(cur_t, pos, t)
            self._filled = len(self._src)
            self.reorders += 1
        self._trim()

    def _append(self, src: np.ndarray, idx: np.ndarray, t: np.ndarray) -> None:
        need = self._filled + len(src)
        if need > len(self._src):
            cap = max(need, 2 * len(self._src), 4096)
            self._src = np.resize(self._src, cap)
            self._idx = np.resize(self._idx, cap)
            self._t = np.resize(self._t, cap)
        self._src[self._filled : need] = src
        self._idx[self._filled : need] = idx
        self._t[self._filled : need] = t
        self._filled = need

    def _trim(self) -> None:
        if self._filled > self.max_lines:
            drop = self._filled - self.max_lines
            keep = slice(drop, self._filled)
            self._src = self._src[keep].copy()
            self._idx = self._idx[keep].copy()
            self._t = self._t[keep].copy()
            self._filled -= drop
            self.first += drop

    def _slice(self, g0: int, g1: int) -> tuple[int, int]:
        return max(g0, self.first) - self.first, min(g1, self.end) - self.first

    def source_of(self, g: int) -> tuple[int, int] | None:
        """(source number, that source's global index) of merged line ``g``."""
        if g < self.first or g >= self.end:
            return None
        i = g - self.first
        return int(self._src[i]), int(self._idx[i])

    def text(self, g: int) -> str | None:
        loc = self.source_of(g)
        if loc is None:
            return None
        return self.stores[loc[0]].text(loc[1])

    def row(self, g: int) -> Row | None:
        loc = self.source_of(g)
        if loc is None:
            return None
        row = self.stores[loc[0]].row(loc[1])
        if row is None:
            return Row("(dropped: older than the log limit)", 0, GAP, -1, loc[0])
        row.source = loc[0]
        return row

    def _gather(self, name: str, g0: int, g1: int) -> np.ndarray:
        a, b = self._slice(g0, g1)
        src, idx = self._src[a:b], self._idx[a:b]
        dtype = {"levels": np.uint8, "kinds": np.uint8, "steps": np.int64, "times": np.float64}[name]
        out = np.zeros(len(src), dtype=dtype)
        for n, store in enumerate(self.stores):
            mask = src == n
            if not mask.any():
                continue
            sel = idx[mask]
            lo, hi = int(sel.min()), int(sel.max()) + 1
            column = getattr(store, name)(lo, hi)
            base = max(lo, store.first)
            pos = sel - base
            ok = (pos >= 0) & (pos < len(column))
            vals = np.zeros(len(sel), dtype=dtype)
            vals[ok] = column[pos[ok]]
            out[mask] = vals
        return out

    def levels(self, g0: int, g1: int) -> np.ndarray:
        return self._gather("levels", g0, g1)

    def kinds(self, g0: int, g1: int) -> np.ndarray:
        return self._gather("kinds", g0, g1)

    def steps(self, g0: int, g1: int) -> np.ndarray:
        return self._gather("steps", g0, g1)

    def match(self, matcher, g0: int | None = None, g1: int | None = None) -> np.ndarray:
        """Sorted merged indices of lines in [g0, g1) that ``matcher`` accepts."""
        g0 = self.first if g0 is None else max(g0, self.first)
        g1 = self.end if g1 is None else min(g1, self.end)
        a, b = self._slice(g0, g1)
        src, idx = self._src[a:b], self._idx[a:b]
        hit = np.zeros(len(src), dtype=bool)
        for n, store in enumerate(self.stores):
            mask = src == n
            if not mask.any():
                continue
            sel = idx[mask]
            hits = store.match(matcher, int(sel.min()), int(sel.max()) + 1)
            hit[mask] = np.isin(sel, hits, assume_unique=False)
        return np.flatnonzero(hit) + g0

    def all_text(self, g0: int | None = None, g1: int | None = None) -> list[str]:
        g0 = self.first if g0 is None else max(g0, self.first)
        g1 = self.end if g1 is None else min(g1, self.end)
        out = []
        for g in range(g0, g1):
            row = self.row(g)
            if row is not None:
                out.append(f"{self.stores[row.source].name}| {row.text}")
        return out

