"""R11's rows: an RL run's ``samples/step_<N>.jsonl`` files, paged where they lie.

The run writes each sample step whole under a temporary name and renames it into place (RL-FILES),
so a file that has its final name is complete and never changes. Nothing is copied into the store:
a page seeks to its first row through an index of line starts (built once per file, kept for the
files read last) and reads only its own rows, so a 1,024-rollout step with 4 KB completions costs a
page its ~100 rows, not the step, and no step is ever loaded with another.

A restarted run moves its files into ``attempt_<k>/`` (supervisor.archive_attempt); a step the new
attempt has not written again is still served from the attempt that wrote it.

Rows are served with their JSON columns decoded (``completion``, ``task``, ``info`` ...). The
protocol writes them decoded; a row whose columns arrive as strings (prime-rl's upload shape) is
decoded on read, and a string that is not JSON stays a string.
"""

from __future__ import annotations

import json
import re
from collections import OrderedDict
from pathlib import Path
from typing import Any

SAMPLE_FILE_RE = re.compile(r"^step_(\d{1,9})\.jsonl$")
ATTEMPT_RE = re.compile(r"^attempt_(\d{1,9})$")
JSON_COLUMNS = ("completion", "trajectory", "task", "info", "metrics", "timing")
"""The sample columns prime-rl uploads as JSON strings; the platform serves them decoded."""
_STRING_COLUMN = re.compile(rb'"(?:' + b"|".join(c.encode() for c in JSON_COLUMNS) + rb')"\s*:\s*"')
"""A key of :data:`JSON_COLUMNS` followed by a string value: inside a JSON string every quote is
escaped, so this matches real keys only; a line without it is served as it was written."""
INDEXES_KEPT = 32


def decode_columns(row: dict[str, Any]) -> bool:
    """Decode the JSON-string columns of a sample row in place (a string that is not a JSON object or
    list stays a string); True when something changed."""
    changed = False
    for key in JSON_COLUMNS:
        value = row.get(key)
        if isinstance(value, str) and value[:1] in ("{", "["):
            try:
                decoded = json.loads(value)
            except json.JSONDecodeError:
                continue
            if isinstance(decoded, (dict, list)):
                row[key] = decoded
                changed = True
    return changed


def served_row(line: bytes) -> str | None:
    """A file line as the JSON object text R11 serves (columns decoded), or None for a line that is not one."""
    try:
        row = json.loads(line)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None
    if not isinstance(row, dict):
        return None
    if _STRING_COLUMN.search(line) and decode_columns(row):
        return json.dumps(row)
    return line.decode("utf-8").strip()


def _steps_in(folder: Path) -> dict[int, Path]:
    try:
        names = [entry.name for entry in folder.iterdir()]
    except (FileNotFoundError, NotADirectoryError):
        return {}
    found = {}
    for name in names:
        match = SAMPLE_FILE_RE.match(name)  # a temporary name does not match: that file is not complete
        if match:
            found[int(match.group(1))] = folder / name
    return found


def sample_files(run_dir: Path) -> dict[int, Path]:
    """Every step with a sample file, the newest attempt's file winning: {step: path}."""
    attempts = []
    try:
        for entry in run_dir.iterdir():
            match = ATTEMPT_RE.match(entry.name)
            if match:
                attempts.append((int(match.group(1)), entry))
    except FileNotFoundError:
        return {}
    found: dict[int, Path] = {}
    for _, folder in sorted(attempts):
        found.update(_steps_in(folder / "samples"))
    found.update(_steps_in(run_dir / "samples"))
    return found


CHUNK = 1024 * 1024


def line_spans(path: Path) -> list[tuple[int, int]]:
    """(start, end) byte offsets of each non-empty line, read in chunks (the file is never held whole)."""
    spans = []
    start = base = 0
    with open(path, "rb") as fh:
        while chunk := fh.read(CHUNK):
            pos = chunk.find(b"\n")
            while pos >= 0:
                end = base + pos
                if end > start:
                    spans.append((start, end))
                start = end + 1
                pos = chunk.find(b"\n", pos + 1)
            base += len(chunk)
    if base > start:  # a last line without its newline
        spans.append((start, base))
    return spans


class SampleFiles:
    """Pages of sample files, with the line index of the files read last kept in memory."""

    def __init__(self, kept: int = INDEXES_KEPT) -> None:
        self.kept = kept
        self._indexes: OrderedDict[tuple[str, int, int], list[tuple[int, int]]] = OrderedDict()

    def _index(self, path: Path) -> list[tuple[int, int]]:
        stat = path.stat()
        key = (str(path), stat.st_ino, stat.st_size)  # a rewritten step is a new file (rename): a new key
        spans = self._indexes.get(key)
        if spans is None:
            spans = line_spans(path)
            self._indexes[key] = spans
            while len(self._indexes) > self.kept:
                self._indexes.popitem(last=False)
        self._indexes.move_to_end(key)
        return spans

    def read(self, path: Path, start: int, end: int) -> bytes:
        """Bytes ``start .. end`` of a file."""
        with open(path, "rb") as fh:
            fh.seek(start)
            return fh.read(end - start)

    def page(self, path: Path | None, offset: int, limit: int) -> tuple[list[str], int]:
        """The served rows ``offset .. offset+limit`` of a step file, and its number of rows."""
        if path is None:
            return [], 0
        try:
            spans = self._index(path)
        except FileNotFoundError:  # deleted with its run between the listing and the read
            return [], 0
        chosen = spans[offset : offset + limit]
        if not chosen:
            return [], len(spans)
        base = chosen[0][0]
        block = self.read(path, base, chosen[-1][1])
        rows = [served_row(block[start - base : end - base]) for start, end in chosen]
        return [r for r in rows if r is not None], len(spans)
