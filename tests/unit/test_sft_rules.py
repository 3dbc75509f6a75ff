"""Every rule: a config that trips it (exact line and column asserted) and one that does not."""

from __future__ import annotations

import pytest

from primetui.sft.check import check_text
from primetui.sft.context import CheckContext
from primetui.sft.diagnostics import apply_fix
from primetui.sft.templates import MULTI_NODE, ONLINE_EVAL, WALKTHROUGH

HOSTED = CheckContext()
LOCAL = CheckContext(hosted=False)
NO_VOLUME = CheckContext(has_volume=False)
CACHE = CheckContext(cached_models=frozenset({"PrimeIntellect/Qwen3-0.6B-Reverse-Text-SFT"}))
SMALL_VOLUME = CheckContext(volume_size_bytes=5 * 10**9)

MN_EVAL = """max_steps = 10
[model]
name = "Qwen/Qwen3-8B"
[deployment]
type = "multi_node"
num_train_nodes = 2
num_infer_nodes = {infer}
[eval]
[[eval.source]]
env = {{ taskset = {{ id = "x" }} }}
[inference]
{router}"""

# (id, code, level, bad text, (line, col) 1-based, good text, context)
CASES = [
    (
        "syntax",
        "toml-syntax",
        "error",
        "max_steps = 10\n[model\nname = 1\n",
        (2, 7),
        "max_steps = 10\n[model]\n",
        HOSTED,
    ),
    ("unknown-key", "unknown-key", "error", "[data]\nbach_size = 8\n", (2, 1), "[data]\nbatch_size = 8\n", HOSTED),
    (
        "renamed-key",
        "renamed-key",
        "error",
        "[deployment]\nnum_gpus = 2\n",
        (2, 1),
        "[deployment]\nnum_train_gpus = 1\n",
        HOSTED,
    ),
    (
        "renamed-table",
        "renamed-key",
        "error",
        'max_steps = 1\n[wandb]\nproject = "p"\n',
        (2, 1),
        'max_steps = 1\n[monitors.wandb]\nproject = "p"\n',
        HOSTED,
    ),
    (
        "scheduler-type-trap",
        "missing-type",
        "error",
        "max_steps = 100\n[scheduler]\nwarmup_steps = 5\n",
        (3, 1),
        'max_steps = 100\n[scheduler]\ntype = "linear"\nwarmup_steps = 5\n',
        HOSTED,
    ),
    (
        "router-type-trap",
        "missing-type",
        "error",
        '[eval]\n[inference.router]\npolicy = "x"\n',
        (2, 1),
        '[eval]\n[inference.router]\ntype = "vllm-router"\npolicy = "x"\n',
        HOSTED,
    ),
    (
        "renderer-name-trap",
        "missing-type",
        "error",
        '[model]\nname = "Qwen/Qwen3-8B"\n[renderer]\nenable_thinking = false\n',
        (3, 1),
        '[model]\nname = "Qwen/Qwen3-8B"\n[renderer]\nname = "qwen3"\nenable_thinking = false\n',
        HOSTED,
    ),
    ("bad-type", "bad-type", "error", 'max_steps = "ten"\n', (1, 13), "max_steps = 10\n", HOSTED),
    ("out-of-range", "out-of-range", "error", "[data]\nbatch_size = 0\n", (2, 14), "[data]\nbatch_size = 8\n", HOSTED),
    ("bad-literal", "bad-value", "error", '[model]\nimpl = "fast"\n', (2, 8), '[model]\nimpl = "custom"\n', HOSTED),
    ("bad-variant", "bad-variant", "error", '[optim]\ntype = "adam"\n', (2, 8), '[optim]\ntype = "adamw"\n', HOSTED),
    (
        "missing-field",
        "missing-field",
        "error",
        "[val]\ninterval = 5\n",
        (1, 1),
        '[val]\ninterval = 5\n[val.data]\nname = "d"\n',
        HOSTED,
    ),
    (
        "batch-divisible",
        "batch-divisible",
        "error",
        "[data]\nbatch_size = 6\nmicro_batch_size = 4\n",
        (2, 14),
        "[data]\nbatch_size = 8\nmicro_batch_size = 4\n",
        HOSTED,
    ),
    (
        "data-lengths",
        "data-lengths",
        "error",
        '[data]\nsubsets = ["a", "b"]\nsplits = ["train"]\n',
        (3, 10),
        '[data]\nsubsets = ["a", "b"]\nsplits = ["train", "test"]\n',
        HOSTED,
    ),
    (
        "train-gpus",
        "gpu-budget",
        "error",
        "[deployment]\nnum_train_gpus = 4\ngpus_per_node = 2\n",
        (2, 18),
        "[deployment]\nnum_train_gpus = 2\ngpus_per_node = 2\n",
        HOSTED,
    ),
    (
        "eval-gpus",
        "gpu-budget",
        "error",
        ONLINE_EVAL.replace("num_infer_gpus = 4 ", "num_infer_gpus = 5 "),
        (36, 18),
        ONLINE_EVAL,
        HOSTED,
    ),
    (
        "trust-remote-code",
        "model-impl",
        "error",
        '[model]\nimpl = "custom"\ntrust_remote_code = true\n',
        (3, 21),
        '[model]\nimpl = "hf"\nattn = "flash_attention_2"\ntrust_remote_code = true\n',
        HOSTED,
    ),
    (
        "hf-needs-attn",
        "model-attn",
        "error",
        '[model]\nimpl = "hf"\n',
        (2, 8),
        '[model]\nimpl = "hf"\nattn = "flash_attention_2"\n',
        HOSTED,
    ),
    (
        "fsdp-offload",
        "model-offload",
        "error",
        "[model]\nfsdp_cpu_offload = true\n",
        (2, 20),
        "[model]\nfsdp_cpu_offload = true\noptim_cpu_offload = false\n",
        HOSTED,
    ),
    (
        "cp-impl",
        "model-cp",
        "error",
        '[model]\nimpl = "hf"\nattn = "flash_attention_2"\ncp = 2\n',
        (4, 6),
        '[model]\nimpl = "custom"\ncp = 2\n',
        HOSTED,
    ),
    (
        "selective-ac",
        "model-ac",
        "error",
        '[model.ac]\nmode = "selective"\ntargets = []\n',
        (3, 11),
        '[model.ac]\nmode = "selective"\ntargets = ["norm"]\n',
        HOSTED,
    ),
    (
        "deepep",
        "model-ep",
        "error",
        '[model]\nep_comm_backend = "deepep"\nep = 1\n',
        (2, 19),
        '[model]\nep_comm_backend = "deepep"\nep = 8\n',
        HOSTED,
    ),
    (
        "resume-both",
        "resume",
        "error",
        '[resume]\nstep = 3\ndir = "/volume/runs/r/checkpoints/step_3"\n',
        (3, 7),
        '[resume]\ndir = "/volume/runs/r/checkpoints/step_3"\n',
        HOSTED,
    ),
    (
        "resume-dir",
        "resume",
        "error",
        '[resume]\ndir = "/volume/runs/r/checkpoints"\n',
        (2, 7),
        '[resume]\ndir = "/volume/runs/r/checkpoints/step_10/"\n',
        HOSTED,
    ),
    (
        "env-protected",
        "env-protected",
        "error",
        '[env_vars]\nCUDA_VISIBLE_DEVICES = "0"\n',
        (2, 1),
        '[env_vars]\nHF_HOME = "/volume/hf"\n',
        HOSTED,
    ),
    (
        "eval-no-source",
        "eval-source",
        "error",
        "[eval]\ninterval = 5\n",
        (1, 1),
        '[eval]\ninterval = 5\n[[eval.source]]\nenv = { taskset = { id = "x" } }\n',
        HOSTED,
    ),
    (
        "eval-no-env",
        "eval-source",
        "error",
        '[eval]\n[[eval.source]]\nname = "a"\nenv = { }\n',
        (4, 7),
        '[eval]\n[[eval.source]]\nname = "a"\nenv = { taskset = { id = "x" } }\n',
        HOSTED,
    ),
    (
        "inference-without-eval",
        "inference-without-eval",
        "error",
        "max_steps = 1\n\n[inference]\n",
        (3, 1),
        "max_steps = 1\n",
        HOSTED,
    ),
    (
        "linear-overflow",
        "scheduler",
        "error",
        'max_steps = 10\n[scheduler]\ntype = "linear"\nwarmup_steps = 5\ndecay_steps = 8\n',
        (4, 16),
        'max_steps = 10\n[scheduler]\ntype = "linear"\nwarmup_steps = 5\ndecay_steps = 5\n',
        HOSTED,
    ),
    (
        "cosine-warmup",
        "scheduler",
        "error",
        'max_steps = 10\n[scheduler]\ntype = "cosine"\n',
        (3, 8),
        'max_steps = 11\n[scheduler]\ntype = "cosine"\n',
        HOSTED,
    ),
    (
        "typed-renderer",
        "typed-renderer",
        "error",
        '[model]\nname = "my-org/fine-tune"\n',
        (2, 8),
        '[model]\nname = "my-org/fine-tune"\n[renderer]\nname = "qwen3"\n',
        HOSTED,
    ),
    (
        "default-renderer",
        "typed-renderer",
        "error",
        '[renderer]\nname = "default"\n',
        (2, 8),
        '[renderer]\nname = "auto"\n',
        HOSTED,
    ),
    (
        "cp-seq-len",
        "cp",
        "error",
        "[model]\ncp = 2\n[data]\nseq_len = 129\n",
        (4, 11),
        "[model]\ncp = 2\n[data]\nseq_len = 128\n",
        HOSTED,
    ),
    ("trace", "trace", "error", 'trace_path = "/tmp/t"\n', (1, 14), 'max_steps = 3\ntrace_path = "/tmp/t"\n', HOSTED),
    (
        "muon-fsdp",
        "muon-offload",
        "error",
        '[optim]\ntype = "muon"\n[model]\nfsdp_cpu_offload = true\noptim_cpu_offload = false\n',
        (4, 20),
        '[optim]\ntype = "muon"\n[model]\noptim_cpu_offload = false\n',
        HOSTED,
    ),
    (
        "ep-impl",
        "ep-impl",
        "error",
        '[model]\nimpl = "hf"\nattn = "flash_attention_2"\nep = 2\n',
        (4, 6),
        '[model]\nimpl = "custom"\nep = 2\n',
        HOSTED,
    ),
    (
        "fsdp-group",
        "fsdp-group",
        "error",
        '[deployment]\ntype = "multi_node"\nnum_train_nodes = 8\nnodes_per_fsdp_group = 3\n',
        (4, 24),
        '[deployment]\ntype = "multi_node"\nnum_train_nodes = 8\nnodes_per_fsdp_group = 4\n',
        HOSTED,
    ),
    (
        "nccl-no-inference",
        "nccl",
        "error",
        '[weight_broadcast]\ntype = "nccl"\n',
        (2, 8),
        '[weight_broadcast]\ntype = "filesystem"\n',
        HOSTED,
    ),
    (
        "full-offload-optim",
        "full-offload",
        "error",
        '[model]\nfull_offload = true\noptim_cpu_offload = false\n[optim]\ntype = "sgd"\n',
        (5, 8),
        '[model]\nfull_offload = true\noptim_cpu_offload = false\n[optim]\ntype = "sign_sgd"\n',
        HOSTED,
    ),
    (
        "mn-infer-nodes",
        "multi-node-eval",
        "error",
        MN_EVAL.format(infer=0, router='[inference.router]\ntype = "vllm-router"\n'),
        (7, 19),
        MN_EVAL.format(infer=1, router='[inference.router]\ntype = "vllm-router"\n'),
        HOSTED,
    ),
    (
        "mn-router",
        "multi-node-router",
        "error",
        MN_EVAL.format(infer=1, router=""),
        (11, 1),
        MN_EVAL.format(infer=1, router='[inference.router]\ntype = "vllm-router"\n'),
        HOSTED,
    ),
    (
        "vllm-model",
        "vllm-model",
        "error",
        ONLINE_EVAL.replace("tensor_parallel_size = 1", 'tensor_parallel_size = 1\nmodel = "Qwen/Qwen3-8B"'),
        (32, 9),
        ONLINE_EVAL,
        HOSTED,
    ),
    (
        "tp-divides",
        "tp",
        "error",
        ONLINE_EVAL.replace("tensor_parallel_size = 1", "tensor_parallel_size = 3"),
        (31, 24),
        ONLINE_EVAL,
        HOSTED,
    ),
    (
        "eval-port",
        "eval-port",
        "error",
        ONLINE_EVAL.replace("interval = 5 ", 'client = { base_url = "http://localhost:9000/v1" }\ninterval = 5 '),
        (23, 23),
        ONLINE_EVAL.replace("interval = 5 ", 'client = { base_url = "http://localhost:8000/v1" }\ninterval = 5 '),
        HOSTED,
    ),
    (
        "nixl",
        "weight-broadcast",
        "error",
        ONLINE_EVAL + '\n[weight_broadcast]\ntype = "nixl"\n',
        (40, 8),
        ONLINE_EVAL + '\n[weight_broadcast]\ntype = "nccl"\n',
        HOSTED,
    ),
    (
        "slurm-local",
        "slurm",
        "error",
        '[deployment]\ntype = "multi_node"\n',
        (2, 8),
        '[deployment]\ntype = "multi_node"\n[slurm]\n',
        LOCAL,
    ),
    (
        "eval-concurrency",
        "eval-concurrency",
        "error",
        '[eval]\n[[eval.source]]\nenv = { taskset = { id = "x" } }\n[eval.concurrency]\nmin_inflight = '
        "8\nmax_inflight = 4\n",
        (5, 16),
        '[eval]\n[[eval.source]]\nenv = { taskset = { id = "x" } }\n[eval.concurrency]\nmin_inflight = '
        "2\nmax_inflight = 4\n",
        HOSTED,
    ),
    (
        "max-lora-rank",
        "inference",
        "error",
        ONLINE_EVAL.replace("tensor_parallel_size = 1", "tensor_parallel_size = 1\nmax_lora_rank = 1024"),
        (32, 17),
        ONLINE_EVAL.replace("tensor_parallel_size = 1", "tensor_parallel_size = 1\nmax_lora_rank = 64"),
        HOSTED,
    ),
    (
        "quantization-impl",
        "model-quant",
        "error",
        '[model]\nimpl = "hf"\nattn = "flash_attention_2"\n[model.quantization]\ntype = "fp8"\n',
        (4, 1),
        '[model]\nimpl = "custom"\n[model.quantization]\ntype = "fp8"\n',
        HOSTED,
    ),
    (
        "vlm-dtypes",
        "vlm",
        "error",
        '[model]\nimpl = "custom"\n[model.vlm]\nvision_encoder_attr = "v"\nlanguage_model_attr = "l"\n',
        (3, 1),
        '[model]\nimpl = "custom"\noptimization_dtype = "bfloat16"\nreduce_dtype = "bfloat16"\n[model.vlm]\n'
        'vision_encoder_attr = "v"\nlanguage_model_attr = "l"\n',
        HOSTED,
    ),
    (
        "deepep-clipping",
        "clipping-off",
        "warning",
        '[model]\nep = 8\nep_comm_backend = "deepep"\n',
        (3, 19),
        '[model]\nep = 8\nep_comm_backend = "deepep"\n[optim]\nmax_norm = "None"\n',
        HOSTED,
    ),
    (
        "eval-no-inference",
        "eval-no-inference",
        "warning",
        '[eval]\n[[eval.source]]\nenv = { taskset = { id = "x" } }\n',
        (1, 1),
        '[eval]\n[[eval.source]]\nenv = { taskset = { id = "x" } }\n[inference]\n',
        LOCAL,
    ),
    (
        "eval-no-max-steps",
        "eval-no-max-steps",
        "warning",
        MN_EVAL.format(infer=1, router='[inference.router]\ntype = "vllm-router"\n').replace("max_steps = 10\n", ""),
        (7, 1),
        MN_EVAL.format(infer=1, router='[inference.router]\ntype = "vllm-router"\n'),
        HOSTED,
    ),
    (
        "lora-no-inference",
        "lora-no-inference",
        "warning",
        '[model.lora]\n[eval]\n[[eval.source]]\nenv = { taskset = { id = "x" } }\n',
        (1, 1),
        '[model.lora]\n[eval]\n[[eval.source]]\nenv = { taskset = { id = "x" } }\n[inference]\n',
        HOSTED,
    ),
    (
        "ignored-multi-node",
        "ignored-multi-node",
        "hint",
        '[deployment]\ntype = "multi_node"\nnum_train_gpus = 8\n',
        (3, 1),
        '[deployment]\ntype = "multi_node"\nnum_train_nodes = 2\n',
        HOSTED,
    ),
    (
        "output-dir",
        "output-dir",
        "warning",
        'max_steps = 1\noutput_dir = "outputs"\n',
        (2, 1),
        "max_steps = 1\n",
        HOSTED,
    ),
    (
        "volume-required",
        "volume-required",
        "error",
        '[data]\nname = "datasets/x"\n',
        (2, 8),
        '[data]\ntype = "fake"\n',
        NO_VOLUME,
    ),
    (
        "model-cache",
        "model-cache",
        "error",
        '[model]\nname = "Qwen/Qwen3-8B"\n',
        (2, 8),
        '[model]\nname = "/volume/models/qwen3-8b"\n[renderer]\nname = "qwen3"\n',
        CACHE,
    ),
    (
        "renderer-family",
        "renderer-family",
        "warning",
        '[model]\nname = "Qwen/Qwen3-8B"\n[renderer]\nname = "prime-qwen3"\n',
        (4, 8),
        '[model]\nname = "Qwen/Qwen3-8B"\n[renderer]\nname = "qwen3"\n',
        HOSTED,
    ),
    (
        "warmup-too-long",
        "warmup-too-long",
        "warning",
        MULTI_NODE,
        (27, 16),
        MULTI_NODE.replace("warmup_steps = 50", "warmup_steps = 2"),
        HOSTED,
    ),
    (
        "ckpt-never-fires",
        "ckpt-never-fires",
        "warning",
        "max_steps = 10\n[ckpt]\ninterval = 20\n",
        (3, 12),
        "max_steps = 10\n[ckpt]\ninterval = 10\n",
        HOSTED,
    ),
    (
        "ckpt-exceeds-volume",
        "ckpt-exceeds-volume",
        "error",
        WALKTHROUGH.replace("keep_last = 1", "keep_last = 2").replace("interval = 10", "interval = 5"),
        (5, 13),
        WALKTHROUGH,
        CheckContext(volume_size_bytes=10 * 10**9),
    ),
    (
        "force-balanced-routing",
        "force-balanced-routing",
        "warning",
        MULTI_NODE,
        (39, 26),
        MULTI_NODE.replace("force_balanced_routing = true", "force_balanced_routing = false"),
        HOSTED,
    ),
    ("no-ckpt", "no-ckpt", "hint", "\n# c\nmax_steps = 5\n", (3, 1), "max_steps = 5\n[ckpt]\n", HOSTED),
    (
        "ignored-under-sft",
        "ignored-under-sft",
        "hint",
        ONLINE_EVAL + "[inference.slurm]\n",
        (38, 1),
        ONLINE_EVAL,
        HOSTED,
    ),
    (
        "world-batch",
        "world-batch",
        "warning",
        "[data]\nbatch_size = 6\n[deployment]\nnum_train_gpus = 4\ngpus_per_node = 4\n",
        (2, 14),
        "[data]\nbatch_size = 8\n[deployment]\nnum_train_gpus = 4\ngpus_per_node = 4\n",
        HOSTED,
    ),
]


