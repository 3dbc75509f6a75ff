"""The pydantic-free part of the wire contract: known status values, log components, timestamps.

Re-exported by :mod:`primetui.api.models` (import them from there as usual). They live here so the
dashboard's first frame (which reads statuses and timestamps from plain JSON) does not have to
import pydantic.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Final


# --------------------------------------------------------------------------------------------
# Known status values (constants, never enums: unknown values must survive parsing)
# --------------------------------------------------------------------------------------------


class RunStatus:
    """Run statuses the CLI knows (commands/rl.py:881-890), plus `CREATING` from the seed."""

    QUEUED: Final = "QUEUED"
    PENDING: Final = "PENDING"
    CREATING: Final = "CREATING"
    RUNNING: Final = "RUNNING"
    PAUSING: Final = "PAUSING"
    PAUSED: Final = "PAUSED"
    COMPLETED: Final = "COMPLETED"
    FAILED: Final = "FAILED"
    STOPPED: Final = "STOPPED"


KNOWN_RUN_STATUSES: Final = frozenset(
    {
        RunStatus.QUEUED,
        RunStatus.PENDING,
        RunStatus.CREATING,
        RunStatus.RUNNING,
        RunStatus.PAUSING,
        RunStatus.PAUSED,
        RunStatus.COMPLETED,
        RunStatus.FAILED,
        RunStatus.STOPPED,
    }
)
"""Every run status primetui has a meaning for; anything else is shown verbatim."""

TERMINAL_RUN_STATUSES: Final = frozenset({RunStatus.COMPLETED, RunStatus.FAILED, RunStatus.STOPPED, RunStatus.PAUSED})
"""Statuses after which a run never changes again (the CLI's stop-wait set, commands/rl.py:117)."""


def is_terminal_run_status(status: str | None) -> bool:
    """True when a run in `status` will not change any more (case-insensitive)."""
    return bool(status) and status.upper() in TERMINAL_RUN_STATUSES  # type: ignore[union-attr]


class RunKind:
    """Values of `RLRun.kind`."""

    SHARED_RFT_HOSTED: Final = "SHARED_RFT_HOSTED"
    DEDICATED_FULL_FT: Final = "DEDICATED_FULL_FT"
    EXTERNAL: Final = "EXTERNAL"


class VolumeStatus:
    """Volume statuses named in the CLI (commands/volumes.py:65-75, commands/rl.py:861-862)."""

    RUNNING: Final = "RUNNING"
    TERMINATING: Final = "TERMINATING"
    TOMBSTONED: Final = "TOMBSTONED"
    FAILED: Final = "FAILED"


VOLUME_STATUS_LABELS: Final[dict[str, str]] = {
    VolumeStatus.RUNNING: "CREATED",
    VolumeStatus.TERMINATING: "DELETING",
    VolumeStatus.TOMBSTONED: "DELETE FAILED",
}
"""How `prime volumes list` labels a volume status; other values are shown as they are."""


class SessionStatus:
    """Volume session statuses named in the CLI; live values are whatever the platform sends."""

    PENDING: Final = "PENDING"
    RUNNING: Final = "RUNNING"
    FAILED: Final = "FAILED"
    STOPPED: Final = "STOPPED"
    COMPLETED: Final = "COMPLETED"
    UNKNOWN: Final = "UNKNOWN"
    TERMINATING: Final = "TERMINATING"
    TOMBSTONED: Final = "TOMBSTONED"


DEAD_SESSION_STATUSES: Final = frozenset(
    {
        SessionStatus.FAILED,
        SessionStatus.STOPPED,
        SessionStatus.COMPLETED,
        SessionStatus.UNKNOWN,
        SessionStatus.TERMINATING,
        SessionStatus.TOMBSTONED,
    }
)
"""Session statuses the CLI treats as dead (commands/volumes.py:307-314)."""


class SessionPhase:
    """Phases of a volume session (api/training.py:197-199), in lifecycle order."""

    CREATING: Final = "creating"
    STAGING: Final = "staging"
    READY: Final = "ready"
    SYNCING: Final = "syncing"
    FINALIZING: Final = "finalizing"
    STOPPED: Final = "stopped"
    FAILED: Final = "failed"


SESSION_PHASES: Final = (
    SessionPhase.CREATING,
    SessionPhase.STAGING,
    SessionPhase.READY,
    SessionPhase.SYNCING,
    SessionPhase.FINALIZING,
    SessionPhase.STOPPED,
    SessionPhase.FAILED,
)
"""All known phases, in the order a read-write session goes through them."""

DEAD_SESSION_PHASES: Final = frozenset({SessionPhase.FINALIZING, SessionPhase.STOPPED, SessionPhase.FAILED})
"""Phases that will never publish an SSH endpoint (commands/volumes.py:306-375)."""


def is_dead_session(status: str | None, phase: str | None = None) -> bool:
    """True when a session with this status/phase will never (again) accept SSH connections."""
    if status and status.upper() in DEAD_SESSION_STATUSES:
        return True
    return bool(phase) and phase.lower() in DEAD_SESSION_PHASES  # type: ignore[union-attr]


class CheckpointStatus:
    """Checkpoint statuses (commands/rl.py:2653, 2688-2693)."""

    READY: Final = "READY"
    PENDING: Final = "PENDING"
    UPLOADING: Final = "UPLOADING"
    FAILED: Final = "FAILED"


TERMINAL_TRANSFER_STATUSES: Final = frozenset({"succeeded", "failed", "cancelled"})
"""S3 import/export statuses after which a transfer never changes (commands/volumes.py:1524)."""


class LogComponent:
    """Values of R7's `component` query parameter (orchestrator is the server default)."""

    ORCHESTRATOR: Final = "orchestrator"
    TRAINER: Final = "trainer"
    INFERENCE: Final = "inference"
    ENV_SERVER: Final = "env-server"


LOG_LEVELS: Final = ("ERROR", "WARNING", "SUCCESS", "INFO", "DEBUG")
"""Values R7 accepts for `level` (upper case)."""

LOG_NOT_STARTED_MARKERS: Final = (
    "queued",
    "pending",
    "starting",
    "initializing",
    "not started",
    "not available yet",
    "logs are not available",
    "logs not available",
)
"""Words in a 404 detail that mean "this run has no logs yet" (commands/rl.py:2026-2038)."""


# --------------------------------------------------------------------------------------------
# Timestamps
# --------------------------------------------------------------------------------------------


def parse_time(value: str | datetime | None) -> datetime | None:
    """Read a wire timestamp leniently: ISO 8601 with `Z`, an offset, or none (taken as UTC).

    Returns None for a missing or unreadable value, so a display never fails on a timestamp; the
    result is in UTC, and a time UTC cannot hold (``0001-01-01T00:00+14:00``) is unreadable too.
    """
    if value is None:
        return None
    if isinstance(value, datetime):
        dt = value
    else:
        text = value.strip()
        if not text:
            return None
        if text.endswith(("Z", "z")):
            text = text[:-1] + "+00:00"
        try:
            dt = datetime.fromisoformat(text)
        except ValueError:
            return None
    if dt.tzinfo is None:
        return dt.replace(tzinfo=timezone.utc)
    try:
        return dt.astimezone(timezone.utc)
    except OverflowError:
        return None


def wire_time(dt: datetime) -> str:
    """Format a datetime the way the platform sends it: UTC ISO 8601 ending in `Z`."""
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=timezone.utc)
    return dt.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")
