"""The rules tests/shared_css.py hands a worker's later apps are the ones a fresh parse gives each source.

Two dashboards start one after the other in this process, the second after a theme change; every source of
the second app's stylesheet is parsed again by a stylesheet of its own (Textual's own parse, no sharing),
and the rules, their CSS text, errors and order, must be the same as those the app holds.
"""

from __future__ import annotations

from textual.css.stylesheet import Stylesheet

from primetui.api.client import PrimeClient
from primetui.ui.app import PrimeApp
from tests import shared_css


def _described(rules: list) -> list[str]:
    """Each rule as text: its selectors, declarations, flags and errors (``RuleSet.css`` fails on some rules)."""
    return [
        repr((r.selectors, r.styles.get_rules(), r.is_default_rules, r.tie_breaker, sorted(r.pseudo_classes), r.errors))
        for r in rules
    ]


def _fresh_rules(app: PrimeApp) -> list[str]:
    own = Stylesheet(variables=dict(app.stylesheet._variables))
    out: list[str] = []
    for read_from, (css, is_default, tie_breaker, scope) in app.stylesheet.source.items():
        rules = shared_css._own_parse(own, css, read_from, is_default, tie_breaker, scope)
        out += _described(rules)
    return out


def _held_rules(app: PrimeApp) -> list[str]:
    out: list[str] = []
    for read_from, (css, is_default, tie_breaker, scope) in app.stylesheet.source.items():
        rules = app.stylesheet._parse_rules(css, read_from, is_default, tie_breaker, scope)
        out += _described(rules)
    return out


async def test_later_apps_hold_the_rules_a_fresh_parse_gives() -> None:
    assert Stylesheet._parse_rules is shared_css._parse_rules  # the conftest installed the sharing
    for theme in (None, "textual-light"):
        app = PrimeApp(PrimeClient("http://127.0.0.1:9", "unused"), None, None, poll_scale=0)
        async with app.run_test() as pilot:
            if theme:
                app.theme = theme
                await pilot.pause()
            assert app.stylesheet.source  # the app's and its widgets' CSS
            assert _held_rules(app) == _fresh_rules(app)
