"""Configuration mistakes: a setting that cannot work, named with where it came from.

A base URL that does not parse, a port past 65535, an API key that cannot travel in a header, a
team id that is not one, a deadline that is not a number of seconds: none of these is a bug or
an unreachable platform. :func:`first_mistake` finds the first one before anything is sent, as
one sentence naming the setting and its source (``PRIME_BASE_URL``, ``base_url in
/home/you/.prime/config.json``); every command prints it and exits :data:`EXIT_MISTAKE`, and the
dashboard shows it in its status line.

Values are echoed cut to :data:`ECHO_MAX` characters (with ``…``), with any user name and password
of a URL replaced by ``***``; the API key is never echoed, not even a character of it. Printers
still pass the sentence through the one neutraliser (``primetui.monitor_core.escapes.clean``), so a
control character in a value is shown, never sent to the terminal.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

EXIT_MISTAKE = 78
"""Exit status of every command stopped by a configuration mistake (EX_CONFIG; ``primetui.commands.exits``)."""

ECHO_MAX = 80
"""Characters of a wrong value a sentence shows at most; a longer one ends in ``…``."""

ENV_SECONDS = ("PRIMETUI_HEADLESS_DEADLINE", "PRIMETUI_REPLY_DEADLINE")
"""Environment settings that hold a number of seconds (positive and finite when set)."""

TEAM_ID = re.compile(r"[A-Za-z0-9_-]{1,128}")
"""What a team id is made of (the platform's ids are letters, digits, ``-`` and ``_``)."""

_URL_SETTINGS = {"base_url": ("PRIME_API_BASE_URL", "PRIME_BASE_URL"), "frontend_url": ("PRIME_FRONTEND_URL",)}
_FILE_KEYS = {"api_key": "api_key", "base_url": "base_url", "frontend_url": "frontend_url", "team_id": "team_id"}


class SettingsMistake(Exception):
    """A setting that cannot work; ``str()`` is the one sentence to show."""

    def __init__(self, sentence: str, *, setting: str, source: str) -> None:
        super().__init__(sentence)
        self.sentence = sentence
        self.setting = setting
        """The setting, as the user sets it: ``PRIME_API_KEY``, ``api_key``, ``PRIMETUI_REPLY_DEADLINE``."""
        self.source = source
        """Where it came from: an environment variable's name or a file's path."""

    def __str__(self) -> str:
        return self.sentence

    @property
    def short(self) -> str:
        """A few words for a status line: ``bad setting: PRIME_API_KEY``."""
        return f"bad setting: {self.where}"

    @property
    def where(self) -> str:
        return self.setting if self.setting == self.source else f"{self.setting} in {self.source}"


def echo(value: str, limit: int = ECHO_MAX) -> str:
    """``value`` as a sentence may quote it: cut to ``limit`` characters with ``…``, in quotes."""
    text = value if len(value) <= limit else value[: limit - 1] + "…"
    return f"'{text}'"


def _where(settings: Any, key: str) -> tuple[str, str]:
    """(setting, source) of ``key``: the variable that set it, or the file key and its file."""
    sources: Mapping[str, str] = getattr(settings, "sources", None) or {}
    source = str(sources.get(key, "default"))
    if source.startswith("PRIME"):
        return source, source
    config_file = Path(getattr(settings, "config_file", None) or Path("~/.prime/config.json"))
    if source.startswith("environment "):
        name = source.removeprefix("environment ")
        return _FILE_KEYS.get(key, key), str(config_file.parent / "environments" / f"{name}.json")
    if source == "config.json":
        return _FILE_KEYS.get(key, key), str(config_file)
    return key, "the default"


def _mistake(settings: Any, key: str, what: str, fix: str) -> SettingsMistake:
    setting, source = _where(settings, key)
    named = setting if setting == source else f"`{setting}` in {source}"
    return SettingsMistake(f"{named} {what}; {fix}.", setting=setting, source=source)


def key_problem(key: str) -> str | None:
    """Why ``key`` cannot be sent in an Authorization header (never quoting it), or None."""
    for position, ch in enumerate(key, 1):
        if ch in "\r\n":
            return f"holds a line break (character {position})"
        if ch.isspace():
            return f"holds a space or tab (character {position})"
        if not ch.isascii():
            return f"holds a character that is not ASCII (character {position})"
        if not ch.isprintable():
            return f"holds a control character (character {position})"
    return None


def shown_url(url: str) -> str:
    """A URL as a sentence may show it: a user name and password, a query and a fragment as ``***``."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        return url
    authority, slash, tail = rest.partition("/")
    if "@" in authority:
        authority = "***@" + authority.rpartition("@")[2]
    for mark in "?#":
        authority, _, dropped = authority.partition(mark)
        authority += f"{mark}***" if dropped else ""
    path = f"{slash}{tail}"
    cut = min((i for i in (path.find("?"), path.find("#")) if i >= 0), default=-1)
    if cut >= 0:
        path = f"{path[: cut + 1]}***"
    return f"{scheme}{sep}{authority}{path}"


def url_problem(url: str) -> str | None:
    """Why ``url`` cannot be a base URL (scheme, host, port, brackets, credentials), or None."""
    if not url:
        return "is empty"
    shown = f"({echo(shown_url(url))})"
    if any(ch.isspace() or not ch.isprintable() for ch in url):
        return f"{shown} holds a space or a control character"
    try:
        parts = urlsplit(url)
    except ValueError:
        return f"{shown} is not a valid URL (an unclosed [ in its host?)"
    if parts.scheme.lower() not in ("http", "https"):
        return f"{shown} is not an http:// or https:// URL"
    if parts.username is not None or parts.password is not None:
        return f"{shown} holds a user name or password, which would replace the API key"
    if not parts.hostname:
        return f"{shown} names no host"
    try:
        port = parts.port
    except ValueError:
        port = -1
    if port is not None and not 1 <= port <= 65535:
        given = parts.netloc.rpartition("]")[2].rpartition(":")[2]
        return f"{shown} has port {echo(given, 12)}, not a number from 1 to 65535"
    if parts.query or parts.fragment:
        return f"{shown} has a query or fragment, which a base URL cannot hold"
    return None


def seconds_problem(raw: str) -> str | None:
    """Why ``raw`` is not a positive, finite number of seconds, or None."""
    try:
        value = float(raw)
    except ValueError:
        return f"is {echo(raw)}, not a number of seconds"
    if not math.isfinite(value) or value <= 0:
        return f"is {echo(raw)}, not a positive number of seconds"
    return None


def env_mistake(env: Mapping[str, str] | None = None) -> SettingsMistake | None:
    """The first environment setting of primetui's own (:data:`ENV_SECONDS`) that is wrong."""
    env = os.environ if env is None else env
    for name in ENV_SECONDS:
        raw = env.get(name)
        if raw is None:
            continue
        problem = seconds_problem(raw.strip())
        if problem:
            return SettingsMistake(
                f"{name} {problem}; set it to seconds, like 300, or unset it.", setting=name, source=name
            )
    return None


def first_mistake(
    settings: Any, env: Mapping[str, str] | None = None, *, local: bool = False
) -> SettingsMistake | None:
    """The first setting of ``settings`` (and of the environment) that cannot work, or None.

    ``local``: the embedded platform supplies the URL, key and team, so only the environment
    settings count.
    """
    found = env_mistake(env)
    if found is not None or local:
        return found
    key = str(getattr(settings, "api_key", "") or "")
    problem = key_problem(key) if key else None
    if problem:
        return _mistake(
            settings,
            "api_key",
            f"{problem}, so it cannot be sent",
            "set it to the key alone (copy it again from https://app.primeintellect.ai/dashboard/tokens)",
        )
    for key_name in ("base_url", "frontend_url"):
        url = str(getattr(settings, key_name, "") or "")
        problem = url_problem(url)
        if problem:
            fix = (
                "put the API key in PRIME_API_KEY and the URL alone here"
                if "password" in problem
                else "write it as http(s)://host[:port], or unset it for the default"
            )
            return _mistake(settings, key_name, problem, fix)
    team = getattr(settings, "team_id", None)
    if team and not TEAM_ID.fullmatch(str(team)):
        return _mistake(
            settings,
            "team_id",
            f"({echo(str(team))}) is not a team id (letters, digits, - and _, at most 128)",
            "set it to the team's id, or unset it for your personal account",
        )
    return None


__all__ = [
    "ECHO_MAX",
    "ENV_SECONDS",
    "EXIT_MISTAKE",
    "SettingsMistake",
    "echo",
    "env_mistake",
    "first_mistake",
    "key_problem",
    "seconds_problem",
    "shown_url",
    "url_problem",
]
