"""Switch between the personal account and a team, written back the way ``prime switch`` does.

``prime switch`` (prime_cli commands/switch.py) refuses while ``PRIME_TEAM_ID`` is set or a
temporary context is selected, then sets ``team_id``, ``team_name`` and ``team_role`` in
``~/.prime/config.json`` (all null for the personal account) and, when the active environment is
a saved one, the same fields in ``~/.prime/environments/<name>.json``. Every other field is kept.

The choice is written back only when ``~/.prime`` is what points at the platform being used; on a
platform the dashboard started itself (``primetui --local``) it holds for this session only, so a
local team never becomes the team of the user's hosted configuration.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from primetui.config.fileio import atomic_write_text
from primetui.config.settings import PRODUCTION, Settings, SettingsError, _cli_default_config, load_settings


@dataclass(frozen=True)
class Switched:
    """What a switch did: the new scope, and the files it wrote (empty: this session only)."""

    team_id: str | None
    label: str
    written: tuple[Path, ...]


def scope_label(team_id: str | None, team_name: str | None) -> str:
    """How the header names a scope: ``personal`` or the team's name (its id when unnamed)."""
    return "personal" if team_id is None else (team_name or team_id)


def _load(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise SettingsError(
            f"{path} could not be read ({exc}), so the account was not switched; fix or move that file and try again."
        ) from exc
    if not isinstance(data, dict):
        raise SettingsError(f"{path} is not a JSON object, so the account was not switched; fix or move it.")
    return data


def _write(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    atomic_write_text(path, json.dumps(data, indent=2), mode=0o600)


def switch_team(
    settings: Settings,
    team_id: str | None,
    team_name: str | None = None,
    team_role: str | None = None,
    *,
    env: Mapping[str, str] | None = None,
    home: Path | None = None,
) -> Switched:
    """Make ``team_id`` (None: personal) the active scope; raises SettingsError (one sentence) when refused."""
    env = os.environ if env is None else env
    if (env.get("PRIME_TEAM_ID") or "").strip():
        raise SettingsError("PRIME_TEAM_ID is set in your environment. Clear it before switching accounts.")
    label = scope_label(team_id, team_name)
    home = Path.home() if home is None else home
    if load_settings(env, home).base_url != settings.base_url:
        return Switched(team_id, label, ())  # ~/.prime points elsewhere: this session only
    if env.get("PRIME_CONTEXT"):
        context = env["PRIME_CONTEXT"]
        raise SettingsError(
            f"Temporary context '{context}' is read-only; run `prime config use {context}`, "
            "then switch again without PRIME_CONTEXT."
        )
    fields = {
        "team_id": team_id or None,
        "team_name": team_name if team_id else None,
        "team_role": team_role if team_id else None,
    }
    config = home / ".prime" / "config.json"
    data = _load(config) or _cli_default_config(home)
    written = []
    data.update(fields)
    _write(config, data)
    written.append(config)
    environment = data.get("current_environment") or PRODUCTION
    if environment != PRODUCTION and isinstance(environment, str):
        env_file = home / ".prime" / "environments" / f"{environment}.json"
        if env_file.exists():
            env_data = _load(env_file)
            env_data.update(fields)
            _write(env_file, env_data)
            written.append(env_file)
    return Switched(team_id, label, tuple(written))
