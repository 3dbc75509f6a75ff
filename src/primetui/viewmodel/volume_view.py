"""What the volumes screen shows of a volume and its sessions, and what it checks in its forms.

Plain functions (no textual, no rich) over the wire models (:class:`~primetui.api.models.Volume`,
:class:`~primetui.api.models.VolumeSession`).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from primetui.sft.sizing import parse_size as _size_bytes
from primetui.viewmodel.fmt import DASH, fmt_bytes

if TYPE_CHECKING:
    from primetui.api.models import Volume, VolumeSession

VOLUME_STATUS_LABEL: dict[str, str] = {
    "RUNNING": "CREATED",
    "TERMINATING": "DELETING",
    "TOMBSTONED": "DELETE FAILED",
}
"""The prime CLI shows these volume statuses under friendlier names (contract §2.1)."""

DEAD_SESSION_STATUSES = frozenset({"FAILED", "STOPPED", "COMPLETED", "UNKNOWN", "TERMINATING", "TOMBSTONED"})
"""Session statuses the prime CLI treats as dead (contract §3.1)."""


def volume_usage(volume: Volume) -> str:
    """``46.5 KiB used, 100.0 GiB free`` when the platform says how much is stored, else a dash."""
    used = volume.used_bytes
    if used is None:
        return DASH
    total = _size_bytes(volume.size or "")
    if total is None:
        return f"{fmt_bytes(used)} used"
    return f"{fmt_bytes(used)} used, {fmt_bytes(max(0, total - int(used)))} free"


def volume_status_label(status: str) -> str:
    return VOLUME_STATUS_LABEL.get(status.upper(), status.upper())


def session_is_live(session: VolumeSession) -> bool:
    """Running, or still writing its changes back (the final sync the seed says to wait for)."""
    status = (session.status or "").upper()
    phase = (session.phase or "").lower()
    if phase in ("syncing", "finalizing"):
        return True
    return status not in DEAD_SESSION_STATUSES and phase not in ("stopped", "failed")


def session_blocks_dispatch(session: VolumeSession) -> bool:
    """A live read-write session (or one still syncing back) keeps a run from starting."""
    return session_is_live(session) and not session.read_only


def session_mode(session: VolumeSession) -> str:
    return "RO" if session.read_only else "RW"


def parse_size(text: str) -> int | None:
    """``100Gi`` / ``5Ti`` → bytes; None when it is not a whole number of Gi or Ti."""
    text = text.strip()
    for suffix, mult in (("Gi", 1024**3), ("Ti", 1024**4)):
        if text.endswith(suffix) and text[: -len(suffix)].isdigit():
            n = int(text[: -len(suffix)])
            return n * mult if n > 0 else None
    return None


def check_volume_name(name: str) -> str | None:
    """One sentence saying what is wrong with a volume name, or None when it is fine."""
    if not name:
        return "Give the volume a name, e.g. research."
    if len(name) > 63:
        return "Volume names are at most 63 characters; pick a shorter one."
    if not re.fullmatch(r"[a-z0-9]([a-z0-9-]*[a-z0-9])?", name):
        return "Use lowercase letters, digits and dashes (not at the ends), e.g. research-2."
    return None


def check_volume_size(text: str, current: str | None = None) -> str | None:
    """One sentence saying what is wrong with a size (``100Gi``, ``5Ti``), or None."""
    size = parse_size(text)
    if size is None:
        return "Write the size as a whole number of Gi or Ti, e.g. 100Gi or 5Ti."
    if current is not None:
        cur = parse_size(current)
        if cur is not None and size <= cur:
            return f"A volume can only grow; pick more than {current}."
    return None
