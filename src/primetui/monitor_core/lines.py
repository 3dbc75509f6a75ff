"""Recognise what a log line is.

Handles, in order: carriage-return updates (keep the last state, as a terminal would show),
SGR colour codes (dropped), the platform's context prefixes (``[adminlog] ``, ``[rank0]: ``,
``(Worker pid=N) ``), the platform's JSON envelope lines (rendered as ``prime train logs``
renders them: ``HH:MM:SS  LEVEL [prefixes][tag] message``, extra keys dim on the next line,
the exception indented below), prime-rl's loguru lines (``HH:MM:SS   LEVEL message``, also the
seed's ``MM:SS [LEVEL] message``), step lines (``Step N | ...``), tracebacks, and tqdm progress
bars (marked so the store collapses them to their latest state).

A line without a level of its own continues the record above it (loguru writes multi-line
messages and tracebacks that way), so it inherits that record's level and time: a level filter
then keeps whole tracebacks together.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from collections.abc import Iterator
from typing import Any, NamedTuple

import numpy as np

from primetui.monitor_core.escapes import REPLACED, neutralise, strip_sgr

# Level codes, ordered by severity (a minimum-level filter compares them).
NONE, TRACE, DEBUG, INFO, SUCCESS, WARNING, ERROR, CRITICAL = range(8)
LEVEL_NAMES = ("", "TRACE", "DEBUG", "INFO", "SUCCESS", "WARNING", "ERROR", "CRITICAL")
_LEVEL_CODES = {name: code for code, name in enumerate(LEVEL_NAMES) if name}
_LEVEL_CODES["WARN"] = WARNING
_LEVEL_CODES["FATAL"] = CRITICAL

# Line kinds.
TEXT, GAP, PROGRESS, EXTRA = range(4)

_PREFIX = re.compile(r"^(?:\[adminlog\] |\[rank\d+\]: |\(Worker pid=\d+\) |\[[A-Za-z]+\d+\]:\s?)+")
_LEVEL_LINE = re.compile(
    r"(?:\[[A-Za-z]+\d+\]:\s?)?(?P<time>\d{2}:\d{2}(?::\d{2})?)\s+\[?"
    r"(?P<level>TRACE|DEBUG|INFO|SUCCESS|WARNING|WARN|ERROR|CRITICAL|FATAL)\]?(?:\s|$)"
)
_STEP = re.compile(r"Step (\d+) \|")
_TRACEBACK = re.compile(r"Traceback \(most recent call last\)|^[A-Za-z_][\w.]*(?:Error|Exception|Interrupt)\b:?")
_TQDM = re.compile(r"(?:^|\s|:)\s*\d{1,3}%\|[^|]*\||[█▏▎▍▌▋▊▉ ]{3,}\|\s*\d+/\d+")
_TQDM_KEY = re.compile(r"^(.*?)\s*\d{1,3}%\|")


class Parsed(NamedTuple):
    """One display line: what the view shows and what filters and jumps look at."""

    text: str
    level: int
    kind: int
    step: int  # -1 when the line is not a step line
    t: float  # seconds since midnight from the line's own clock; -1 when unknown
    key: str | None  # collapse key for progress lines (same key -> replace the previous state)


def _last_cr_state(line: str) -> str:
    """What a terminal shows after a line rewritten with carriage returns: its last state."""
    segments = [s for s in line.split("\r") if s.strip()]
    return segments[-1] if segments else ""


def _clock(hms: str) -> float:
    parts = hms.split(":")
    if len(parts) == 3:
        return int(parts[0]) * 3600 + int(parts[1]) * 60 + int(parts[2])
    return int(parts[0]) * 60 + int(parts[1])


def _render_envelope(obj: dict[str, Any], prefix: str) -> list[tuple[str, int, int]] | None:
    """Render a JSON envelope line as the CLI does; None when it is not an envelope."""
    if obj.get("type") == "progress":
        desc = str(obj.get("desc", "progress"))
        cur, total, pct = obj.get("current"), obj.get("total"), obj.get("percent")
        pct_text = f"{float(pct):.0f}%" if isinstance(pct, (int, float)) else ""
        return [(f"{desc}: {pct_text} {cur}/{total}".strip(), PROGRESS, INFO)]
    ts, level, message = obj.get("timestamp"), obj.get("level"), obj.get("message")
    if not isinstance(ts, str) or not isinstance(level, str) or message is None:
        return None
    try:
        hms = datetime.fromisoformat(ts.replace("Z", "+00:00")).strftime("%H:%M:%S")
    except ValueError:
        hms = ts[:8]
    code = _LEVEL_CODES.get(level.upper(), NONE)
    tag = obj.get("tag")
    tag_text = f"[{tag}] " if tag else ""
    pre = f"[{prefix.strip()}] " if prefix else ""
    first, *rest = str(message).split("\n") or [""]
    out = [(f"{hms} {level.upper():>7} {pre}{tag_text}{first}", TEXT, code)]
    out += [(f"    {line}", TEXT, code) for line in rest]
    extras = {
        k: v
        for k, v in obj.items()
        if k not in ("timestamp", "level", "message", "tag", "exception", "module", "function", "line", "type")
    }
    if extras:
        out.append(("    " + " ".join(f"{k}={json.dumps(v, default=str)}" for k, v in extras.items()), EXTRA, code))
    exc = obj.get("exception")
    if exc:
        out += [(f"    {line}", TEXT, max(code, ERROR)) for line in str(exc).rstrip("\n").split("\n")]
    return out


_FIXED_LEVELS = {f" {name:>7} ": code for name, code in _LEVEL_CODES.items() if len(name) <= 7}
_LEVEL_FIRST = frozenset("0123456789[")


class Batch:
    """Parsed lines in columns (what the store appends): cheap to build for large batches."""

    __slots__ = ("texts", "levels", "kinds", "steps", "times", "keys")

    def __init__(self) -> None:
        # Lists when built line by line (``add``), arrays when parsed in one go (``LineParser.parse_batch``).
        self.texts: list[str] = []
        self.levels: list[int] | np.ndarray = []
        self.kinds: list[int] | np.ndarray = []
        self.steps: list[int] | np.ndarray = []
        self.times: list[float] | np.ndarray = []
        self.keys: dict[int, str] = {}

    def __len__(self) -> int:
        return len(self.texts)

    def add(self, p: Parsed) -> None:
        """Append one parsed line (to a batch built line by line)."""
        levels, kinds, steps, times = self.levels, self.kinds, self.steps, self.times
        if not (
            isinstance(levels, list) and isinstance(kinds, list) and isinstance(steps, list) and isinstance(times, list)
        ):
            raise TypeError("Batch.add extends a batch built line by line, not a parsed one")
        if p.key is not None:
            self.keys[len(self.texts)] = p.key
        self.texts.append(p.text)
        levels.append(p.level)
        kinds.append(p.kind)
        steps.append(p.step)
        times.append(p.t)

    def __iter__(self) -> Iterator[Parsed]:
        levels, kinds, steps, times = (
            list(map(int, self.levels)),
            list(map(int, self.kinds)),
            list(map(int, self.steps)),
            list(map(float, self.times)),
        )
        for i, text in enumerate(self.texts):
            yield Parsed(text, levels[i], kinds[i], steps[i], times[i], self.keys.get(i))


_CLOCKS: dict[str, float] = {}


def _clock_cached(hms: str) -> float:
    t = _CLOCKS.get(hms)
    if t is None:
        if len(_CLOCKS) > 200_000:
            _CLOCKS.clear()
        try:
            t = float(_clock(hms))
        except ValueError:
            t = -1.0
        _CLOCKS[hms] = t
    return t


# What sends a line down the per-line path: JSON envelopes, progress bars, tracebacks (the
# lines after "Traceback" carry no level and inherit ERROR as continuation lines).
_SPECIAL_LITERALS = ("{", "%|", "\u2588", "Traceback")


class _Rows:
    """Maps character positions of a ``\\n``-joined batch to its rows, from one UTF-16 view of
    the text (code units are characters while the batch has nothing beyond the BMP)."""

    __slots__ = ("blob", "units", "newlines")

    def __init__(self, blob: str) -> None:
        self.blob = blob
        units = np.frombuffer(blob.encode("utf-16-le", "surrogatepass"), dtype=np.uint16)
        self.units = units if len(units) == len(blob) else None
        self.newlines = np.flatnonzero(units == 10) if self.units is not None else None

    def of(self, positions: list[int]) -> list[int]:
        """Row of each (sorted) character position."""
        if not positions:
            return []
        if self.newlines is not None:
            rows: list[int] = np.searchsorted(self.newlines, positions, side="left").tolist()
            return rows
        out: list[int] = []
        count = self.blob.count
        row = prev = 0
        for pos in positions:
            row += count("\n", prev, pos)
            prev = pos
            out.append(row)
        return out

    def with_literal(self, lit: str) -> list[int]:
        """Rows that contain ``lit``, in order: one vectorised pass over the UTF-16 view for a
        literal of one or two characters, else one ``str.find`` per such row."""
        blob = self.blob
        units, newlines = self.units, self.newlines  # both None, or both arrays
        if units is not None and newlines is not None and len(lit) <= 2 and max(map(ord, lit)) < 0x10000:
            eq = units == ord(lit[0])
            if not eq.any():
                return []
            hits = np.flatnonzero(eq)
            if len(lit) == 2:
                hits = hits[hits + 1 < len(units)]
                hits = hits[units[hits + 1] == ord(lit[1])]
            if not len(hits):
                return []
            rows = np.searchsorted(newlines, hits, side="left")
            firsts: list[int] = rows[np.concatenate(([True], rows[1:] != rows[:-1]))].tolist()
            return firsts
        find = blob.find
        positions: list[int] = []
        pos = find(lit)
        while pos >= 0:
            positions.append(pos)
            end = find("\n", pos)
            if end < 0:
                break
            pos = find(lit, end)
        return self.of(positions)

    def heads(self, n: int) -> tuple[np.ndarray, np.ndarray] | None:
        """Level codes and clocks of the rows in prime-rl's fixed layout (``HH:MM:SS LEVEL7 ``:
        characters 8-16 are one of :data:`_FIXED_LEVELS`), computed on the UTF-16 view for the
        whole batch; None when there is no such view (the batch has characters beyond the BMP)."""
        units, newlines = self.units, self.newlines
        if units is None or newlines is None:
            return None
        starts = np.empty(n, dtype=np.int64)
        starts[0] = 0
        starts[1:] = newlines + 1
        ends = np.empty(n, dtype=np.int64)
        ends[:-1] = newlines
        ends[-1] = len(units)
        codes = np.zeros(n, dtype=np.uint8)
        times = np.full(n, -1.0, dtype=np.float64)
        cand = np.flatnonzero(ends - starts >= 17)  # line[8:17] has all 9 characters
        if not len(cand):
            return codes, times
        first = starts[cand]
        block = units[first[:, None] + _COLS_8_17]
        packed = np.zeros(len(cand), dtype=np.uint64)
        for j in range(9):
            packed |= block[:, j].astype(np.uint64) << np.uint64(7 * j)
        at = np.minimum(np.searchsorted(_FIXED_PACKED, packed), len(_FIXED_PACKED) - 1)
        hit = (_FIXED_PACKED[at] == packed) & (block < 128).all(axis=1)
        rows = cand[hit]
        codes[rows] = _FIXED_PACKED_CODES[at[hit]]
        if len(rows):
            # The clock: "HH:MM:SS" in ASCII digits is worked out here, any other head by _clock.
            clk = units[starts[rows][:, None] + _COLS_0_8].astype(np.int64) - 48
            digits = clk[:, _CLOCK_DIGITS]
            ok = (clk[:, 2] == 10) & (clk[:, 5] == 10) & ((digits >= 0) & (digits < 10)).all(axis=1)
            secs = (
                (digits[:, 0] * 10 + digits[:, 1]) * 3600
                + (digits[:, 2] * 10 + digits[:, 3]) * 60
                + digits[:, 4] * 10
                + digits[:, 5]
            )
            times[rows[ok]] = secs[ok]
            blob = self.blob
            for row in rows[~ok].tolist():
                start = int(starts[row])
                times[row] = _clock_cached(blob[start : start + 8])
        return codes, times

    def no_controls(self, n: int) -> bool:
        """True when the batch holds no character :func:`neutralise` would change (no tab, no
        C0/C1 control but the ``\\n`` separators, no DEL, no bidi mark or line separator): a
        few C-speed passes instead of a per-character ``isprintable``."""
        units = self.units
        if units is None:
            return False
        if int(np.count_nonzero(units < 32)) != n - 1 or "\t" in self.blob:
            return False
        wide = units[units >= 0x7F]
        if not len(wide):
            return True
        if np.count_nonzero((wide - np.uint16(0x7F)) < 0x21):  # DEL and C1 controls
            return False
        return not np.isin(wide, _WIDE_CONTROLS).any()


_COLS_8_17 = np.arange(8, 17)
_COLS_0_8 = np.arange(8)
_CLOCK_DIGITS = np.array([0, 1, 3, 4, 6, 7])


def _pack(head: str) -> int:
    return sum(ord(ch) << (7 * j) for j, ch in enumerate(head))


_FIXED_PACKED = np.array(sorted(_pack(k) for k in _FIXED_LEVELS), dtype=np.uint64)
_FIXED_PACKED_CODES = np.array(
    [dict((_pack(k), c) for k, c in _FIXED_LEVELS.items())[int(v)] for v in _FIXED_PACKED], dtype=np.uint8
)


# The characters of the Basic Multilingual Plane beyond C0, DEL and C1 that the neutraliser replaces (bidi marks,
# line separators, every invisible format character), read from its own list: a batch with one of them takes the
# slow path. A batch with a character beyond the BMP always does (``_Rows.units`` is None).
_WIDE_CONTROLS = np.array(sorted(c for c in REPLACED if 0xA0 <= c <= 0xFFFF), dtype=np.uint16)


def _steps_found(blob: str) -> list[tuple[int, int]]:
    """``(position, step)`` of every ``_STEP`` match, as ``finditer`` finds them, trying the
    regex only where a "Step " starts."""
    found: list[tuple[int, int]] = []
    find = blob.find
    match = _STEP.match
    pos = find("Step ")
    while pos >= 0:
        m = match(blob, pos)
        if m is not None:
            found.append((pos, int(m.group(1))))
            pos = find("Step ", m.end())
        else:
            pos = find("Step ", pos + 1)
    return found


# Line heads: the first 17 characters ("HH:MM:SS LEVEL7 ") decide the fixed-layout level and
# clock, so each distinct head is worked out once and later lines look it up by an id.
_HEADS: dict[str, int] = {}
_HEAD_CODES = np.zeros(1024, dtype=np.uint8)
_HEAD_TIMES = np.full(1024, -1.0, dtype=np.float64)


def _head_ids(texts: list[str]) -> np.ndarray:
    """Ids into ``_HEAD_CODES`` / ``_HEAD_TIMES`` for each line (the path for batches that
    :meth:`_Rows.heads` cannot take)."""
    global _HEAD_CODES, _HEAD_TIMES
    get = _HEADS.get
    ids = [get(line[:17], -1) for line in texts]
    if -1 in ids:
        if len(_HEADS) > 200_000:
            _HEADS.clear()
            ids = [-1] * len(ids)
        fixed = _FIXED_LEVELS.get
        for row, i in enumerate(ids):
            if i < 0:
                head = texts[row][:17]
                known = _HEADS.get(head)
                if known is None:
                    known = len(_HEADS)
                    if known >= len(_HEAD_CODES):
                        _HEAD_CODES = np.resize(_HEAD_CODES, 2 * known)
                        _HEAD_TIMES = np.resize(_HEAD_TIMES, 2 * known)
                    code = fixed(head[8:17], 0)
                    _HEAD_CODES[known] = code
                    _HEAD_TIMES[known] = _clock_cached(head[:8]) if code else -1.0
                    _HEADS[head] = known
                ids[row] = known
    return np.array(ids, dtype=np.intp)


def _clean_blob(raw_lines: list[str]) -> tuple[str, list[str]]:
    """The batch as one blob and as rows, with carriage returns resolved and SGR codes stripped."""
    blob = "\n".join(raw_lines)
    if "\r" in blob:
        raw_lines = [_last_cr_state(line) if "\r" in line else line for line in raw_lines]
        blob = "\n".join(raw_lines)
    raw_rows = blob.split("\n")
    if "\x1b" not in blob:
        return blob, raw_rows
    # SGR codes never span a line, so stripping line by line equals stripping the blob;
    # when only a few lines carry them, only those lines pay for the regex.
    esc_rows = _Rows(blob).with_literal("\x1b")
    if len(esc_rows) > len(raw_rows) // 8:
        blob = strip_sgr(blob)
        return blob, blob.split("\n")
    for row in esc_rows:
        raw_rows[row] = strip_sgr(raw_rows[row])
    return "\n".join(raw_rows), raw_rows


def _steps_of(text_rows: _Rows, n: int) -> np.ndarray:
    """The step each row names ("Step N"), -1 where it names none."""
    steps = np.full(n, -1, dtype=np.int64)
    text_blob = text_rows.blob
    if "Step " in text_blob:
        found = _steps_found(text_blob)
        if found:
            for row, step in zip(text_rows.of([pos for pos, _ in found]), [step for _, step in found]):
                steps[row] = step
    return steps


def _levels_and_clocks(text_rows: _Rows, texts: list[str], n: int) -> tuple[np.ndarray, np.ndarray]:
    """Each row's level code and clock (0 and -1 where the row starts no record)."""
    # prime-rl's own layout ("HH:MM:SS LEVEL7 ...") is recognised from the line's first 17
    # characters, looked up in a table of heads seen before; the tolerant regex only runs
    # for lines that may carry another layout.
    heads = text_rows.heads(n)
    if heads is not None:
        codes, times = heads
    else:
        ids = _head_ids(texts)
        codes = _HEAD_CODES[ids]
        times = _HEAD_TIMES[ids]
    match = _LEVEL_LINE.match
    first = _LEVEL_FIRST
    for row in np.flatnonzero(codes == 0).tolist():
        text = texts[row]
        if text[:1] in first:
            m = match(text)
            if m is not None:
                codes[row] = _LEVEL_CODES[m.group("level")]
                times[row] = _clock_cached(m.group("time"))
    return codes, times


