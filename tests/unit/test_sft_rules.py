"""Every rule: a config that trips it (exact line and column, level and message asserted) and one that does not;
every finding prime-rl's validators can make has such a case."""

from __future__ import annotations

import ast
import itertools
import re
from pathlib import Path

import pytest

from primetui.sft import rules_primerl
from primetui.sft.check import check_text
from primetui.sft.context import CheckContext
from primetui.sft.diagnostics import Diagnostic, apply_fix
from primetui.sft.templates import MULTI_NODE, ONLINE_EVAL, WALKTHROUGH
from tests.unit.rule_sites import bound_values, pristine_module

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
ENV = 'env = { taskset = { id = "x" } }'
EVAL = f"[eval]\n[[eval.source]]\n{ENV}\n"  # online evals with one source
VLM_TABLE = '[model.vlm]\nvision_encoder_attr = "v"\nlanguage_model_attr = "l"\n'
VLM = (
    '[model]\nimpl = "custom"\noptimization_dtype = "bfloat16"\nreduce_dtype = "bfloat16"\n' + VLM_TABLE
)  # a valid VLM
MN = MN_EVAL.format(infer=1, router='[inference.router]\ntype = "vllm-router"\n')  # valid multi-node evals

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
        "quantization-impl-mxfp8",
        "model-quant",
        "error",
        '[model]\nimpl = "hf"\nattn = "flash_attention_2"\nep_comm_backend = "torch"\n'
        '[model.quantization]\ntype = "mxfp8"\n',
        (5, 1),
        '[model]\nimpl = "auto"\nep_comm_backend = "torch"\n[model.quantization]\ntype = "mxfp8"\n',
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
    # The other branches of prime-rl's validators (rules_primerl): test_every_prime_rl_call_site_has_a_case
    # fails when one has no case.
    (
        "val-batch-divisible",
        "batch-divisible",
        "error",
        "[val]\n[val.data]\nbatch_size = 6\nmicro_batch_size = 4\n",
        (3, 14),
        "[val]\n[val.data]\nbatch_size = 8\nmicro_batch_size = 4\n",
        HOSTED,
    ),
    (
        "probabilities-subsets",
        "data-lengths",
        "error",
        '[data]\nsubsets = ["a", "b"]\nsplits = ["train", "test"]\nprobabilities = [1.0]\n',
        (4, 17),
        '[data]\nsubsets = ["a", "b"]\nsplits = ["train", "test"]\nprobabilities = [0.5, 0.5]\n',
        HOSTED,
    ),
    (
        "probabilities-splits",
        "data-lengths",
        "error",
        '[data]\nsplits = ["train", "test"]\nprobabilities = [1.0]\n',
        (3, 17),
        '[data]\nsplits = ["train", "test"]\nprobabilities = [0.5, 0.5]\n',
        HOSTED,
    ),
    ("vlm-impl", "model-impl", "error", '[model]\nimpl = "auto"\n' + VLM_TABLE, (2, 8), VLM, HOSTED),
    ("vlm-impl-default", "model-impl", "error", VLM_TABLE, (1, 1), VLM, HOSTED),
    (
        "vlm-cp-style",
        "model-cp",
        "error",
        '[model]\nimpl = "custom"\ncp = 2\ncp_style = "ring"\n' + VLM_TABLE,
        (4, 12),
        '[model]\nimpl = "custom"\ncp = 2\ncp_style = "ulysses"\n' + VLM_TABLE,
        HOSTED,
    ),
    (
        "vlm-cp-style-default",
        "model-cp",
        "error",
        '[model]\nimpl = "custom"\ncp = 2\n' + VLM_TABLE,
        (3, 6),
        '[model]\nimpl = "custom"\ncp = 2\ncp_style = "ulysses"\n' + VLM_TABLE,
        HOSTED,
    ),
    (
        "selective-ac-impl",
        "model-ac",
        "error",
        '[model]\nimpl = "hf"\nattn = "flash_attention_2"\n[model.ac]\nmode = "selective"\n',
        (5, 8),
        '[model]\nimpl = "custom"\n[model.ac]\nmode = "selective"\n',
        HOSTED,
    ),
    (
        "full-offload-optim-offload",
        "model-offload",
        "error",
        "[model]\nfull_offload = true\n",
        (2, 16),
        "[model]\nfull_offload = true\noptim_cpu_offload = false\n",
        HOSTED,
    ),
    (
        "fa4-hf",
        "model-attn",
        "error",
        '[model]\nimpl = "hf"\nattn = "flash_attention_4"\n',
        (3, 8),
        '[model]\nimpl = "hf"\nattn = "flash_attention_3"\n',
        HOSTED,
    ),
    (
        "mxfp8-backend",
        "model-quant",
        "error",
        '[model]\nimpl = "custom"\nep = 8\nep_comm_backend = "deepep"\n[model.quantization]\ntype = "mxfp8"\n',
        (4, 19),
        '[model]\nimpl = "custom"\nep = 8\nep_comm_backend = "torch"\n[model.quantization]\ntype = "mxfp8"\n',
        HOSTED,
    ),
    (
        "resume-past-max",
        "resume-past-max",
        "warning",
        "max_steps = 20\n[resume]\nstep = 25\n",
        (1, 13),
        "max_steps = 30\n[resume]\nstep = 25\n",
        HOSTED,
    ),
    (
        "inference-env-protected",
        "env-protected",
        "error",
        '[inference.env_vars]\nWANDB_RUN_ID = "r"\n',
        (2, 1),
        '[inference.env_vars]\nHF_HOME = "/volume/hf"\n',
        HOSTED,
    ),
    (
        "eval-no-env-table",
        "eval-source",
        "error",
        '[eval]\n[[eval.source]]\nname = "a"\n',
        (2, 1),
        f'[eval]\n[[eval.source]]\nname = "a"\n{ENV}\n',
        HOSTED,
    ),
    (
        "eval-agg",
        "eval-source",
        "error",
        f'[eval]\n[[eval.source]]\nname = "agg"\n{ENV}\n',
        (3, 8),
        f'[eval]\n[[eval.source]]\nname = "a"\n{ENV}\n',
        HOSTED,
    ),
    (
        "eval-duplicate",  # the second source is named by its taskset id
        "eval-source",
        "error",
        f'[eval]\n[[eval.source]]\nname = "x"\n{ENV}\n[[eval.source]]\n{ENV}\n',
        (2, 1),
        f'[eval]\n[[eval.source]]\nname = "y"\n{ENV}\n[[eval.source]]\n{ENV}\n',
        HOSTED,
    ),
    (
        "eval-initial-inflight",
        "eval-concurrency",
        "error",
        EVAL + "[eval.concurrency]\ninitial_inflight = 8\nmax_inflight = 4\n",
        (5, 20),
        EVAL + "[eval.concurrency]\ninitial_inflight = 4\nmax_inflight = 4\n",
        HOSTED,
    ),
    (
        "kv-prefix-caching",
        "inference",
        "error",
        EVAL + '[inference]\n[inference.kv_cache_offload]\ntype = "native"\ncpu = { num_bytes = 1000 }\n',
        (5, 1),
        EVAL + "[inference]\n[inference.vllm]\nenable_prefix_caching = true\n[inference.kv_cache_offload]\n"
        'type = "native"\ncpu = { num_bytes = 1000 }\n',
        HOSTED,
    ),
    (
        "kv-cpu-tier",
        "inference",
        "error",
        EVAL + "[inference]\n[inference.vllm]\nenable_prefix_caching = true\n[inference.kv_cache_offload]\n"
        'type = "native"\ndisk = { path = "/volume/kv" }\n',
        (7, 1),
        EVAL + "[inference]\n[inference.vllm]\nenable_prefix_caching = true\n[inference.kv_cache_offload]\n"
        'type = "native"\ncpu = { num_bytes = 1000 }\n',
        HOSTED,
    ),
    (
        "ignored-multi-node-infer",
        "ignored-multi-node",
        "hint",
        '[deployment]\ntype = "multi_node"\nnum_infer_gpus = 2\n',
        (3, 1),
        '[deployment]\ntype = "multi_node"\nnum_infer_nodes = 1\n',
        HOSTED,
    ),
    (
        "full-offload-clipping",
        "clipping-off",
        "warning",
        "[model]\nfull_offload = true\noptim_cpu_offload = false\n",
        (2, 16),
        '[model]\nfull_offload = true\noptim_cpu_offload = false\n[optim]\nmax_norm = "None"\n',
        HOSTED,
    ),
    (
        "cp-micro-batch",
        "cp",
        "error",
        "[model]\ncp = 2\n[data]\nmicro_batch_size = 2\n",
        (4, 20),
        "[model]\ncp = 2\n[data]\nmicro_batch_size = 1\n",
        HOSTED,
    ),
    (
        "cp-val-seq-len",
        "cp",
        "error",
        "[model]\ncp = 2\n[val]\n[val.data]\nseq_len = 129\n",
        (5, 11),
        "[model]\ncp = 2\n[val]\n[val.data]\nseq_len = 128\n",
        HOSTED,
    ),
    (
        "cp-val-micro-batch",
        "cp",
        "error",
        "[model]\ncp = 2\n[val]\n[val.data]\nmicro_batch_size = 2\n",
        (5, 20),
        "[model]\ncp = 2\n[val]\n[val.data]\nmicro_batch_size = 1\n",
        HOSTED,
    ),
    (
        "vlm-freeze-lora",
        "vlm",
        "error",
        VLM + "freeze_vision_encoder = false\n[model.lora]\n",
        (8, 25),
        VLM + "freeze_vision_encoder = true\n[model.lora]\n",
        HOSTED,
    ),
    ("vlm-micro-batch", "vlm", "error", VLM + "[data]\nmicro_batch_size = 2\n", (9, 20), VLM, HOSTED),
    ("vlm-val-micro-batch", "vlm", "error", VLM + "[val]\n[val.data]\nmicro_batch_size = 2\n", (10, 20), VLM, HOSTED),
    (
        "trace-long",
        "trace",
        "error",
        'max_steps = 10\ntrace_path = "/tmp/t"\n',
        (2, 14),
        'max_steps = 9\ntrace_path = "/tmp/t"\n',
        HOSTED,
    ),
    (
        "linear-zero",
        "scheduler",
        "error",
        '[scheduler]\ntype = "linear"\nwarmup_steps = 0\ndecay_steps = 0\n',
        (2, 8),
        '[scheduler]\ntype = "linear"\nwarmup_steps = 1\ndecay_steps = 0\n',
        HOSTED,
    ),
    (
        "linear-decay-no-max",
        "scheduler",
        "error",
        '[scheduler]\ntype = "linear"\nwarmup_steps = 0\ndecay_steps = 5\n',
        (4, 15),
        'max_steps = 5\n[scheduler]\ntype = "linear"\nwarmup_steps = 0\ndecay_steps = 5\n',
        HOSTED,
    ),
    (
        "linear-default-decay-no-max",
        "scheduler",
        "error",
        '[scheduler]\ntype = "linear"\n',
        (2, 8),
        'max_steps = 20\n[scheduler]\ntype = "linear"\n',
        HOSTED,
    ),
    (
        "linear-default-warmup-overflow",
        "scheduler",
        "error",
        'max_steps = 14\n[scheduler]\ntype = "linear"\ndecay_steps = 5\n',
        (3, 8),
        'max_steps = 15\n[scheduler]\ntype = "linear"\ndecay_steps = 5\n',
        HOSTED,
    ),
    (
        "cosine-no-max",
        "scheduler",
        "error",
        '[scheduler]\ntype = "cosine"\n',
        (2, 8),
        'max_steps = 11\n[scheduler]\ntype = "cosine"\n',
        HOSTED,
    ),
    (
        "cosine-warmup-set",
        "scheduler",
        "error",
        'max_steps = 10\n[scheduler]\ntype = "cosine"\nwarmup_steps = 10\n',
        (4, 16),
        'max_steps = 10\n[scheduler]\ntype = "cosine"\nwarmup_steps = 9\n',
        HOSTED,
    ),
    (
        "auto-renderer",
        "typed-renderer",
        "error",
        '[model]\nname = "my-org/fine-tune"\n[renderer]\nname = "auto"\n',
        (4, 8),
        '[model]\nname = "my-org/fine-tune"\n[renderer]\nname = "qwen3"\n',
        HOSTED,
    ),
    (
        "tokenizer-renderer",
        "typed-renderer",
        "error",
        '[tokenizer]\nname = "my-org/tokenizer"\n',
        (1, 1),
        '[tokenizer]\nname = "Qwen/Qwen3-4B"\n',
        HOSTED,
    ),
    (
        "lora-in-memory",
        "weight-broadcast",
        "error",
        EVAL + '[inference]\n[model.lora]\n[weight_broadcast]\ntype = "nccl"\n',
        (7, 8),
        EVAL + '[inference]\n[model.lora]\n[weight_broadcast]\ntype = "filesystem"\n',
        HOSTED,
    ),
    (
        "retrigger",
        "weight-broadcast",
        "error",
        EVAL.replace("[eval]\n", "[eval]\nretrigger_on_resume = true\n") + "[inference]\n",
        (2, 23),
        EVAL.replace("[eval]\n", "[eval]\nretrigger_on_resume = true\n")
        + '[inference]\n[weight_broadcast]\ntype = "filesystem"\n',
        HOSTED,
    ),
    (
        "mn-no-inference",
        "multi-node-eval",
        "error",
        MN_EVAL.format(infer=1, router="").replace("[inference]\n", ""),
        (8, 1),
        MN,
        HOSTED,
    ),
    (
        "mn-router-none",
        "multi-node-eval",
        "error",
        MN_EVAL.format(infer=1, router='router = "None"\n'),
        (12, 10),
        MN,
        HOSTED,
    ),
    (
        "mn-vllm-model",
        "vllm-model",
        "error",
        MN + '[inference.vllm]\nmodel = "Qwen/Qwen3-4B"\n',
        (15, 9),
        MN + '[inference.vllm]\nmodel = "Qwen/Qwen3-8B"\n',
        HOSTED,
    ),
    (
        "mn-tp",
        "tp",
        "error",
        MN + "[inference.vllm]\ntensor_parallel_size = 3\n",
        (15, 24),
        MN + "[inference.vllm]\ntensor_parallel_size = 4\n",
        HOSTED,
    ),
    (
        "eval-gpus-per-node",
        "gpu-budget",
        "error",
        "[deployment]\nnum_train_gpus = 2\ngpus_per_node = 2\n" + EVAL + "[inference]\n",
        (3, 17),
        "[deployment]\nnum_train_gpus = 2\ngpus_per_node = 3\n" + EVAL + "[inference]\n",
        HOSTED,
    ),
    (
        "eval-gpus-default",
        "gpu-budget",
        "error",
        "[deployment]\nnum_train_gpus = 8\n" + EVAL + "[inference]\n",
        (1, 1),
        "[deployment]\nnum_train_gpus = 7\n" + EVAL + "[inference]\n",
        HOSTED,
    ),
    (
        "cp-seq-len-divisor",
        "cp-seq-len",
        "warning",
        "[model]\ncp = 2\n[data]\nseq_len = 130\n",
        (4, 11),
        "[model]\ncp = 2\n[data]\nseq_len = 132\n",
        HOSTED,
    ),
]


