"""Platform settings, read exactly as the `prime` CLI 0.18.0 reads them (contract §1.1-1.2).

A user who already ran `prime login` needs no setup: the key, team and URLs come from
`~/.prime/config.json`, overridden by a saved environment named in `PRIME_CONTEXT`
(`~/.prime/environments/NAME.json`, in memory only), overridden by environment variables:

    PRIME_API_KEY, PRIME_TEAM_ID, PRIME_API_BASE_URL then PRIME_BASE_URL, PRIME_FRONTEND_URL,
    PRIME_SSH_KEY_PATH, PRIME_USER_ID

Unlike the CLI, reading never writes anything and a broken file never crashes: it falls back to
defaults and reports a one-sentence problem in `Settings.problems`. `save_api_key` writes the
same file the CLI writes (keeping every other field), mode 0600 in a 0700 directory.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from ipaddress import ip_address
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from primetui.config.urls import DEFAULT_BASE_URL, DEFAULT_FRONTEND_URL, normalize_base_url
from primetui.config.fileio import atomic_write_text

__all__ = [
    "DEFAULT_BASE_URL",
    "DEFAULT_FRONTEND_URL",
    "Settings",
    "SettingsError",
    "config_path",
    "load_settings",
    "mask_secret",
    "save_api_key",
]

PRODUCTION = "production"
_ENV_NAME = re.compile(r"^[A-Za-z0-9_-]+$")


class SettingsError(Exception):
    """A settings change could not be saved; `str()` says why and what to do."""


def mask_secret(value: str) -> str:
    """A key as a screen may show it: only its last four characters."""
    if not value:
        return "(none)"
    return f"…{value[-4:]}" if len(value) > 10 else "***"


@dataclass(frozen=True)
class Settings:
    """Where the platform is and who we are on it."""

    api_key: str = field(repr=False)
    """Bearer key for the API ("" when none is configured)."""
    base_url: str
    """API base URL without `/api/v1`, e.g. `https://api.primeintellect.ai`."""
    team_id: str | None = None
    """Team whose volumes and runs to use; None for the personal account."""
    frontend_url: str = DEFAULT_FRONTEND_URL
    """Web dashboard base URL (for `…/dashboard/training/<runId>` links)."""
    ssh_key_path: Path = Path("~/.ssh/id_rsa")
    """SSH private key used for volume sessions."""
    user_id: str | None = None
    """The user's id, when known (`prime login` stores it)."""
    team_name: str | None = None
    """Display name of the team, when the file has one."""
    environment: str = PRODUCTION
    """Active saved environment (`production` is the built-in one)."""
    config_file: Path = Path("~/.prime/config.json")
    """The CLI's config file these settings came from."""
    sources: Mapping[str, str] = field(default_factory=dict)
    """Where each value came from: `PRIME_API_KEY`, `config.json`, `environment NAME`, `default`."""
    problems: tuple[str, ...] = ()
    """One-sentence problems met while reading (broken file, unknown context); empty when fine."""

    def __repr__(self) -> str:
        return (
            f"Settings(base_url={self.base_url!r}, team_id={self.team_id!r}, "
            f"api_key={mask_secret(self.api_key)!r}, environment={self.environment!r})"
        )

    @property
    def has_api_key(self) -> bool:
        """True when an API key is configured."""
        return bool(self.api_key)

    @property
    def masked_api_key(self) -> str:
        """The key as a screen may show it."""
        return mask_secret(self.api_key)

    @property
    def is_local(self) -> bool:
        """True when the platform is on this machine (a loopback address or `localhost`)."""
        host = urlsplit(self.base_url).hostname or ""
        if host == "localhost":
            return True
        try:
            return ip_address(host).is_loopback
        except ValueError:
            return False


def config_path(home: Path | None = None) -> Path:
    """`~/.prime/config.json` under `home`."""
    return (home or Path.home()) / ".prime" / "config.json"


