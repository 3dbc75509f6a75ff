"""The local cluster's chart version, which decides whether online evals are accepted at dispatch.

The hosted platform runs SFT through the ``prime-rl-fft`` chart its cluster installs; online evals
(``[eval]``) need 0.24.0 or newer, and older clusters reject them at dispatch with the seed's text.
The local cluster reports 0.24.0 unless ``PRIMETUI_LOCAL_CHART_VERSION`` (or ``primetui local serve
--chart-version``) says otherwise, so the rejection can be reproduced on purpose.
"""

from __future__ import annotations

import os
import re

CHART_ENV = "PRIMETUI_LOCAL_CHART_VERSION"
DEFAULT_CHART = "0.24.0"
ONLINE_EVALS_SINCE = (0, 24, 0)
ONLINE_EVALS_UNSUPPORTED = (
    "online evals ([eval]) are not supported by the prime-rl-fft chart this deployment installs "
    "(needs 0.24.0 or newer). Remove the [eval] block to run trainer-only SFT."
)


def parse_version(text: str) -> tuple[int, int, int] | None:
    """``0.23.1`` -> (0, 23, 1); a leading ``v`` is allowed; anything else is None."""
    match = re.fullmatch(r"v?(\d+)\.(\d+)(?:\.(\d+))?", text.strip())
    if not match:
        return None
    return int(match.group(1)), int(match.group(2)), int(match.group(3) or 0)


def chart_version() -> str:
    """The chart version the local cluster reports (an unparsable value falls back to the default)."""
    raw = os.environ.get(CHART_ENV, "").strip()
    return raw if raw and parse_version(raw) is not None else DEFAULT_CHART


def supports_online_evals(version: str | None = None) -> bool:
    parsed = parse_version(version or chart_version())
    return parsed is not None and parsed >= ONLINE_EVALS_SINCE
