"""Every rule of an rl.toml (sft/rules_rl.py): a config that trips it, with the exact code, level, message, the
place the editor shows (1-based line and column) and the loc of the platform's 422, and the fixed config on which
it stays quiet; the edges where a rule must stay quiet; and a check, read from the module's source, that every
finding the module can make has such a case.

Each text is prime-rl's reverse-text example (``RL_REVERSE_TEXT``) with one change. Written for the mutation
run of rules_rl.py (docs/testing.md, "Mutation testing"): each case kills the mutants of its rule's words,
place and condition.
"""

from __future__ import annotations

import ast
import itertools
import re
from pathlib import Path

import pytest

from primetui.sft import rules_rl
from primetui.sft.check import check_text
from primetui.sft.context import CheckContext
from primetui.sft.diagnostics import Diagnostic
from primetui.sft.templates import RL_REVERSE_TEXT
from tests.unit.rule_sites import bound_values, pristine_module

HOSTED = CheckContext(hosted=True)
DISPATCH = CheckContext(hosted=True, at_dispatch=True)  # what prime train leaves to the platform is an error here
LOCAL = CheckContext(hosted=False)


def _edit(old: str, new: str, text: str = RL_REVERSE_TEXT) -> str:
    assert old in text, old
    return text.replace(old, new, 1)


def _add(extra: str, text: str = RL_REVERSE_TEXT) -> str:
    return f"{text}\n{extra}"


OPTIM = "[trainer.optim]\nlr = 3e-6\n"
INFERENCE = "[inference]\n"
CKPT = "[ckpt] # Checkpoint at the end of training\n"
WANDB = '[monitors.wandb]\nproject = "reverse-text"\nname = "reverse-text"\n'
MODEL = '[model]\nname = "PrimeIntellect/Qwen3-0.6B-Reverse-Text-SFT"\n'
RENDERER = '[orchestrator.renderer]\nname = "prime-qwen3"\n'
SOURCE = '[[orchestrator.train.source]]\nname = "reverse-text"\n'
SOURCE_BLOCK = (
    f"{SOURCE}\n[orchestrator.train.source.env.taskset]\n"
    'id = "reverse-text"\n# The first 40 prompts: tasks are drawn in order, 8 a step, so the prompts of step 10 '
    'come back at 20.\ndataset_split = "train[:40]"\n\n[orchestrator.train.source.env.agent.harness]\nid = "null"\n\n'
    '[orchestrator.train.source.env.agent.runtime]\ntype = "subprocess"\n'
)
NO_INFERENCE = _edit(INFERENCE, "")
NO_CKPT = _edit(CKPT, "")
NO_WANDB = _edit(WANDB, "")
CPU_TIER = "[inference.kv_cache_offload.cpu]\nnum_bytes = 1000000000\n"
MULTI_NODE = '[deployment]\ntype = "multi_node"\nnum_train_nodes = 2\nnum_infer_nodes = 1\n'
ROUTER = '[inference.router]\ntype = "vllm-router"\n'
LORA_NCCL = '[trainer.model.lora]\nrank = 8\n[weight_broadcast]\ntype = "nccl"\n'
QUANTIZE = '[weight_broadcast]\ntype = "nccl"\nquantize_in_weight_transfer = true\n'
EVAL_SOURCE = '[[orchestrator.eval.source]]\nname = "e"\nenv = { taskset = { id = "reverse-text" } }\n'


def _trainer(extra: str) -> str:
    """The example with trainer tables written before its ``[trainer.optim]``."""
    return _edit(OPTIM, f"{extra}\n{OPTIM}")


def _inference(extra: str, text: str = RL_REVERSE_TEXT) -> str:
    """The example with keys or tables written right after its empty ``[inference]``."""
    return _edit(INFERENCE, INFERENCE + extra, text)


def _models(orchestrator: str, trainer: str, text: str = RL_REVERSE_TEXT) -> str:
    """The shared ``[model]`` split into the orchestrator's and the trainer's."""
    return _edit(MODEL, f'[orchestrator.model]\nname = "{orchestrator}"\n[trainer.model]\nname = "{trainer}"\n', text)


def _steps(n: int | None, text: str) -> str:
    return _edit("max_steps = 20\n", "" if n is None else f"max_steps = {n}\n", text)


TRACE = _trainer('[trainer]\ntrace_path = "t"\n')
RENDERER_ADVICE = (
    "orchestrator.renderer.name='auto' but 'PrimeIntellect/Qwen3-0.6B-Reverse-Text-SFT' is not in "
    "renderers.base.MODEL_RENDERER_MAP, so it would silently fall back to DefaultRenderer. Pick one: (a) "
    "[orchestrator.renderer] name='default' — for fine-tunes / vendored mirrors with custom chat templates "
    "(DefaultRenderer calls apply_chat_template); set tool_parser=<name> if the env uses tools. (b) "
    "[orchestrator.renderer] name=<model-specific renderer> — if 'PrimeIntellect/Qwen3-0.6B-Reverse-Text-SFT' is "
    "template-identical to a mapped family (and ideally also add it upstream to renderers.base.MODEL_RENDERER_MAP)."
)
RUN_DIR = (
    "conflicts with the run directory ({}). Under the rl entrypoint, sub-config output directories are derived "
    "from output_dir / run.name — set those instead."
)
AGG = 'Environment name "agg" is reserved for cross-env metric aggregation. Use a different name or id.'
NEEDS_GPUS = (
    "Hosted RL runs need inference GPUs: set deployment.num_infer_gpus and an [inference] table, or use fake "
    "trainer data (trainer.data.fake) for a trainer-only run."
)

