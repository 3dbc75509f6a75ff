"""Validator corners (issue 18, items 12 and 14-17): linear span lookups, syntax errors placed on
the opening bracket or quote, the BOM, SFT table names in messages, defaults named as defaults,
hints counted, and `primetui validate -` reading standard input."""

from __future__ import annotations

import io
import json

import pytest

from primetui.sft.check import check_text
from primetui.commands.cli import build_parser
from primetui.commands.validate import validate
from primetui.sft.spans import SpanMap
from primetui.sft.templates import WALKTHROUGH

HEAD = "".join(f"# comment {i}\n" for i in range(17))  # the broken line is line 18


class _CountingDict(dict):
    """A dict that counts how many keys iterating it has produced."""

    seen = 0

    def __iter__(self):
        for k in super().__iter__():
            type(self).seen += 1
            yield k


def test_span_lookups_do_not_scan_every_pending_table():
    """Item 12: a lookup walked every pending table body (quadratic in unknown tables)."""
    n = 3000
    spans = SpanMap("".join(f"[unknown_{i}]\nx = 1\n" for i in range(n)))
    _CountingDict.seen = 0
    spans._pending = _CountingDict(spans._pending)
    for i in range(n):
        assert spans.get((f"unknown_{i}", "x")) is not None
    assert _CountingDict.seen <= n  # linear: at most one visit per table, not one per table per lookup


def test_many_unknown_tables_each_get_one_error():
    text = WALKTHROUGH + "".join(f"\n[unknown_{i}]\nx = 1\n" for i in range(2000))
    report = check_text(text)
    unknown = [d for d in report.diagnostics if d.code == "unknown-key"]
    assert len(unknown) == 2000
    assert unknown[-1].span.line == text.count("\n") - 2  # on the last header's key


def _syntax(text: str):
    [d] = check_text(text).diagnostics
    assert d.code == "toml-syntax"
    return d


def test_unclosed_array_is_marked_on_its_bracket():
    d = _syntax(HEAD + 'foo = [1, 2\n\n[model]\nname = "x"\n')
    assert (d.span.line + 1, d.span.col + 1) == (18, 7)
    assert "unclosed array `[` opened at 18:7" in d.message


def test_unclosed_inline_table_is_marked_on_its_brace():
    d = _syntax(HEAD + 'env = { id = "a"\n[model]\n')
    assert (d.span.line + 1, d.span.col + 1) == (18, 7)
    assert "unclosed inline table" in d.message and "18:7" in d.message


def test_unterminated_string_names_where_it_starts():
    d = _syntax(HEAD + 'name = "Qwen/Qwen3\n[model]\n')
    assert (d.span.line + 1, d.span.col + 1) == (18, 8)
    assert "unterminated string starting at 18:8" in d.message
    assert "Illegal character" not in d.message


def test_unterminated_multiline_string():
    d = _syntax(HEAD + "notes = '''first\nsecond\n")
    assert "unterminated multi-line string starting at 18:9" in d.message


def test_brackets_inside_strings_and_comments_do_not_count():
    d = _syntax(HEAD + "a = \"[\"  # [ {\nfoo = [1, '[', 2\n[model]\n")
    assert (d.span.line + 1, d.span.col + 1) == (19, 7)


def test_bom_is_named_and_offers_to_strip_it():
    d = _syntax("\ufeff" + WALKTHROUGH)
    assert "byte-order mark" in d.message and "Invalid statement" not in d.message
    assert d.fix is not None
    [edit] = d.fix.edits
    assert (edit.start, edit.end, edit.text) == ((0, 0), (0, 1), "")
    assert check_text(WALKTHROUGH).errors == []  # what the fix leaves is clean


def test_other_syntax_errors_keep_the_parser_position():
    d = _syntax("[model\nname = 1\n")
    assert d.span.line == 0 and "fix the syntax here" in d.message


def test_eval_without_source_names_sft_tables():
    text = WALKTHROUGH + "\n[eval]\ninterval = 5\n"
    [d] = [d for d in check_text(text).diagnostics if d.code == "eval-source"]
    assert "orchestrator" not in d.message
    assert "[[eval.source]]" in d.message and "[eval]" in d.message


def test_scheduler_message_says_which_value_is_the_default():
    text = (
        WALKTHROUGH.replace("max_steps = ", "max_steps = 10\n# was: ", 1)
        + '\n[scheduler]\ntype = "linear"\nwarmup_steps = 5\n'
    )
    [d] = [d for d in check_text(text).diagnostics if d.code == "scheduler"]
    assert "warmup_steps (5) + decay_steps (10, the default)" in d.message


def _args(*files, json_out=False):
    """``primetui validate FILES --offline [--json]``, through the CLI's own parser."""
    return build_parser().parse_args(["validate", *map(str, files), "--offline", *(["--json"] if json_out else [])])


def test_validate_counts_hints_in_totals_and_json(tmp_path, capsys):
    f = tmp_path / "sft.toml"
    f.write_text("max_steps = 10\n")
    hints = sum(d.level == "hint" for d in check_text(f.read_text()).diagnostics)
    assert hints >= 1
    validate(_args(str(f)))
    err = capsys.readouterr().err
    assert f"{hints} hint(s) in 1 file(s)" in err
    validate(_args(str(f), json_out=True))
    assert json.loads(capsys.readouterr().out)["hints"] == hints


@pytest.mark.parametrize("json_out", [False, True])
def test_validate_dash_reads_stdin(monkeypatch, capsys, json_out):
    data = "max_steps = 10\n[scheduler]\nwarmup_steps = 5\n".encode()
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))
    assert validate(_args("-", json_out=json_out)) == 1
    out = capsys.readouterr().out
    if json_out:
        doc = json.loads(out)
        assert doc["files"][0]["file"] == "<stdin>" and doc["errors"] == 1
    else:
        assert "<stdin>:3:1: error: scheduler.warmup_steps" in out