# The exact message each case's finding shows (the first one of its code, where its position is asserted).
MESSAGES = {
    "syntax": (
        "Invalid TOML: Expected ']' at the end of a table declaration — fix the syntax here; nothing else can be "
        "checked until it parses."
    ),
    "unknown-key": "data.bach_size: Extra inputs are not permitted (got 8) — did you mean `batch_size`?",
    "renamed-key": (
        "deployment.num_gpus: Extra inputs are not permitted (got 2) — renamed to `num_train_gpus` in prime-rl #3256."
    ),
    "renamed-table": "wandb: Extra inputs are not permitted — moved to `[monitors.wandb]` in prime-rl #3275.",
    "scheduler-type-trap": (
        "scheduler.warmup_steps: Extra inputs are not permitted — [scheduler] has no `type`, so prime-rl uses the "
        'default `constant` variant, which has no `warmup_steps`; add `type = "linear"` or `type = "cosine"`.'
    ),
    "router-type-trap": (
        "inference.router: Unable to extract tag using discriminator 'type' — a [inference.router] table must say "
        'which variant it is with `type = "…"`. The default router is `type = "vllm-router"`.'
    ),
    "renderer-name-trap": (
        "renderer: Unable to extract tag using discriminator 'name' — a [renderer] table must say which variant it "
        'is with `name = "…"`. For `Qwen/Qwen3-8B` that is `name = "qwen3"`.'
    ),
    "bad-type": "max_steps: Input should be a valid integer, unable to parse string as an integer (got 'ten')",
    "out-of-range": "data.batch_size: Input should be greater than or equal to 1 (got 0)",
    "bad-literal": "model.impl: Input should be 'hf', 'custom' or 'auto' (got 'fast')",
    "bad-variant": (
        "optim.type: Input tag 'adam' found using 'type' does not match any of the expected tags: 'sgd', 'adamw', "
        "'muon', 'sign_sgd'"
    ),
    "missing-field": "val.data: Field required — add a [val.data] table.",
    "batch-divisible": (
        "Batch size must be divisible by micro batch size: batch_size 6 is not a multiple of micro_batch_size 4 "
        "(the nearest are 4 or 8)."
    ),
    "data-lengths": (
        "Number of subsets must be equal to number of splits. Please specify which split to load for each subset."
    ),
    "train-gpus": "num_train_gpus (4) exceeds gpus_per_node (2).",
    "eval-gpus": "Total GPU count (9 = 4 train + 5 infer) exceeds gpus_per_node (8).",
    "trust-remote-code": "Trust remote code is only supported with the HF implementation or auto mode.",
    "hf-needs-attn": "Flash attention 4 is only supported with model.impl='custom' or 'auto'",
    "fsdp-offload": "Cannot combine fsdp_cpu_offload with optimizer CPU offloading.",
    "cp-impl": (
        "Context parallelism requires model.impl='custom' or 'auto' (resolved to a custom PrimeRL implementation)"
    ),
    "selective-ac": "Selective activation checkpointing requires at least one target.",
    "deepep": "model.ep_comm_backend='deepep' requires model.ep > 1.",
    "resume-both": "resume.step and resume.dir are mutually exclusive — the step is taken from the directory name",
    "resume-dir": (
        "resume.dir must point at a checkpoint step directory (`.../step_<N>`), got '/volume/runs/r/checkpoints'"
    ),
    "env-protected": (
        "env_vars cannot set launcher-managed vars ['CUDA_VISIBLE_DEVICES'] — set by the launcher, not overridable"
    ),
    "eval-no-source": (
        "EvalConfig must define at least one source: add an [[eval.source]] table (name, env), or drop the [eval] "
        "table to turn evaluation off."
    ),
    "eval-no-env": 'no env configured — set env = { taskset = { id = "<id>" } }',
    "inference-without-eval": "[inference] is only used for online evals — add an [eval] block or remove it.",
    "linear-overflow": "warmup_steps (5) + decay_steps (8) must not exceed max_steps (10)",
    "cosine-warmup": "warmup_steps (10, the default) must be less than max_steps (10)",
    "typed-renderer": (
        "SFT requires a typed renderer with sampled-token and content attribution, but no typed renderer is "
        "registered for 'my-org/fine-tune'. Implement and register the renderer in the renderers package, or "
        "explicitly select an existing typed renderer only when its template is verified to match."
    ),
    "default-renderer": (
        "SFT requires a typed renderer with sampled-token and content attribution, but renderer.name='default' "
        "selects DefaultRenderer. Implement and register the renderer in the renderers package, or explicitly "
        "select an existing typed renderer only when its template is verified to match."
    ),
    "cp-seq-len": "Sequence length must be divisible by CP degree",
    "trace": "Must specify max_steps when tracing",
    "muon-fsdp": "Muon optimizer does not support FSDP CPU offload",
    "ep-impl": "EP is only supported with the custom implementation or auto mode",
    "fsdp-group": "deployment.num_train_nodes (8) must be divisible by deployment.nodes_per_fsdp_group (3)",
    "nccl-no-inference": (
        "NCCL weight broadcast requires launcher-managed inference. Add an [inference] block or set "
        "weight_broadcast.type = 'filesystem'."
    ),
    "full-offload-optim": "Full optimizer offload only supports AdamW and SignSGD",
    "mn-infer-nodes": "Online evals on a multi-node deployment require deployment.num_infer_nodes >= 1.",
    "mn-router": "On multi_node, set num_infer_nodes to at least 1 and add an [inference.router] block.",
    "vllm-model": (
        "inference.vllm.model (Qwen/Qwen3-8B) does not match model.name "
        "(PrimeIntellect/Qwen3-0.6B-Reverse-Text-SFT). Remove inference.vllm.model to inherit it."
    ),
    "tp-divides": "deployment.num_infer_gpus (4) must be divisible by inference.vllm.tensor_parallel_size (3).",
    "eval-port": "eval.client.base_url port (9000) does not match inference.server.port (8000).",
    "nixl": "NIXL weight broadcast is not supported for SFT online evals.",
    "slurm-local": "Must use SLURM for multi-node deployment.",
    "eval-concurrency": "concurrency.min_inflight must not exceed concurrency.max_inflight",
    "max-lora-rank": "max_lora_rank=1024 exceeds vLLM maximum of 512",
    "quantization-impl": "fp8 training is only supported with model.impl='custom' or 'auto'.",
    "quantization-impl-mxfp8": "mxfp8 training is only supported with model.impl='custom' or 'auto'.",
    "vlm-dtypes": (
        "VLM models must use optimization_dtype='bfloat16' and reduce_dtype='bfloat16' to match vLLM inference."
    ),
    "deepep-clipping": (
        "Gradient clipping is not compatible with DeepEP. Automatically setting optim.max_norm to None (disabled)."
    ),
    "eval-no-inference": (
        "Online evals are configured without an [inference] block - the launcher will not start an inference "
        "server. Make sure one is running at eval.client.base_url."
    ),
    "eval-no-max-steps": "Online evals without max_steps: the eval job has no natural end.",
    "lora-no-inference": "LoRA is enabled, but inference is not configured.",
    "ignored-multi-node": (
        "deployment.num_train_gpus is dropped on multi_node (prime-rl uses num_train_nodes × gpus_per_node) — "
        "remove it."
    ),
    "output-dir": "output_dir is injected by the platform — omit it.",
    "volume-required": (
        "data.name requires `--volume <name>`. Create a volume with `prime volumes create <name>`, then rerun "
        "`prime train sft.toml --volume <name>`."
    ),
    "model-cache": (
        "Model 'Qwen/Qwen3-8B' is not available on this cluster. Reach out to Prime support to get it added."
    ),
    "renderer-family": (
        "renderer.name = \"prime-qwen3\" does not match the model family: 'Qwen/Qwen3-8B' is a `qwen3` model — use "
        'name = "qwen3" unless you verified the template.'
    ),
    "warmup-too-long": (
        "warmup_steps (50) is longer than max_steps (4): the run never leaves warmup, so the LR never reaches its "
        "peak and the losses are warmup-dominated."
    ),
    "ckpt-never-fires": (
        "ckpt.interval (20) is larger than max_steps (10): it never fires, so only the final step is saved."
    ),
    "ckpt-exceeds-volume": (
        "2 checkpoint(s) × 7.2 GB = 14.4 GB is more than the volume's 10.0 GB — lower ckpt.keep_last or expand the "
        "volume."
    ),
    "force-balanced-routing": (
        "force_balanced_routing forces round-robin expert routing and is debug-only — remove it for a real run."
    ),
    "no-ckpt": "No [ckpt] table: this run saves no checkpoint to the volume — add [ckpt] to keep the final step.",
    "ignored-under-sft": "inference.slurm is ignored by the SFT launcher — remove it.",
    "world-batch": (
        "batch_size * cp (6) must be divisible by world_size * micro_batch_size (4) — the trainer asserts this at "
        "startup."
    ),
    "val-batch-divisible": (
        "Batch size must be divisible by micro batch size: batch_size 6 is not a multiple of micro_batch_size 4 "
        "(the nearest are 4 or 8)."
    ),
    "probabilities-subsets": (
        "Number of probabilities must be equal to number of subsets. Please specify a probability for each subset."
    ),
    "probabilities-splits": (
        "Number of probabilities must be equal to number of splits. Please specify a probability for each split."
    ),
    "vlm-impl": "VLM training requires model.impl='custom'",
    "vlm-impl-default": "VLM training requires model.impl='custom'",
    "vlm-cp-style": "VLM models require cp_style='ulysses' for context parallelism",
    "vlm-cp-style-default": "VLM models require cp_style='ulysses' for context parallelism",
    "selective-ac-impl": "Selective activation checkpointing requires model.impl='custom' or 'auto'",
    "full-offload-optim-offload": (
        "Cannot enable both optim_cpu_offload and full_offload. Set optim_cpu_offload=false when enabling full "
        "optimizer offload."
    ),
    "fa4-hf": "Flash attention 4 is only supported with model.impl='custom' or 'auto'",
    "mxfp8-backend": "MXFP8 quantization requires model.ep_comm_backend='torch'.",
    "resume-past-max": (
        "the run resumes from step 25 but max_steps is 20: it would complete without training a step — raise "
        "max_steps past 25."
    ),
    "inference-env-protected": (
        "env_vars cannot set launcher-managed vars ['WANDB_RUN_ID'] — set by the launcher, not overridable"
    ),
    "eval-no-env-table": 'no env configured — set env = { taskset = { id = "<id>" } }',
    "eval-agg": 'Environment name "agg" is reserved for cross-env metric aggregation. Use a different name or id.',
    "eval-duplicate": "Duplicate evaluation environment names: {'x'}. Each env must have a unique name.",
    "eval-initial-inflight": "concurrency.initial_inflight must not exceed concurrency.max_inflight",
    "kv-prefix-caching": "KV cache offloading requires inference.vllm.enable_prefix_caching to be true.",
    "kv-cpu-tier": "inference.kv_cache_offload requires a cpu tier (disk-only offload is not supported).",
    "ignored-multi-node-infer": (
        "deployment.num_infer_gpus is dropped on multi_node (prime-rl uses num_train_nodes × gpus_per_node) — "
        "remove it."
    ),
    "full-offload-clipping": (
        "Gradient clipping prevents optimizer-in-backward overlap with CPU optimizer offload. Automatically "
        "setting optim.max_norm to None (disabled)."
    ),
    "cp-micro-batch": "Micro batch size must be 1 when CP is enabled",
    "cp-val-seq-len": "Validation sequence length must be divisible by CP degree",
    "cp-val-micro-batch": "Validation micro batch size must be 1 when CP is enabled",
    "vlm-freeze-lora": (
        "freeze_vision_encoder=false is incompatible with LoRA. LoRA freezes all non-adapter parameters including "
        "the vision encoder."
    ),
    "vlm-micro-batch": "VLM SFT requires data.micro_batch_size = 1.",
    "vlm-val-micro-batch": "VLM SFT requires val.data.micro_batch_size = 1.",
    "trace-long": (
        "Tracing more than 10 steps is not recommended as your trace will be massive. Remove this line if you "
        "really want to trace more steps."
    ),
    "linear-zero": (
        "Linear scheduler requires warmup_steps > 0 or decay_steps > 0 (use the constant scheduler instead)"
    ),
    "linear-decay-no-max": "Must specify max_steps when using a linear scheduler with decay_steps > 0",
    "linear-default-decay-no-max": "Must specify max_steps when using a linear scheduler with decay_steps > 0",
    "linear-default-warmup-overflow": (
        "warmup_steps (10, the default) + decay_steps (5) must not exceed max_steps (14)"
    ),
    "cosine-no-max": "Must specify max_steps when using a cosine scheduler",
    "cosine-warmup-set": "warmup_steps (10) must be less than max_steps (10)",
    "auto-renderer": (
        "SFT requires a typed renderer with sampled-token and content attribution, but no typed renderer is "
        "registered for 'my-org/fine-tune'. Implement and register the renderer in the renderers package, or "
        "explicitly select an existing typed renderer only when its template is verified to match."
    ),
    "tokenizer-renderer": (
        "SFT requires a typed renderer with sampled-token and content attribution, but no typed renderer is "
        "registered for 'my-org/tokenizer'. Implement and register the renderer in the renderers package, or "
        "explicitly select an existing typed renderer only when its template is verified to match."
    ),
    "lora-in-memory": (
        "LoRA training is not yet supported with in-memory weight broadcast. Set weight_broadcast.type = 'filesystem'."
    ),
    "retrigger": "eval.retrigger_on_resume requires weight_broadcast.type = 'filesystem'.",
    "mn-no-inference": (
        "Multi-node online evals require an [inference] block - the launcher submits a dedicated SLURM job running "
        "the inference pool and the evals process."
    ),
    "mn-router-none": (
        "Multi-node online evals require an inference router - the eval job starts one router in front of the "
        "per-rank engines. Remove inference.router = 'None'."
    ),
    "mn-vllm-model": (
        "inference.vllm.model (Qwen/Qwen3-4B) does not match model.name (Qwen/Qwen3-8B). Remove "
        "inference.vllm.model to inherit it."
    ),
    "mn-tp": "deployment.gpus_per_node (8) must be divisible by inference.vllm.tensor_parallel_size (3).",
    "eval-gpus-per-node": "Total GPU count (3 = 2 train + 1 infer) exceeds gpus_per_node (2).",
    "eval-gpus-default": "Total GPU count (9 = 8 train + 1 infer) exceeds gpus_per_node (8).",
    "cp-seq-len-divisor": (
        "Sequence length (130) must be divisible by seq_len_divisor (4) for the given parallel dimensions. This "
        "requirement comes from context parallel (CP=2)."
    ),
}