# (id, code, level, bad rl.toml, (line, col) 1-based, the 422's loc, fixed rl.toml, context); message: MESSAGES[id]
CASES = [
    # -- the shared propagation and the orchestrator ---------------------------------------------------------
    (
        "shared-conflict",
        "shared-conflict",
        "error",
        _edit("group_size = 16", "group_size = 16\nmax_steps = 10"),
        (14, 13),
        (),
        _edit("group_size = 16", "group_size = 16\nmax_steps = 20"),
        HOSTED,
    ),
    (
        "batch-exclusive",
        "batch-exclusive",
        "error",
        _edit("batch_size = 128", "batch_size = 128\ntoken_batch_size = 4096"),
        (13, 20),
        ("orchestrator",),
        RL_REVERSE_TEXT,
        HOSTED,
    ),
    (
        "batch-group",
        "batch-group",
        "error",
        _edit("batch_size = 128", "batch_size = 100"),
        (12, 14),
        ("orchestrator",),
        _edit("batch_size = 128", "batch_size = 112"),
        HOSTED,
    ),
    (
        "batch-group-default-batch",
        "batch-group",
        "error",
        _edit("batch_size = 128\ngroup_size = 16", "group_size = 24"),
        (12, 14),
        ("orchestrator",),
        _edit("batch_size = 128\ngroup_size = 16", "group_size = 32"),
        HOSTED,
    ),
    (
        "inflight-group-max",
        "inflight-group",
        "error",
        _add("[orchestrator.concurrency]\nmax_inflight = 15\n"),
        (45, 16),
        ("orchestrator",),
        _add("[orchestrator.concurrency]\nmax_inflight = 16\n"),
        HOSTED,
    ),
    (
        "inflight-group-initial",
        "inflight-group",
        "error",
        _add("[orchestrator.concurrency]\ninitial_inflight = 15\n"),
        (45, 20),
        ("orchestrator",),
        _add("[orchestrator.concurrency]\ninitial_inflight = 16\n"),
        HOSTED,
    ),
    (
        "inflight-bounds-initial",
        "inflight-bounds",
        "error",
        _add("[orchestrator.concurrency]\nmax_inflight = 16\ninitial_inflight = 17\n"),
        (46, 20),
        ("orchestrator", "concurrency"),
        _add("[orchestrator.concurrency]\nmax_inflight = 16\ninitial_inflight = 16\n"),
        HOSTED,
    ),
    (
        "inflight-bounds-min",
        "inflight-bounds",
        "error",
        _add("[orchestrator.concurrency]\nmax_inflight = 16\nmin_inflight = 17\n"),
        (46, 16),
        ("orchestrator", "concurrency"),
        _add("[orchestrator.concurrency]\nmax_inflight = 16\nmin_inflight = 16\n"),
        HOSTED,
    ),
    (
        "renderer-table",
        "renderer-auto",
        "error",
        _edit('name = "prime-qwen3"', 'name = "auto"'),
        (41, 1),
        ("orchestrator",),
        RL_REVERSE_TEXT,
        HOSTED,
    ),
    (
        "renderer-shared-model",
        "renderer-auto",
        "error",
        _edit(RENDERER, ""),
        (5, 8),
        ("orchestrator",),
        RL_REVERSE_TEXT,
        HOSTED,
    ),
    (
        "renderer-orchestrator-model",
        "renderer-auto",
        "error",
        _models("PrimeIntellect/Qwen3-0.6B-Reverse-Text-SFT", "PrimeIntellect/Qwen3-0.6B-Reverse-Text-SFT").replace(
            RENDERER, ""
        ),
        (5, 8),
        ("orchestrator",),
        _models("PrimeIntellect/Qwen3-0.6B-Reverse-Text-SFT", "PrimeIntellect/Qwen3-0.6B-Reverse-Text-SFT"),
        HOSTED,
    ),
    # -- the trainer: the SFT trainer's rules one level down, and its own -----------------------------------
    (
        "trainer-model-rule",
        "model-attn",
        "error",
        _trainer('[trainer.model]\nimpl = "hf"\n'),
        (33, 8),
        ("trainer", "model"),
        _trainer('[trainer.model]\nimpl = "hf"\nattn = "flash_attention_2"\n'),
        HOSTED,
    ),
    (
        "trainer-scheduler-rule",
        "scheduler",
        "error",
        _trainer('[trainer.scheduler]\ntype = "cosine"\nwarmup_steps = 20\n'),
        (34, 16),
        ("trainer",),
        _trainer('[trainer.scheduler]\ntype = "cosine"\nwarmup_steps = 19\n'),
        HOSTED,
    ),
    (
        "full-offload",
        "full-offload",
        "error",
        _edit(OPTIM, '[trainer.model]\nfull_offload = true\n\n[trainer.optim]\ntype = "muon"\nlr = 3e-6\n'),
        (33, 16),
        ("trainer",),
        _edit(OPTIM, '[trainer.model]\nfull_offload = true\n\n[trainer.optim]\ntype = "sign_sgd"\nlr = 3e-6\n'),
        HOSTED,
    ),
    (
        "vlm",
        "vlm",
        "error",
        _trainer(
            '[trainer.model]\nimpl = "custom"\n'
            '[trainer.model.vlm]\nvision_encoder_attr = "v"\nlanguage_model_attr = "l"\n'
        ),
        (34, 1),
        ("trainer",),
        _trainer(
            '[trainer.model]\nimpl = "custom"\noptimization_dtype = "bfloat16"\nreduce_dtype = "bfloat16"\n'
            '[trainer.model.vlm]\nvision_encoder_attr = "v"\nlanguage_model_attr = "l"\n'
        ),
        HOSTED,
    ),
    ("trace-no-steps", "trace", "error", _steps(None, TRACE), (32, 14), ("trainer",), _steps(9, TRACE), HOSTED),
    ("trace-long", "trace", "error", _steps(10, TRACE), (33, 14), ("trainer",), _steps(9, TRACE), HOSTED),
    (
        "muon-offload",
        "muon-offload",
        "error",
        _edit(OPTIM, '[trainer.model]\nfsdp_cpu_offload = true\n\n[trainer.optim]\ntype = "muon"\nlr = 3e-6\n'),
        (33, 20),
        ("trainer",),
        _edit(OPTIM, '[trainer.model]\nfsdp_cpu_offload = true\n\n[trainer.optim]\ntype = "adamw"\nlr = 3e-6\n'),
        HOSTED,
    ),
    (
        "lora-broadcast-trainer",
        "lora-broadcast",
        "error",
        _trainer('[trainer.model.lora]\nrank = 8\n[trainer.weight_broadcast]\ntype = "nccl"\n'),
        (35, 8),
        ("trainer",),
        _trainer('[trainer.model.lora]\nrank = 8\n[trainer.weight_broadcast]\ntype = "filesystem"\n'),
        HOSTED,
    ),
    (
        "ep-impl",
        "ep-impl",
        "error",
        _trainer('[trainer.model]\nimpl = "hf"\nattn = "flash_attention_2"\nep = 2\n'),
        (35, 6),
        ("trainer",),
        _trainer('[trainer.model]\nimpl = "custom"\nep = 2\n'),
        HOSTED,
    ),
    (
        "router-replay-impl",
        "ep-impl",
        "error",
        _trainer('[trainer]\nenable_router_replay = true\n[trainer.model]\nimpl = "hf"\nattn = "flash_attention_2"\n'),
        (33, 24),
        ("trainer",),
        _trainer('[trainer]\nenable_router_replay = true\n[trainer.model]\nimpl = "custom"\n'),
        HOSTED,
    ),
    # -- the inference server's own validators ---------------------------------------------------------------
    (
        "lora-rank",
        "inference",
        "error",
        _inference("[inference.vllm]\nmax_lora_rank = 513\n"),
        (39, 17),
        ("inference", "vllm"),
        _inference("[inference.vllm]\nmax_lora_rank = 512\n"),
        HOSTED,
    ),
    (
        "kv-offload-cpu",
        "kv-offload",
        "error",
        _inference('[inference.kv_cache_offload]\ntype = "native"\n'),
        (38, 1),
        ("inference", "kv_cache_offload"),
        _inference('[inference.kv_cache_offload]\ntype = "native"\n' + CPU_TIER),
        HOSTED,
    ),
    (
        "kv-offload-prefix",
        "kv-offload",
        "error",
        _inference(
            '[inference.kv_cache_offload]\ntype = "native"\n'
            + CPU_TIER
            + "[inference.vllm]\nenable_prefix_caching = false\n"
        ),
        (43, 25),
        ("inference",),
        _inference(
            '[inference.kv_cache_offload]\ntype = "native"\n'
            + CPU_TIER
            + "[inference.vllm]\nenable_prefix_caching = true\n"
        ),
        HOSTED,
    ),
    (
        "inference-slurm",
        "slurm",
        "error",
        _inference('[inference.deployment]\ntype = "multi_node"\n'),
        (39, 8),
        ("inference",),
        _inference('[inference.deployment]\ntype = "multi_node"\n[inference.slurm]\n'),
        HOSTED,
    ),
    (
        "router-replay-llm-d",
        "router-replay",
        "error",
        _inference('[inference.router]\ntype = "llm-d"\n[inference.vllm]\nenable_return_routed_experts = true\n'),
        (39, 8),
        ("inference",),
        _inference('[inference.router]\ntype = "vllm-router"\n[inference.vllm]\nenable_return_routed_experts = true\n'),
        HOSTED,
    ),
    (
        "router-llm-d-single-node",
        "router",
        "error",
        _inference('[inference.router]\ntype = "llm-d"\n'),
        (39, 8),
        ("inference",),
        _inference(ROUTER),
        HOSTED,
    ),
    (
        "router-missing",
        "router",
        "error",
        _inference('router = "None"\n[inference.deployment]\ntype = "multi_node"\n[inference.slurm]\n'),
        (38, 10),
        ("inference",),
        _inference('[inference.deployment]\ntype = "multi_node"\n[inference.slurm]\n'),
        HOSTED,
    ),
    # -- RLConfig's own: the run directory and the shared settings ------------------------------------------
    (
        "run-dir-trainer",
        "run-dir",
        "error",
        _trainer('[trainer]\noutput_dir = "elsewhere"\n'),
        (33, 14),
        (),
        RL_REVERSE_TEXT,
        HOSTED,
    ),
    (
        "run-dir-orchestrator",
        "run-dir",
        "error",
        _edit("group_size = 16", 'group_size = 16\noutput_dir = "o/"'),
        (14, 14),
        (),
        RL_REVERSE_TEXT,
        HOSTED,
    ),
    (
        "run-dir-named",
        "run-dir",
        "error",
        'output_dir = "out/"\n' + _trainer('[trainer]\noutput_dir = "out/r2"\n') + '[run]\nname = "r1"\n',
        (34, 14),
        (),
        'output_dir = "out/"\n' + _trainer('[trainer]\noutput_dir = "out/r1/"\n') + '[run]\nname = "r1"\n',
        HOSTED,
    ),
    (
        "seq-len-trainer",
        "seq-len",
        "error",
        _edit("seq_len = 2048\n", "").replace(OPTIM, "[trainer.model]\nseq_len = 1024\n\n" + OPTIM),
        (32, 11),
        (),
        _edit("seq_len = 2048\n", "").replace(OPTIM, "[trainer.model]\nseq_len = 2048\n\n" + OPTIM),
        HOSTED,
    ),
    (
        "seq-len-orchestrator",
        "seq-len",
        "error",
        _edit("seq_len = 2048\n", "").replace("group_size = 16", "group_size = 16\nseq_len = 999999"),
        (13, 11),
        (),
        _edit("seq_len = 2048\n", "").replace("group_size = 16", "group_size = 16\nseq_len = 2048"),
        HOSTED,
    ),
    (
        "max-steps-orchestrator",
        "max-steps",
        "error",
        _steps(None, RL_REVERSE_TEXT).replace("group_size = 16", "group_size = 16\nmax_steps = 10"),
        (13, 13),
        (),
        RL_REVERSE_TEXT,
        HOSTED,
    ),
    (
        "max-steps-trainer",
        "max-steps",
        "error",
        _steps(None, RL_REVERSE_TEXT).replace(OPTIM, "[trainer]\nmax_steps = 10\n" + OPTIM),
        (32, 13),
        (),
        RL_REVERSE_TEXT,
        HOSTED,
    ),
    (
        "ckpt-both-trainer",
        "ckpt-both",
        "error",
        _add("[trainer.ckpt]\n", NO_CKPT),
        (43, 1),
        (),
        RL_REVERSE_TEXT,
        HOSTED,
    ),
    (
        "ckpt-both-orchestrator",
        "ckpt-both",
        "error",
        _add("[orchestrator.ckpt]\n", NO_CKPT),
        (43, 1),
        (),
        RL_REVERSE_TEXT,
        HOSTED,
    ),
    (
        "ckpt-interval-orchestrator",
        "ckpt-interval",
        "error",
        _add("[trainer.ckpt]\ninterval = 5\n[orchestrator.ckpt]\ninterval = 10\n", NO_CKPT),
        (46, 12),
        (),
        _add("[trainer.ckpt]\ninterval = 5\n[orchestrator.ckpt]\ninterval = 5\n", NO_CKPT),
        HOSTED,
    ),
    (
        "ckpt-interval-trainer",
        "ckpt-interval",
        "error",
        _add("[trainer.ckpt]\ninterval = 5\n[orchestrator.ckpt]\n", NO_CKPT),
        (43, 1),
        (),
        _add("[trainer.ckpt]\n[orchestrator.ckpt]\n", NO_CKPT),
        HOSTED,
    ),
    (
        "wandb-both-trainer",
        "wandb-both",
        "error",
        _add('[trainer.monitors.wandb]\nproject = "p"\n', NO_WANDB),
        (41, 1),
        (),
        RL_REVERSE_TEXT,
        HOSTED,
    ),
    (
        "wandb-both-orchestrator",
        "wandb-both",
        "error",
        _add('[orchestrator.monitors.wandb]\nproject = "p"\n', NO_WANDB),
        (41, 1),
        (),
        RL_REVERSE_TEXT,
        HOSTED,
    ),
    (
        "wandb-project",
        "wandb-project",
        "error",
        _add('[trainer.monitors.wandb]\nproject = "p"\n[orchestrator.monitors.wandb]\nproject = "q"\n', NO_WANDB),
        (44, 11),
        (),
        _add('[trainer.monitors.wandb]\nproject = "p"\n[orchestrator.monitors.wandb]\nproject = "p"\n', NO_WANDB),
        HOSTED,
    ),
    (
        "model-name-vllm",
        "model-name",
        "error",
        _models("Qwen/Qwen3-0.6B", "Qwen/Qwen3-0.6B", _inference('[inference.vllm]\nmodel = "Qwen/Qwen3-1.7B"\n')),
        (41, 9),
        (),
        _models("Qwen/Qwen3-0.6B", "Qwen/Qwen3-0.6B", _inference('[inference.vllm]\nmodel = "Qwen/Qwen3-0.6B"\n')),
        HOSTED,
    ),
    (
        "model-name-inference-default",
        "model-name",
        "error",
        _models("Qwen/Qwen3-1.7B", "Qwen/Qwen3-1.7B"),
        (5, 8),
        (),
        _models("Qwen/Qwen3-0.6B", "Qwen/Qwen3-0.6B"),
        HOSTED,
    ),
    (
        "model-name-trainer",
        "model-name",
        "error",
        _models("Qwen/Qwen3-1.7B", "Qwen/Qwen3-0.6B", NO_INFERENCE),
        (5, 8),
        (),
        _models("Qwen/Qwen3-1.7B", "Jackmin108/Qwen3-0.6B", NO_INFERENCE),  # prime-rl's exception for his mirrors
        HOSTED,
    ),
    (
        "chat-template-trainer",
        "chat-template",
        "error",
        _add('[trainer.tokenizer]\nchat_template = "a"\n'),
        (45, 17),
        (),
        _add('[tokenizer]\nchat_template = "a"\n'),
        HOSTED,
    ),
    (
        "chat-template-orchestrator",
        "chat-template",
        "error",
        _add('[orchestrator.tokenizer]\nchat_template = "b"\n'),
        (45, 17),
        (),
        RL_REVERSE_TEXT,
        HOSTED,
    ),
    (
        "chat-template-inference",
        "chat-template",
        "error",
        _add(
            '[trainer.tokenizer]\nchat_template = "a"\n[orchestrator.tokenizer]\nchat_template = "a"\n'
            '[inference.vllm]\nchat_template = "b"\n'
        ),
        (49, 17),
        (),
        _add(
            '[trainer.tokenizer]\nchat_template = "a"\n[orchestrator.tokenizer]\nchat_template = "a"\n'
            '[inference.vllm]\nchat_template = "a"\n'
        ),
        HOSTED,
    ),
    # -- weight broadcast and RLConfig's plumbing ------------------------------------------------------------
    (
        "nccl-gpus",
        "nccl-gpus",
        "error",
        _add('[deployment]\nnum_train_gpus = 1\nnum_infer_gpus = 0\n[trainer.weight_broadcast]\ntype = "nccl"\n'),
        (48, 8),
        (),
        _add('[deployment]\nnum_train_gpus = 1\nnum_infer_gpus = 1\n[trainer.weight_broadcast]\ntype = "nccl"\n'),
        HOSTED,
    ),
    (
        "lora-broadcast",
        "lora-broadcast",
        "error",
        _add(LORA_NCCL),
        (47, 8),
        (),
        _add(LORA_NCCL.replace('"nccl"', '"filesystem"')),
        HOSTED,
    ),
    (
        "rollout-transport",
        "rollout-transport",
        "error",
        _add('[trainer.rollout_transport]\ntype = "filesystem"\n'),
        (11, 1),
        (),
        _add(
            '[trainer.rollout_transport]\ntype = "filesystem"\n[orchestrator.rollout_transport]\ntype = "filesystem"\n'
        ),
        HOSTED,
    ),
    (
        "quantize-no-inference",
        "quantize-transfer",
        "error",
        _add(QUANTIZE, NO_INFERENCE),
        (45, 31),
        (),
        _add(QUANTIZE.replace("= true", "= false"), NO_INFERENCE),
        HOSTED,
    ),
    (
        "quantize-impl",
        "quantize-transfer",
        "error",
        _add(QUANTIZE),
        (46, 31),
        (),
        _add(QUANTIZE + '[trainer.model]\nimpl = "custom"\n'),
        HOSTED,
    ),
    (
        "eplb",
        "eplb",
        "error",
        _inference("[inference.vllm]\nenable_eplb = true\n"),
        (39, 15),
        (),
        _inference("[inference.vllm]\nenable_eplb = true\n") + QUANTIZE + '[trainer.model]\nimpl = "custom"\n',
        HOSTED,
    ),
    (
        "router-replay-llm-d-trainer",
        "router-replay",
        "error",
        _trainer('[trainer]\nenable_router_replay = true\n[trainer.model]\nimpl = "custom"\n')
        + '[inference.router]\ntype = "llm-d"\n',
        (49, 8),
        (),
        _trainer('[trainer]\nenable_router_replay = true\n[trainer.model]\nimpl = "custom"\n') + ROUTER,
        HOSTED,
    ),
    (
        "router-replay-kv-offload",
        "router-replay",
        "error",
        _trainer("[trainer]\nenable_router_replay = true\n")
        + '[inference.kv_cache_offload]\ntype = "native"\n'
        + CPU_TIER,
        (46, 1),
        (),
        _trainer("[trainer]\nenable_router_replay = false\n")
        + '[inference.kv_cache_offload]\ntype = "native"\n'
        + CPU_TIER,
        HOSTED,
    ),
    (
        "kv-offload-mooncake",
        "kv-offload",
        "error",
        _add('[inference.kv_cache_offload]\ntype = "mooncake"\n' + CPU_TIER),
        (44, 1),
        (),
        _add('[inference.kv_cache_offload]\ntype = "native"\n' + CPU_TIER),
        HOSTED,
    ),
    (
        "lora-orchestrator-rank",
        "lora-orchestrator",
        "error",
        _add("[trainer.model.lora]\nrank = 8\n[orchestrator.model.lora]\nrank = 4\n"),
        (47, 8),
        (),
        _add("[trainer.model.lora]\nrank = 8\n[orchestrator.model.lora]\nrank = 8\n"),
        HOSTED,
    ),
    (
        "lora-orchestrator-alpha",
        "lora-orchestrator",
        "error",
        _add("[trainer.model.lora]\nalpha = 16\n[orchestrator.model.lora]\nalpha = 32\n"),
        (47, 9),
        (),
        _add("[trainer.model.lora]\nalpha = 16\n[orchestrator.model.lora]\n"),
        HOSTED,
    ),
    # -- the deployment ---------------------------------------------------------------------------------------
    (
        "gpu-budget",
        "gpu-budget",
        "error",
        _add("[deployment]\nnum_train_gpus = 5\nnum_infer_gpus = 4\ngpus_per_node = 8\n"),
        (44, 1),
        ("deployment", "single_node"),
        _add("[deployment]\nnum_train_gpus = 4\nnum_infer_gpus = 4\ngpus_per_node = 8\n"),
        HOSTED,
    ),
    (
        "slurm-local",
        "slurm",
        "error",
        _add(MULTI_NODE + ROUTER),
        (45, 8),
        (),
        _add(MULTI_NODE + ROUTER + "[slurm]\n"),
        LOCAL,
    ),
    (
        "multi-node-no-inference",
        "multi-node",
        "error",
        _add(MULTI_NODE, NO_INFERENCE),
        (46, 19),
        (),
        _add(MULTI_NODE.replace("num_infer_nodes = 1", "num_infer_nodes = 0"), NO_INFERENCE),
        HOSTED,
    ),
    (
        "multi-node-no-inference-nodes",
        "multi-node",
        "error",
        _add(MULTI_NODE.replace("num_infer_nodes = 1", "num_infer_nodes = 0") + ROUTER),
        (37, 1),
        (),
        _add(MULTI_NODE + ROUTER),
        HOSTED,
    ),
    (
        "multi-node-router",
        "multi-node-router",
        "error",
        _add(MULTI_NODE, _inference('router = "None"\n')),
        (37, 1),
        (),
        _add(MULTI_NODE + ROUTER),
        HOSTED,
    ),
    (
        "fsdp-group",
        "fsdp-group",
        "error",
        _add(MULTI_NODE.replace("num_train_nodes = 2", "num_train_nodes = 3\nnodes_per_fsdp_group = 2") + ROUTER),
        (47, 24),
        (),
        _add(MULTI_NODE.replace("num_train_nodes = 2", "num_train_nodes = 4\nnodes_per_fsdp_group = 2") + ROUTER),
        HOSTED,
    ),
    # -- the environment sources (prime train leaves them to the platform: errors at dispatch) ---------------
    (
        "no-train-source",
        "no-train-source",
        "warning",
        _edit(SOURCE_BLOCK, ""),
        (11, 1),
        None,
        RL_REVERSE_TEXT,
        DISPATCH,
    ),
    (
        "source-duplicate-train",
        "source-duplicate",
        "error",
        _edit(SOURCE_BLOCK, f"{SOURCE_BLOCK}\n{SOURCE_BLOCK}"),
        (18, 1),
        ("orchestrator", "train"),
        _edit(SOURCE_BLOCK, f"{SOURCE_BLOCK}\n" + SOURCE_BLOCK.replace('"reverse-text"', '"reverse-text-b"', 1)),
        DISPATCH,
    ),
    (
        "source-duplicate-eval",
        "source-duplicate",
        "error",
        _add(f"[orchestrator.eval]\n{EVAL_SOURCE}{EVAL_SOURCE}"),
        (45, 1),
        ("orchestrator", "eval"),
        _add(f"[orchestrator.eval]\n{EVAL_SOURCE}" + EVAL_SOURCE.replace('"e"', '"f"')),
        DISPATCH,
    ),
    (
        "eval-no-source",
        "eval-no-source",
        "error",
        _add("[orchestrator.eval]\ninterval = 5\n"),
        (44, 1),
        ("orchestrator", "eval"),
        _add(f"[orchestrator.eval]\ninterval = 5\n{EVAL_SOURCE}"),
        DISPATCH,
    ),
    (
        "source-no-env",
        "source-no-env",
        "error",
        _edit(SOURCE_BLOCK, f'{SOURCE_BLOCK}\n[[orchestrator.train.source]]\nname = "other"\n'),
        (32, 1),
        ("orchestrator", "train", "source", 1),
        RL_REVERSE_TEXT,
        DISPATCH,
    ),
    (
        "source-agg-name",
        "source-agg",
        "error",
        _edit(SOURCE, SOURCE.replace('"reverse-text"', '"agg"')),
        (19, 8),
        ("orchestrator", "train", "source", 0),
        RL_REVERSE_TEXT,
        DISPATCH,
    ),
    (
        "source-agg-id",
        "source-agg",
        "error",
        _edit(SOURCE, "[[orchestrator.train.source]]\n").replace('id = "reverse-text"', 'id = "agg"'),
        (18, 1),
        ("orchestrator", "train", "source", 0),
        RL_REVERSE_TEXT,
        DISPATCH,
    ),
    (
        "taskset-unknown",
        "taskset-unknown",
        "error",
        _edit('id = "reverse-text"', 'id = "primeintellect/no-such-env@1.0"'),
        (22, 6),
        (),
        _edit('id = "reverse-text"', 'id = "PrimeIntellect/Reverse-Text@1.0"'),
        DISPATCH,
    ),
    # -- prime train's hosted refusals ------------------------------------------------------------------------
    ("hosted-k8s", "hosted-k8s", "error", _add('[k8s]\nnamespace = "x"\n'), (44, 1), (), RL_REVERSE_TEXT, HOSTED),
    (
        "hosted-clean",
        "hosted-clean",
        "error",
        "clean = true\n" + RL_REVERSE_TEXT,
        (1, 9),
        (),
        "clean = false\n" + RL_REVERSE_TEXT,
        HOSTED,
    ),
    (
        "hosted-disaggregated",
        "hosted-disaggregated",
        "error",
        _inference('[inference.deployment]\ntype = "disaggregated"\n'),
        (39, 8),
        (),
        _inference('[inference.deployment]\ntype = "multi_node"\n'),
        HOSTED,
    ),
    (
        "hosted-inference-gpus-key",
        "hosted-inference-gpus",
        "error",
        _add("[deployment]\nnum_infer_gpus = 0\n"),
        (45, 18),
        (),
        _add("[deployment]\nnum_infer_gpus = 1\n"),
        HOSTED,
    ),
    (
        "hosted-inference-gpus-orchestrator",
        "hosted-inference-gpus",
        "error",
        NO_INFERENCE,
        (11, 1),
        (),
        _add("[trainer.data.fake]\n", NO_INFERENCE),
        HOSTED,
    ),
    (
        "hosted-inference-gpus-trainer",
        "hosted-inference-gpus",
        "error",
        OPTIM,
        (1, 1),
        (),
        OPTIM + "[trainer.data.fake]\n",
        HOSTED,
    ),
]

