"""The verdict the local platform's dispatch gives a config, the way the hosted platform would."""

from __future__ import annotations

from typing import Any

from dataclasses import dataclass, field

from primetui.sft.context import CheckContext
from primetui.sft.diagnostics import Diagnostic

# Platform refusals (HTTP 400 with the seed's text), in the order the platform is assumed to check them.
REJECTION_CODES = (
    "volume-required",
    "inference-without-eval",
    "gpu-budget",
    "multi-node-eval",
    "multi-node-router",
    "model-cache",
)


@dataclass
class ServerVerdict:
    """``schema_errors``: pydantic-style details for a 422 (``loc`` starts with "body", "config");
    ``rejection``: the first platform rule that refuses the config (its exact text), else None;
    ``warnings``: advice that does not block dispatch."""

    schema_errors: list[dict[str, Any]] = field(default_factory=list)
    rejection: str | None = None
    warnings: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.schema_errors and self.rejection is None


def _loc(d: Diagnostic) -> list[Any]:
    return ["body", "config", *d.loc]


def server_checks(config: dict[str, Any], *, has_volume: bool, cached_models: set[str] | None) -> ServerVerdict:
    """Check a dispatched config dict (the parsed sft.toml) as the hosted platform does.

    Schema and prime-rl validator errors become ``schema_errors``; the hosted platform's rules
    (volume needed, model cache, [inference] without [eval], GPU budget, multi-node evals) become
    ``rejection``. ``cached_models`` None skips the model-cache rule.
    """
    from primetui.sft.check import check_parsed
    from primetui.sft.spans import SpanMap

    if not isinstance(config, dict):
        return ServerVerdict(
            [{"loc": ["body", "config"], "msg": "Input should be a valid dictionary", "type": "dict_type"}]
        )
    ctx = CheckContext(
        hosted=True,
        has_volume=has_volume,
        cached_models=frozenset(cached_models) if cached_models is not None else None,
    )
    report = check_parsed(config, SpanMap(""), ctx)
    verdict = ServerVerdict(list(report.schema_errors))
    rejections: dict[str, str] = {}
    for d in report.diagnostics:
        if d.level != "error":
            if d.level == "warning":
                verdict.warnings.append(d.message)
            continue
        message = d.platform_message or d.message
        if d.code in REJECTION_CODES:
            rejections.setdefault(d.code, message)
        elif d.pydantic_type is None:  # a prime-rl validator error, reported like pydantic's value_error
            verdict.schema_errors.append({"loc": _loc(d), "msg": f"Value error, {message}", "type": "value_error"})
    for code in REJECTION_CODES:
        if code in rejections:
            verdict.rejection = rejections[code]
            break
    return verdict