def _found(text: str, code: str, ctx: CheckContext):
    return [d for d in check_text(text, ctx).diagnostics if d.code == code]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_rule_fires_at_exact_position(case):
    _id, code, level, bad, (line, col), _good, ctx = case
    found = _found(bad, code, ctx)
    assert found, f"{code} did not fire on:\n{bad}"
    d = found[0]
    assert (d.span.line + 1, d.span.col + 1) == (line, col), d.message
    assert d.level == level


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_rule_passes_on_the_fixed_config(case):
    _id, code, _level, _bad, _pos, good, ctx = case
    assert _found(good, code, ctx) == []


def test_seed_configs_have_no_errors():
    for text in (WALKTHROUGH, ONLINE_EVAL, MULTI_NODE):
        report = check_text(
            text,
            CheckContext(
                has_volume=True,
                cached_models=frozenset({"PrimeIntellect/Qwen3-0.6B-Reverse-Text-SFT", "zai-org/GLM-5.3-BF16"}),
            ),
        )
        assert report.errors == []
    assert [d for d in check_text(WALKTHROUGH).diagnostics] == []
    # The multi-node example draws exactly the two cautions the walkthrough itself gives about it.
    assert sorted(d.code for d in check_text(MULTI_NODE).diagnostics) == ["force-balanced-routing", "warmup-too-long"]