MESSAGES = {
    "shared-conflict": (
        "Shared config conflicts with matching sub-config field(s). Pick one place to set each value — duplicating "
        "it is ambiguous and the sub-config would silently shadow any later shared-level override (e.g. on the "
        "CLI):\n  - ['max_steps'] is set, but ['orchestrator.max_steps'] is also set"
    ),
    "batch-exclusive": "Set exactly one of batch_size or token_batch_size",
    "batch-group": (
        "Batch size must be divisible by the number of samples per problem: batch_size 100 is not a multiple of "
        "group_size 16 (the nearest are 96 or 112)."
    ),
    "batch-group-default-batch": (
        "Batch size must be divisible by the number of samples per problem: batch_size 128 is not a multiple of "
        "group_size 24 (the nearest are 120 or 144)."
    ),
    "inflight-group-max": (
        "concurrency.max_inflight must be at least the number of rollouts per example: max_inflight 15 < group_size 16."
    ),
    "inflight-group-initial": (
        "concurrency.initial_inflight must be at least the number of rollouts per example: initial_inflight 15 < "
        "group_size 16."
    ),
    "inflight-bounds-initial": "concurrency.initial_inflight must not exceed concurrency.max_inflight",
    "inflight-bounds-min": "concurrency.min_inflight must not exceed concurrency.max_inflight",
    "renderer-table": RENDERER_ADVICE,
    "renderer-shared-model": RENDERER_ADVICE,
    "renderer-orchestrator-model": RENDERER_ADVICE,
    "trainer-model-rule": "Flash attention 4 is only supported with model.impl='custom' or 'auto'",
    "trainer-scheduler-rule": "warmup_steps (20) must be less than max_steps (20)",
    "full-offload": "Full optimizer offload only supports AdamW and SignSGD",
    "vlm": "VLM models must use optimization_dtype='bfloat16' and reduce_dtype='bfloat16' to match vLLM inference.",
    "trace-no-steps": "Must specify max_steps when tracing",
    "trace-long": (
        "Tracing more than 10 steps is not recommended as your trace will be massive. Remove this line if you "
        "really want to trace more steps."
    ),
    "muon-offload": "Muon optimizer does not support FSDP CPU offload",
    "lora-broadcast-trainer": "In-memory weight broadcast does not support LoRA yet.",
    "ep-impl": "EP is only supported with the custom implementation or auto mode",
    "router-replay-impl": "Router replay is only supported with the custom implementation or auto mode",
    "lora-rank": "max_lora_rank=513 exceeds vLLM maximum of 512",
    "kv-offload-cpu": "inference.kv_cache_offload requires a cpu tier (disk-only offload is not supported).",
    "kv-offload-prefix": "KV cache offloading requires inference.vllm.enable_prefix_caching to be true.",
    "inference-slurm": "Must use SLURM for multi-node / disaggregated deployment.",
    "router-replay-llm-d": (
        "The llm-d router backend does not support routed-expert return (enable_return_routed_experts): it breaks "
        "P/D and is unverified for multi-node. Use router type 'vllm-router' for routed-expert runs."
    ),
    "router-llm-d-single-node": "The llm-d router backend requires a multi-node or disaggregated SLURM deployment.",
    "router-missing": "Multi-node / disaggregated deployments require a router fronting the per-rank engines.",
    "run-dir-trainer": "TrainerConfig.output_dir (elsewhere) " + RUN_DIR.format("outputs/<run.name>"),
    "run-dir-orchestrator": "OrchestratorConfig.output_dir (o/) " + RUN_DIR.format("outputs/<run.name>"),
    "run-dir-named": "TrainerConfig.output_dir (out/r2) " + RUN_DIR.format("out/r1"),
    "seq-len-trainer": (
        "Trainer model seq_len (1024) must be >= orchestrator seq_len (2048). The trainer needs to be able to "
        "handle sequences at least as long as those produced by the orchestrator."
    ),
    "seq-len-orchestrator": (
        "Trainer model seq_len (2048) must be >= orchestrator seq_len (999999). The trainer needs to be able to "
        "handle sequences at least as long as those produced by the orchestrator."
    ),
    "max-steps-orchestrator": (
        "Trainer max steps (None) and orchestrator max steps (10) are not the same. Please specify the same max "
        "steps for both."
    ),
    "max-steps-trainer": (
        "Trainer max steps (10) and orchestrator max steps (None) are not the same. Please specify the same max "
        "steps for both."
    ),
    "ckpt-both-trainer": (
        "Trainer checkpoint config is specified, but orchestrator checkpoint config is not. Please setup "
        "checkpointing on both for checkpointing to work properly."
    ),
    "ckpt-both-orchestrator": (
        "Orchestrator checkpoint config is specified, but trainer checkpoint config is not. Please setup "
        "checkpointing on both for checkpointing to work properly."
    ),
    "ckpt-interval-orchestrator": (
        "Trainer checkpoint interval (5) and orchestrator checkpoint interval (10) are not the same. Please specify "
        "the same checkpoint interval for both."
    ),
    "ckpt-interval-trainer": (
        "Trainer checkpoint interval (5) and orchestrator checkpoint interval (None) are not the same. Please "
        "specify the same checkpoint interval for both."
    ),
    "wandb-both-trainer": (
        "Trainer W&B config is specified, but orchestrator W&B config is not. This means only trainer metrics will "
        "be logged. Please specify [orchestrator.monitors.wandb] to log orchestrator metrics as well, or use "
        "[monitors.wandb] to configure both at once."
    ),
    "wandb-both-orchestrator": (
        "Orchestrator W&B config is specified, but trainer W&B config is not. This means only orchestrator metrics "
        "will be logged. Please specify [trainer.monitors.wandb] to log trainer metrics as well, or use "
        "[monitors.wandb] to configure both at once."
    ),
    "wandb-project": (
        "Trainer W&B project (p) and orchestrator W&B project (q) are not the same. Please specify the same W&B "
        "project for both."
    ),
    "model-name-vllm": (
        "Inference model name (Qwen/Qwen3-1.7B) and orchestrator model name (Qwen/Qwen3-0.6B) are not the same. "
        "The orchestrator queries the inference server and must use the same model name."
    ),
    "model-name-inference-default": (
        "Inference model name (Qwen/Qwen3-0.6B) and orchestrator model name (Qwen/Qwen3-1.7B) are not the same. "
        "The orchestrator queries the inference server and must use the same model name."
    ),
    "model-name-trainer": (
        "Trainer model name (Qwen/Qwen3-0.6B) and orchestrator model name (Qwen/Qwen3-1.7B) are not the same. "
        "Please specify the same model name for both."
    ),
    "chat-template-trainer": (
        "Trainer chat_template ('a') and orchestrator chat_template (None) do not match. Use the shared [tokenizer] "
        "config to set chat_template for both."
    ),
    "chat-template-orchestrator": (
        "Trainer chat_template (None) and orchestrator chat_template ('b') do not match. Use the shared [tokenizer] "
        "config to set chat_template for both."
    ),
    "chat-template-inference": (
        "Inference chat_template ('b') does not match the shared tokenizer chat_template ('a'). Use the shared "
        "[tokenizer] config to set chat_template for all components."
    ),
    "nccl-gpus": "NCCL weight broadcast requires at least 2 GPUs to build the broadcast process group.",
    "lora-broadcast": (
        "LoRA training is not yet supported with in-memory weight broadcast. Set weight_broadcast.type = 'filesystem'."
    ),
    "rollout-transport": (
        "trainer.rollout_transport.type ('filesystem') != orchestrator.rollout_transport.type ('zmq'); set the "
        "shared [rollout_transport] block or make both sub-configs the same type."
    ),
    "quantize-no-inference": "weight_broadcast.quantize_in_weight_transfer requires an inference config.",
    "quantize-impl": "weight_broadcast.quantize_in_weight_transfer requires trainer.model.impl = 'custom'.",
    "eplb": (
        "inference.vllm.enable_eplb requires weight_broadcast.type = 'nccl' and "
        "weight_broadcast.quantize_in_weight_transfer = true."
    ),
    "router-replay-llm-d-trainer": (
        "The llm-d router backend does not support routed-expert return (inference.vllm.enable_return_routed_experts "
        "/ trainer.enable_router_replay): it breaks P/D and is unverified for multi-node. Use router type "
        "'vllm-router' for router-replay runs."
    ),
    "router-replay-kv-offload": (
        "Router replay with inference.kv_cache_offload is not supported. External KV cache hits do not carry "
        "routed-expert decisions."
    ),
    "kv-offload-mooncake": (
        "Mooncake KV offload requires SLURM — the per-node store is launched by the sbatch template. Use "
        "inference.kv_cache_offload.type='native' for local runs."
    ),
    "lora-orchestrator-rank": (
        "orchestrator.model.lora.rank (4) conflicts with trainer.model.lora.rank (8). Remove "
        "orchestrator.model.lora.rank to inherit from trainer, or update trainer.model.lora.rank to match."
    ),
    "lora-orchestrator-alpha": (
        "orchestrator.model.lora.alpha (32) conflicts with trainer.model.lora.alpha (16). Remove "
        "orchestrator.model.lora.alpha to inherit from trainer, or update trainer.model.lora.alpha to match."
    ),
    "gpu-budget": "Total GPU count (9 = 5 train + 4 infer) exceeds gpus_per_node (8).",
    "slurm-local": "Must use SLURM for multi-node deployment.",
    "multi-node-no-inference": "Must configure inference when using multi-node deployment with inference nodes.",
    "multi-node-no-inference-nodes": (
        "Cannot configure inference with num_infer_nodes = 0. Either set num_infer_nodes > 0 or remove the "
        "inference config."
    ),
    "multi-node-router": "Multi-node deployments require inference.router to front the per-rank engines.",
    "fsdp-group": "deployment.num_train_nodes (3) must be divisible by deployment.nodes_per_fsdp_group (2)",
    "no-train-source": (
        'No [[orchestrator.train.source]]: the run has no environment to train on — add one (taskset id "reverse-text" '
        "runs locally)."
    ),
    "source-duplicate-train": (
        "Duplicate training environment names: {'reverse-text'}. Each env must have a unique name."
    ),
    "source-duplicate-eval": "Duplicate evaluation environment names: {'e'}. Each env must have a unique name.",
    "eval-no-source": (
        "EvalConfig must define at least one source. Either drop the [orchestrator.eval] block entirely (to disable "
        "eval) or add a [[orchestrator.eval.source]] block."
    ),
    "source-no-env": 'no env configured — set env = { taskset = { id = "<id>" } }',
    "source-agg-name": AGG,
    "source-agg-id": AGG,
    "taskset-unknown": (
        "taskset 'primeintellect/no-such-env@1.0' not found (tried to import 'no_such_env'). A taskset is a package "
        "exporting its Taskset subclass via `__all__` — the built-in ones ship with verifiers in the "
        "`verifiers.v1.tasksets` package; any other package must already be installed."
    ),
    "hosted-k8s": (
        "[k8s] is not supported for hosted runs: Platform manages deployment settings. Remove the [k8s] table."
    ),
    "hosted-clean": "clean = true is unsupported for hosted runs: start a new run instead.",
    "hosted-disaggregated": 'inference.deployment type = "disaggregated" is unsupported for hosted runs.',
    "hosted-inference-gpus-key": NEEDS_GPUS,
    "hosted-inference-gpus-orchestrator": NEEDS_GPUS,
    "hosted-inference-gpus-trainer": NEEDS_GPUS,
}

