"""All rule sets in order: prime-rl's validators, the hosted platform's rules, the reviewer's advice."""

from __future__ import annotations

from collections.abc import Iterator

from primetui.sft import rules_platform, rules_primerl, rules_review
from primetui.sft.cfg import Cfg, Finding
from primetui.sft.context import CheckContext
from primetui.sft.spans import SpanMap


def run_all(c: Cfg, ctx: CheckContext, spans: SpanMap) -> Iterator[Finding]:
    for ruleset in (rules_primerl.run, rules_platform.run, rules_review.run):
        try:
            yield from ruleset(c, ctx)
        except Exception as exc:  # noqa: BLE001 - a rule bug must never hide the other diagnostics
            yield Finding("hint", "internal", f"A validation rule failed ({type(exc).__name__}: {exc}); please report it.", (), "internal")