def test_messages_use_prime_rl_and_seed_words():
    msgs = {d.code: d.message for d in check_text("[inference]\n").diagnostics}
    assert (
        msgs["inference-without-eval"]
        == "[inference] is only used for online evals — add an [eval] block or remove it."
    )
    msgs = {d.code: d.message for d in check_text('[data]\nname = "d"\n', NO_VOLUME).diagnostics}
    assert msgs["volume-required"] == (
        "data.name requires `--volume <name>`. Create a volume with `prime volumes create <name>`, "
        "then rerun `prime train sft.toml --volume <name>`."
    )
    d = _found('max_steps = 10\n[scheduler]\ntype = "cosine"\n', "scheduler", HOSTED)[0]
    assert d.message == "warmup_steps (10, the default) must be less than max_steps (10)"
    d = _found('[model]\nname = "Qwen/Qwen3-8B"\n', "model-cache", CACHE)[0]
    assert (
        d.message
        == "Model 'Qwen/Qwen3-8B' is not available on this cluster. Reach out to Prime support to get it added."
    )


@pytest.mark.parametrize(
    "bad,code,expected",
    [
        (
            "max_steps = 100\n[scheduler]\nwarmup_steps = 5\n",
            "missing-type",
            'max_steps = 100\n[scheduler]\ntype = "linear"\nwarmup_steps = 5\n',
        ),
        (
            '[eval]\n[inference.router]\npolicy = "x"\n',
            "missing-type",
            '[eval]\n[inference.router]\ntype = "vllm-router"\npolicy = "x"\n',
        ),
        ('[model]\nname = "PrimeIntellect/Qwen3-0.6B-Reverse-Text-SFT"\n[renderer]\n', "missing-type", None),
        ("[deployment]\nnum_gpus = 2 # two\n", "renamed-key", "[deployment]\nnum_train_gpus = 2 # two\n"),
        ("[deployment.num]\n", "unknown-key", None),
        ('max_steps = 1\n[wandb]\nproject = "p"\n', "renamed-key", 'max_steps = 1\n[monitors.wandb]\nproject = "p"\n'),
        ("[data]\nbach_size = 8\n", "unknown-key", "[data]\nbatch_size = 8\n"),
        ('max_steps = 1\noutput_dir = "o"\n[ckpt]\n', "output-dir", "max_steps = 1\n[ckpt]\n"),
    ],
)
def test_quick_fixes(bad, code, expected):
    d = _found(bad, code, HOSTED)[0]
    if expected is None:
        # An empty [renderer] for a fine-tune gets the family guess; a table-valued unknown key gets no rename.
        if code == "missing-type":
            assert d.fix is not None and apply_fix(bad, d.fix).endswith('[renderer]\nname = "prime-qwen3"\n')
        else:
            assert d.fix is None
        return
    assert d.fix is not None
    fixed = apply_fix(bad, d.fix)
    assert fixed == expected
    assert _found(fixed, code, HOSTED) == []


