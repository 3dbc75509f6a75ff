"""Starting points for a new sft.toml, taken verbatim from the hosted-SFT walkthrough (seed/hosted-sft.md),
and for a new rl.toml, taken verbatim from prime-rl's examples at the schema mirror's commit."""

from __future__ import annotations

from dataclasses import dataclass

WALKTHROUGH = """max_steps = 10

[ckpt]               # save step 10 to the volume
interval = 10
keep_last = 1

[model]
name = "PrimeIntellect/Qwen3-0.6B-Reverse-Text-SFT"  # must be in the cluster model cache

[data]
name = "datasets/reverse-text"  # volume-relative; the platform resolves it to /volume/datasets/reverse-text
type = "sft"
seq_len = 2048        # add splits = ["train"] for multi-split datasets
batch_size = 8

[optim]
lr = 2e-5

[deployment]
type = "single_node"
num_train_gpus = 1
gpus_per_node = 1

[renderer]
name = "prime-qwen3"  # must match the model family
"""

MULTI_NODE = """max_steps = 4

[env_vars]
TRITON_CACHE_DIR = "/tmp/.cache/triton_cache"

[model]
name = "zai-org/GLM-5.3-BF16"
impl = "custom"
attn = "flash_attention_2"
cp = 8
ep = 8
optim_cpu_offload = true

[model.ac]
freq = 1

[model.ac_offloading]
max_inflight_activations = 5

[optim]
type = "sign_sgd"
lr = 5e-5
weight_decay = 0.01

[scheduler]
type = "linear"
warmup_steps = 50
decay_steps = 0

[renderer]
name = "glm-5.3"

[deployment]
type = "multi_node"
num_train_nodes = 8
gpus_per_node = 8

[model.debug]
force_balanced_routing = true  # debug only

[ckpt]               # save the final checkpoint
interval = 4
keep_last = 1

[data]
type = "sft"
name = "datasets/intellect-3-sft-10k"  # put it on the volume first (step 2); volume-relative
splits = ["math"]
batch_size = 8
micro_batch_size = 1
seq_len = 4096
"""

# The walkthrough config plus the "Online evals" blocks of the seed, with the 8-GPU deployment it shows.
ONLINE_EVAL = """max_steps = 10

[ckpt]               # save step 10 to the volume
interval = 10
keep_last = 1

[model]
name = "PrimeIntellect/Qwen3-0.6B-Reverse-Text-SFT"  # must be in the cluster model cache

[data]
name = "datasets/reverse-text"  # volume-relative; the platform resolves it to /volume/datasets/reverse-text
type = "sft"
seq_len = 2048
batch_size = 8

[optim]
lr = 2e-5

[renderer]
name = "prime-qwen3"  # must match the model family

[eval]
interval = 5          # evaluate every 5 trainer steps

[[eval.source]]
name = "reverse-text"
env = { taskset = { id = "primeintellect/reverse-text" } }

[inference]
[inference.vllm]
tensor_parallel_size = 1

[deployment]
type = "single_node"
num_train_gpus = 4
num_infer_gpus = 4    # defaults to 1
gpus_per_node = 8
"""


# prime-rl examples/basic/reverse-text/rl.toml @ 559b44772 (the canonical 2-GPU RL run), with one
# line added: dataset_split = "train[:40]", so the sample steps 10 and 20 hold the same 8 prompts.
RL_REVERSE_TEXT = """max_steps = 20
seq_len = 2048

[model]
name = "PrimeIntellect/Qwen3-0.6B-Reverse-Text-SFT"

[monitors.wandb]
project = "reverse-text"
name = "reverse-text"

[orchestrator]
batch_size = 128
group_size = 16

[orchestrator.train.sampling]
max_completion_tokens = 128

[[orchestrator.train.source]]
name = "reverse-text"

[orchestrator.train.source.env.taskset]
id = "reverse-text"
# The first 40 prompts: tasks are drawn in order, 8 a step, so the prompts of step 10 come back at 20.
dataset_split = "train[:40]"

[orchestrator.train.source.env.agent.harness]
id = "null"

[orchestrator.train.source.env.agent.runtime]
type = "subprocess"

[trainer.optim]
lr = 3e-6

[ckpt] # Checkpoint at the end of training

[inference]

# PrimeIntellect Qwen3 fine-tune - select its renderer explicitly (the -SFT
# suffix misses the MODEL_RENDERER_MAP exact match).
[orchestrator.renderer]
name = "prime-qwen3"
"""

