"""The bounded, indexed log store, and the time-merged view over several stores.

Lines live in frozen chunks: one UTF-8 ``bytes`` blob per chunk plus an offsets array, and
numpy columns for level, kind, step and clock. A million 100-character lines cost about
110 MB instead of the ~160 MB a list of ``str`` would, and a search runs one C-speed regex
scan per chunk instead of a Python loop per line. The newest lines stay in a small mutable
tail so a progress bar can replace its previous state in place.

Every line has a *global index* that never changes; when the store is over its bound it drops
whole chunks from the front, and ``first`` moves forward.

Memory has a budget of its own (``held_lines``): past it, the oldest frozen chunks move to an
unlinked temporary file (:class:`Spill`), keeping only where they sit, and page back in (a few at
a time, least recently used first out) when a view draws, searches or filters them. So a log
followed all day costs its budget in memory, not its length; ``held`` and ``held_bytes`` say what
is in memory now.
"""

from __future__ import annotations

import os
import tempfile
from bisect import bisect_right
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from primetui.monitor_core.filters import folding_lines, wide_lines
from primetui.monitor_core.lines import GAP, Batch, gap_line

if TYPE_CHECKING:
    from primetui.monitor_core.filters import Matcher


@dataclass(slots=True)
class Row:
    """One line as the view needs it."""

    text: str
    level: int
    kind: int
    step: int
    source: int = 0  # component number in a merged view


PAGED_CHUNKS = 2
"""Spilled chunks kept in memory once paged back in to be drawn (the least recently used goes
first); a search or filter reads spilled chunks one at a time and keeps none."""


class _Chunk:
    __slots__ = ("start", "count", "blob", "offsets", "levels", "kinds", "steps", "times", "spilled", "_wide", "_folds")

    def __init__(
        self,
        start: int,
        texts: list[str] | None,
        levels: npt.ArrayLike,
        kinds: npt.ArrayLike,
        steps: npt.ArrayLike,
        times: npt.ArrayLike,
        blob: bytes | None = None,
    ) -> None:
        self.start = start
        if blob is None:
            # Line by line: a few non-ASCII lines do not turn the whole join into a wide string.
            blob = b"\n".join([t.encode("utf-8", "replace") for t in texts or []]) + b"\n"
        self.blob = blob
        newlines = np.flatnonzero(np.frombuffer(self.blob, dtype=np.uint8) == 10)
        self.offsets = np.concatenate(([0], newlines + 1)).astype(np.int64)
        self._wide: np.ndarray | None = None
        self._folds: np.ndarray | None = None
        self.levels = np.asarray(levels, dtype=np.uint8)
        self.kinds = np.asarray(kinds, dtype=np.uint8)
        self.steps = np.asarray(steps, dtype=np.int64)
        self.times = np.asarray(times, dtype=np.float64)
        self.count = len(self.levels)
        self.spilled: tuple[int, int] | None = None  # (file position, blob length) once on disk

    def __len__(self) -> int:
        return self.count

    @property
    def nbytes(self) -> int:
        """Bytes this chunk holds in memory (0 once spilled)."""
        if self.blob is None:
            return 0
        return len(self.blob) + sum(a.nbytes for a in (self.offsets, self.levels, self.kinds, self.steps, self.times))

    def wide(self, data: _Chunk) -> np.ndarray:
        """The lines holding a character beyond ASCII, which a search asks again as ``str`` (found in ``data``,
        this chunk or its copy paged in, on first use and kept with the chunk, spilled or not)."""
        if self._wide is None:
            self._wide = wide_lines(data.blob, data.offsets)
        return self._wide

    def folds(self, data: _Chunk) -> np.ndarray:
        """Those of them holding a character that a search ignoring case matches to an ASCII letter."""
        if self._folds is None:
            self._folds = folding_lines(data.blob, data.offsets, self.wide(data))
        return self._folds

    def text(self, i: int) -> str:
        return self.blob[self.offsets[i] : self.offsets[i + 1] - 1].decode("utf-8", "replace")

    def release(self) -> None:
        """Drop the data (it is on disk now); only the chunk's place stays."""
        # A released chunk's arrays are never read again: Spill.read builds a new chunk from the file.
        self.blob = self.offsets = self.levels = self.kinds = self.steps = self.times = None  # type: ignore[assignment]


