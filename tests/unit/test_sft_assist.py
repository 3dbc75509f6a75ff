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
    _s, items = completions("[scheduler]\ntype = \n", 1, 7)
    assert [c.label for c in items] == ["constant", "linear", "cosine"]
    start, items = completions('[model]\nname = "Qw\n', 1, 10, frozenset({"Qwen/Qwen3-0.6B", "meta/Llama"}))
    assert start == 7 and [c.insert for c in items] == ['"Qwen/Qwen3-0.6B"']


def test_keys_already_written_are_not_offered_again():
    _s, items = completions("[optim]\nlr = 1e-5\n\n", 2, 0)
    assert "lr" not in [c.label for c in items] and "weight_decay" in [c.label for c in items]


def test_hover_is_the_f1_help():
    path, help_ = help_at("max_steps = 10\n", 0, 3)
    assert path == ("max_steps",) and help_ is not None and help_.title == "max_steps"


def test_completion_inside_an_inline_table_offers_its_keys_and_values():
    """Issue 43 finding 5: before, the inline table gave "Nothing to complete here"."""
    text = "max_steps = 10\n[eval]\nsampling = { temperature = 1.0, \n"
    start, items = completions(text, 2, 32)
    labels = [c.label for c in items]
    assert start == 32 and "top_p" in labels and "temperature" not in labels  # written already
    start, items = completions("max_steps = 10\n[eval]\nsampling = { temperature = 1.0, ma\n", 2, 34)
    assert start == 32 and [c.label for c in items] == ["max_completion_tokens"]
    text = 'max_steps = 10\nscheduler = { type = "co'
    start, items = completions(text, 1, len('scheduler = { type = "co'))
    assert [c.label for c in items] == ["constant", "cosine"]


def test_help_inside_env_says_where_the_key_sits_not_that_it_is_unknown():
    """Issue 43 finding 5: F1 / hover on `taskset` inside `env = { … }` said it was no prime-rl key."""
    text = '[[eval.source]]\nname = "e"\nenv = { taskset = { id = "org/task" } }\n'
    path, help_ = help_at(text, 2, 10)
    assert path[-1] == "taskset" and help_ is not None
    assert help_.title == "eval.source.env.taskset" and "not checked here" in " ".join(help_.lines)
    assert help_at("max_steps = 10\n[optim]\nlrr = 1\n", 2, 0)[1] is None  # an unknown key stays unknown


def test_a_big_file_gets_the_same_help_and_completion_from_the_table_around_the_cursor():
    """Issue 43 finding 6: above WINDOW_ABOVE characters hover and completion read only the cursor's
    table (a whole 5 MB parse per hover took seconds); what they say is what the whole text says."""
    from primetui.sft import assist

    head = 'max_steps = 10\n[scheduler]\ntype = "cosine"\n\n[optim]\nlr = 1e-5\n'
    filler = "".join(f'\n[[eval.source]]\nname = "e{i}"\nnum_examples = 32\n' for i in range(8000))
    text = head + filler + '\n[model]\nname = "m"\n\n'
    assert len(text) > assist.WINDOW_ABOVE
    last = text.count("\n") - 1
    spans, raw = assist.SpanMap(text), assist.loads_or_none(text)  # the whole text, parsed once
    for line, col in ((2, 1), (5, 0), (last - 2, 2), (9, 2)):
        windowed = help_at(text, line, col)[1]
        assert windowed is not None and windowed == help_at(text, line, col, spans=spans, raw=raw)[1]
    assert [c.label for c in completions(text, last, 0)[1]] == [
        c.label for c in completions(head + '\n[model]\nname = "m"\n\n', 9, 0)[1]
    ]
