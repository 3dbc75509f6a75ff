"""The rules primetui.ui.textual_fixes hands a process's later apps are the ones a fresh parse gives each source.

Two dashboards start one after the other in this process, the second under another theme; every source of
each app's stylesheet is parsed again by a stylesheet of its own (Textual's own parse, no sharing) under
the app's variables, and the rules (selectors, declarations, flags, errors, order) must be those the app holds.
"""

from __future__ import annotations

from typing import Any

from textual.css.stylesheet import Stylesheet

from primetui.api.client import PrimeClient
from primetui.ui.app import PrimeApp
from primetui.ui import textual_fixes


def _described(rules: list[Any]) -> list[str]:
    """Each rule as text: its selectors, declarations, flags and errors (``RuleSet.css`` fails on some rules)."""
    return [
        repr((r.selectors, r.styles.get_rules(), r.is_default_rules, r.tie_breaker, sorted(r.pseudo_classes), r.errors))
        for r in rules
    ]


def _fresh_rules(app: PrimeApp) -> list[str]:
    own = Stylesheet(variables=app.get_css_variables())
    rules: list[Any] = []
    for read_from, (css, is_default, tie_breaker, scope) in app.stylesheet.source.items():
        rules += textual_fixes.textual_parse(own, css, read_from, is_default, tie_breaker, scope)
    return _described(rules)


async def test_later_apps_hold_the_rules_a_fresh_parse_gives() -> None:
    assert textual_fixes.parsed_css_shared()  # the conftest shared the parses, as PrimeApp does
    for theme in (None, "textual-light"):
        app = PrimeApp(PrimeClient("http://127.0.0.1:9", "unused"), None, None, poll_scale=0)
        async with app.run_test():
            if theme:
                app.theme = theme
                app.refresh_css(animate=False)  # the reparse the theme's watcher schedules, done now
            assert app.stylesheet.source  # the app's and its widgets' CSS
            assert _described(app.stylesheet.rules) == _fresh_rules(app)