# where prime train leaves the check to the platform (its source is the platform, the rest prime-rl's validators)
PLATFORM = {"taskset-unknown", "hosted-k8s", "hosted-clean", "hosted-disaggregated", "hosted-inference-gpus"}


def _diagnostics(text: str, ctx: CheckContext) -> tuple[Diagnostic, ...]:
    """check_text's findings, afresh each time (a cache would hand a mutant's run the unmutated findings)."""
    return tuple(check_text(text, ctx).diagnostics)


def _found(text: str, code: str, ctx: CheckContext) -> list[Diagnostic]:
    return [d for d in _diagnostics(text, ctx) if d.code == code]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_rule_fires_with_its_message_at_its_place(case):
    case_id, code, level, bad, (line, col), loc, _good, ctx = case
    found = _found(bad, code, ctx)
    assert found, f"{code} did not fire on:\n{bad}"
    d = found[0]
    assert (d.span.line + 1, d.span.col + 1) == (line, col), d.message
    assert (d.level, d.message, d.platform_loc) == (level, MESSAGES[case_id], loc)
    expected_source = "platform" if code in PLATFORM else "review" if level == "warning" else "prime-rl"
    assert d.source == expected_source


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_rule_stays_quiet_on_the_fixed_config(case):
    _id, code, _level, _bad, _pos, _loc, good, ctx = case
    codes = [d.code for d in _diagnostics(good, ctx)]
    assert code not in codes and "internal" not in codes, codes  # a rule that crashed hides the rules after it


