"""Runs as the wire boundary gives them to the view model: validated :class:`~primetui.api.models.RLRun` models."""

from __future__ import annotations

from typing import Any

from primetui.api import models as m

REQUIRED = {
    "id": "r1",
    "userId": "u",
    "status": "RUNNING",
    "createdAt": "2026-01-01T00:00:00Z",
    "updatedAt": "2026-01-01T00:00:00Z",
}


def wire_run(fields: dict[str, Any] | None = None, **more: Any) -> m.RLRun:
    """An RLRun validated from ``fields`` (wire or Python names), the required ones filled in when absent."""
    return m.RLRun.model_validate({**REQUIRED, **(fields or {}), **more})
