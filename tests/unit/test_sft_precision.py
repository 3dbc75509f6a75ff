"""Message precision: each case gets the right words, and every quick fix leaves fewer errors than it found."""

from __future__ import annotations

import pytest

from primetui.sft.check import check_text
from primetui.sft.diagnostics import apply_fix

ENV = 'env = { taskset = { id = "t" } }'
CASES = {
    # name: (text, code, words the message must carry, fix titles that must be offered)
    "num_train_nodes under single_node": (
        'max_steps = 10\n[ckpt]\n[deployment]\ntype = "single_node"\nnum_train_nodes = 2\n',
        "variant-key",
        ["belongs to the `multi_node` variant", "`single_node` here"],
        ['Switch [deployment] to type = "multi_node"', "Remove num_train_nodes"],
    ),
    "decay_steps under cosine": (
        'max_steps = 100\n[ckpt]\n[scheduler]\ntype = "cosine"\ndecay_steps = 5\n',
        "variant-key",
        ["belongs to the `linear` variant"],
        ['Switch [scheduler] to type = "linear"', "Remove decay_steps"],
    ),
    "betas1 under sgd": (
        'max_steps = 10\n[ckpt]\n[optim]\ntype = "sgd"\nbetas1 = 0.9\n',
        "variant-key",
        ["`adamw` or `muon` variants"],
        ['Switch [optim] to type = "adamw"', 'Switch [optim] to type = "muon"', "Remove betas1"],
    ),
    "reasoning_effort under qwen3": (
        'max_steps = 10\n[ckpt]\n[model]\nname = "Qwen/Qwen3-0.6B"\n[renderer]\nname = "qwen3"\nreasoning_effort = '
        '"high"\n',
        "variant-key",
        ["belongs to the", "`qwen3` here"],
        ["Remove reasoning_effort"],
    ),
    "max_steps after [renderer]": (
        '[ckpt]\n[renderer]\nname = "qwen3"\nmax_steps = 20\n',
        "wrong-table",
        ["belongs in the top level"],
        ["Move max_steps to the top level"],
    ),
    "warmup_steps under [optim]": (
        "max_steps = 10\n[ckpt]\n[optim]\nwarmup_steps = 5\n",
        "wrong-table",
        ["belongs in [scheduler]"],
        ['Move warmup_steps to [scheduler] (type = "cosine")'],
    ),
    "scheduler without type": (
        "max_steps = 10\n[ckpt]\n[scheduler]\nwarmup_steps = 5\n",
        "missing-type",
        ['add `type = "linear"` or `type = "cosine"`'],
        ['Add type = "cosine" to [scheduler]'],
    ),
    "HF for hf": (
        'max_steps = 10\n[ckpt]\n[model]\nimpl = "HF"\nattn = "flash_attention_2"\n',
        "bad-value",
        ['did you mean "hf"'],
        ['Change "HF" to "hf"'],
    ),
    "betas list": (
        "max_steps = 10\n[ckpt]\n[optim]\nbetas = [0.9, 0.99]\n",
        "renamed-key",
        ["`betas1` and `betas2`"],
        ["Split betas into betas1 and betas2"],
    ),
    "[eval.source] with single brackets": (
        f'max_steps = 10\n[ckpt]\n[eval]\n[eval.source]\nname = "x"\n{ENV}\n',
        "bad-type",
        ["write [[eval.source]]"],
        ["Make it [[eval.source]]"],
    ),
    "a key set twice": (
        "max_steps = 10\n[ckpt]\ninterval = 1\ninterval = 2\n",
        "toml-syntax",
        ["`interval` is set twice in this table (first on line 3)"],
        ["Remove this second interval"],
    ),
    "a table declared twice": (
        "max_steps = 10\n[ckpt]\n[ckpt]\n",
        "toml-syntax",
        ["[ckpt] is declared twice (first on line 2)"],
        [],
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_each_case_has_one_precise_error_and_fixes_that_help(name):
    text, code, words, titles = CASES[name]
    errors = [d for d in check_text(text).diagnostics if d.level == "error"]
    assert [d.code for d in errors] == [code], [d.message for d in errors]
    d = errors[0]
    for w in words:
        assert w in d.message
    assert [f.title for f in d.fixes][: len(titles)] == titles
    for fix in d.fixes:
        after = [x for x in check_text(apply_fix(text, fix)).diagnostics if x.level == "error"]
        assert len(after) < len(errors), (fix.title, [x.message for x in after])


def test_the_scheduler_fix_never_creates_the_warmup_plus_decay_error():
    text = "max_steps = 10\n[ckpt]\n[scheduler]\nwarmup_steps = 5\n"
    d = check_text(text).diagnostics[0]
    assert all("linear" not in f.title for f in d.fixes)  # linear's default decay_steps (10) would overflow


def test_a_syntax_error_at_the_end_of_a_file_without_newline_is_on_its_line():
    d = check_text("max_steps = 10\n[ckpt]\nx = ").diagnostics[0]
    assert (d.code, d.span.line, d.span.col) == ("toml-syntax", 2, 3)
    assert "end of the file" in d.message


def test_messages_carry_their_numbers_and_the_platform_keeps_prime_rl_words():
    from primetui.sft.server import server_checks

    text = "max_steps = 10\n[ckpt]\n[data]\nbatch_size = 6\nmicro_batch_size = 4\n"
    d = next(d for d in check_text(text).diagnostics if d.code == "batch-divisible")
    assert "batch_size 6 is not a multiple of micro_batch_size 4 (the nearest are 4 or 8)" in d.message
    import tomllib

    v = server_checks(tomllib.loads(text), has_volume=True, cached_models=None)
    assert any(e["msg"] == "Value error, Batch size must be divisible by micro batch size" for e in v.schema_errors)
    gpu = f'max_steps = 10\n[ckpt]\n[deployment]\nnum_train_gpus = 8\n[eval]\n[[eval.source]]\nname = "x"\n{ENV}\n'
    d = next(d for d in check_text(gpu).diagnostics if d.code == "gpu-budget")
    assert "9 = 8 train + 1 infer" in d.message and "num_infer_gpus (1, the default)" in d.message
    assert "lower num_train_gpus to 7" in d.message


@pytest.mark.parametrize(
    ("deployment", "fix"),
    [
        ("num_train_gpus = 1\ngpus_per_node = 1", "a node of 1 GPU cannot hold both: remove [eval]"),
        ("num_train_gpus = 2\nnum_infer_gpus = 4\ngpus_per_node = 4", "lower num_infer_gpus to 2"),
        ("num_train_gpus = 4\nnum_infer_gpus = 4\ngpus_per_node = 4", "add up to 4 (at least 1 each)"),
    ],
)
def test_the_gpu_budget_never_suggests_zero_gpus(deployment, fix):
    """Issue 41, finding 11: the editor suggested "lower num_train_gpus to 0" when the eval server took the node."""
    gpu = f'max_steps = 10\n[ckpt]\n[deployment]\n{deployment}\n[eval]\n[[eval.source]]\nname = "x"\n{ENV}\n'
    d = next(d for d in check_text(gpu).diagnostics if d.code == "gpu-budget")
    assert fix in d.message and "to 0" not in d.message, d.message


@pytest.mark.parametrize(
    ("resume", "max_steps", "warned"),
    [
        ('dir = "/volume/runs/abc/checkpoints/step_10"', 10, True),
        ("step = 25", 20, True),
        ('dir = "/volume/runs/abc/checkpoints/step_10/"', 11, False),
        ("step = 5", 20, False),
    ],
)
def test_a_resume_at_or_past_max_steps_is_warned_about(resume, max_steps, warned):
    """Issue 41, finding 11: resuming from step 10 with max_steps = 10 completed with no training and no warning."""
    text = f"max_steps = {max_steps}\n[ckpt]\n[resume]\n{resume}\n"
    found = [d for d in check_text(text).diagnostics if d.code == "resume-past-max"]
    assert bool(found) == warned, check_text(text).diagnostics
    if warned:
        assert found[0].level == "warning" and f"but max_steps is {max_steps}" in found[0].message


def test_model_seq_len_is_not_silent_and_moves_to_data():
    text = "max_steps = 10\n[ckpt]\n[model]\nseq_len = 512\n"
    d = next(d for d in check_text(text).diagnostics if d.code == "model-seq-len")
    assert d.level == "warning" and "not used by SFT" in d.message and "data.seq_len (128, the default)" in d.message
    fixed = apply_fix(text, d.fix)
    assert "[data]\nseq_len = 512\n" in fixed and [x.code for x in check_text(fixed).diagnostics] == []