DEFERRED = [c for c in CASES if c[1] in rules_rl.DEFERRED_CODES]


@pytest.mark.parametrize("case", DEFERRED, ids=[c[0] for c in DEFERRED])
def test_what_prime_train_leaves_to_the_platform_is_a_warning_in_the_editor(case):
    case_id, code, _level, bad, (line, col), _loc, _good, _ctx = case
    d = _found(bad, code, HOSTED)[0]
    assert (d.level, d.message, d.span.line + 1, d.span.col + 1) == ("warning", MESSAGES[case_id], line, col)


# Where a rule must stay quiet, at the edge of what it refuses (each kills a mutant that moves the edge).
QUIET = [
    ("full-offload-adamw-default", "full-offload", _trainer("[trainer.model]\nfull_offload = true\n"), HOSTED),
    (
        "full-offload-off",
        "full-offload",
        _edit(OPTIM, '[trainer.model]\nfull_offload = false\n\n[trainer.optim]\ntype = "muon"\nlr = 3e-6\n'),
        HOSTED,
    ),
    ("ep-1-with-hf", "ep-impl", _trainer('[trainer.model]\nimpl = "hf"\nattn = "flash_attention_2"\nep = 1\n'), HOSTED),
    ("ep-with-auto", "ep-impl", _trainer('[trainer.model]\nimpl = "auto"\nep = 2\n'), HOSTED),
    (
        "router-replay-auto",
        "ep-impl",
        _trainer('[trainer]\nenable_router_replay = true\n[trainer.model]\nimpl = "auto"\n'),
        HOSTED,
    ),
    ("muon-offload-off", "muon-offload", _edit(OPTIM, '[trainer.optim]\ntype = "muon"\nlr = 3e-6\n'), HOSTED),
    ("lora-nccl-no-lora", "lora-broadcast", _trainer('[trainer.weight_broadcast]\ntype = "nccl"\n'), HOSTED),
    ("trace-9-steps", "trace", _steps(9, TRACE), HOSTED),
    ("no-trace", "trace", RL_REVERSE_TEXT, HOSTED),
    ("rank-512", "inference", _inference("[inference.vllm]\nmax_lora_rank = 512\n"), HOSTED),
    (
        "prefix-caching-without-offload",
        "kv-offload",
        _inference("[inference.vllm]\nenable_prefix_caching = false\n"),
        HOSTED,
    ),
    (
        "router-llm-d-multi-node",
        "router",
        _inference(
            '[inference.router]\ntype = "llm-d"\n[inference.deployment]\ntype = "multi_node"\n[inference.slurm]\n'
        ),
        HOSTED,
    ),
    (
        "renderer-mapped-tokenizer",
        "renderer-auto",
        _edit(RENDERER, '[orchestrator.tokenizer]\nname = "Qwen/Qwen3-0.6B"\n'),
        HOSTED,
    ),
    ("renderer-default", "renderer-auto", _edit('name = "prime-qwen3"', 'name = "default"'), HOSTED),
    (
        "seq-len-equal",
        "seq-len",
        _edit("seq_len = 2048\n", "").replace(OPTIM, "[trainer.model]\nseq_len = 2048\n\n" + OPTIM),
        HOSTED,
    ),
    (
        "gpu-budget-full",
        "gpu-budget",
        _add("[deployment]\nnum_train_gpus = 4\nnum_infer_gpus = 4\ngpus_per_node = 8\n"),
        HOSTED,
    ),
    (
        "nccl-two-gpus",
        "nccl-gpus",
        _add('[deployment]\nnum_train_gpus = 1\nnum_infer_gpus = 1\n[trainer.weight_broadcast]\ntype = "nccl"\n'),
        HOSTED,
    ),
    ("nccl-multi-node", "nccl-gpus", _add(MULTI_NODE + ROUTER + '[trainer.weight_broadcast]\ntype = "nccl"\n'), HOSTED),
    ("lora-filesystem-default", "lora-broadcast", _add("[trainer.model.lora]\nrank = 8\n"), HOSTED),
    (
        "eplb-quantized",
        "eplb",
        _inference("[inference.vllm]\nenable_eplb = true\n") + QUANTIZE + '[trainer.model]\nimpl = "custom"\n',
        HOSTED,
    ),
    (
        "lora-orchestrator-unset",
        "lora-orchestrator",
        _add("[trainer.model.lora]\nrank = 8\n[orchestrator.model.lora]\n"),
        HOSTED,
    ),
    ("slurm-hosted-multi-node", "slurm", _add(MULTI_NODE + ROUTER), HOSTED),
    (
        "fsdp-group-divides",
        "fsdp-group",
        _add(MULTI_NODE.replace("num_train_nodes = 2", "num_train_nodes = 4\nnodes_per_fsdp_group = 2") + ROUTER),
        HOSTED,
    ),
    ("multi-node-default-router", "multi-node-router", _add(MULTI_NODE), HOSTED),
    (
        "known-taskset-any-case",
        "taskset-unknown",
        _edit('id = "reverse-text"', 'id = "PrimeIntellect/Reverse-Text@1.0"'),
        DISPATCH,
    ),
    ("inference-gpus-fake-data", "hosted-inference-gpus", _add("[trainer.data.fake]\n", NO_INFERENCE), HOSTED),
    ("inference-gpus-local", "hosted-inference-gpus", NO_INFERENCE, LOCAL),
    (  # a source list of the wrong type is the schema's error, not a missing source
        "train-source-not-tables",
        "no-train-source",
        _edit(SOURCE_BLOCK, "").replace(
            "[orchestrator.train.sampling]",
            '[orchestrator.train]\nsource = ["reverse-text"]\n\n[orchestrator.train.sampling]',
        ),
        DISPATCH,
    ),
    # a value the schema refuses (its own error) must not crash a rule or make it fire as well
    ("group-size-0", "batch-group", _edit("group_size = 16", "group_size = 0"), HOSTED),
    (
        "max-inflight-0",
        "inflight-bounds",
        _add("[orchestrator.concurrency]\nmax_inflight = 0\ninitial_inflight = 16\n"),
        HOSTED,
    ),
    (
        "fsdp-group-0",
        "fsdp-group",
        _add(MULTI_NODE.replace("num_train_nodes = 2", "num_train_nodes = 3\nnodes_per_fsdp_group = 0") + ROUTER),
        HOSTED,
    ),
    (
        "nccl-multi-node-gpu-keys",
        "nccl-gpus",
        _add(
            MULTI_NODE
            + "num_train_gpus = 1\nnum_infer_gpus = 0\n"
            + ROUTER
            + '[trainer.weight_broadcast]\ntype = "nccl"\n'
        ),
        HOSTED,
    ),
    (
        "ep-auto-with-hf",
        "ep-impl",
        _trainer('[trainer.model]\nimpl = "hf"\nattn = "flash_attention_2"\nep = "auto"\n'),
        HOSTED,
    ),
    (
        "mooncake-with-slurm",
        "kv-offload",
        _add('[inference.kv_cache_offload]\ntype = "mooncake"\n' + CPU_TIER + "[slurm]\n"),
        HOSTED,
    ),
    (
        "orchestrator-lora-rank-none",
        "lora-orchestrator",
        _add('[trainer.model.lora]\nrank = 8\n[orchestrator.model.lora]\nrank = "None"\n'),
        HOSTED,
    ),
    # an unwritten num_infer_nodes is 1 with an [inference] table, 0 without
    (
        "inference-nodes-default-with-inference",
        "multi-node",
        _add(MULTI_NODE.replace("num_infer_nodes = 1\n", "") + ROUTER),
        HOSTED,
    ),
    (
        "inference-nodes-default-without",
        "multi-node",
        _add(MULTI_NODE.replace("num_infer_nodes = 1\n", ""), NO_INFERENCE),
        HOSTED,
    ),
    (
        "hosted-multi-node-without-inference",
        "hosted-inference-gpus",
        _add(MULTI_NODE.replace("num_infer_nodes = 1", "num_infer_nodes = 0"), NO_INFERENCE),
        HOSTED,
    ),
    (
        "known-legacy-env-id",
        "taskset-unknown",
        _edit(SOURCE_BLOCK, f'{SOURCE}env = {{ id = "reverse-text" }}\n\n'),
        DISPATCH,
    ),
]