def _read_json_object(path: Path, what: str, problems: list[str]) -> dict[str, Any]:
    """Read a JSON object file; on trouble note one problem and return {}."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        problems.append(
            f"Cannot read {path} ({exc.__class__.__name__}); fix its permissions, "
            f"primetui is using default {what} meanwhile."
        )
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        problems.append(
            f"{path} is not valid JSON (line {exc.lineno}, column {exc.colno}); fix it or run "
            f"`prime login` again, primetui is using default {what} meanwhile."
        )
        return {}
    if not isinstance(data, dict):
        problems.append(
            f"{path} does not hold a JSON object; fix it or run `prime login` again, primetui "
            f"is using default {what} meanwhile."
        )
        return {}
    return data


def _str_or_none(data: Mapping[str, Any], key: str, where: Path, problems: list[str]) -> str | None:
    value = data.get(key)
    if value is None:
        return None
    if isinstance(value, str):
        return value
    problems.append(f"`{key}` in {where} should be a string; primetui ignores it until it is fixed.")
    return None


_FILE_KEYS = ("api_key", "team_id", "team_name", "user_id", "base_url", "frontend_url", "ssh_key_path")


def _home_or_temp(problems: list[str]) -> Path:
    """The user's home; with none (no HOME and no passwd entry, some containers) a temp dir, and say so."""
    try:
        return Path.home()
    except (RuntimeError, KeyError):
        problems.append(
            "Cannot find your home directory, so ~/.prime/config.json was not read; set HOME or "
            "use PRIME_API_KEY and PRIME_BASE_URL."
        )
        return Path(tempfile.gettempdir())


def _file_values(
    file_data: Mapping[str, Any], cfg_file: Path, sources: dict[str, str], problems: list[str]
) -> dict[str, str | None]:
    """Values as the file gives them (the CLI's ConfigModel defaults otherwise)."""
    values: dict[str, str | None] = {}
    for key in _FILE_KEYS:
        value = _str_or_none(file_data, key, cfg_file, problems)
        values[key] = value
        if value:
            sources[key] = "config.json"
    return values


def _apply_context(
    context: str, home: Path, values: dict[str, str | None], sources: dict[str, str], problems: list[str]
) -> str | None:
    """PRIME_CONTEXT: load a saved environment in memory only (core/config.py:44-53, 394-488).

    Returns the environment's name when one was loaded, else None."""
    if context.lower() == PRODUCTION:
        values.update(base_url=DEFAULT_BASE_URL, frontend_url=DEFAULT_FRONTEND_URL, team_id=None, team_name=None)
        for key in ("base_url", "frontend_url", "team_id"):
            sources[key] = "environment production"
        return PRODUCTION
    if not _ENV_NAME.match(context):
        problems.append(
            f"PRIME_CONTEXT={context!r} is not a valid environment name (letters, digits, - and _ "
            "only); fix or unset it, primetui is using ~/.prime/config.json meanwhile."
        )
        return None
    env_file = home / ".prime" / "environments" / f"{context}.json"
    if not env_file.exists():
        problems.append(
            f"PRIME_CONTEXT={context} names no saved environment ({env_file} is missing); save "
            "one with `prime config save NAME` or unset it."
        )
        return None
    ctx = _read_json_object(env_file, "settings", problems)
    if not ctx:
        return None
    _apply_saved_environment(ctx, env_file, f"environment {context}", values, sources, problems)
    return context


def _apply_saved_environment(
    ctx: Mapping[str, Any],
    env_file: Path,
    label: str,
    values: dict[str, str | None],
    sources: dict[str, str],
    problems: list[str],
) -> None:
    """A saved environment's values over the file's."""
    if "api_key" in ctx:
        values["api_key"] = _str_or_none(ctx, "api_key", env_file, problems)
        sources["api_key"] = label
    for key in ("team_id", "team_name", "user_id"):
        values[key] = _str_or_none(ctx, key, env_file, problems)
        sources[key] = label
    values["base_url"] = _str_or_none(ctx, "base_url", env_file, problems) or DEFAULT_BASE_URL
    values["frontend_url"] = _str_or_none(ctx, "frontend_url", env_file, problems) or DEFAULT_FRONTEND_URL
    sources["base_url"] = sources["frontend_url"] = label


def _env_override(env: Mapping[str, str], var: str, current: str, key: str, sources: dict[str, str]) -> str:
    """`env[var]` when set and non-empty (and note it as `key`'s source), else `current`."""
    if env.get(var):
        sources[key] = var
        return env[var]
    return current


def _env_team_id(env: Mapping[str, str], values: Mapping[str, str | None], sources: dict[str, str]) -> str | None:
    if (env.get("PRIME_TEAM_ID") or "").strip():
        sources["team_id"] = "PRIME_TEAM_ID"
        return env["PRIME_TEAM_ID"].strip()
    return values["team_id"] or None


def _env_user_id(env: Mapping[str, str], values: Mapping[str, str | None], sources: dict[str, str]) -> str | None:
    if env.get("PRIME_USER_ID") is not None:
        sources["user_id"] = "PRIME_USER_ID"
        return env["PRIME_USER_ID"] or None
    return values["user_id"] or None


def _env_base_url(env: Mapping[str, str], values: Mapping[str, str | None], sources: dict[str, str]) -> str:
    base_url = values["base_url"] or DEFAULT_BASE_URL
    for var in ("PRIME_API_BASE_URL", "PRIME_BASE_URL"):
        if env.get(var):
            base_url = _env_override(env, var, base_url, "base_url", sources)
            break
    return normalize_base_url(base_url)