class Spill:
    """An unlinked temporary file holding a store's oldest chunks (columns, then the text blob).

    The file has no name (it is gone when the app exits, even on a crash); ``PRIMETUI_SPILL_DIR``,
    else the system's temporary directory, holds it.
    """

    def __init__(self) -> None:
        self._file = tempfile.TemporaryFile(prefix="primetui-log-", dir=os.environ.get("PRIMETUI_SPILL_DIR") or None)
        self._fd = self._file.fileno()
        self.size = 0
        """Bytes written so far (the file's size on disk)."""

    def write(self, chunk: _Chunk) -> tuple[int, int]:
        data = b"".join(
            (chunk.levels.tobytes(), chunk.kinds.tobytes(), chunk.steps.tobytes(), chunk.times.tobytes(), chunk.blob)
        )
        pos = self.size
        view = memoryview(data)
        while view:
            view = view[os.pwrite(self._fd, view, pos + len(data) - len(view)) :]
        self.size += len(data)
        return pos, len(chunk.blob)

    def read(self, chunk: _Chunk) -> _Chunk:
        assert chunk.spilled is not None
        pos, blob_len = chunk.spilled
        n = chunk.count
        size = 18 * n + blob_len
        data = b""
        while len(data) < size:
            part = os.pread(self._fd, size - len(data), pos + len(data))
            if not part:
                raise OSError("the log's spill file ended early")
            data += part
        levels = np.frombuffer(data, np.uint8, n, 0)
        kinds = np.frombuffer(data, np.uint8, n, n)
        steps = np.frombuffer(data, np.int64, n, 2 * n)
        times = np.frombuffer(data, np.float64, n, 10 * n)
        return _Chunk(chunk.start, None, levels, kinds, steps, times, blob=data[18 * n :])

    def close(self) -> None:
        self._file.close()


