"""Tail a run's files (the trainer's file protocol) into the store, incrementally and exactly once.

Files under ``<run_dir>``: ``logs/<component>.log`` (``logs/<component>@<N>.log`` for pod N of a
multi-node run), ``metrics.jsonl``, ``checkpoints.jsonl``,
``components.json`` and ``status.json`` (see ``primetui.local.trainer``). Appended files are read
from the byte offset stored with the rows they produced (same transaction), and only whole lines
are consumed, so a half-written line waits for the next tick and a crash never duplicates rows.

RL runs add ``distributions.jsonl`` (``{"step", "rewards": [...], "advantages": [...]}`` per step,
appended like the metrics) and ``samples/step_<N>.jsonl`` (every rollout of a sample step). The
sample files are not copied into the store: they are immutable once renamed into place, and
``primetui.local.rl_samples`` pages them where they lie.
"""

from __future__ import annotations

import json
import logging
import math
import re
import time
from dataclasses import dataclass, field
from operator import itemgetter
from pathlib import Path
from typing import Any, cast

from primetui.local.store import Store

log = logging.getLogger("primetui.local.ingest")

ANSI_RE = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
LEVEL_RE = re.compile(
    r"^(?:\[[A-Za-z]+\d+\]:)?\s*(?P<time>\d{2}:\d{2}(?::\d{2})?)\s+\[?(?P<level>TRACE|DEBUG|INFO|SUCCESS|WARNING|ERROR|CRITICAL)\]?\s"
)
MAX_READ = 1024 * 1024  # per file per tick: a flood is ingested over several ticks, never all at once

PROTOCOL_FILES = (
    "logs",
    "metrics.jsonl",
    "checkpoints.jsonl",
    "components.json",
    "status.json",
    "samples",
    "distributions.jsonl",
)


def _finite_list(value: Any) -> list[float] | None:
    if not isinstance(value, list):
        return None
    return [float(v) for v in value if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)]


def distribution_row(row: dict[str, Any]) -> dict[str, list[float]]:
    """The value lists of a ``distributions.jsonl`` line (finite numbers only), keyed by type."""
    out = {}
    for key, value in row.items():
        values = _finite_list(value) if key not in ("step", "time") else None
        if values is not None:
            out[key] = values
    return out


def _match(line: str) -> re.Match[str] | None:
    return LEVEL_RE.match(ANSI_RE.sub("", line) if "\x1b" in line else line)


def local_midnight(now: float) -> float:
    """Unix time of the local midnight that starts the day of ``now``."""
    t = time.localtime(now)
    return time.mktime((t.tm_year, t.tm_mon, t.tm_mday, 0, 0, 0, 0, 0, -1))


def _stamp(clock: str, now: float, midnight: float) -> float | None:
    """Unix time of a local ``HH:MM:SS`` clock: the latest such moment <= now (None if not a clock)."""
    parts = clock.split(":")
    if len(parts) != 3:
        return None  # mm:ss only: no reliable time
    hh, mm, ss = int(parts[0]), int(parts[1]), int(parts[2])
    if hh > 23 or mm > 59 or ss > 59:
        return None
    stamp = midnight + hh * 3600 + mm * 60 + ss
    if stamp > now + 60:  # written before midnight, read after it
        stamp -= 86400
    return stamp


def parse_line(line: str, now: float, midnight: float) -> tuple[str | None, float | None]:
    """(level, write time) of a prime-rl console line (``HH:MM:SS    INFO ...``); (None, None) otherwise.

    The write time comes from the line's local ``HH:MM:SS`` stamp (the latest such moment <= now),
    so lines read late (after a server restart) keep their real time and ``since_seconds`` stays right.
    """
    match = _match(line)
    if not match:
        return None, None
    clock, level = match.group("time", "level")
    return level, _stamp(clock, now, midnight)


HEAD = 17
"""Characters that hold a prime-rl console line's ``HH:MM:SS   LEVEL `` (levels are right-aligned to 7)."""
_head = itemgetter(slice(0, HEAD))


