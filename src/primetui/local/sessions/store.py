"""The session table: one SQLite file of our own, ``<data_dir>/sessions/sessions.sqlite3``.

Records live in memory while the server runs (progress changes several times a second); the table
is written on every phase change so a restart knows which sessions were live and can finish them
(a read-write session's changes are synced, never dropped).
"""

from __future__ import annotations

import sqlite3
import threading
from dataclasses import asdict, dataclass, fields
from pathlib import Path

PHASES = ("creating", "staging", "ready", "syncing", "finalizing", "stopped", "failed")
LIVE_PHASES = frozenset({"creating", "staging", "ready", "syncing", "finalizing"})
TERMINAL_PHASES = frozenset({"stopped", "failed"})

# Upper-case status per phase. TERMINATING/STOPPED/FAILED are the names the prime CLI treats as
# "never going to publish an endpoint"; PENDING/RUNNING for the live ones.
STATUS_BY_PHASE = {
    "creating": "PENDING",
    "staging": "PENDING",
    "ready": "RUNNING",
    "syncing": "TERMINATING",
    "finalizing": "TERMINATING",
    "stopped": "STOPPED",
    "failed": "FAILED",
}


@dataclass
class SessionRecord:
    """One volume session as the platform knows it."""

    id: str
    volume_name: str
    """The volume's ``paths.volume_key``: its name, or ``_teams/<teamId>/<name>`` for a team's (the wire shows the
    name)."""
    read_only: bool
    alias: str
    created_at: str
    phase: str = "creating"
    progress: str | None = None
    error_message: str | None = None
    ssh_port: int | None = None
    stop_reason: str | None = None
    stopped_at: str | None = None

    @property
    def status(self) -> str:
        return STATUS_BY_PHASE.get(self.phase, self.phase.upper())

    @property
    def live(self) -> bool:
        return self.phase in LIVE_PHASES


_COLUMNS = [f.name for f in fields(SessionRecord)]


class SessionStore:
    """Thread-safe persistence of :class:`SessionRecord` rows."""

    def __init__(self, path: Path):
        self._lock = threading.Lock()
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS volume_sessions ("
            "id TEXT PRIMARY KEY, volume_name TEXT NOT NULL, read_only INTEGER NOT NULL, alias TEXT NOT NULL,"
            "created_at TEXT NOT NULL, phase TEXT NOT NULL, progress TEXT, error_message TEXT,"
            "ssh_port INTEGER, stop_reason TEXT, stopped_at TEXT)"
        )
        self._db.execute("CREATE INDEX IF NOT EXISTS volume_sessions_by_volume ON volume_sessions(volume_name)")

    def save(self, rec: SessionRecord) -> None:
        row = asdict(rec)
        row["read_only"] = int(rec.read_only)
        marks = ",".join("?" for _ in _COLUMNS)
        with self._lock:
            self._db.execute(
                f"INSERT OR REPLACE INTO volume_sessions ({','.join(_COLUMNS)}) VALUES ({marks})",
                [row[c] for c in _COLUMNS],
            )

    def load_all(self) -> list[SessionRecord]:
        with self._lock:
            rows = self._db.execute(f"SELECT {','.join(_COLUMNS)} FROM volume_sessions").fetchall()
        out = []
        for row in rows:
            data = dict(zip(_COLUMNS, row))
            data["read_only"] = bool(data["read_only"])
            out.append(SessionRecord(**data))
        return out

    def close(self) -> None:
        with self._lock:
            self._db.close()
