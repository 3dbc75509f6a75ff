"""The local platform's state: one SQLite database (WAL) under the data dir.

Everything a client can read lives here (volumes, runs, log lines, metric rows, checkpoints), so a
restart of the server keeps all of it. The ingest cursors (``offsets``) are written in the same
transaction as the rows they produced, so a crash never duplicates or drops an ingested line.

All access happens on the server's event loop thread; the connection is not shared across threads.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timezone
from itertools import chain, count
from pathlib import Path
from typing import Any

from primetui.local.paths import safe_join, volume_key

VOLUMES_TABLE = """
CREATE TABLE IF NOT EXISTS volumes (
    team_id TEXT,  -- the owner: NULL for the personal account, else the team's id
    name TEXT NOT NULL,
    size TEXT NOT NULL,
    size_bytes INTEGER NOT NULL,
    status TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
)"""

SCHEMA = f"""
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
{VOLUMES_TABLE};
CREATE TABLE IF NOT EXISTS runs (
    id TEXT PRIMARY KEY,
    seq INTEGER NOT NULL,
    name TEXT,
    status TEXT NOT NULL,
    config TEXT NOT NULL,
    volume TEXT,
    model TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    started_at TEXT,
    completed_at TEXT,
    error_message TEXT,
    queue_reason TEXT,
    notice TEXT,
    pid INTEGER,
    attempt INTEGER NOT NULL DEFAULT 0,
    resume_from TEXT,
    resumed_from_run TEXT,
    resumed_as_run TEXT,
    gpu_type TEXT,
    requested TEXT,
    runs_ahead INTEGER,
    phase_since REAL NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS runs_by_seq ON runs (seq DESC);
CREATE TABLE IF NOT EXISTS log_streams (
    id INTEGER PRIMARY KEY,  -- a stream's lines are the log ids [id << 40, (id + 1) << 40)
    run_id TEXT NOT NULL,
    component TEXT NOT NULL,
    pod_index INTEGER NOT NULL,
    UNIQUE (run_id, component, pod_index)
);
CREATE TABLE IF NOT EXISTS metrics (
    run_id TEXT NOT NULL,
    step INTEGER NOT NULL,
    time REAL NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (run_id, step)
);
CREATE TABLE IF NOT EXISTS checkpoints (
    run_id TEXT NOT NULL,
    step INTEGER NOT NULL,
    path TEXT NOT NULL,
    size_bytes INTEGER NOT NULL,
    created_at REAL NOT NULL,
    PRIMARY KEY (run_id, step)
);
CREATE TABLE IF NOT EXISTS components (
    run_id TEXT PRIMARY KEY,
    data TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS distributions (
    run_id TEXT NOT NULL,
    step INTEGER NOT NULL,
    time REAL NOT NULL,
    data TEXT NOT NULL,  -- the raw rewards and advantages lists, binned on read
    PRIMARY KEY (run_id, step)
);
CREATE TABLE IF NOT EXISTS offsets (
    run_id TEXT NOT NULL,
    file TEXT NOT NULL,
    offset INTEGER NOT NULL,
    PRIMARY KEY (run_id, file)
);
"""

VOLUMES_BY_OWNER = "CREATE UNIQUE INDEX IF NOT EXISTS volumes_by_owner ON volumes (ifnull(team_id, ''), name)"
"""Names are unique per owner, as on hosted: a team and the personal account may each have ``research``."""

LOGS_TABLE = """
CREATE TABLE IF NOT EXISTS logs (
    id INTEGER PRIMARY KEY,  -- (stream << 40) | seq; seq orders every line the store was given
    ts REAL NOT NULL,
    level TEXT,
    line TEXT NOT NULL
)
"""

LOG_VIEW = f"""
CREATE VIEW IF NOT EXISTS log_lines AS
SELECT s.run_id, s.component, s.pod_index, l.id & {(1 << 40) - 1} AS seq, l.ts, l.level, l.line
FROM log_streams AS s JOIN logs AS l ON l.id BETWEEN s.id << 40 AND (s.id << 40) + {(1 << 40) - 1};
"""
"""Every log line with its run, component and pod, for tools reading the file (``ORDER BY seq``)."""

STREAM_SHIFT = 40
"""Log ids: the stream in the high bits, a store-wide sequence number in the low 40."""
SEQ_MASK = (1 << STREAM_SHIFT) - 1
INSERT_BATCH = 100
"""Rows per INSERT statement on the ingest path (one statement step per row costs more than SQLite's insert)."""
_INSERT_LOGS = "INSERT INTO logs (id, ts, level, line) VALUES " + ", ".join(["(?, ?, ?, ?)"] * INSERT_BATCH)

ACTIVE_RUN_STATUSES = ("PENDING", "QUEUED", "CREATING", "RUNNING", "PAUSING")
WAITING_RUN_STATUSES = ("PENDING", "QUEUED")
BUSY_RUN_STATUSES = ("CREATING", "RUNNING", "PAUSING")  # a trainer process exists
TERMINAL_RUN_STATUSES = ("COMPLETED", "FAILED", "STOPPED", "PAUSED")


def iso_now() -> str:
    """UTC now as an ISO-8601 string with a ``Z`` suffix, as the hosted API writes timestamps."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def iso_from_unix(ts: float) -> str:
    return datetime.fromtimestamp(ts, timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _where(sql: str, args: list[Any], *conditions: tuple[str, Any]) -> tuple[str, list[Any]]:
    """``sql`` with `` AND <condition>`` added for each condition whose value is not None."""
    for condition, value in conditions:
        if value is not None:
            sql += f" AND {condition}"
            args.append(value)
    return sql, args


def _stream_range(stream: int) -> tuple[int, int]:
    """The first and last log id a stream can hold."""
    return stream << STREAM_SHIFT, (stream << STREAM_SHIFT) | SEQ_MASK


class Store:
    """A thin, typed layer over the SQLite file."""

    def __init__(self, path: Path, volumes_dir: Path | None = None) -> None:
        self.path = path
        self.volumes_dir = volumes_dir if volumes_dir is not None else path.parent / "volumes"
        self.db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self.db.row_factory = sqlite3.Row
        # A log store: mostly long appends. Bigger pages (a new file only: an existing one keeps its
        # size) and a 16 MB cache mean fewer page splits and fewer WAL frames per line.
        self.db.execute("PRAGMA page_size=16384")
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute("PRAGMA busy_timeout=5000")
        self.db.execute("PRAGMA cache_size=-16384")
        self.db.executescript(SCHEMA)
        self._migrate_logs()
        self.db.executescript(LOGS_TABLE + ";" + LOG_VIEW)
        self._add_missing_columns()
        self._migrate_volume_owners()
        self.db.execute(VOLUMES_BY_OWNER)

    def _migrate_logs(self) -> None:
        """A data dir from before log streams: move its log lines into the stream-keyed table, in place.

        The old table held ``run_id``, ``component`` and ``pod_index`` in every row plus an index on
        them; its global ids become the new sequence numbers, so every stream keeps its order and
        lines ingested later come after the old ones. One transaction: a crash leaves the old table.
        """
        if "run_id" not in {r["name"] for r in self.db.execute("PRAGMA table_info(logs)")}:
            return
        with self.tx() as db:
            db.execute("DROP VIEW IF EXISTS log_lines")
            db.execute("ALTER TABLE logs RENAME TO logs_before_streams")  # its index goes with it
            db.execute(LOGS_TABLE)
            db.execute("""INSERT OR IGNORE INTO log_streams (run_id, component, pod_index)
                SELECT run_id, component, pod_index FROM logs_before_streams
                GROUP BY run_id, component, pod_index ORDER BY MIN(id)""")
            streams = db.execute("SELECT id, run_id, component, pod_index FROM log_streams ORDER BY id").fetchall()
            for stream in streams:  # stream by stream, in id order: appends, no sort of the whole table
                db.execute(
                    """INSERT INTO logs (id, ts, level, line)
                    SELECT ? | id, ts, level, line FROM logs_before_streams
                    WHERE run_id = ? AND component = ? AND pod_index = ? ORDER BY id""",
                    (stream["id"] << STREAM_SHIFT, stream["run_id"], stream["component"], stream["pod_index"]),
                )
            last = db.execute("SELECT MAX(id) AS n FROM logs_before_streams").fetchone()["n"]
            db.execute("DROP TABLE logs_before_streams")
            if last is not None:
                db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('log_seq', ?)", (str(last),))

    def _add_missing_columns(self) -> None:
        """Columns added after a data dir was first created (SQLite's CREATE IF NOT EXISTS keeps old tables)."""
        have = {r["name"] for r in self.db.execute("PRAGMA table_info(runs)")}
        for column, kind in (("requested", "TEXT"), ("runs_ahead", "INTEGER"), ("team_id", "TEXT")):
            if column not in have:
                self.db.execute(f"ALTER TABLE runs ADD COLUMN {column} {kind}")
        if "team_id" not in {r["name"] for r in self.db.execute("PRAGMA table_info(volumes)")}:
            self.db.execute("ALTER TABLE volumes ADD COLUMN team_id TEXT")  # None: the personal account

    def _migrate_volume_owners(self) -> None:
        """A data dir from when volume names were unique across owners: key volumes by (owner, name).

        The table loses its primary key on ``name``; each team volume's folder moves from
        ``volumes/<name>`` to ``volumes/_teams/<team>/<name>``; its storage metadata and its runs'
        checkpoint paths follow it.
        One transaction: a failed move puts the folders already moved back and leaves the old table;
        a crash before the commit leaves the old table, and the next open moves what is left (a folder
        already at its new place is not moved twice).
        """
        pk = {r["name"]: r["pk"] for r in self.db.execute("PRAGMA table_info(volumes)")}
        if not pk.get("name"):
            return
        moved: list[tuple[Path, Path]] = []
        try:
            with self.tx() as db:
                db.execute("ALTER TABLE volumes RENAME TO volumes_by_name")
                db.execute(VOLUMES_TABLE)
                cols = "team_id, name, size, size_bytes, status, created_at, updated_at"
                db.execute(f"INSERT INTO volumes ({cols}) SELECT {cols} FROM volumes_by_name")
                db.execute("DROP TABLE volumes_by_name")
                has_meta = db.execute("SELECT 1 FROM sqlite_master WHERE name = 'storage_objects'").fetchone()
                for row in db.execute("SELECT team_id, name FROM volumes WHERE team_id IS NOT NULL").fetchall():
                    key = volume_key(row["team_id"], row["name"])
                    if has_meta:
                        db.execute("UPDATE storage_objects SET volume = ? WHERE volume = ?", (key, row["name"]))
                    old, new = safe_join(self.volumes_dir, row["name"]), safe_join(self.volumes_dir, key)
                    was = f"{old}/"  # checkpoints are recorded by absolute path, so they follow their folder
                    db.execute(
                        "UPDATE checkpoints SET path = ? || substr(path, ?) WHERE substr(path, 1, ?) = ?",
                        (f"{new}/", len(was) + 1, len(was), was),
                    )
                    if old.is_dir() and not new.exists():
                        new.parent.mkdir(parents=True, exist_ok=True)
                        os.rename(old, new)
                        moved.append((old, new))
        except BaseException:
            for old, new in reversed(moved):
                os.rename(new, old)
            raise

    def close(self) -> None:
        self.db.close()

    @contextmanager
    def tx(self) -> Iterator[sqlite3.Connection]:
        """One transaction: everything inside commits together or not at all."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield self.db
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    # meta -------------------------------------------------------------------------------------
    def get_meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else row["value"]

    def set_meta(self, key: str, value: str) -> None:
        self.db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))

    # volumes ----------------------------------------------------------------------------------
    def list_volumes(self, team_id: str | None | bool = False) -> list[sqlite3.Row]:
        """Every volume, or (``team_id`` None or a team id) the volumes of that scope."""
        if team_id is False:
            return self.db.execute("SELECT * FROM volumes ORDER BY created_at, name").fetchall()
        return self.db.execute(
            "SELECT * FROM volumes WHERE team_id IS ? ORDER BY created_at, name", (team_id,)
        ).fetchall()

    def get_volume(self, team_id: str | None, name: str) -> sqlite3.Row | None:
        """Volume ``name`` of one owner (``team_id`` None: the personal account)."""
        return self.db.execute("SELECT * FROM volumes WHERE team_id IS ? AND name = ?", (team_id, name)).fetchone()

    def insert_volume(self, team_id: str | None, name: str, size: str, size_bytes: int, status: str) -> None:
        now = iso_now()
        self.db.execute(
            "INSERT INTO volumes (team_id, name, size, size_bytes, status, created_at, updated_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (team_id, name, size, size_bytes, status, now, now),
        )

    def update_volume(self, team_id: str | None, name: str, **fields: Any) -> None:
        fields["updated_at"] = iso_now()
        cols = ", ".join(f"{k} = ?" for k in fields)
        self.db.execute(f"UPDATE volumes SET {cols} WHERE team_id IS ? AND name = ?", (*fields.values(), team_id, name))

    def delete_volume(self, team_id: str | None, name: str) -> None:
        self.db.execute("DELETE FROM volumes WHERE team_id IS ? AND name = ?", (team_id, name))

    # runs -------------------------------------------------------------------------------------
    def insert_run(self, **fields: Any) -> None:
        now = iso_now()
        seq_row = self.db.execute("SELECT COALESCE(MAX(seq), 0) + 1 AS seq FROM runs").fetchone()
        fields.setdefault("created_at", now)
        fields.setdefault("updated_at", now)
        fields.setdefault("phase_since", time.time())
        fields["seq"] = seq_row["seq"]
        fields["config"] = json.dumps(fields["config"])
        cols = ", ".join(fields)
        marks = ", ".join("?" for _ in fields)
        self.db.execute(f"INSERT INTO runs ({cols}) VALUES ({marks})", tuple(fields.values()))

    def get_run(self, run_id: str) -> sqlite3.Row | None:
        return self.db.execute("SELECT * FROM runs WHERE id = ?", (run_id,)).fetchone()

    def update_run(self, run_id: str, **fields: Any) -> None:
        fields["updated_at"] = iso_now()
        if "status" in fields:
            fields.setdefault("phase_since", time.time())
        cols = ", ".join(f"{k} = ?" for k in fields)
        self.db.execute(f"UPDATE runs SET {cols} WHERE id = ?", (*fields.values(), run_id))

    def list_runs(self, offset: int, limit: int, team_id: str | None = None) -> tuple[list[sqlite3.Row], int]:
        """One page of the runs of a scope (None: the personal account), newest first."""
        total = self.db.execute("SELECT COUNT(*) AS n FROM runs WHERE team_id IS ?", (team_id,)).fetchone()["n"]
        rows = self.db.execute(
            "SELECT * FROM runs WHERE team_id IS ? ORDER BY seq DESC LIMIT ? OFFSET ?", (team_id, limit, offset)
        ).fetchall()
        return rows, total

    def runs_with_status(self, statuses: tuple[str, ...]) -> list[sqlite3.Row]:
        marks = ", ".join("?" for _ in statuses)
        return self.db.execute(f"SELECT * FROM runs WHERE status IN ({marks}) ORDER BY seq", statuses).fetchall()

    def active_runs_on_volume(self, team_id: str | None, volume: str) -> list[sqlite3.Row]:
        """Active runs on volume ``volume`` of one owner (a run uses its own scope's volume)."""
        marks = ", ".join("?" for _ in ACTIVE_RUN_STATUSES)
        return self.db.execute(
            f"SELECT * FROM runs WHERE team_id IS ? AND volume = ? AND status IN ({marks}) ORDER BY seq",
            (team_id, volume, *ACTIVE_RUN_STATUSES),
        ).fetchall()

    def delete_run(self, run_id: str) -> None:
        with self.tx() as db:
            for stream in self._streams(run_id):
                db.execute("DELETE FROM logs WHERE id BETWEEN ? AND ?", _stream_range(stream))
            for table in ("runs", "log_streams", "metrics", "checkpoints", "components", "offsets", "distributions"):
                column = "id" if table == "runs" else "run_id"
                db.execute(f"DELETE FROM {table} WHERE {column} = ?", (run_id,))

    # logs -------------------------------------------------------------------------------------
    # One row per line, keyed so that a stream's lines are one rowid range: no secondary index to
    # maintain on ingest, and a window (tail, since, level, search) is a backwards scan of that range.
    def add_log_lines(
        self,
        db: sqlite3.Connection,
        run_id: str,
        component: str,
        pod_index: int,
        lines: list[tuple[float, str | None, str]],
    ) -> None:
        if lines:
            ts, levels, texts = zip(*lines)
            self.add_log_columns(db, run_id, component, pod_index, ts, levels, texts)

    def add_log_columns(
        self,
        db: sqlite3.Connection,
        run_id: str,
        component: str,
        pod_index: int,
        ts: Sequence[float],
        levels: Sequence[str | None],
        lines: Sequence[str],
    ) -> None:
        """Append lines (three equal-length columns) to a stream, inside the caller's transaction."""
        n = len(lines)
        if not n:
            return
        db.execute(
            "INSERT OR IGNORE INTO log_streams (run_id, component, pod_index) VALUES (?, ?, ?)",
            (run_id, component, pod_index),
        )
        stream = db.execute(
            "SELECT id FROM log_streams WHERE run_id = ? AND component = ? AND pod_index = ?",
            (run_id, component, pod_index),
        ).fetchone()["id"]
        row = db.execute("SELECT value FROM meta WHERE key = 'log_seq'").fetchone()
        seq = 0 if row is None else int(row["value"])
        flat = list(chain.from_iterable(zip(count((stream << STREAM_SHIFT) | (seq + 1)), ts, levels, lines)))
        width = 4 * INSERT_BATCH
        full = 4 * (n - n % INSERT_BATCH)
        if full:
            db.executemany(_INSERT_LOGS, [flat[i : i + width] for i in range(0, full, width)])
        if full < len(flat):
            rest = iter(flat[full:])
            db.executemany("INSERT INTO logs (id, ts, level, line) VALUES (?, ?, ?, ?)", zip(rest, rest, rest, rest))
        db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('log_seq', ?)", (str(seq + n),))

    def _streams(self, run_id: str, component: str | None = None, pod_index: int | None = None) -> list[int]:
        sql, args = _where(
            "SELECT id FROM log_streams WHERE run_id = ?",
            [run_id],
            ("component = ?", component),
            ("pod_index = ?", pod_index),
        )
        return [r["id"] for r in self.db.execute(sql, args)]

    def log_components(self, run_id: str) -> list[str]:
        rows = self.db.execute(
            "SELECT DISTINCT component FROM log_streams WHERE run_id = ? ORDER BY component", (run_id,)
        ).fetchall()
        return [r["component"] for r in rows]

    def log_pods(self, run_id: str, component: str) -> list[int]:
        """The pod indexes that have log lines of ``component`` (one per node of a multi-node run)."""
        rows = self.db.execute(
            "SELECT pod_index FROM log_streams WHERE run_id = ? AND component = ? ORDER BY pod_index",
            (run_id, component),
        ).fetchall()
        return [r["pod_index"] for r in rows]

    def query_logs(
        self,
        run_id: str,
        component: str,
        pod_index: int | None,
        since_ts: float | None,
        level: str | None,
        search: str | None = None,
        pattern: re.Pattern[str] | None = None,
        limit: int = 5000,
    ) -> list[str]:
        """The last ``limit`` matching lines, oldest first; filtering and tailing happen in SQLite.

        ``search`` is a plain substring; ``pattern`` a compiled regex (checked per candidate row).
        ``pod_index`` None: every pod of the component, in the order the lines were stored.
        """
        streams = self._streams(run_id, component, pod_index)
        if not streams:
            return []
        sql, args = _where(
            "SELECT id, line FROM logs WHERE id BETWEEN ? AND ?",
            [],
            ("ts >= ?", since_ts),
            ("level = ?", level),
            ("instr(line, ?) > 0", search),
        )
        if pattern is not None:
            # Re-registered per query (same name): the store is used from one thread only.
            self.db.create_function("primetui_match", 1, lambda line: 1 if pattern.search(line) else 0)
            sql += " AND primetui_match(line)"
        sql += " ORDER BY id DESC LIMIT ?"
        args.append(limit)
        if len(streams) == 1:
            lines = [r["line"] for r in self.db.execute(sql, (*_stream_range(streams[0]), *args))]
            lines.reverse()
            return lines
        rows = [
            (r["id"] & SEQ_MASK, r["line"])
            for stream in streams
            for r in self.db.execute(sql, (*_stream_range(stream), *args))
        ]
        rows.sort()
        if limit >= 0:  # (a negative LIMIT is no limit in SQLite)
            rows = rows[len(rows) - limit :] if limit < len(rows) else rows
        return [line for _, line in rows]

    # metrics ----------------------------------------------------------------------------------
    def merge_metric_rows(self, db: sqlite3.Connection, run_id: str, rows: list[dict[str, Any]]) -> None:
        """prime-rl writes several rows per step (one per monitor group); the API serves one per step."""
        for row in rows:
            step = int(row["step"])
            existing = db.execute("SELECT data FROM metrics WHERE run_id = ? AND step = ?", (run_id, step)).fetchone()
            data = json.loads(existing["data"]) if existing else {}
            data.update(row)
            db.execute(
                "INSERT OR REPLACE INTO metrics (run_id, step, time, data) VALUES (?, ?, ?, ?)",
                (run_id, step, float(data.get("time") or time.time()), json.dumps(data)),
            )

    def query_metrics(self, run_id: str, min_step: int | None, max_step: int | None, limit: int | None) -> list[dict]:
        sql, args = _where(
            "SELECT data FROM metrics WHERE run_id = ?", [run_id], ("step >= ?", min_step), ("step <= ?", max_step)
        )
        sql += " ORDER BY step"
        if limit is not None:
            sql += " LIMIT ?"
            args.append(limit)
        return [json.loads(r["data"]) for r in self.db.execute(sql, args).fetchall()]

    def latest_metric(self, run_id: str) -> dict | None:
        row = self.db.execute(
            "SELECT data FROM metrics WHERE run_id = ? ORDER BY step DESC LIMIT 1", (run_id,)
        ).fetchone()
        return None if row is None else json.loads(row["data"])

    def metric_steps(self, run_id: str) -> list[int]:
        return [
            r["step"] for r in self.db.execute("SELECT step FROM metrics WHERE run_id = ? ORDER BY step", (run_id,))
        ]

    # RL distributions ---------------------------------------------------------------------
    def put_distribution(self, db: sqlite3.Connection, run_id: str, step: int, when: float, data: dict) -> None:
        db.execute(
            "INSERT OR REPLACE INTO distributions (run_id, step, time, data) VALUES (?, ?, ?, ?)",
            (run_id, step, when, json.dumps(data)),
        )

    def get_distribution(self, run_id: str, step: int | None) -> tuple[int, dict] | None:
        """(step, raw values) of ``step``, or of the latest step with values when ``step`` is None."""
        sql, args = _where("SELECT step, data FROM distributions WHERE run_id = ?", [run_id], ("step = ?", step))
        row = self.db.execute(sql + " ORDER BY step DESC LIMIT 1", args).fetchone()
        return None if row is None else (row["step"], json.loads(row["data"]))

    def distribution_steps(self, run_id: str) -> list[int]:
        return [
            r["step"]
            for r in self.db.execute("SELECT step FROM distributions WHERE run_id = ? ORDER BY step", (run_id,))
        ]

    def last_rl_update(self, run_id: str) -> float | None:
        """When the latest distribution row was written (unix seconds), or None."""
        row = self.db.execute("SELECT MAX(time) AS t FROM distributions WHERE run_id = ?", (run_id,)).fetchone()
        return row["t"]

    # checkpoints ------------------------------------------------------------------------------
    def list_checkpoints(self, run_id: str) -> list[sqlite3.Row]:
        return self.db.execute("SELECT * FROM checkpoints WHERE run_id = ? ORDER BY step", (run_id,)).fetchall()

    # components -------------------------------------------------------------------------------
    def get_components(self, run_id: str) -> Any:
        row = self.db.execute("SELECT data FROM components WHERE run_id = ?", (run_id,)).fetchone()
        return None if row is None else json.loads(row["data"])

    # offsets ----------------------------------------------------------------------------------
    def get_offset(self, run_id: str, file: str) -> int:
        row = self.db.execute("SELECT offset FROM offsets WHERE run_id = ? AND file = ?", (run_id, file)).fetchone()
        return 0 if row is None else int(row["offset"])

    def set_offset(self, db: sqlite3.Connection, run_id: str, file: str, offset: int) -> None:
        db.execute("INSERT OR REPLACE INTO offsets (run_id, file, offset) VALUES (?, ?, ?)", (run_id, file, offset))

    def clear_offsets(self, run_id: str) -> None:
        self.db.execute("DELETE FROM offsets WHERE run_id = ?", (run_id,))
