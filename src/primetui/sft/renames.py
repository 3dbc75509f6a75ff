"""Keys prime-rl renamed or removed (prime-rl-sft-schema.md §9), so old configs get a precise answer."""

from __future__ import annotations

# (table path, old key) -> (new key in the same table or None, explanation)
RENAMED: dict[tuple[tuple[str, ...], str], tuple[str | None, str]] = {
    (("deployment",), "num_gpus"): ("num_train_gpus", "renamed to `num_train_gpus` in prime-rl #3256"),
    (("deployment",), "num_nodes"): ("num_train_nodes", "renamed to `num_train_nodes` in prime-rl #3256"),
    ((), "clean_output_dir"): ("clean", "renamed to `clean` in prime-rl #3268"),
    ((), "wandb"): ("monitors.wandb", "moved to `[monitors.wandb]` in prime-rl #3275"),
    ((), "file_monitor"): ("monitors.file", "moved to `[monitors.file]` in prime-rl #3275"),
    (("ckpt",), "resume_step"): (
        None,
        "replaced by the `[resume]` table (`step = N`, or empty for the latest) in prime-rl #3268",
    ),
    (("ckpt",), "weights"): (None, "removed in prime-rl #3316: checkpoints no longer include HF weights — delete it"),
    (("ckpt",), "weights_only"): (
        None,
        "removed in prime-rl #3316: checkpoints no longer include HF weights — delete it",
    ),
    (("ckpt",), "skip_gather_master_weights"): (None, "removed in prime-rl #3316 — delete it"),
    ((), "bench"): (None, "removed in prime-rl #3272 — delete the table"),
    (("model",), "tp"): (
        None,
        "SFT has no trainer tensor parallelism; the only TP knob is `inference.vllm.tensor_parallel_size`",
    ),
    (("optim",), "betas"): (None, "prime-rl uses two scalars, `betas1` and `betas2`, not a `betas` list"),
}

# The same for an rl.toml: prime-rl's RL key drift from v0.4.0 to the mirror's commit (prime-rl-rl.md §1.2).
_V08_SOURCE = (
    "replaced by `[[orchestrator.train.source]]` with `[orchestrator.train.source.env.taskset] id = …` "
    "in prime-rl v0.8.0"
)
RL_RENAMED: dict[tuple[tuple[str, ...], str], tuple[str | None, str]] = {
    (("orchestrator",), "rollouts_per_example"): ("group_size", "renamed to `group_size` in prime-rl v0.6.0"),
    (("orchestrator",), "sampling"): (
        None,
        "moved to `[orchestrator.train.sampling]` in prime-rl v0.6.0 (`max_tokens` is now `max_completion_tokens`)",
    ),
    (("orchestrator",), "env"): (None, _V08_SOURCE),
    (("orchestrator", "train"), "env"): (None, _V08_SOURCE),
    (("orchestrator", "train", "sampling"), "max_tokens"): (
        "max_completion_tokens",
        "renamed to `max_completion_tokens` in prime-rl v0.6.0",
    ),
    (("orchestrator", "eval", "sampling"), "max_tokens"): (
        "max_completion_tokens",
        "renamed to `max_completion_tokens` in prime-rl v0.6.0",
    ),
    **{k: v for k, v in RENAMED.items() if k[0] in ((), ("deployment",)) and k[1] != "bench"},
}