def load_settings(env: Mapping[str, str] | None = None, home: Path | None = None) -> Settings:
    """Read the platform settings with the prime CLI's precedence: env > context > file > default."""
    env = os.environ if env is None else env
    problems: list[str] = []
    if home is None:
        home = _home_or_temp(problems)
    sources: dict[str, str] = {}
    cfg_file = config_path(home)
    file_data = _read_json_object(cfg_file, "settings", problems)
    values = _file_values(file_data, cfg_file, sources, problems)
    environment = _str_or_none(file_data, "current_environment", cfg_file, problems) or PRODUCTION

    context = env.get("PRIME_CONTEXT") or ""
    if context:
        environment = _apply_context(context, home, values, sources, problems) or environment

    # Environment variables win over everything.
    api_key = _env_override(env, "PRIME_API_KEY", values["api_key"] or "", "api_key", sources)
    team_id = _env_team_id(env, values, sources)
    user_id = _env_user_id(env, values, sources)
    base_url = _env_base_url(env, values, sources)
    frontend_url = _env_override(
        env, "PRIME_FRONTEND_URL", values["frontend_url"] or DEFAULT_FRONTEND_URL, "frontend_url", sources
    )
    ssh_key = _env_override(
        env, "PRIME_SSH_KEY_PATH", values["ssh_key_path"] or str(home / ".ssh" / "id_rsa"), "ssh_key_path", sources
    )

    for key in ("api_key", "team_id", "base_url", "frontend_url", "ssh_key_path", "user_id"):
        sources.setdefault(key, "default")

    return Settings(
        api_key=api_key.strip(),
        base_url=base_url,
        team_id=team_id,
        frontend_url=frontend_url.strip().rstrip("/"),
        ssh_key_path=_expand_user(ssh_key, home),
        user_id=user_id,
        team_name=values["team_name"] if sources.get("team_id") != "PRIME_TEAM_ID" else None,
        environment=environment,
        config_file=cfg_file,
        sources=dict(sources),
        problems=tuple(problems),
    )


def _expand_user(path: str, home: Path) -> Path:
    """`~` -> `home` (the injected one, so tests never touch the real home)."""
    if path == "~" or path.startswith("~/"):
        return home / path[2:] if len(path) > 1 else home
    return Path(path).expanduser()


def _cli_default_config(home: Path) -> dict[str, Any]:
    """What the CLI writes into a fresh config.json (ConfigModel defaults)."""
    return {
        "api_key": "",
        "team_id": None,
        "team_name": None,
        "team_role": None,
        "user_id": None,
        "user_name": None,
        "base_url": DEFAULT_BASE_URL,
        "frontend_url": DEFAULT_FRONTEND_URL,
        "inference_url": "https://api.pinference.ai/api/v1",
        "traces_url": None,
        "ssh_key_path": str(home / ".ssh" / "id_rsa"),
        "current_environment": PRODUCTION,
        "share_resources_with_team": False,
        "traces_opt_out": False,
    }


def save_api_key(key: str, *, home: Path | None = None, env: Mapping[str, str] | None = None) -> Path:
    """Store `key` in `~/.prime/config.json` as `prime config set-api-key` does.

    Every other field of the file is kept. The file ends up mode 0600 in a 0700 directory and is
    replaced atomically. The key is never printed or logged. Returns the file's path.
    Raises SettingsError (one actionable sentence) when saving would lose or hide something.
    """
    env = os.environ if env is None else env
    home = Path.home() if home is None else home
    key = key.strip()
    if any(ch.isspace() for ch in key):
        raise SettingsError("An API key has no spaces or line breaks; paste the key again.")
    if env.get("PRIME_CONTEXT"):
        raise SettingsError(
            f"PRIME_CONTEXT={env['PRIME_CONTEXT']} is active, so a saved key would not be used; "
            "unset PRIME_CONTEXT (or edit that environment with `prime config`) and try again."
        )
    path = config_path(home)
    problems: list[str] = []
    data = _read_json_object(path, "settings", problems)
    if problems:
        # Never overwrite a file we could not read: the user's other settings live there.
        raise SettingsError(
            f"{path} could not be read, so the key was not saved (nothing was changed); "
            "fix or move that file and try again."
        )
    if not data:
        data = _cli_default_config(home)
    data["api_key"] = key

    directory = path.parent
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(directory, 0o700)
    atomic_write_text(path, json.dumps(data, indent=2), mode=0o600)
    return path