def log_columns(
    lines: list[str], last: str | None, now: float, midnight: float
) -> tuple[list[float], list[str | None], list[str], str | None]:
    """The hot path of log ingest: write times, levels and lines, three columns, and the level carried on.

    Same answers as :func:`parse_line` per line, computed once per chunk. The regex runs once per
    distinct line head (the first :data:`HEAD` characters: a log writes many lines per second, and
    they share ``HH:MM:SS   LEVEL ``): when the head alone matches, every line starting with it
    matches the same way (the pattern ends at the whitespace after the level and never looks past
    it). Lines whose head does not match are matched whole, one by one, as before. A line with no
    level (a traceback, a wrapped line) takes the level of the line above it; blank lines take none.
    """
    match = LEVEL_RE.match
    if lines and "\r" in "".join(lines):  # CRLF logs: one scan of the chunk, not one per line
        lines = [line.rstrip("\r") for line in lines]
    keys = list(map(_head, lines))
    known: dict[str, tuple[float, str] | None] = {}
    for key in set(keys):
        m = match(key)
        if m is None:
            known[key] = None
        else:
            stamp = _stamp(m.group(1), now, midnight)
            known[key] = (now if stamp is None else stamp, m.group(2))
    heads = list(map(known.__getitem__, keys))
    if heads and None not in heads:  # every line is a console line (a prime-rl log between tracebacks)
        full = cast("list[tuple[float, str]]", heads)  # None is not in it
        return list(map(_first, full)), list(map(_second, full)), lines, full[-1][1]
    ts: list[float] = []
    levels: list[str | None] = []
    stamps: dict[str, float | None] = {}
    for line, head in zip(lines, heads):
        if head is not None:
            ts.append(head[0])
            levels.append(last := head[1])
            continue
        m = match(line)
        if m is None and "\x1b" in line:  # colour codes in the stamp or level: match the bare text
            m = match(ANSI_RE.sub("", line))
        if m is None:
            ts.append(now)
            levels.append(last if line.strip() else None)
            continue
        clock, last = m.group(1, 2)  # (time, level)
        try:
            stamp = stamps[clock]
        except KeyError:
            stamp = stamps[clock] = _stamp(clock, now, midnight)
        ts.append(now if stamp is None else stamp)
        levels.append(last)
    return ts, levels, lines, last


_first, _second = itemgetter(0), itemgetter(1)


def log_rows(
    lines: list[str], last: str | None, now: float, midnight: float
) -> tuple[list[tuple[float, str | None, str]], str | None]:
    """``(ts, level, line)`` rows for whole lines, and the level carried on (see :func:`log_columns`)."""
    ts, levels, lines, last = log_columns(lines, last, now, midnight)
    return list(zip(ts, levels, lines)), last


def line_level(line: str) -> str | None:
    """The log level of a prime-rl console line, or None for other lines."""
    match = _match(line)
    return match.group("level") if match else None


def line_time(line: str, now: float) -> float | None:
    """The write time of a prime-rl console line (see :func:`parse_line`), or None."""
    level, stamp = parse_line(line, now, local_midnight(now))
    return stamp if level is not None else None


def log_stream(stem: str) -> tuple[str, int]:
    """(component, pod_index) of a log file stem: ``trainer`` -> pod 0, ``trainer@3`` -> pod 3."""
    name, sep, index = stem.rpartition("@")
    if sep and name and index.isdigit():
        return name, int(index)
    return stem, 0


@dataclass
class IngestResult:
    """What one pass found: new checkpoint steps (for the quota check) and the latest status."""

    new_checkpoints: list[int] = field(default_factory=list)
    status: dict[str, Any] | None = None


