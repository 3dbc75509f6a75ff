"""A crash is never silent: an unexpected exception leaves a report file, with secrets redacted.

The dashboard and the headless commands call :func:`write_report` for an exception nothing else
explains (a bug, not bad data: bad data stops at the wire boundary with its own sentence). The
file holds the traceback, the version and the command line; every value of an environment
variable whose name says it is a secret (``*KEY*``, ``*TOKEN*``, ``*SECRET*``, ``*PASSWORD*``,
``*AUTH*``), the API key in use and any ``Bearer …`` credential are replaced by ``***``. The
caller prints the file's path so the user can attach it to a report.
"""

from __future__ import annotations

import os
import re
import sys
import time
import traceback
from pathlib import Path
from typing import Iterable

EXIT_CRASH = 70
"""Exit status after an unexpected exception (EX_SOFTWARE)."""

_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|AUTH|CREDENTIAL|COOKIE", re.I)
_BEARER = re.compile(r"(Bearer\s+)[^\s'\"]+", re.I)
_MIN_SECRET = 6  # shorter values ("1", "true") would blank unrelated text


def crash_dir() -> Path:
    """Where reports go: ``$PRIMETUI_CRASH_DIR``, else the user state dir's ``crashes``."""
    override = os.environ.get("PRIMETUI_CRASH_DIR")
    if override:
        return Path(override)
    import platformdirs

    return Path(platformdirs.user_state_dir("primetui")) / "crashes"


def secrets_in_environment(environ: dict[str, str] | None = None) -> list[str]:
    env = os.environ if environ is None else environ
    return [v for k, v in env.items() if _SECRET_NAME.search(k) and len(v) >= _MIN_SECRET]


def redact(text: str, secrets: Iterable[str | None] = ()) -> str:
    """``text`` with each secret, every secret-named environment value and Bearer credentials as ``***``."""
    values = {s for s in secrets if s and len(s) >= _MIN_SECRET} | set(secrets_in_environment())
    for value in sorted(values, key=len, reverse=True):
        text = text.replace(value, "***")
    return _BEARER.sub(r"\1***", text)


def write_report(exc: BaseException, *, context: str, secrets: Iterable[str | None] = ()) -> Path | None:
    """Write the report for ``exc``; its path, or None when no file could be written."""
    from primetui import __version__

    body = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    text = (
        f"primetui {__version__} crash report\n"
        f"when: {time.strftime('%Y-%m-%d %H:%M:%S %z')}\n"
        f"where: {context}\n"
        f"python: {sys.version.split()[0]} on {sys.platform}\n"
        f"command: {' '.join(sys.argv)}\n\n{body}"
    )
    try:
        folder = crash_dir()
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        path = folder / f"crash-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.txt"
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8", errors="replace") as f:
            f.write(redact(text, secrets))
        return path
    except OSError:
        return None


def crash_sentence(path: Path | None) -> str:
    """What the user reads after a crash: one sentence, with where the report is."""
    where = f"the report is in {path}" if path else "no report could be written"
    return f"primetui stopped on an unexpected error (a bug); {where}. Please attach it to an issue."
