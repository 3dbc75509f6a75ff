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
from typing import NamedTuple

import numpy as np

from primetui.monitor_core.escapes import neutralise, strip_sgr

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


def _render_envelope(obj: dict, prefix: str) -> list[tuple[str, int, int]] | None:
    """Render a JSON envelope line as the CLI does; None when it is not an envelope."""
    ts, level, message = obj.get("timestamp"), obj.get("level"), obj.get("message")
    if not isinstance(ts, str) or not isinstance(level, str) or message is None:
        if obj.get("type") == "progress":
            pass
        else:
            return None
    if obj.get("type") == "progress":
        desc = str(obj.get("desc", "progress"))
        cur, total, pct = obj.get("current"), obj.get("total"), obj.get("percent")
        pct_text = f"{float(pct):.0f}%" if isinstance(pct, (int, float)) else ""
        return [(f"{desc}: {pct_text} {cur}/{total}".strip(), PROGRESS, INFO)]
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
# What sends a line down the per-line path: JSON envelopes, progress bars, tracebacks (the
# lines after "Traceback" carry no level and inherit ERROR as continuation lines).
_SPECIAL = tuple(
    (lit, re.compile(re.escape(lit)))
    for lit in ("{", "%|", "\u2588", "Traceback")
)


class Batch:
    """Parsed lines in columns (what the store appends): cheap to build for large batches."""

    __slots__ = ("texts", "levels", "kinds", "steps", "times", "keys")

    def __init__(self) -> None:
        self.texts: list[str] = []
        self.levels: list[int] = []
        self.kinds: list[int] = []
        self.steps: list[int] = []
        self.times: list[float] = []
        self.keys: dict[int, str] = {}

    def __len__(self) -> int:
        return len(self.texts)

    def add(self, p: Parsed) -> None:
        """Append one parsed line."""
        if p.key is not None:
            self.keys[len(self.texts)] = p.key
        self.texts.append(p.text)
        self.levels.append(p.level)
        self.kinds.append(p.kind)
        self.steps.append(p.step)
        self.times.append(p.t)

    def __iter__(self):
        levels, kinds, steps, times = (
            list(map(int, self.levels)), list(map(int, self.kinds)), list(map(int, self.steps)), list(map(float, self.times))
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


class LineParser:
    """Turns raw lines of one component into parsed lines (stateful: continuation lines).

    The common case (plain prime-rl lines) is handled a whole batch at a time with C-speed
    regex scans over the joined batch; only unusual lines (JSON envelopes, progress bars,
    carriage returns, tracebacks) take the per-line path.
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
        blob = "\n".join(raw_lines)
        if "\r" in blob:
            raw_lines = [_last_cr_state(line) if "\r" in line else line for line in raw_lines]
            blob = "\n".join(raw_lines)
        if "\x1b" in blob:
            blob = strip_sgr(blob)
        raw_rows = blob.split("\n")
        n = len(raw_rows)
        special: set[int] = set()
        found_special = [pat for lit, pat in _SPECIAL if lit in blob]
        if found_special:
            raw_starts = np.cumsum(np.fromiter(map(len, raw_rows), dtype=np.int64, count=n) + 1)
            positions = [m.start() for pat in found_special for m in pat.finditer(blob)]
            special = set(np.searchsorted(raw_starts, positions, side="right").tolist())
        # One C-speed check for the whole batch; only batches with a control character somewhere
        # look line by line, and only those lines pay for neutralising.
        if blob.replace("\n", "").isprintable():
            texts = raw_rows
        else:
            texts = [line if line.isprintable() else neutralise(line) for line in raw_rows]
        steps = [-1] * n
        text_blob = "\n".join(texts)
        if "Step " in text_blob:
            found = [(m.start(), int(m.group(1))) for m in _STEP.finditer(text_blob)]
            if found:
                starts = np.cumsum(np.fromiter(map(len, texts), dtype=np.int64, count=n) + 1)
                rows = np.searchsorted(starts, [pos for pos, _ in found], side="right")
                for row, (_, step) in zip(rows.tolist(), found):
                    steps[row] = step
        # prime-rl's own layout ("HH:MM:SS LEVEL7 ...") is recognised by slicing; the
        # tolerant regex only runs for lines that may carry another layout.
        fixed = _FIXED_LEVELS.get
        codes = [fixed(line[8:17], 0) for line in texts]
        clock = _clock_cached
        cget = _CLOCKS.get
        times = [cget(line[:8], -2.0) if code else -1.0 for code, line in zip(codes, texts)]
        for row in [row for row, t in enumerate(times) if t == -2.0]:
            times[row] = clock(texts[row][:8])
        match = _LEVEL_LINE.match
        first = _LEVEL_FIRST
        for row in [row for row, code in enumerate(codes) if not code and texts[row][:1] in first]:
            m = match(texts[row])
            if m is not None:
                codes[row] = _LEVEL_CODES[m.group("level")]
                times[row] = clock(m.group("time"))
        kinds: list[int] | None = None
        if special:
            # Splice the per-line results of the unusual rows between runs of ordinary rows.
            o_texts: list[str] = []
            o_codes: list[int] = []
            o_times: list[float] = []
            o_kinds: list[int] = []
            o_steps: list[int] = []
            prev = 0
            for row in sorted(special):
                if row >= n:
                    continue
                o_texts += texts[prev:row]
                o_codes += codes[prev:row]
                o_times += times[prev:row]
                o_steps += steps[prev:row]
                o_kinds += [TEXT] * (row - prev)
                for p in self._special(raw_rows[row]):
                    if p.key is not None:
                        batch.keys[len(o_texts)] = p.key
                    o_texts.append(p.text)
                    o_codes.append(p.level)
                    o_times.append(p.t)
                    o_kinds.append(p.kind)
                    o_steps.append(p.step)
                prev = row + 1
            o_texts += texts[prev:]
            o_codes += codes[prev:]
            o_times += times[prev:]
            o_steps += steps[prev:]
            o_kinds += [TEXT] * (n - prev)
            texts, codes, times, steps, kinds = o_texts, o_codes, o_times, o_steps, o_kinds
            n = len(texts)
        levels = np.array(codes, dtype=np.uint8)
        tarr = np.array(times, dtype=np.float64)
        # Continuation lines inherit the level and clock of the record above them.
        ar = np.arange(1, n + 1)
        idx = np.where(levels > 0, ar, 0)
        np.maximum.accumulate(idx, out=idx)
        levels = np.concatenate([np.array([self.level], dtype=np.uint8), levels])[idx]
        tidx = np.where(tarr >= 0, ar, 0)
        np.maximum.accumulate(tidx, out=tidx)
        tarr = np.concatenate([np.array([self.t], dtype=np.float64), tarr])[tidx]
        self.level, self.t = int(levels[-1]), float(tarr[-1])
        batch.texts = texts
        batch.levels = levels
        batch.kinds = np.zeros(n, dtype=np.uint8) if kinds is None else np.array(kinds, dtype=np.uint8)
        batch.steps = np.array(steps, dtype=np.int64)
        batch.times = tarr
        return batch

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
        body = raw[len(prefix):]
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