@pytest.mark.parametrize(("code", "text", "ctx"), [q[1:] for q in QUIET], ids=[q[0] for q in QUIET])
def test_rule_stays_quiet_at_the_edge_of_what_it_refuses(code, text, ctx):
    codes = [d.code for d in _diagnostics(text, ctx)]
    assert code not in codes and "internal" not in codes, codes


# Where a rule must still fire, past the edge a mutant could move: (id, text, code, message or its end, (line, col))
FIRES = [
    (
        "batch-below-one-group",
        _edit("batch_size = 128", "batch_size = 8"),
        "batch-group",
        "batch_size 8 is not a multiple of group_size 16 (the nearest are 16).",
        (12, 14),
    ),
    (
        "inflight-true-reads-as-1",  # pydantic's lax mode reads true as 1
        _add("[orchestrator.concurrency]\nmax_inflight = true\n"),
        "inflight-group",
        "max_inflight 1 < group_size 16.",
        (45, 16),
    ),
    (
        "vlm-one-dtype",
        _trainer(
            '[trainer.model]\nimpl = "custom"\noptimization_dtype = "bfloat16"\n'
            '[trainer.model.vlm]\nvision_encoder_attr = "v"\nlanguage_model_attr = "l"\n'
        ),
        "vlm",
        "to match vLLM inference.",
        (35, 1),
    ),
    ("trace-many-steps", _steps(11, TRACE), "trace", "if you really want to trace more steps.", (33, 14)),
    (
        "disaggregated-without-slurm",
        _inference('[inference.deployment]\ntype = "disaggregated"\n'),
        "slurm",
        "Must use SLURM for multi-node / disaggregated deployment.",
        (39, 8),
    ),
    (
        "disaggregated-without-router",
        _inference('router = "None"\n[inference.deployment]\ntype = "disaggregated"\n[inference.slurm]\n'),
        "router",
        "Multi-node / disaggregated deployments require a router fronting the per-rank engines.",
        (38, 10),
    ),
    (
        "initial-above-a-max-of-1",
        _edit("group_size = 16", "group_size = 1")
        + "\n[orchestrator.concurrency]\nmax_inflight = 1\ninitial_inflight = 2\n",
        "inflight-bounds",
        "concurrency.initial_inflight must not exceed concurrency.max_inflight",
        (46, 20),
    ),
    (
        "lora-nixl",
        _trainer('[trainer.model.lora]\nrank = 8\n[trainer.weight_broadcast]\ntype = "nixl"\n'),
        "lora-broadcast",
        "In-memory weight broadcast does not support LoRA yet.",
        (35, 8),
    ),
    (  # an inline table: the key is shown, as for a [k8s] header
        "k8s-inline-table",
        'k8s = { namespace = "x" }\n' + RL_REVERSE_TEXT,
        "hosted-k8s",
        "[k8s] is not supported for hosted runs: Platform manages deployment settings. Remove the [k8s] table.",
        (1, 1),
    ),
    (  # a source's env written the legacy way, by id: still the taskset verifiers imports
        "unknown-legacy-env-id",
        _edit(SOURCE_BLOCK, f'{SOURCE}env = {{ id = "no-such-env" }}\n\n'),
        "taskset-unknown",
        "taskset 'no-such-env' not found (tried to import 'no_such_env'). A taskset is a package exporting its "
        "Taskset subclass via `__all__` — the built-in ones ship with verifiers in the `verifiers.v1.tasksets` "
        "package; any other package must already be installed.",
        (20, 1),
    ),
    (
        "duplicate-legacy-env-ids",
        _edit(SOURCE_BLOCK, '[[orchestrator.train.source]]\nenv = { id = "reverse-text" }\n' * 2 + "\n"),
        "source-duplicate",
        "Duplicate training environment names: {'reverse-text'}. Each env must have a unique name.",
        (18, 1),
    ),
]


