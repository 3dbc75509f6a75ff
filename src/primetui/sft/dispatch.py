"""What the local platform's dispatch refuses, from the same checks the editor runs.

A thin adapter over ``server_checks`` (the local platform builds its own 422 and 400 replies).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class DispatchVerdict:
    """``schema_errors``: (loc below ``config``, msg, type) for a 422; ``rejection``: the hosted rule's text for a
    400."""

    schema_errors: list[tuple[tuple[str | int, ...], str, str]]
    rejection: str | None


def dispatch_verdict(config: dict[str, Any]) -> DispatchVerdict:
    """Every error-level rule of ``primetui.sft`` on ``config``.

    The volume and model-cache rules are left to the caller, which knows the volume and the cache.
    """
    from primetui.sft.server import server_checks

    verdict = server_checks(config, has_volume=True, cached_models=None)
    return DispatchVerdict(
        [(tuple(e["loc"][2:]), e["msg"], e["type"]) for e in verdict.schema_errors], verdict.rejection
    )


def rl_dispatch_verdict(config: dict[str, Any]) -> list[tuple[tuple[str | int, ...], str]]:
    """What the hosted platform refuses in an rl.toml at submit: (loc below ``config``, msg), in order.

    Schema problems carry pydantic's loc and words; prime-rl's validators theirs, prefixed
    ``Value error, `` as pydantic reports them; ``prime train``'s hosted refusals (``[k8s]``,
    ``clean``, no inference GPUs, disaggregated inference) and the environment checks it leaves
    to the platform (an unknown taskset, a source named ``agg``, an eval block with no source,
    unknown keys inside a source) are errors here. Empty: the platform takes the config.
    """
    from primetui.sft.check import check_parsed
    from primetui.sft.context import CheckContext
    from primetui.sft.rules_rl import DEFERRED_CODES, HOSTED_AFTER_SCHEMA
    from primetui.sft.spans import SpanMap

    if not isinstance(config, dict):
        return [((), "Input should be a valid dictionary")]
    report = check_parsed(config, SpanMap(""), CheckContext(hosted=True, has_volume=True, at_dispatch=True))
    conflict = next((d for d in report.errors if d.code == "shared-conflict"), None)
    if conflict is not None:  # prime-rl's before-validator: nothing else is validated
        return [((), f"Value error, {conflict.platform_message or conflict.message}")]
    out: list[tuple[tuple[str | int, ...], str]] = [(tuple(e["loc"][2:]), e["msg"]) for e in report.schema_errors]
    found = [
        (tuple(d.platform_loc if d.platform_loc is not None else d.loc), d)
        for d in report.errors
        if d.pydantic_type is None
    ]  # the others are in ``schema_errors``, with pydantic's own loc
    inner = [loc for loc, _msg in out] + [loc for loc, d in found if d.code not in DEFERRED_CODES]
    for loc, d in found:
        # pydantic runs a model's validators only once its fields (and their validators) passed; prime train
        # refuses hosted settings only in a config prime-rl took
        if d.code not in DEFERRED_CODES and any(len(bad) > len(loc) and bad[: len(loc)] == loc for bad in inner):
            continue
        if d.code in HOSTED_AFTER_SCHEMA and (
            out or any(x.code not in (*DEFERRED_CODES, *HOSTED_AFTER_SCHEMA) for _l, x in found)
        ):
            continue
        message = d.platform_message or d.message
        out.append((loc, f"Value error, {message}" if d.source == "prime-rl" else message))
    return out