# prime-rl configs/debug/multi-env/rl.toml @ 559b44772: two train sources and an online eval.
RL_MULTI_ENV = """# Minimal multi-env debug run: two reverse-text train sources + one eval source.
# The launcher spawns one env server per source at its derived address
# (tcp://127.0.0.1:5000-5002); the orchestrator connects to each.
max_steps = 10
seq_len = 2048

[model]
name = "PrimeIntellect/Qwen3-0.6B-Reverse-Text-SFT"

[orchestrator]
batch_size = 128
group_size = 16

[orchestrator.renderer]
name = "prime-qwen3"

[orchestrator.train.sampling]
max_completion_tokens = 128

[[orchestrator.train.source]]
name = "reverse-text-a"

[orchestrator.train.source.env.taskset]
id = "reverse-text"

[orchestrator.train.source.env.agent.harness]
id = "null"

[orchestrator.train.source.env.agent.runtime]
type = "subprocess"

[[orchestrator.train.source]]
name = "reverse-text-b"

[orchestrator.train.source.env.taskset]
id = "reverse-text"

[orchestrator.train.source.env.agent.harness]
id = "null"

[orchestrator.train.source.env.agent.runtime]
type = "subprocess"

[orchestrator.eval]
interval = 5
num_examples = 64

[orchestrator.eval.sampling]
max_completion_tokens = 128

[[orchestrator.eval.source]]
name = "reverse-text"

[orchestrator.eval.source.env.taskset]
id = "reverse-text"

[orchestrator.eval.source.env.agent.harness]
id = "null"

[orchestrator.eval.source.env.agent.runtime]
type = "subprocess"

[trainer.optim]
lr = 3e-6

[inference]

[inference.vllm]
gpu_memory_utilization = 0.5
"""


@dataclass(frozen=True)
class Template:
    key: str
    title: str
    description: str
    text: str


TEMPLATES: tuple[Template, ...] = (
    Template(
        "walkthrough",
        "Walkthrough (1 GPU, reverse-text)",
        "The hosted-SFT walkthrough: Qwen3-0.6B on one GPU, dataset on the volume, final checkpoint kept.",
        WALKTHROUGH,
    ),
    Template(
        "online-eval",
        "Online evals (single node, 4+4 GPUs)",
        "The walkthrough plus an [eval] block scoring checkpoints against reverse-text, with an inference server.",
        ONLINE_EVAL,
    ),
    Template(
        "multi-node",
        "Multi-node (GLM-5.3, 8x8 H200)",
        "The scaling-up example: GLM-5.3 on 8 nodes with context and expert parallelism.",
        MULTI_NODE,
    ),
    Template(
        "rl-reverse-text",
        "RL: reverse-text (prime-rl example, 1+1 GPUs)",
        "prime-rl's examples/basic/reverse-text/rl.toml: GRPO on reverse-text, batch 128, group 16, 20 steps.",
        RL_REVERSE_TEXT,
    ),
    Template(
        "rl-multi-env",
        "RL: two environments + online eval",
        "prime-rl's configs/debug/multi-env/rl.toml: two reverse-text sources and an eval every 5 steps.",
        RL_MULTI_ENV,
    ),
)


def get(key: str) -> Template:
    for t in TEMPLATES:
        if t.key == key:
            return t
    raise KeyError(key)


# prime-rl configs/ci/nightly-fft/reverse-text.toml @ 559b44772 (the nightly full fine-tune of reverse-text).
RL_NIGHTLY = """max_steps = 20
seq_len = 2048

[deployment]
num_train_gpus = 1
num_infer_gpus = 1

[monitors.wandb]
project = "reverse-text"
name = "reverse-text"

[ckpt]

[model]
name = "PrimeIntellect/Qwen3-0.6B-Reverse-Text-SFT"

[orchestrator]
batch_size = 128
group_size = 16

[orchestrator.concurrency]
max_inflight = 128

[[orchestrator.train.source]]
name = "reverse-text"

[orchestrator.train.source.env.taskset]
id = "reverse-text"

[orchestrator.train.source.env.agent.harness]
id = "null"

[orchestrator.train.source.env.agent.runtime]
type = "subprocess"

[orchestrator.train.sampling]
max_completion_tokens = 128

[trainer]

[inference]

[orchestrator.renderer]
name = "prime-qwen3"
"""
