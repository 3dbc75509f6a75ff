"""An optional rate limit on the local platform's API: 429 with Retry-After, as a hosted gateway answers.

Off by default. ``primetui local serve --rate-limit N`` (or ``PRIMETUI_LOCAL_RATE_LIMIT=N``) allows
N requests per rolling minute per API key; the next one gets ``429 {"detail": "..."}`` with a
``Retry-After`` header giving the whole seconds until a slot frees up. Clients see exactly what
the prime CLI handles in ``train logs -f`` ("Rate limited. Waiting ...").
"""

from __future__ import annotations

import hashlib
import math
import os
import time
from collections import deque
from collections.abc import Callable

RATE_LIMIT_ENV = "PRIMETUI_LOCAL_RATE_LIMIT"
WINDOW_SECONDS = 60.0


def rate_limit_from_env() -> int | None:
    """``PRIMETUI_LOCAL_RATE_LIMIT``: requests per minute (unset, invalid or 0: no limit)."""
    raw = os.environ.get(RATE_LIMIT_ENV, "").strip()
    return int(raw) if raw.isdigit() and int(raw) > 0 else None


class RateLimiter:
    """A rolling one-minute window of request times per client key."""

    def __init__(self, per_minute: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.per_minute = per_minute
        self._clock = clock
        self._seen: dict[str, deque[float]] = {}

    def check(self, key: str) -> float | None:
        """Record one request for ``key``; None when allowed, else the seconds to wait."""
        now = self._clock()
        times = self._seen.setdefault(key, deque())
        while times and now - times[0] >= WINDOW_SECONDS:
            times.popleft()
        if len(times) >= self.per_minute:
            return max(0.0, WINDOW_SECONDS - (now - times[0]))
        times.append(now)
        return None


def client_key(authorization: str | None, host: str | None) -> str:
    """Who a request counts against: its API key (hashed, never kept in clear), else its address."""
    if authorization:
        return hashlib.sha256(authorization.encode("utf-8", "replace")).hexdigest()[:16]
    return f"addr:{host or '?'}"


def retry_after_header(seconds: float) -> str:
    """Whole seconds, at least 1 (a Retry-After of 0 invites a busy loop)."""
    return str(max(1, math.ceil(seconds)))


def limited_detail(per_minute: int, seconds: float) -> str:
    return (
        f"Rate limit exceeded: this platform allows {per_minute} requests per minute; "
        f"retry after {retry_after_header(seconds)} s."
    )