@pytest.mark.parametrize(("text", "code", "end", "pos"), [f[1:] for f in FIRES], ids=[f[0] for f in FIRES])
def test_rule_fires_just_past_the_edge(text, code, end, pos):
    found = _found(text, code, DISPATCH)
    assert found and found[0].message.endswith(end), [d.message for d in found]
    assert (found[0].span.line + 1, found[0].span.col + 1) == pos


def test_routed_expert_return_asked_for_explicitly_is_refused_once():
    """With enable_return_routed_experts written, InferenceConfig's own rule says it; RLConfig's adds nothing."""
    text = _trainer('[trainer]\nenable_router_replay = true\n[trainer.model]\nimpl = "custom"\n') + (
        '[inference.router]\ntype = "llm-d"\n[inference.vllm]\nenable_return_routed_experts = true\n'
    )
    assert [d.message for d in _found(text, "router-replay", HOSTED)] == [MESSAGES["router-replay-llm-d"]]


@pytest.mark.parametrize(
    ("output_dir", "sub_dir", "fires"),
    [("runsX", "runsX/r1", False), ("runs/", "runs/r1/", False), ("runs", "runs/r1X", True), ("runs", "runs", True)],
)
def test_the_run_directory_is_output_dir_slash_run_name(output_dir, sub_dir, fires):
    """Read character for character: only trailing slashes are dropped (the trainer's directory is checked)."""
    text = (
        f'output_dir = "{output_dir}"\n' + _trainer(f'[trainer]\noutput_dir = "{sub_dir}"\n') + '[run]\nname = "r1"\n'
    )
    found = _found(text, "run-dir", HOSTED)
    assert [d.message for d in found] == (
        [f"TrainerConfig.output_dir ({sub_dir}) " + RUN_DIR.format(output_dir.rstrip("/") + "/r1")] if fires else []
    )


