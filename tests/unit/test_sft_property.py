"""Random edits of the templates never crash the validator, and every span stays inside the document."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from primetui.sft.check import check_text
from primetui.sft.context import CheckContext
from primetui.sft.diagnostics import apply_fix
from primetui.sft.templates import TEMPLATES

TOKENS = [
    "[",
    "]",
    "[[",
    "]]",
    "=",
    '"',
    "'",
    "{",
    "}",
    ",",
    ".",
    "\n",
    " ",
    "#",
    "type",
    "name",
    "None",
    '"None"',
    "true",
    "1e9",
    "-1",
    "0",
    "3.5",
    "ключ",
    "🚀",
    "[scheduler]",
    "[model.ac]",
    "[[eval.source]]",
    "warmup_steps = 5",
    "num_gpus = 2",
    "[renderer]",
    "[inference.router]",
    "x.y.z = 1",
    '"""',
    "\t",
    "\\",
]

CTX = CheckContext(has_volume=False, cached_models=frozenset({"Qwen/Qwen3-0.6B"}), volume_size_bytes=10**9)


@st.composite
def edited(draw):
    text = draw(st.sampled_from([t.text for t in TEMPLATES]))
    for _ in range(draw(st.integers(1, 6))):
        pos = draw(st.integers(0, len(text)))
        if draw(st.booleans()):
            ins = "".join(draw(st.lists(st.sampled_from(TOKENS), min_size=1, max_size=4)))
            text = text[:pos] + ins + text[pos:]
        else:
            end = min(len(text), pos + draw(st.integers(1, 40)))
            text = text[:pos] + text[end:]
    return text


def _inside(lines: list[str], line: int, col: int) -> bool:
    return 0 <= line < len(lines) and 0 <= col <= len(lines[line])


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edited())
def test_random_edits_never_crash_and_spans_stay_inside(text):
    lines = text.split("\n")
    report = check_text(text, CTX)
    for d in report.diagnostics:
        s = d.span
        assert _inside(lines, s.line, s.col), (d, len(lines))
        assert _inside(lines, s.end_line, s.end_col), (d, len(lines))
        assert (s.line, s.col) <= (s.end_line, s.end_col)
        assert d.message and d.level in ("error", "warning", "hint")
        if d.fix is not None:
            apply_fix(text, d.fix)  # applying a fix never raises
