"""Starting points for a new sft.toml, taken verbatim from the hosted-SFT walkthrough (seed/hosted-sft.md)."""

from __future__ import annotations

from dataclasses import dataclass

WALKTHROUGH = '''max_steps = 10

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
'''

MULTI_NODE = '''max_steps = 4

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
'''

# The walkthrough config plus the "Online evals" blocks of the seed, with the 8-GPU deployment it shows.
ONLINE_EVAL = '''max_steps = 10

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
'''


@dataclass(frozen=True)
class Template:
    key: str
    title: str
    description: str
    text: str


TEMPLATES: tuple[Template, ...] = (
    Template("walkthrough", "Walkthrough (1 GPU, reverse-text)",
             "The hosted-SFT walkthrough: Qwen3-0.6B on one GPU, dataset on the volume, final checkpoint kept.",
             WALKTHROUGH),
    Template("online-eval", "Online evals (single node, 4+4 GPUs)",
             "The walkthrough plus an [eval] block scoring checkpoints against reverse-text, with an inference server.",
             ONLINE_EVAL),
    Template("multi-node", "Multi-node (GLM-5.3, 8x8 H200)",
             "The scaling-up example: GLM-5.3 on 8 nodes with context and expert parallelism.",
             MULTI_NODE),
)


def get(key: str) -> Template:
    for t in TEMPLATES:
        if t.key == key:
            return t
    raise KeyError(key)
