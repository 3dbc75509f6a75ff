"""The two questions the platform asks about volume sessions (``primetui.local.sessions``).

Sessions are not implemented here. The single-writer rule calls
``primetui.local.sessions.live_read_write(volume_key)`` (``paths.volume_key``); before that package has landed there are
no sessions, so every answer is "none".
"""

from __future__ import annotations

import inspect
from typing import Any

from primetui.local.state import LocalState


def _call(name: str, state: LocalState, volume: str) -> Any:
    try:
        import primetui.local.sessions as sessions
    except ImportError:
        return None
    func = getattr(sessions, name, None)
    if func is None:
        return None
    params = [
        p for p in inspect.signature(func).parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    return func(state, volume) if len(params) >= 2 else func(volume)


def _session_id(found: Any) -> str | None:
    if not found:
        return None
    if isinstance(found, str):
        return found
    if isinstance(found, dict):
        return str(found.get("id") or "a live session")
    return str(getattr(found, "id", None) or "a live session")


def live_read_write_session(state: LocalState, volume: str) -> str | None:
    """Id of the live read-write session on ``volume`` (it blocks runs and deletion), or None."""
    return _session_id(_call("live_read_write", state, volume))


def live_session(state: LocalState, volume: str) -> str | None:
    """Id of any live session on ``volume`` (read-only ones too; they block deletion), or None."""
    found = _session_id(_call("live_session", state, volume))
    return found or live_read_write_session(state, volume)
