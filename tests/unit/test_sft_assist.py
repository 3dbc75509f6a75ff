"""Completion and hover help shared by the editor and the language server."""

from __future__ import annotations

from primetui.sft.assist import completions, help_at


def test_section_names_after_a_bracket():
    start, items = completions("max_steps = 10\n[sched\n", 1, 6)
    assert start == 1 and [c.label for c in items] == ["scheduler"] and items[0].kind == "table"


def test_keys_follow_the_variant_even_while_the_line_does_not_parse():
    text = 'max_steps = 10\n[scheduler]\ntype = "cosine"\nm\n'
    _start, items = completions(text, 3, 1)
    assert [(c.label, c.detail) for c in items] == [("min_lr", "type: float · default: 0.0")]


def test_enum_values_variant_tags_and_cached_model_names():
    _s, items = completions('[model]\nimpl = "\n', 1, 8)
    assert [c.insert for c in items] == ['"hf"', '"custom"', '"auto"']
    _s, items = completions('[scheduler]\ntype = \n', 1, 7)
    assert [c.label for c in items] == ["constant", "linear", "cosine"]
    start, items = completions('[model]\nname = "Qw\n', 1, 10, frozenset({"Qwen/Qwen3-0.6B", "meta/Llama"}))
    assert start == 7 and [c.insert for c in items] == ['"Qwen/Qwen3-0.6B"']


def test_keys_already_written_are_not_offered_again():
    _s, items = completions("[optim]\nlr = 1e-5\n\n", 2, 0)
    assert "lr" not in [c.label for c in items] and "weight_decay" in [c.label for c in items]


def test_hover_is_the_f1_help():
    path, help_ = help_at("max_steps = 10\n", 0, 3)
    assert path == ("max_steps",) and help_ is not None and help_.title == "max_steps"
