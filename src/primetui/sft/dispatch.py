"""What the local platform's dispatch refuses, from the same checks the editor runs.

A thin adapter over ``server_checks`` (the local platform builds its own 422 and 400 replies).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class DispatchVerdict:
    """``schema_errors``: (loc below ``config``, msg, type) for a 422; ``rejection``: the hosted rule's text for a 400."""

    schema_errors: list[tuple[tuple[str | int, ...], str, str]]
    rejection: str | None


def dispatch_verdict(config: dict[str, Any]) -> DispatchVerdict:
    """Every error-level rule of ``primetui.sft`` on ``config``.

    The volume and model-cache rules are left to the caller, which knows the volume and the cache.
    """
    from primetui.sft.server import server_checks

    verdict = server_checks(config, has_volume=True, cached_models=None)
    return DispatchVerdict([(tuple(e["loc"][2:]), e["msg"], e["type"]) for e in verdict.schema_errors],
                           verdict.rejection)
