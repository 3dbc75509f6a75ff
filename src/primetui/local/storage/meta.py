"""What a bucket keeps beside an object and a file system does not: its ETag and user metadata.

One row per object written through the storage route. A row is trusted only while the file still has
the size and mtime it had when written; a file changed since (by a session, by a run) has no row
that matches, and then answers with what the file itself says: its mtime (as rclone's ``mtime``
metadata, which the hosted sync writes) and an ETag made of its size and mtime.
"""

from __future__ import annotations

import json
import os
import sqlite3
from email.utils import formatdate

SCHEMA = """
CREATE TABLE IF NOT EXISTS storage_objects (
    volume TEXT NOT NULL,  -- the volume's paths.volume_key (owner and name)
    key TEXT NOT NULL,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    etag TEXT NOT NULL,
    metadata TEXT NOT NULL,
    PRIMARY KEY (volume, key)
)
"""


def ensure_table(db: sqlite3.Connection) -> None:
    db.execute(SCHEMA)


def record(
    db: sqlite3.Connection, volume: str, key: str, st: os.stat_result, etag: str, metadata: dict[str, str]
) -> None:
    db.execute(
        "INSERT OR REPLACE INTO storage_objects VALUES (?, ?, ?, ?, ?, ?)",
        (volume, key, st.st_size, st.st_mtime_ns, etag, json.dumps(metadata, sort_keys=True)),
    )


def forget_volume(db: sqlite3.Connection, volume: str) -> None:
    ensure_table(db)
    db.execute("DELETE FROM storage_objects WHERE volume = ?", (volume,))


def mtime_text(mtime_ns: int) -> str:
    """rclone's ``mtime`` metadata: seconds with up to nine decimals, trailing zeros dropped."""
    return f"{mtime_ns // 10**9}.{mtime_ns % 10**9:09d}".rstrip("0").rstrip(".")


def describe(db: sqlite3.Connection, volume: str, key: str, st: os.stat_result) -> tuple[str, dict[str, str]]:
    """(ETag with quotes, user metadata) of the object at ``key`` whose file stats as ``st``."""
    row = db.execute(
        "SELECT size, mtime_ns, etag, metadata FROM storage_objects WHERE volume = ? AND key = ?", (volume, key)
    ).fetchone()
    if row is not None and row[0] == st.st_size and row[1] == st.st_mtime_ns:
        return row[2], json.loads(row[3])
    return f'"{st.st_size:x}-{st.st_mtime_ns:x}"', {"mtime": mtime_text(st.st_mtime_ns)}


def http_date(mtime_ns: int) -> str:
    return formatdate(mtime_ns / 1e9, usegmt=True)
