"""A top-level ``name`` is the platform's run name: outside prime-rl's schema when hosted, checked as a name."""

from __future__ import annotations

from primetui.sft.check import check_text
from primetui.sft.context import CheckContext
from primetui.sft.server import server_checks
from primetui.sft.templates import WALKTHROUGH


def _errors(text: str, hosted: bool = True) -> list[str]:
    report = check_text(text, CheckContext(hosted=hosted, has_volume=True))
    return [d.message for d in report.diagnostics if d.level == "error"]


def test_a_string_name_is_accepted_for_the_hosted_platform():
    assert _errors('name = "lr-1e-4"\n' + WALKTHROUGH) == []


def test_a_name_that_is_not_a_string_is_one_sentence():
    assert _errors("name = 3\n" + WALKTHROUGH) == ["name must be a string (the run's name on the platform), got int."]
    assert _errors('name = "  "\n' + WALKTHROUGH)[0].startswith("name is empty")


def test_prime_rl_alone_still_refuses_a_top_level_name():
    # prime-rl's own schema has no top-level name: it is refused there (and pointed at the tables that have one).
    assert any(
        m.startswith("name: Extra inputs are not permitted") and "prime-rl refuses it" in m
        for m in _errors('name = "x"\n' + WALKTHROUGH, hosted=False)
    )


def test_the_local_platform_accepts_name_inside_the_config():
    import tomllib

    config = tomllib.loads('name = "lr-1e-4"\n' + WALKTHROUGH)
    assert server_checks(config, has_volume=True, cached_models=None).schema_errors == []