def test_a_hosted_refusal_is_the_only_one_prime_train_gives():
    """prime train stops at its first refusal: [k8s] before clean, clean before disaggregated inference."""
    k8s_and_clean = "clean = true\n" + _add('[k8s]\nnamespace = "x"\n')
    hosted = [d.code for d in _diagnostics(k8s_and_clean, HOSTED) if d.code in rules_rl.HOSTED_REJECTION_CODES]
    assert hosted == ["hosted-k8s"]
    clean_and_split = "clean = true\n" + _inference('[inference.deployment]\ntype = "disaggregated"\n')
    hosted = [d.code for d in _diagnostics(clean_and_split, HOSTED) if d.code in rules_rl.HOSTED_REJECTION_CODES]
    assert hosted == ["hosted-clean"]
    split_without_gpus = _add("[deployment]\nnum_infer_gpus = 0\n", clean_and_split.removeprefix("clean = true\n"))
    hosted = [d.code for d in _diagnostics(split_without_gpus, HOSTED) if d.code in rules_rl.HOSTED_REJECTION_CODES]
    assert hosted == ["hosted-disaggregated"]


def test_taskset_module_is_what_verifiers_imports():
    assert rules_rl.taskset_module("PrimeIntellect/Reverse-Text@0.1.2") == "reverse_text"
    assert rules_rl.taskset_module("a/b/my-env@1@2") == "my_env"
    assert rules_rl.is_known_taskset("reverse_text") and not rules_rl.is_known_taskset("reverse-text-2")


# -- every finding rules_rl can make has a case -----------------------------------------------------------

_ANY = ".+?"  # an interpolated value
_KEY = "[^.]+"  # one key of a path (an index, a variable key)


class _Reader:
    def __init__(self) -> None:
        self.funcs, self.consts = pristine_module(rules_rl.__file__)

    def texts(self, node: ast.expr, fn: ast.FunctionDef, part: str = _ANY) -> list[str]:
        """Regular expressions for every text (message or dotted path) the expression can give."""
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return [re.escape(node.value)]
        if isinstance(node, ast.JoinedStr):  # each piece: its text, in a path a local name's paths, else one value
            in_path = part == _KEY
            pieces = [
                [re.escape(v.value)]
                if isinstance(v, ast.Constant)
                else self.texts(v.value, fn, part)
                if in_path and isinstance(v, ast.FormattedValue) and isinstance(v.value, ast.Name)
                else [part]
                for v in node.values
            ]
            return ["".join(p) for p in itertools.product(*pieces)]
        if isinstance(node, ast.IfExp):
            return self.texts(node.body, fn, part) + self.texts(node.orelse, fn, part)
        if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or):  # ``where or _first_table(raw)``
            *first, last = node.values
            return [t for v in first for t in self.texts(v, fn, part) if t] + self.texts(last, fn, part)
        if isinstance(node, ast.Name):
            values = bound_values(node.id, fn)
            if not values and node.id in self.consts:
                values = [self.consts[node.id]]
            return [t for v in values for t in self.texts(v, fn, part)] if values else [part]
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "_p":
            return self.texts(node.args[0], fn, part)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in self.funcs:
            f = self.funcs[node.func.id]  # a helper that builds the text: each text it returns
            return [t for r in ast.walk(f) if isinstance(r, ast.Return) and r.value for t in self.texts(r.value, f)]
        if isinstance(node, ast.Call):  # a text built elsewhere (rl_propagate's conflict message)
            return [_ANY]
        if isinstance(node, ast.Tuple):  # a path written as a tuple
            keys = [self.texts(e, fn, _KEY) for e in node.elts]
            return [r"\.".join(k) for k in itertools.product(*keys)]
        if isinstance(node, ast.Subscript):  # a path taken from data (the conflicting key's): any path
            return [_ANY]
        raise AssertionError(f"line {node.lineno}: teach texts to read {ast.dump(node)[:80]}")

    def call_sites(self) -> set[tuple[str, str, str, str]]:
        """(level, code, message, path) for each finding rules_rl can make, message and path as regexes."""
        sites = set()
        for name, fn in self.funcs.items():
            for call in ast.walk(fn):
                if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)):
                    continue
                prefix = ""
                if call.func.id in ("_err", "err"):  # ``err`` is _trainer_own_rules', below ``trainer``
                    level, (code, message, where) = "error", call.args[:3]
                    prefix = r"trainer\." if call.func.id == "err" else ""
                elif call.func.id == "Finding":
                    level_node, code, message, where = call.args[:4]
                    if not isinstance(code, ast.Constant):
                        continue  # the helpers' own Finding(level, code, …)
                    assert isinstance(level_node, ast.Constant), call.lineno
                    level = level_node.value
                else:
                    continue
                if name == "_err" or not isinstance(code, ast.Constant):
                    continue
                for text, path in itertools.product(self.texts(message, fn), self.texts(where, fn, _KEY)):
                    sites.add((level, code.value, text, prefix + path))
        return sites


def _rl_codes() -> set[str]:
    """The codes rules_rl emits, read from the source with a plain pattern (to prove the reader saw each)."""
    source = Path(rules_rl.__file__).read_text(encoding="utf-8")
    return set(re.findall(r'\b_?err\(\s*"([a-z0-9-]+)"', source)) | set(
        re.findall(r'Finding\(\s*"[a-z]+",\s*"([a-z0-9-]+)"', source)
    )


def test_every_rules_rl_call_site_has_a_case():
    """Each finding rules_rl can make, every alternative of its words and of its place, is the finding some case
    asserts (its exact message and position): a new rule, or a new branch of one, without a case fails here.
    Read from the module's source, so nothing is listed by hand."""
    assert set(MESSAGES) == {case[0] for case in CASES}
    asserted = []
    for _id, code, _level, bad, _pos, _loc, _good, ctx in CASES:
        found = _found(bad, code, ctx)
        if found:
            d = found[0]
            asserted.append((d.level, d.code, d.platform_message or d.message, ".".join(map(str, d.loc))))
    sites = _Reader().call_sites()
    assert _rl_codes() == {code for _level, code, _text, _path in sites}  # the reader saw every call
    missing = [
        site
        for site in sorted(sites)
        if not any(
            (level, code) == site[:2] and re.fullmatch(site[2], text, re.DOTALL) and re.fullmatch(site[3], path)
            for level, code, text, path in asserted
        )
    ]
    assert missing == [], f"{len(missing)} of {len(sites)} call sites have no case"
