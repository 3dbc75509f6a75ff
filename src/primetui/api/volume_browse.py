"""What the volume browser shows, read through the volume's storage route (no session).

``folder`` lists one folder with each child's size (a file's bytes, a folder's ``du``) from one
recursive listing; ``preview`` reads the head of a file: text and JSON as text, jsonl and parquet
as their first rows with their columns. Synchronous (run it in a thread); reads are bounded.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

MAX_LISTED = 50_000
PREVIEW_BYTES = 16 * 1024
PREVIEW_ROWS = 8
CELL = 60


@dataclass(frozen=True)
class Child:
    """A file or folder in the listed folder: ``size`` is a folder's total bytes (du)."""

    name: str
    is_dir: bool
    size: int
    files: int = 1
    modified: datetime | None = None


@dataclass
class Listing:
    children: list[Child] = field(default_factory=list)
    total: int = 0
    truncated: bool = False


def folder(storage: Any, rel: str) -> Listing:
    """The children of folder ``rel`` ('' is the root), folders first, with their du sizes."""
    prefix = rel.strip("/") + "/" if rel.strip("/") else ""
    sizes: dict[str, list[Any]] = {}
    listing = Listing()
    for n, item in enumerate(storage.list(prefix, recursive=True)):
        if n >= MAX_LISTED:
            listing.truncated = True
            break
        sub = item.key[len(prefix) :]
        if not sub:
            continue
        head, sep, _ = sub.partition("/")
        entry = sizes.setdefault(head, [bool(sep), 0, 0, None])
        entry[0] = entry[0] or bool(sep)
        if not item.is_dir:
            entry[1] += item.size or 0
            entry[2] += 1
            listing.total += item.size or 0
            if not sep:
                entry[3] = item.modified
    listing.children = sorted(
        (Child(name, d, size, files, when) for name, (d, size, files, when) in sizes.items()),
        key=lambda c: (not c.is_dir, c.name),
    )
    return listing


@dataclass(frozen=True)
class Preview:
    """A file's head: ``text`` (text, JSON, or why there is none) or ``columns`` and ``rows``."""

    text: str = ""
    columns: tuple[str, ...] = ()
    rows: tuple[tuple[str, ...], ...] = ()


def _cell(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= CELL else text[: CELL - 1] + "…"


def _table(records: list[dict[str, Any]]) -> Preview:
    columns: list[str] = []
    for record in records:
        columns.extend(k for k in record if k not in columns)
    rows = tuple(tuple(_cell(r.get(c, "")) for c in columns) for r in records)
    return Preview(columns=tuple(columns), rows=rows)


def preview(storage: Any, rel: str, size: int) -> Preview:
    """The head of the file ``rel`` (``size`` bytes) as the browser shows it."""
    name = rel.rsplit("/", 1)[-1]
    if name.endswith(".parquet"):
        from primetui.sft.parquet import ParquetUnavailable, parquet_file

        try:
            with storage.ranged(rel, size) as fh:
                table = next(parquet_file(fh).iter_batches(batch_size=PREVIEW_ROWS), None)
        except ParquetUnavailable as exc:
            return Preview(text=f"{name}: {exc}.")
        return _table(table.to_pylist() if table is not None else [])
    head = storage.read(rel, 0, PREVIEW_BYTES)
    if b"\x00" in head[:1024]:
        return Preview(text=f"{name} is binary ({size} bytes); get it to look inside.")
    text = head.decode("utf-8", errors="replace")
    if name.endswith((".jsonl", ".ndjson")):
        records = []
        for line in text.split("\n")[:PREVIEW_ROWS]:
            try:
                value = json.loads(line)
            except json.JSONDecodeError:
                break
            if isinstance(value, dict):
                records.append(value)
        if records:
            return _table(records)
    more = f"\n… ({size - len(head)} more bytes)" if size > len(head) else ""
    return Preview(text=text + more)