def test_volume_fit_reads_whole_float_counts_as_pydantic_does():
    """``max_steps = 10.0`` is a valid int to prime-rl (lax mode): the volume check counts it, no rule crashes."""
    text = WALKTHROUGH.replace("max_steps = 10", "max_steps = 10.0").replace("keep_last = 1", "keep_last = 2")
    codes = [d.code for d in check_text(text.replace("interval = 10", "interval = 5"), VOLUME_10G).diagnostics]
    assert "internal" not in codes
    assert "ckpt-exceeds-volume" in codes
    fractional = [
        d.code for d in check_text(WALKTHROUGH.replace("interval = 10", "interval = 2.5"), VOLUME_10G).diagnostics
    ]
    assert fractional == ["bad-type"]


VOLUME_10G = CheckContext(volume_size_bytes=10 * 10**9)


def _primerl_codes() -> set[str]:
    """The codes rules_primerl emits (its ``_err``/``_warn`` calls, read from the source)."""
    import re
    from pathlib import Path

    from primetui.sft import rules_primerl

    source = Path(rules_primerl.__file__).read_text(encoding="utf-8")
    return set(re.findall(r'_(?:err|warn)\(\s*"([a-z0-9-]+)"', source))


def test_prime_rl_validator_findings_say_prime_rl_is_the_source():
    """A finding of prime-rl's own validators names prime-rl as its source (the editor, `validate --json`
    and the language server show it), at the level the case expects: a mutation test found no test read it."""
    codes = _primerl_codes()
    cases = [case for case in CASES if case[1] in codes]
    assert len(cases) >= 10, f"only {len(cases)} cases exercise prime-rl's validators"
    for _id, code, level, bad, _pos, _good, ctx in cases:
        found = _found(bad, code, ctx)
        assert found and all(d.source == "prime-rl" and d.level == level for d in found), (
            _id,
            [(d.source, d.level) for d in found],
        )
