"""The hosted log API's windows and limits (R7), as the local platform serves them by default.

The hosted platform (prime CLI 0.18.0, commands/rl.py "API ceilings") serves
``GET /rft/runs/{id}/logs`` in two ways:

- a plain, unfiltered fetch comes from a 200-line snapshot: ``tail_lines`` above 200 still
  returns at most the last 200 lines;
- a fetch with ``search``, ``level`` or ``since_seconds`` goes through the search backend, which
  honours ``tail_lines`` up to 5000 over a lookback of ``since_seconds`` (60..86400; 15 minutes
  when only ``search``/``level`` is given).

``tail_lines`` outside 1..5000 and ``since_seconds`` outside 60..86400 are refused with a 422.
``primetui local serve --faithful=false`` switches to the whole-log mode kept for debugging:
every fetch honours ``tail_lines`` up to 5000 over the whole log, and ``since_seconds`` only
has to be positive.

This module decides the window only; which stream (component, pod) is read is the route's job.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from primetui.local.errors import invalid

SNAPSHOT_LINES = 200
"""Lines in the plain fetch's snapshot."""

MAX_TAIL_LINES = 5000
"""The search backend's ceiling per query (and the API's hard cap on ``tail_lines``)."""

MIN_SINCE_SECONDS = 60
MAX_SINCE_SECONDS = 86_400
"""The lookback the search backend accepts (the CLI's ``--since`` range, 60 s .. 24 h)."""

SEARCH_DEFAULT_SINCE = 900
"""The search backend's lookback when only ``search``/``level`` is given (the CLI help: 15m)."""

FAITHFUL_ENV = "PRIMETUI_LOCAL_FAITHFUL"
"""``0``/``false``/``no``/``off``: serve whole logs (debugging); anything else: hosted windows."""


def faithful_from_env() -> bool:
    """Whether ``PRIMETUI_LOCAL_FAITHFUL`` asks for the hosted windows (the default)."""
    return os.environ.get(FAITHFUL_ENV, "1").strip().lower() not in ("0", "false", "no", "off")


def parse_bool(text: str) -> bool:
    """``--faithful=true|false`` (also 1/0, yes/no, on/off); ValueError with one sentence otherwise."""
    low = text.strip().lower()
    if low in ("1", "true", "yes", "on"):
        return True
    if low in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"expected true or false, not {text!r}")


@dataclass(frozen=True)
class LogWindow:
    """What one R7 query reads: the last ``limit`` lines at or after ``since_seconds`` ago."""

    limit: int
    since_seconds: int | None
    backend: str
    """``snapshot`` (plain fetch), ``search`` (filtered fetch) or ``whole`` (faithful off)."""


def plan_window(
    tail_lines: int,
    since_seconds: int | None,
    *,
    search: str | None,
    level: str | None,
    faithful: bool,
) -> LogWindow:
    """Validate the window parameters and say which lines answer them; raises the 422 otherwise."""
    if not 1 <= tail_lines <= MAX_TAIL_LINES:
        raise invalid([(("query", "tail_lines"), f"Input should be between 1 and {MAX_TAIL_LINES}", "value_error")])
    if not faithful:
        if since_seconds is not None and since_seconds < 1:
            raise invalid([(("query", "since_seconds"), "Input should be a positive number of seconds", "value_error")])
        return LogWindow(tail_lines, since_seconds, "whole")
    if since_seconds is not None and not MIN_SINCE_SECONDS <= since_seconds <= MAX_SINCE_SECONDS:
        raise invalid(
            [
                (
                    ("query", "since_seconds"),
                    f"Input should be between {MIN_SINCE_SECONDS} and {MAX_SINCE_SECONDS} seconds (60s to 24h)",
                    "value_error",
                )
            ]
        )
    if since_seconds is None and not search and not level:
        return LogWindow(min(tail_lines, SNAPSHOT_LINES), None, "snapshot")
    return LogWindow(tail_lines, since_seconds if since_seconds is not None else SEARCH_DEFAULT_SINCE, "search")