class RunIngestor:
    """Ingests one run dir; keeps the level of the last line per log file for continuation lines."""

    def __init__(self, store: Store, run_id: str, run_dir: Path) -> None:
        self.store = store
        self.run_id = run_id
        self.run_dir = run_dir
        self._last_level: dict[str, str | None] = {}
        self._components_seen: bytes | None = None  # the components.json bytes last stored

    def _read_new(self, rel: str) -> tuple[list[str], int] | None:
        """Whole new lines of ``rel`` since the stored offset, and the offset after them."""
        path = self.run_dir / rel
        try:
            size = path.stat().st_size
        except FileNotFoundError:
            return None
        offset = self.store.get_offset(self.run_id, rel)
        if size < offset:  # replaced by a shorter file: start over rather than read garbage
            offset = 0
        if size == offset:
            return None
        with open(path, "rb") as fh:
            fh.seek(offset)
            chunk = fh.read(min(size - offset, MAX_READ))
        end = chunk.rfind(b"\n")
        if end < 0:
            if len(chunk) >= MAX_READ:  # one enormous line: take it whole rather than stall forever
                end = len(chunk) - 1
            else:
                return None
        data = chunk[: end + 1]
        lines = data.decode("utf-8", errors="replace").split("\n")[:-1]
        return lines, offset + len(data)

    def ingest(self, metrics: bool = True) -> IngestResult:
        """One pass over the run's files; ``metrics=False`` leaves steps and checkpoints for later."""
        result = IngestResult()
        self._ingest_logs()
        if metrics:
            self._ingest_metrics()
            self._ingest_distributions()
            result.new_checkpoints = self._ingest_checkpoints()
        self._ingest_components()
        result.status = self.read_status()
        return result

    def _ingest_logs(self) -> None:
        logs_dir = self.run_dir / "logs"
        if not logs_dir.is_dir():
            return
        for path in sorted(logs_dir.glob("*.log")):
            rel = f"logs/{path.name}"
            got = self._read_new(rel)
            if got is None:
                continue
            lines, new_offset = got
            now = time.time()
            ts, levels, lines, self._last_level[rel] = log_columns(
                lines, self._last_level.get(rel), now, local_midnight(now)
            )
            with self.store.tx() as db:
                self.store.add_log_columns(db, self.run_id, *log_stream(path.stem), ts, levels, lines)
                self.store.set_offset(db, self.run_id, rel, new_offset)

    def _json_lines(self, rel: str) -> tuple[list[dict[str, Any]], int] | None:
        got = self._read_new(rel)
        if got is None:
            return None
        lines, new_offset = got
        rows = []
        for line in lines:
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                log.warning("run %s: skipping a malformed line in %s", self.run_id, rel)
                continue
            if isinstance(row, dict):
                rows.append(row)
        return rows, new_offset

    def _ingest_metrics(self) -> None:
        got = self._json_lines("metrics.jsonl")
        if got is None:
            return
        rows, new_offset = got
        rows = [r for r in rows if isinstance(r.get("step"), int)]
        with self.store.tx() as db:
            self.store.merge_metric_rows(db, self.run_id, rows)
            self.store.set_offset(db, self.run_id, "metrics.jsonl", new_offset)

    def _ingest_distributions(self) -> None:
        got = self._json_lines("distributions.jsonl")
        if got is None:
            return
        rows, new_offset = got
        with self.store.tx() as db:
            for row in rows:
                step = row.get("step")
                if isinstance(step, int) and not isinstance(step, bool):
                    when = row.get("time")
                    when = float(when) if isinstance(when, (int, float)) and math.isfinite(when) else time.time()
                    self.store.put_distribution(db, self.run_id, step, when, distribution_row(row))
            self.store.set_offset(db, self.run_id, "distributions.jsonl", new_offset)

    def _ingest_checkpoints(self) -> list[int]:
        got = self._json_lines("checkpoints.jsonl")
        if got is None:
            return []
        rows, new_offset = got
        added = []
        with self.store.tx() as db:
            for row in rows:
                step = row.get("step")
                if not isinstance(step, int):
                    continue
                if row.get("deleted"):
                    db.execute("DELETE FROM checkpoints WHERE run_id = ? AND step = ?", (self.run_id, step))
                    continue
                db.execute(
                    "INSERT OR REPLACE INTO checkpoints (run_id, step, path, size_bytes, created_at) VALUES (?, ?, "
                    "?, ?, ?)",
                    (
                        self.run_id,
                        step,
                        str(row.get("path", "")),
                        int(row.get("size_bytes") or 0),
                        float(row.get("time") or time.time()),
                    ),
                )
                added.append(step)
            self.store.set_offset(db, self.run_id, "checkpoints.jsonl", new_offset)
        return added

    def _ingest_components(self) -> None:
        """Store ``components.json`` when its content changed since the last pass.

        The content is compared, not ``(st_mtime_ns, st_size)``: the trainer rewrites the file with
        the same size (``running`` -> ``stopped``) within the filesystem's timestamp granularity, and
        a stat signature would keep the older statuses for good. The file is small (one entry per
        process), so reading it every tick costs little.
        """
        path = self.run_dir / "components.json"
        try:
            raw = path.read_bytes()
        except OSError:  # not written yet (or gone with an archived attempt)
            return
        if raw == self._components_seen:
            return
        try:
            data = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError):
            return  # written atomically, so this is a transient read race; next tick
        self.store.db.execute(
            "INSERT OR REPLACE INTO components (run_id, data) VALUES (?, ?)", (self.run_id, json.dumps(data))
        )
        self._components_seen = raw  # only once stored: a failed write is tried again next pass

    def read_status(self) -> dict[str, Any] | None:
        try:
            data = json.loads((self.run_dir / "status.json").read_text(encoding="utf-8"))
        except (FileNotFoundError, json.JSONDecodeError, OSError):
            return None
        return data if isinstance(data, dict) else None