def _diagnostics(text: str, ctx: CheckContext) -> tuple[Diagnostic, ...]:
    """check_text's findings, computed afresh each time: a cache across tests would hand a mutation test's
    run the findings of the unmutated code (mutmut forks each mutant from a process that ran the tests)."""
    return tuple(check_text(text, ctx).diagnostics)


def _found(text: str, code: str, ctx: CheckContext):
    return [d for d in _diagnostics(text, ctx) if d.code == code]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_rule_fires_at_exact_position(case):
    _id, code, level, bad, (line, col), _good, ctx = case
    found = _found(bad, code, ctx)
    assert found, f"{code} did not fire on:\n{bad}"
    d = found[0]
    assert (d.span.line + 1, d.span.col + 1) == (line, col), d.message
    assert d.level == level
    assert d.message == MESSAGES[_id]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_rule_passes_on_the_fixed_config(case):
    _id, code, _level, _bad, _pos, good, ctx = case
    assert _found(good, code, ctx) == []


# Where a rule must stay quiet, at the edge of what it refuses (each kills a mutant that moved the edge).
QUIET = [
    ("trust-remote-code-auto", "model-impl", '[model]\nimpl = "auto"\ntrust_remote_code = true\n'),
    ("vlm-cp-unset", "model-cp", VLM),
    ("vlm-cp-1", "model-cp", VLM.replace('impl = "custom"\n', 'impl = "custom"\ncp = 1\n')),
    ("deepep-ep-2", "model-ep", '[model]\nep_comm_backend = "deepep"\nep = 2\n'),
]


