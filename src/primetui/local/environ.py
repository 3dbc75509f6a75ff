"""The environment of every process the local platform starts: an explicit allowlist, as sshd builds one.

The user's shell holds credentials for other services (the hosted ``PRIME_API_KEY``, ``HF_TOKEN``,
``AWS_*``, ``SSH_AUTH_SOCK``) and handles on their own session (``TMUX``, ``DISPLAY``, a D-Bus
address). None of it is the business of a trainer, a session shell or a platform started in the
background, so those start from the few names below and nothing else. Names matched by a prefix
(``LC_*``, ``PRIMETUI_LOCAL_*``) are dropped anyway when they look like a secret.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping

ACCOUNT = ("HOME", "USER", "LOGNAME", "SHELL", "PATH", "LANG", "TZ")
"""What sshd gives every login: who, where, which shell and programs, language and time zone."""
ACCOUNT_PREFIXES = ("LC_",)

WORKER = ACCOUNT + ("TMPDIR", "PYTHONPATH", "PRIMETUI_TRAINER_THREADS")
"""Trainers and their helpers also need a temp dir, the Python path primetui runs from, their thread count."""

PLATFORM = WORKER + (
    "PRIME_SSH_KEY_PATH",
    "PRIME_CONTEXT",  # a path and a name, not secrets: where sessions' accepted key is
    "PRIMETUI_HF_PASSTHROUGH",
    "PRIMETUI_SESSION_IDLE_TIMEOUT",
    "PRIMETUI_SESSION_NAMESPACES",
)
"""The background platform (``primetui --local``) also reads its own settings."""
PLATFORM_PREFIXES = ACCOUNT_PREFIXES + ("PRIMETUI_LOCAL_",)

_SECRET = re.compile(r"TOKEN|SECRET|PASSW|CREDENTIAL|API_?KEY|PRIVATE|AUTH", re.IGNORECASE)


def allowlisted(
    names: Iterable[str], prefixes: Iterable[str] = (), source: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The variables of ``source`` (default: this process) named in ``names`` or starting with a prefix."""
    wanted = frozenset(names)
    starts = tuple(prefixes)
    env = os.environ if source is None else source
    return {
        key: value
        for key, value in env.items()
        if key in wanted or (starts and key.startswith(starts) and not _SECRET.search(key))
    }


def account_environment(source: Mapping[str, str] | None = None) -> dict[str, str]:
    """The login basics a session shell starts from."""
    return allowlisted(ACCOUNT, ACCOUNT_PREFIXES, source)


def worker_environment(**extra: str) -> dict[str, str]:
    """The environment of a trainer or one of its processes, plus ``extra``."""
    return {**allowlisted(WORKER, ACCOUNT_PREFIXES), **extra}


def platform_environment() -> dict[str, str]:
    """The environment of a platform started in the background by ``primetui --local`` or ``serve --local``."""
    return allowlisted(PLATFORM, PLATFORM_PREFIXES)
