"""All rule sets in order: prime train's own keys, prime-rl's validators, the hosted platform's rules, the reviewer's
advice."""

from __future__ import annotations

from collections.abc import Iterator

from primetui.sft import rules_cli, rules_platform, rules_primerl, rules_review, rules_rl
from primetui.sft.cfg import Cfg, Finding
from primetui.sft.context import CheckContext
from primetui.sft.spans import SpanMap


def run_all(c: Cfg, ctx: CheckContext, spans: SpanMap, kind: str = "sft") -> Iterator[Finding]:
    """The rule sets of the document's kind: an rl.toml has its own, both share prime train's top-level keys."""
    rulesets = (
        (rules_cli.run, rules_rl.run)
        if kind == "rl"
        else (rules_cli.run, rules_primerl.run, rules_platform.run, rules_review.run)
    )
    for ruleset in rulesets:
        try:
            yield from ruleset(c, ctx)
        except Exception as exc:  # noqa: BLE001 - a rule bug must never hide the other diagnostics
            yield Finding(
                "hint",
                "internal",
                f"A validation rule failed ({type(exc).__name__}: {exc}); please report it.",
                (),
                "internal",
            )