def _fill_special(
    batch: Batch,
    parsed: list[tuple[int, list[Parsed]]],
    texts: list[str],
    raw_rows: list[str],
    codes: np.ndarray,
    times: np.ndarray,
    steps: np.ndarray,
) -> tuple[list[str], np.ndarray]:
    """Each unusual row is one display line: fill it in where it stands (the columns in place)."""
    kinds = np.zeros(len(codes), dtype=np.uint8)
    if texts is raw_rows:
        texts = list(texts)
    for row, (p,) in parsed:
        if p.key is not None:
            batch.keys[row] = p.key
        texts[row] = p.text
        codes[row] = p.level
        times[row] = p.t
        kinds[row] = p.kind
        steps[row] = p.step
    return texts, kinds


_Columns = tuple[list[str], np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def _splice_special(
    batch: Batch,
    parsed: list[tuple[int, list[Parsed]]],
    texts: list[str],
    codes: np.ndarray,
    times: np.ndarray,
    steps: np.ndarray,
) -> _Columns:
    """Splice the per-line results of the unusual rows between runs of ordinary rows."""
    n = len(texts)
    o_texts: list[str] = []
    o_codes: list[np.ndarray] = []
    o_times: list[np.ndarray] = []
    o_kinds: list[np.ndarray] = []
    o_steps: list[np.ndarray] = []
    prev = 0
    for row, ps in parsed:
        o_texts += texts[prev:row]
        o_codes.append(codes[prev:row])
        o_times.append(times[prev:row])
        o_steps.append(steps[prev:row])
        o_kinds.append(np.zeros(row - prev, dtype=np.uint8))
        for p in ps:
            if p.key is not None:
                batch.keys[len(o_texts)] = p.key
            o_texts.append(p.text)
        o_steps.append(np.array([p.step for p in ps], dtype=np.int64))
        o_codes.append(np.array([p.level for p in ps], dtype=np.uint8))
        o_times.append(np.array([p.t for p in ps], dtype=np.float64))
        o_kinds.append(np.array([p.kind for p in ps], dtype=np.uint8))
        prev = row + 1
    o_texts += texts[prev:]
    o_codes.append(codes[prev:])
    o_times.append(times[prev:])
    o_steps.append(steps[prev:])
    o_kinds.append(np.zeros(n - prev, dtype=np.uint8))
    return o_texts, np.concatenate(o_codes), np.concatenate(o_times), np.concatenate(o_kinds), np.concatenate(o_steps)


class LineParser:
    """Turns raw lines of one component into parsed lines (stateful: continuation lines).

    The common case (plain prime-rl lines) is handled a whole batch at a time with C-speed
    scans over the joined batch and numpy passes over its UTF-16 view (control characters,
    rows holding a literal, the fixed-layout level and clock); only unusual lines (JSON
    envelopes, progress bars, carriage returns, tracebacks) take the per-line path.
    """

    def __init__(self) -> None:
        self.level = NONE
        self.t = -1.0

    def parse(self, raw_lines: list[str]) -> list[Parsed]:
        """Parse a batch of raw lines (without their ``\\n``) into :class:`Parsed` tuples."""
        return list(self.parse_batch(raw_lines))

    def parse_batch(self, raw_lines: list[str]) -> Batch:
        """Parse a batch of raw lines (without their ``\\n``) into a columnar :class:`Batch`."""
        batch = Batch()
        if not raw_lines:
            return batch
        blob, raw_rows = _clean_blob(raw_lines)
        n = len(raw_rows)
        rows = _Rows(blob)
        special: set[int] = set()
        for lit in _SPECIAL_LITERALS:
            special.update(rows.with_literal(lit))
        # One C-speed check for the whole batch; only batches with a control character somewhere
        # look line by line, and only those lines pay for neutralising.
        if rows.no_controls(n):
            texts = raw_rows
            text_rows = rows
        else:
            texts = [line if line.isprintable() else neutralise(line) for line in raw_rows]
            text_rows = _Rows("\n".join(texts))
        steps = _steps_of(text_rows, n)
        codes, times = _levels_and_clocks(text_rows, texts, n)
        kinds: np.ndarray | None = None
        if special:
            parsed = [(row, self._special(raw_rows[row])) for row in sorted(special) if row < n]
            if all(len(ps) == 1 for _, ps in parsed):
                texts, kinds = _fill_special(batch, parsed, texts, raw_rows, codes, times, steps)
            else:
                texts, codes, times, kinds, steps = _splice_special(batch, parsed, texts, codes, times, steps)
                n = len(texts)
        levels, tarr = self._inherit(codes, times, n)
        batch.texts = texts
        batch.levels = levels
        batch.kinds = np.zeros(n, dtype=np.uint8) if kinds is None else kinds
        batch.steps = steps
        batch.times = tarr
        return batch

    def _inherit(self, levels: np.ndarray, tarr: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
        """Continuation lines inherit the level and clock of the record above them (across batches too)."""
        ar = np.arange(1, n + 1)
        idx = np.where(levels > 0, ar, 0)
        np.maximum.accumulate(idx, out=idx)
        levels = np.concatenate([np.array([self.level], dtype=np.uint8), levels])[idx]
        tidx = np.where(tarr >= 0, ar, 0)
        np.maximum.accumulate(tidx, out=tidx)
        tarr = np.concatenate([np.array([self.t], dtype=np.float64), tarr])[tidx]
        self.level, self.t = int(levels[-1]), float(tarr[-1])
        return levels, tarr

    def _special(self, raw: str) -> list[Parsed]:
        """One unusual line: level 0 / clock -1 mean "inherit from the line above"."""
        first = raw[:1]
        if first == "{" or first == "[" or first == "(":
            envelope = self._envelope(raw)
            if envelope is not None:
                return envelope
        text = neutralise(raw)
        m = _LEVEL_LINE.match(text)
        if m is not None:
            step = -1
            if "Step " in text:
                sm = _STEP.search(text)
                step = int(sm.group(1)) if sm else -1
            return [Parsed(text, _LEVEL_CODES[m.group("level")], TEXT, step, _clock_cached(m.group("time")), None)]
        if ("%|" in text or "\u2588" in text) and _TQDM.search(text):
            km = _TQDM_KEY.match(text)
            return [Parsed(text, INFO, PROGRESS, -1, -1.0, km.group(1) if km else "")]
        if _TRACEBACK.search(text):
            return [Parsed(text, ERROR, TEXT, -1, -1.0, None)]
        return [Parsed(text, NONE, TEXT, -1, -1.0, None)]

    def _envelope(self, raw: str) -> list[Parsed] | None:
        pm = _PREFIX.match(raw)
        prefix = pm.group(0) if pm else ""
        body = raw[len(prefix) :]
        if not (body.startswith("{") and body.rstrip().endswith("}")):
            return None
        try:
            obj = json.loads(body)
        except ValueError:
            return None
        if not isinstance(obj, dict):
            return None
        rendered = _render_envelope(obj, prefix)
        if rendered is None:
            return None
        out = []
        t = -1.0
        for text, kind, level in rendered:
            text = neutralise(text)
            if kind == TEXT and level and t < 0:
                m = _LEVEL_LINE.match(text)
                if m is not None:
                    t = _clock_cached(m.group("time"))
            step = -1
            if kind == TEXT and "Step " in text:
                sm = _STEP.search(text)
                step = int(sm.group(1)) if sm else -1
            key = text.split(":", 1)[0] if kind == PROGRESS else None
            out.append(Parsed(text, level, kind, step, t, key))
        return out


def gap_line(message: str) -> Parsed:
    """A visible marker for lines the follower could not fetch."""
    return Parsed(neutralise(f"── {message} ──"), NONE, GAP, -1, -1.0, None)
