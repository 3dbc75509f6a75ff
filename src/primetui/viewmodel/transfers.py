"""What a transfer row shows (the dashboard's Transfers panel and ``primetui transfers``): plain data.

The progress cell follows the official CLI's (``412.3 GiB / 1.0 TiB (40%), 182.4 MiB/s, ETA 1h48m``),
so a person who knows ``prime volumes transfers list`` reads the same words here.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from primetui.api.wire import parse_time
from primetui.monitor_core.escapes import clean

TRANSFER_TONE = {
    "succeeded": "success",
    "failed": "error",
    "cancelled": "warning",
    "running": "accent",
    "queued": "muted",
}
"""Tone per status; the word is always shown beside the colour."""


def _short_number(value: str) -> str:
    number, _, unit = value.partition(" ")
    try:
        return f"{float(number):.1f} {unit}".strip()
    except ValueError:
        return value


def _duration(started: str | None, completed: str | None) -> str | None:
    start, end = parse_time(started), parse_time(completed)
    if not isinstance(start, datetime) or not isinstance(end, datetime):
        return None
    seconds = int((end - start).total_seconds())
    if seconds < 0:
        return None
    hours, rest = divmod(seconds, 3600)
    if hours:
        return f"{hours}h{rest // 60}m"
    return f"{rest // 60}m" if rest >= 60 else f"{seconds}s"


def progress_cell(t: Any) -> str:
    """The PROGRESS cell: rclone stats while running, the total (and duration) when done, the error when not."""
    progress = t.progress
    if t.status == "succeeded":
        size = _short_number(progress.total) if progress and progress.total else "done"
        took = _duration(t.started_at, t.completed_at)
        return f"{size} in {took}" if took else size
    if t.status in ("failed", "cancelled"):
        return t.error_message or "-"
    if progress is None:
        return "-"
    bits = []
    if progress.transferred or progress.total:
        size = _short_number(progress.transferred) if progress.transferred else "?"
        if progress.total:
            size += f" / {_short_number(progress.total)}"
        if progress.percentage is not None:
            size += f" ({progress.percentage}%)"
        bits.append(size)
    if progress.rate:
        bits.append(_short_number(progress.rate))
    if progress.eta and progress.eta != "-":
        bits.append(f"ETA {progress.eta[:-2] if progress.eta.endswith('m0s') else progress.eta}")
    return ", ".join(bits) if bits else "-"


@dataclass(frozen=True)
class TransferRow:
    """One transfer, ready to draw or print (every outside string neutralised)."""

    id: str
    volume: str
    direction: str
    path: str
    url: str
    status: str
    fraction: float | None
    """Done, 0..1, for the progress bar (None: not known yet)."""
    rate: str
    eta: str
    errors: int
    detail: str
    tone: str

    @property
    def arrow(self) -> str:
        """``s3 → volume`` for an import, ``volume → s3`` for an export."""
        return (
            f"{self.url} → {self.volume}:/{self.path}"
            if self.direction == "import"
            else f"{self.volume}:/{self.path} → {self.url}"
        )


def transfer_row(t: Any) -> TransferRow:
    progress = t.progress
    fraction = None
    if t.status == "succeeded":
        fraction = 1.0
    elif progress is not None and progress.percentage is not None:
        fraction = max(0.0, min(1.0, progress.percentage / 100))
    return TransferRow(
        id=clean(t.id),
        volume=clean(t.volume_name),
        direction=clean(t.direction),
        path=clean(t.path),
        url=clean(t.url),
        status=clean(t.status),
        fraction=fraction,
        rate=clean(_short_number(progress.rate)) if progress and progress.rate and t.status == "running" else "-",
        eta=clean(progress.eta) if progress and progress.eta and t.status == "running" else "-",
        errors=int(progress.errors or 0) if progress else 0,
        detail=clean(progress_cell(t)),
        tone=TRANSFER_TONE.get(t.status, "muted"),
    )


def format_transfers(transfers: list[Any]) -> str:
    """The headless table: ID VOLUME DIRECTION PATH URL STATUS PROGRESS."""
    header = ("ID", "VOLUME", "DIRECTION", "PATH", "URL", "STATUS", "PROGRESS")
    rows = [header] + [
        (r.id, r.volume, r.direction, r.path or "/", r.url, r.status, r.detail) for r in map(transfer_row, transfers)
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(len(header) - 1)]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row[:-1], widths)) + "  " + row[-1] for row in rows]
    return "\n".join(line.rstrip() for line in lines) if transfers else "No transfers."
