"""The transfer rows (V11-V14) in the platform's SQLite file. Credentials never reach this table."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from primetui.local.paths import split_volume_key
from primetui.local.store import Store, iso_now

TABLE = """
CREATE TABLE IF NOT EXISTS transfers (
    id TEXT PRIMARY KEY,
    seq INTEGER NOT NULL,
    volume TEXT NOT NULL,       -- the volume's key (paths.volume_key): its owner and name
    direction TEXT NOT NULL,    -- import | export
    path TEXT NOT NULL,         -- volume-relative directory
    url TEXT NOT NULL,          -- s3://bucket/prefix
    status TEXT NOT NULL,       -- queued | running | succeeded | failed | cancelled
    progress TEXT,              -- the last rclone-style stats (JSON)
    created_at TEXT NOT NULL,
    started_at TEXT,
    completed_at TEXT,
    error_message TEXT
);
CREATE INDEX IF NOT EXISTS transfers_by_volume ON transfers (volume, seq DESC);
"""
LIVE = ("queued", "running")
TERMINAL = ("succeeded", "failed", "cancelled")


class Rows:
    """Typed access to the ``transfers`` table (on the event loop thread, like the rest of the store)."""

    def __init__(self, store: Store) -> None:
        self.db: sqlite3.Connection = store.db
        self.db.executescript(TABLE)

    def insert(self, transfer_id: str, volume: str, direction: str, path: str, url: str) -> None:
        seq = self.db.execute("SELECT ifnull(max(seq), 0) + 1 FROM transfers").fetchone()[0]
        self.db.execute(
            "INSERT INTO transfers (id, seq, volume, direction, path, url, status, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?, 'queued', ?)",
            (transfer_id, seq, volume, direction, path, url, iso_now()),
        )

    def get(self, volume: str, transfer_id: str) -> sqlite3.Row | None:
        return self.db.execute("SELECT * FROM transfers WHERE volume = ? AND id = ?", (volume, transfer_id)).fetchone()

    def list(self, volume: str) -> list[sqlite3.Row]:
        return self.db.execute("SELECT * FROM transfers WHERE volume = ? ORDER BY seq DESC", (volume,)).fetchall()

    def update(self, transfer_id: str, **fields: Any) -> None:
        if "progress" in fields and fields["progress"] is not None:
            fields["progress"] = json.dumps(fields["progress"])
        cols = ", ".join(f"{k} = ?" for k in fields)
        self.db.execute(f"UPDATE transfers SET {cols} WHERE id = ?", (*fields.values(), transfer_id))

    def fail_orphans(self, message: str) -> None:
        """Rows a previous server left live: their jobs (and credentials) died with it."""
        self.db.execute(
            f"UPDATE transfers SET status = 'failed', error_message = ?, completed_at = ? WHERE status IN {LIVE!r}",
            (message, iso_now()),
        )

    def forget_volume(self, volume: str) -> None:
        self.db.execute("DELETE FROM transfers WHERE volume = ?", (volume,))


def wire(row: sqlite3.Row, live_progress: dict | None = None) -> dict[str, Any]:
    """A row as the wire ``VolumeTransfer`` (the live meter's progress while the job runs)."""
    progress = (
        live_progress if live_progress is not None else (json.loads(row["progress"]) if row["progress"] else None)
    )
    out: dict[str, Any] = {
        "id": row["id"],
        "volumeName": split_volume_key(row["volume"])[1],
        "direction": row["direction"],
        "path": row["path"],
        "url": row["url"],
        "status": row["status"],
        "createdAt": row["created_at"],
    }
    for key, column in (
        ("progress", None),
        ("startedAt", "started_at"),
        ("completedAt", "completed_at"),
        ("errorMessage", "error_message"),
    ):
        value = progress if column is None else row[column]
        if value is not None:
            out[key] = value
    return out
