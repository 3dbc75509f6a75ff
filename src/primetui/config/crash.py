"""A crash is never silent: an unexpected exception leaves a report file, with secrets redacted.

The dashboard and the headless commands call :func:`write_report` for an exception nothing else
explains (a bug, not bad data: bad data stops at the wire boundary with its own sentence). The
file holds the traceback, the version and the command line, and passes :func:`redact` whole:

- the value of ``--on-event`` (``--on-event CMD``, ``--on-event=CMD`` and argparse's prefixes
  such as ``--on CMD``) is ``***`` on the command line, and wherever else it appears;
- the API key in use (from the environment, ``~/.prime/config.json`` or a saved environment), the
  ``[notify] on_event`` hook, and every value of an environment variable whose name says it is a
  secret (``*KEY*``, ``*TOKEN*``, ``*SECRET*``, ``*PASSWORD*``, ``*AUTH*``, ...) are ``***``, also in
  their escaped forms (``\\n`` for a line break, as a ``repr`` or a bytes value prints them);
- in every URL: a user name and password, the query, the fragment, and each path segment that
  looks like a token (:func:`looks_like_token`) are ``***``;
- ``Bearer …``/``Basic …`` credentials and the value after a secret-named header or field
  (``X-Api-Key: …``, ``token=…``, ``"password": …``) are ``***``.

The caller prints the file's path so the user can attach it to a report.
"""

from __future__ import annotations

import os
import re
import shlex
import sys
import time
import traceback
from pathlib import Path
from typing import Iterable

EXIT_CRASH = 70
"""Exit status after an unexpected exception (EX_SOFTWARE)."""

_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|AUTH|CREDENTIAL|COOKIE", re.I)
_BEARER = re.compile(r"\b((?:Bearer|Basic)\s+)[^\s'\"\\]+", re.I)
_MIN_SECRET = 6  # shorter values ("1", "true") would blank unrelated text
_URL = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s'\"<>`\\]+")
_SECRET_FIELD = re.compile(
    r"(?i)\b([\w-]*(?:api[-_]?key|token|secret|passw(?:or)?d|authorization|cookie|credentials?)[\w-]*[\"']?)"
    r"(\s*:\s*|=)([\"']?)(?!\*\*\*)(?:(?:bearer|basic)\s+)?[^\s'\"&,;}\\]+"
)
"""A secret-named header, field or parameter and its value: ``X-Api-Key: v``, ``token=v``, ``"password": "v"``."""
ON_EVENT = "--on-event"
TOKEN_SEGMENT = 16
"""Path segments at least this long, holding letters and digits, are taken for tokens (24 for letters alone)."""


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


def _is_on_event(arg: str) -> bool:
    """``--on-event`` or a prefix argparse takes for it (``--on``), with or without ``=VALUE``."""
    name = arg.split("=", 1)[0]
    return len(name) >= 3 and ON_EVENT.startswith(name)


def on_event_values(argv: Iterable[str]) -> list[str]:
    """The values given to ``--on-event`` in ``argv``."""
    args, values = list(argv), []
    for i, arg in enumerate(args):
        if _is_on_event(arg):
            if "=" in arg:
                values.append(arg.split("=", 1)[1])
            elif i + 1 < len(args):
                values.append(args[i + 1])
    return values


def redact_argv(argv: Iterable[str]) -> list[str]:
    """``argv`` with each ``--on-event`` value as ``***`` (the rest as :func:`redact` leaves it)."""
    out: list[str] = []
    hide = False
    for arg in argv:
        if hide:
            out.append("***")
            hide = False
        elif _is_on_event(arg):
            if "=" in arg:
                out.append(arg.split("=", 1)[0] + "=***")
            else:
                out.append(arg)
                hide = True
        else:
            out.append(arg)
    return out


def looks_like_token(segment: str) -> bool:
    """A URL path segment that is likely a credential (a webhook's secret part, a signed id)."""
    if len(segment) >= 24 and re.fullmatch(r"[\w.~%=+-]+", segment):
        return True
    return (
        len(segment) >= TOKEN_SEGMENT
        and re.fullmatch(r"[\w.~%=+-]+", segment) is not None
        and any(c.isdigit() for c in segment)
        and any(c.isalpha() for c in segment)
    )


def redact_url(url: str) -> str:
    """``url`` with its user name and password, query, fragment and token-like path segments as ``***``."""
    scheme, sep, rest = url.partition("://")
    for mark in "#?":
        rest, found, _ = rest.partition(mark)
        tail = f"{mark}***" if found else ""
        if tail:
            return redact_url(f"{scheme}{sep}{rest}") + tail
    authority, slash, path = rest.partition("/")
    if "@" in authority:
        authority = "***@" + authority.rpartition("@")[2]
    path = "/".join("***" if looks_like_token(part) else part for part in path.split("/"))
    return f"{scheme}{sep}{authority}{slash}{path}"


def _forms(secret: str) -> set[str]:
    """``secret`` as text may hold it: as is, and escaped as ``repr`` and bytes values print it."""
    forms = {secret, secret.encode("unicode_escape").decode("ascii"), repr(secret)[1:-1]}
    try:
        forms.add(repr(secret.encode("utf-8"))[2:-1])
    except UnicodeEncodeError:  # a lone surrogate: it has no bytes form to print
        pass
    return {f for f in forms if len(f) >= _MIN_SECRET}


def known_secrets(argv: Iterable[str] | None = None) -> list[str]:
    """Secrets this process holds that a report could quote: the API key in use, the hooks."""
    found = on_event_values(sys.argv if argv is None else argv)
    try:
        from primetui.config.settings import load_settings

        found.append(load_settings().api_key)
    except Exception:  # noqa: BLE001 - a report is still written; the environment's secrets still go
        pass
    try:
        from primetui.config.prefs import load_prefs

        loaded = load_prefs()
        prefs = loaded[0] if isinstance(loaded, tuple) else loaded
        found.append(str(getattr(getattr(prefs, "notify", None), "on_event", "") or ""))
    except Exception:  # noqa: BLE001 - a report is still written; the hook may be unreadable, the rest still goes
        pass
    return [s for s in found if s]


def redact(text: str, secrets: Iterable[str | None] = ()) -> str:
    """``text`` with every secret the module docstring lists as ``***``."""
    values: set[str] = set()
    for secret in [*secrets, *secrets_in_environment()]:
        if secret and len(secret) >= _MIN_SECRET:
            values |= _forms(secret)
    for value in sorted(values, key=len, reverse=True):
        text = text.replace(value, "***")
    text = _URL.sub(lambda m: redact_url(m.group()), text)
    text = _BEARER.sub(r"\1***", text)
    return _SECRET_FIELD.sub(r"\1\2\3***", text)


def write_report(exc: BaseException, *, context: str, secrets: Iterable[str | None] = ()) -> Path | None:
    """Write the report for ``exc``; its path, or None when no file could be written."""
    from primetui import __version__

    body = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    secrets = [*secrets, *known_secrets()]
    text = (
        f"primetui {__version__} crash report\n"
        f"when: {time.strftime('%Y-%m-%d %H:%M:%S %z')}\n"
        f"where: {context}\n"
        f"python: {sys.version.split()[0]} on {sys.platform}\n"
        f"command: {shlex.join(redact_argv(sys.argv))}\n\n{body}"
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
