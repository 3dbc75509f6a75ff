"""How the screens and the headless output write times, durations, sizes and sparklines.

Plain functions (no textual, no rich), shared by every front-end so they print the same thing.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from datetime import datetime, timezone

from primetui.api.wire import parse_time

Clock = Callable[[], datetime]
"""Returns the current time (aware, UTC). Injected so snapshots and tests are deterministic."""

DASH = "-"

SPARK_CHARS = "▁▂▃▄▅▆▇█"

__all__ = ["Clock", "DASH", "fmt_age", "fmt_bytes", "fmt_duration", "fmt_time", "parse_time", "sparkline", "step_bar"]


def fmt_time(value: str | datetime | None) -> str:
    """``YYYY-MM-DD HH:MM`` in UTC (the prime CLI's format), or "-"."""
    dt = parse_time(value)
    return dt.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M") if dt else DASH


def fmt_duration(seconds: float | None) -> str:
    """Compact duration: ``42s``, ``3m05s``, ``2h07m``, ``3d04h``; "-" when unknown."""
    if seconds is None or seconds != seconds or seconds < 0:
        return DASH
    s = int(round(seconds))
    if s < 60:
        return f"{s}s"
    m, s = divmod(s, 60)
    if m < 60:
        return f"{m}m{s:02d}s"
    h, m = divmod(m, 60)
    if h < 24:
        return f"{h}h{m:02d}m"
    d, h = divmod(h, 24)
    return f"{d}d{h:02d}h"


def fmt_age(value: str | datetime | None, now: datetime) -> str:
    """How long ago ``value`` was, e.g. ``5m10s``."""
    dt = parse_time(value)
    return fmt_duration((now - dt).total_seconds()) if dt else DASH


def fmt_bytes(n: float | None) -> str:
    """Binary units as volumes use them: ``7.2 GiB``."""
    if n is None:
        return DASH
    units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"]
    value = float(n)
    for unit in units:
        if abs(value) < 1024 or unit == units[-1]:
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} PiB"  # pragma: no cover


def step_bar(step: int | None, max_steps: int | None, width: int = 10) -> str:
    """A text progress bar ``█████░░░░░``; empty-looking when nothing is known."""
    if not max_steps or max_steps <= 0:
        return "░" * width
    done = max(0, min(step or 0, max_steps))
    filled = int(round(width * done / max_steps))
    return "█" * filled + "░" * (width - filled)


def sparkline(values: Sequence[float], width: int = 12) -> str:
    """Unicode sparkline of the last ``width`` finite values (NaN/Inf shown as ``!``)."""
    tail = list(values[-width:])
    finite = [v for v in tail if isinstance(v, (int, float)) and math.isfinite(v)]
    if not finite:
        return "!" * len(tail) if tail else ""
    lo, hi = min(finite), max(finite)
    span = hi - lo
    out = []
    for v in tail:
        if not (isinstance(v, (int, float)) and math.isfinite(v)):
            out.append("!")
        elif span == 0:
            out.append(SPARK_CHARS[3])
        else:
            out.append(SPARK_CHARS[int((v - lo) / span * (len(SPARK_CHARS) - 1))])
    return "".join(out)
