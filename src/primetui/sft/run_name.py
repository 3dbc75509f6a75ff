"""The run's name, as the hosted platform takes it: a top-level ``name`` in the sft.toml.

``prime train`` sends the TOML's top-level ``name`` as the create request's ``name`` (the name the
platform shows for the run), leaves it inside ``config`` too, and validates the config against
prime-rl's schema without it (prime_cli commands/rl.py ``_schema_input``): it is the platform's key,
not prime-rl's. A ``--name`` given to ``primetui dispatch`` wins over the file's.
"""

from __future__ import annotations

from typing import Any

KEY = "name"
# The platform shows names in tables and URLs; longer ones are almost surely a mistake (a pasted path).
MAX_LENGTH = 128


def schema_input(config: dict[str, Any]) -> dict[str, Any]:
    """``config`` without the platform's ``name``: what prime-rl's schema sees."""
    return {k: v for k, v in config.items() if k != KEY} if KEY in config else config


def config_name(config: dict[str, Any]) -> str | None:
    """The file's run name, when it is a usable one."""
    value = config.get(KEY)
    return value if isinstance(value, str) and value.strip() else None


def problem(value: Any) -> str | None:
    """Why ``value`` cannot be a run name (one sentence), or None."""
    if not isinstance(value, str):
        return f"name must be a string (the run's name on the platform), got {type(value).__name__}."
    if not value.strip():
        return "name is empty: give the run a name, or remove the key to dispatch it unnamed."
    if len(value) > MAX_LENGTH:
        return f"name is {len(value)} characters long; keep it to {MAX_LENGTH} or fewer."
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in value):
        return "name contains a control character (a newline or tab); use plain text."
    return None
