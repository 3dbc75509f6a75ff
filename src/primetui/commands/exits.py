"""The exit codes of every primetui command: one meaning each, whatever the command (docs/ops.md).

    0    success: every run COMPLETED (``dispatch``/``sweep`` without ``--wait``: dispatched)
    1    failure: a run FAILED, STOPPED or PAUSED or cannot be followed; the platform answered an
         error or could not be reached; ``validate`` found an error
    2    timed out: ``--timeout`` passed first, or the headless deadline (PRIMETUI_HEADLESS_DEADLINE)
    3    refused: nothing was dispatched or checked (a file given that cannot be used, no such
         volume, a failed pre-flight, the platform refused the run)
    4    ended badly: a run COMPLETED with a NaN final loss or an error-level anomaly
    64   usage: the command line is wrong (an unknown option, a missing argument, a bad value)
    70   internal bug: a crash report was written (secrets redacted) and named on stderr
    78   configuration: no API key, an unreadable ~/.prime/config.json, a setting that cannot work,
         the local extra not installed
    130  interrupted by SIGINT (Ctrl-C)
    143  ended by SIGTERM

The numbers past 63 are the BSD ``sysexits.h`` ones (EX_USAGE, EX_SOFTWARE, EX_CONFIG). No import
beyond the standard library: ``primetui.commands.cli`` reads this before anything else.
"""

from __future__ import annotations

import signal

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_TIMEOUT = 2
EXIT_REFUSED = 3
EXIT_ENDED_BADLY = 4
"""``wait``/``dispatch --wait``: a run COMPLETED with a NaN final loss or an error-level anomaly."""
EXIT_USAGE = 64
EXIT_BUG = 70
EXIT_CONFIG = 78
EXIT_SIGINT = 128 + signal.SIGINT
EXIT_SIGTERM = 128 + signal.SIGTERM

MEANING = {
    EXIT_OK: "success",
    EXIT_FAILED: "failure",
    EXIT_TIMEOUT: "timed out",
    EXIT_REFUSED: "refused: nothing was dispatched",
    EXIT_ENDED_BADLY: "a run ended NaN or with an error-level anomaly",
    EXIT_USAGE: "usage error",
    EXIT_BUG: "internal bug",
    EXIT_CONFIG: "configuration mistake",
    EXIT_SIGINT: "interrupted by SIGINT",
    EXIT_SIGTERM: "ended by SIGTERM",
}
"""One meaning per code (the ``--help`` epilog and docs/ops.md say the same)."""

__all__ = [
    "EXIT_BUG",
    "EXIT_CONFIG",
    "EXIT_ENDED_BADLY",
    "EXIT_FAILED",
    "EXIT_OK",
    "EXIT_REFUSED",
    "EXIT_SIGINT",
    "EXIT_SIGTERM",
    "EXIT_TIMEOUT",
    "EXIT_USAGE",
    "MEANING",
]
