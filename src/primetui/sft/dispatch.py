"""Schema errors of a dispatched config as (loc, msg, type) tuples, ``loc`` below ``config``.

A thin adapter over ``server_checks`` for the local platform's dispatch (it builds its own 422).
"""

from __future__ import annotations

from typing import Any


def schema_errors(config: dict[str, Any]) -> list[tuple[tuple[str | int, ...], str, str]]:
    """pydantic-shaped schema and prime-rl validator errors (platform rules are not included)."""
    from primetui.sft.server import server_checks

    verdict = server_checks(config, has_volume=True, cached_models=None)
    return [(tuple(e["loc"][2:]), e["msg"], e["type"]) for e in verdict.schema_errors]
