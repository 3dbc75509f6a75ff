"""One mistake, one message, in the documented words (issue 43 finding 10).

- A ``[renderer]`` table without ``name`` is one error on that table (missing-type, with the name
  to add); prime-rl stops at that field, so no second "typed renderer" error on ``model.name``.
- An inline table whose line ends after a comma (or right after its ``{``) is the unclosed inline
  table that docs/validation-rules.md names: "unclosed inline table … opened at", on its brace,
  not tomllib's "Invalid initial character for a key part".
"""

from __future__ import annotations

import pytest

from primetui.sft.check import check_text
from primetui.sft.context import CheckContext
from primetui.sft.templates import WALKTHROUGH

RENDERER = '[renderer]\nname = "prime-qwen3"  # must match the model family\n'
HEAD = "".join(f"# comment {i}\n" for i in range(17))  # the broken line is line 18


@pytest.mark.parametrize("body", ["", 'type = "x"\n'])
def test_a_renderer_table_without_name_is_one_error_on_that_table(body):
    assert RENDERER in WALKTHROUGH
    text = WALKTHROUGH.replace(RENDERER, "[renderer]\n" + body)
    errors = [d for d in check_text(text, CheckContext(hosted=True)).diagnostics if d.level == "error"]
    header = text.split("\n").index("[renderer]")
    assert [(d.code, d.span.line) for d in errors] == [("missing-type", header)]
    assert 'name = "prime-qwen3"' in errors[0].message
    if not body:
        assert errors[0].fix is not None and errors[0].fix.title == 'Add name = "prime-qwen3" to [renderer]'


def test_without_a_renderer_table_the_typed_renderer_rule_still_speaks():
    text = WALKTHROUGH.replace(RENDERER, "").replace("PrimeIntellect/Qwen3-0.6B-Reverse-Text-SFT", "my-org/fine-tune")
    codes = [d.code for d in check_text(text, CheckContext(hosted=True)).diagnostics if d.level == "error"]
    assert codes == ["typed-renderer"]


@pytest.mark.parametrize(
    "line",
    [
        'env = { id = "a",\n',
        'env = { id = "a", \n',
        'env = { id = "a", x = 1,  # more later\n',
        "env = {\n",
        'env = { id = "a",',  # the file ends there
    ],
)
def test_an_inline_table_cut_after_a_comma_is_named_unclosed_on_its_brace(line):
    [d] = check_text(HEAD + line + ("" if not line.endswith("\n") else "[model]\n")).diagnostics
    assert d.code == "toml-syntax"
    assert (d.span.line + 1, d.span.col + 1) == (18, 7)
    assert "unclosed inline table (it must close on the same line) `{` opened at 18:7 — close it with `}`" in d.message
    assert "Invalid initial character" not in d.message


def test_a_trailing_comma_before_the_brace_keeps_the_parser_words():
    # closed on its line: not an unclosed table (TOML forbids the comma; tomllib says where)
    [d] = check_text(HEAD + 'env = { id = "a", }\n').diagnostics
    assert d.code == "toml-syntax" and "unclosed" not in d.message and (d.span.line, d.span.col) == (17, 18)