class LogStore:
    """The display lines of one log (one component, pod or env server)."""

    def __init__(
        self, name: str = "", max_lines: int = 2_000_000, chunk_lines: int = 4096, held_lines: int | None = None
    ) -> None:
        self.name = name
        self.max_lines = max_lines
        """Lines kept at all (in memory or spilled); older ones are dropped."""
        self._chunk_max = chunk_lines
        self.chunk_lines = chunk_lines
        self.held_lines = held_lines
        self._fit_chunks()
        """The memory budget: lines held in memory (None: all of them, nothing spills)."""
        self._chunks: list[_Chunk] = []
        self._starts: list[int] = []
        self._spilled = 0  # chunks [0, _spilled) are on disk
        self._spill: Spill | None = None
        self._paged: OrderedDict[int, _Chunk] = OrderedDict()  # spilled chunks paged back in, by start
        self.closed = False
        """``close`` was called: the spill file is gone (the lines in memory stay readable)."""
        self.spill_error: str | None = None
        """Why lines past the budget could not be spilled (they are dropped instead), or None."""
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

    @property
    def seen(self) -> int:
        """Lines taken in so far (held, spilled or dropped)."""
        return self.end

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

    def _collapse(self, batch: Batch) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray, np.ndarray, bool]:
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
            self._tail_start,
            self._texts[:k],
            self._levels[:k].copy(),
            self._kinds[:k].copy(),
            self._steps[:k].copy(),
            self._times[:k].copy(),
        )
        self._chunks.append(chunk)
        self._starts.append(self._tail_start)
        self._tail_start += k
        del self._texts[:k]
        for column in (self._levels, self._kinds, self._steps, self._times):
            column[: total - k] = column[k:total]
        self._keep_budget()
        while self._chunks and self.end - self._chunks[0].start - len(self._chunks[0]) >= self.max_lines:
            self._drop_oldest()

    def _drop_oldest(self) -> None:
        dropped = self._chunks.pop(0)
        self._starts.pop(0)
        self._paged.pop(dropped.start, None)
        if self._spilled:
            self._spilled -= 1
        self.first = dropped.start + len(dropped)

    def _keep_budget(self) -> None:
        """Move the oldest chunks in memory to the spill file until the budget holds."""
        if self.held_lines is None:
            return
        # The newest chunk stays: it holds lines just appended that readers (the merged view) have
        # yet to take in, so memory is the budget plus at most a chunk and the tail.
        while self._spilled < len(self._chunks) - 1 and self._memory_lines() > self.held_lines:
            chunk = self._chunks[self._spilled]
            if self._spill is None and self.spill_error is None:
                try:
                    self._spill = Spill()
                except OSError as exc:
                    self.spill_error = f"no room for a spill file ({exc.strerror or exc}): older lines are dropped"
            if self._spill is None:  # nowhere to put it: the budget wins, the line is gone
                self._drop_oldest()
                continue
            chunk.spilled = self._spill.write(chunk)
            chunk.release()
            self._spilled += 1

    def set_budget(self, held_lines: int | None) -> None:
        """Change the memory budget (lines); what is over it spills now."""
        self.held_lines = held_lines
        self._fit_chunks()
        self._keep_budget()

    def _fit_chunks(self) -> None:
        # Chunks of an eighth of the budget: what sits beside the budget (the chunk being filled, the
        # newest chunk, the chunks paged in) stays a fraction of it.
        if self.held_lines is not None:
            self.chunk_lines = min(self._chunk_max, max(256, self.held_lines // 8))

    def _memory_lines(self) -> int:
        return self.end - (self._chunks[self._spilled].start if self._spilled < len(self._chunks) else self._tail_start)

    @property
    def held(self) -> int:
        """Lines in memory now (the budget's part, plus spilled chunks paged back in)."""
        return self._memory_lines() + sum(c.count for c in self._paged.values())

    @property
    def spilled_lines(self) -> int:
        """Lines on disk, paged in when a view needs them."""
        return (
            self._chunks[self._spilled].start if self._spilled < len(self._chunks) else self._tail_start
        ) - self.first

    @property
    def held_bytes(self) -> int:
        """An estimate of this store's memory: the chunks in memory plus the tail's strings."""
        chunks = sum(c.nbytes for c in self._chunks[self._spilled :]) + sum(c.nbytes for c in self._paged.values())
        tail = sum(len(t) + 49 for t in self._texts) + 8 * len(self._texts)
        columns = self._levels.nbytes + self._kinds.nbytes + self._steps.nbytes + self._times.nbytes
        return chunks + tail + columns

    def close(self) -> None:
        """Let go of the spill file (its lines are gone; the ones in memory stay readable)."""
        self.closed = True
        self.held_lines = None  # nothing spills any more
        while self._spilled:
            self._drop_oldest()
        self._paged.clear()
        if self._spill is not None:
            self._spill.close()
            self._spill = None

    def _data(self, chunk: _Chunk, keep: bool = True) -> _Chunk:
        """The chunk with its lines in memory: itself, or its copy paged in from the spill file
        (kept among the last few paged in when ``keep``: lines to draw, not a scan)."""
        if chunk.blob is not None:
            return chunk
        paged = self._paged.get(chunk.start)
        if paged is not None:
            self._paged.move_to_end(chunk.start)
            return paged
        assert self._spill is not None
        paged = self._spill.read(chunk)
        if not keep:
            return paged
        self._paged[chunk.start] = paged
        while len(self._paged) > PAGED_CHUNKS:
            self._paged.popitem(last=False)
        return paged

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
        return self._texts[i] if chunk is None else self._data(chunk).text(i)

    def row(self, g: int) -> Row | None:
        """Line ``g`` with its level, kind and step (None when dropped)."""
        if g < self.first or g >= self.end:
            return None
        chunk, i = self._locate(g)
        if chunk is None:
            return Row(self._texts[i], int(self._levels[i]), int(self._kinds[i]), int(self._steps[i]))
        chunk = self._data(chunk)
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
                parts.append(getattr(self._data(chunk, keep=hi - lo < 1024), name)[lo:hi])
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

    def match(self, matcher: Matcher, g0: int | None = None, g1: int | None = None) -> np.ndarray:
        """Sorted global indices of lines in [g0, g1) that ``matcher`` (filters.Matcher) accepts."""
        g0 = self.first if g0 is None else max(g0, self.first)
        g1 = self.end if g1 is None else min(g1, self.end)
        found: list[np.ndarray] = []
        k = max(bisect_right(self._starts, g0) - 1, 0)
        for chunk in self._chunks[k:]:
            if chunk.start >= g1:
                break
            data = self._data(chunk, keep=False)
            wide = chunk.wide(data) if matcher.asks_wide_lines else None
            folds = chunk.folds(data) if matcher.asks_folding_lines else None
            rows = matcher.rows(data.blob, data.offsets, wide, folds) + chunk.start
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

    @property
    def held(self) -> int:
        """Lines of every source held in memory now."""
        return sum(s.held for s in self.stores)

    @property
    def seen(self) -> int:
        """Lines every source has taken in so far (held, spilled or dropped)."""
        return sum(s.seen for s in self.stores)

    @property
    def held_bytes(self) -> int:
        """The sources' memory plus this index (17 bytes a line)."""
        return sum(s.held_bytes for s in self.stores) + self._src.nbytes + self._idx.nbytes + self._t.nbytes

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

    def match(self, matcher: Matcher, g0: int | None = None, g1: int | None = None) -> np.ndarray:
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