@pytest.mark.parametrize(("code", "text"), [q[1:] for q in QUIET], ids=[q[0] for q in QUIET])
def test_rule_stays_quiet_at_the_edge_of_what_it_refuses(code, text):
    assert _found(text, code, HOSTED) == []


@pytest.mark.parametrize(
    ("batch", "micro", "nearest"),
    [(10, 4, "8 or 12"), (2, 4, "4"), (6, 4, "4 or 8")],
    ids=["between", "below", "above"],
)
def test_batch_divisible_names_the_nearest_multiples(batch, micro, nearest):
    (found,) = _found(f"[data]\nbatch_size = {batch}\nmicro_batch_size = {micro}\n", "batch-divisible", HOSTED)
    assert found.message.endswith(f"(the nearest are {nearest}).")


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


# -- every finding prime-rl's validators can make has a case ---------------------------------------------------

_ANY = ".+?"  # an interpolated value
_KEY = "[^.]+"  # one key of a path (an index, a variable key)


def _texts(node: ast.expr, fn: ast.FunctionDef, funcs: dict[str, ast.FunctionDef], part: str = _ANY) -> list[str]:
    """Regular expressions for every text (message or dotted path) the expression can give."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [re.escape(node.value)]
    if isinstance(node, ast.JoinedStr):
        return ["".join(re.escape(v.value) if isinstance(v, ast.Constant) else _ANY for v in node.values)]
    if isinstance(node, ast.IfExp):
        return _texts(node.body, fn, funcs, part) + _texts(node.orelse, fn, funcs, part)
    if isinstance(node, ast.Name):
        values = bound_values(node.id, fn)
        return [t for v in values for t in _texts(v, fn, funcs, part)] if values else [part]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "_p":
        return _texts(node.args[0], fn, funcs)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in funcs:
        f = funcs[node.func.id]  # a helper that builds the message: each text it returns
        return [t for r in ast.walk(f) if isinstance(r, ast.Return) and r.value for t in _texts(r.value, f, funcs)]
    if isinstance(node, ast.Tuple):  # a path written as a tuple
        keys = [_texts(e, fn, funcs, _KEY) for e in node.elts]
        return [r"\.".join(k) for k in itertools.product(*keys)]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):  # _p("a.b") + (key,)
        return [rf"{a}\.{b}" for a in _texts(node.left, fn, funcs) for b in _texts(node.right, fn, funcs)]
    if isinstance(node, ast.Subscript):
        return [part]
    raise AssertionError(f"line {node.lineno}: teach _texts to read {ast.dump(node)[:80]}")


def _call_sites() -> set[tuple[str, str, str, str]]:
    """(level, code, message, path) for each finding rules_primerl can make, message and path as regexes."""
    funcs, _ = pristine_module(rules_primerl.__file__)
    sites = set()
    for name, fn in funcs.items():
        if name in ("_err", "_warn"):
            continue
        for call in ast.walk(fn):
            if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)):
                continue
            if call.func.id in ("_err", "_warn"):
                level, (code, message, where) = ("error" if call.func.id == "_err" else "warning"), call.args[:3]
            elif call.func.id == "Finding":
                level_node, code, message, where = call.args[:4]
                assert isinstance(level_node, ast.Constant), call.lineno
                level = level_node.value
            else:
                continue
            assert isinstance(code, ast.Constant) and isinstance(code.value, str), call.lineno
            for text, path in itertools.product(_texts(message, fn, funcs), _texts(where, fn, funcs)):
                sites.add((level, code.value, text, path))
    return sites


def test_every_prime_rl_call_site_has_a_case():
    """Each finding prime-rl's validators (rules_primerl) can make, every alternative of its words and of its
    place, is the finding some case asserts (its exact message and position): a new rule, or a new branch of
    one, without a case fails here. Read from the module's source, so nothing is listed by hand."""
    assert set(MESSAGES) == {case[0] for case in CASES}
    asserted = []
    for _id, code, _level, bad, _pos, _good, ctx in CASES:
        found = _found(bad, code, ctx)
        if found and found[0].source == "prime-rl":
            d = found[0]
            asserted.append((d.level, d.code, d.platform_message or d.message, ".".join(map(str, d.loc))))
    sites = _call_sites()
    assert _primerl_codes() <= {code for _level, code, _text, _path in sites}  # the reader saw every call
    missing = [
        site
        for site in sorted(sites)
        if not any(
            (level, code) == site[:2] and re.fullmatch(site[2], text) and re.fullmatch(site[3], path)
            for level, code, text, path in asserted
        )
    ]
    assert missing == [], f"{len(missing)} of {len(sites)} call sites have no case"
