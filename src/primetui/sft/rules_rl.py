"""An rl.toml's rules: prime-rl's ``RLConfig`` validators, the hosted refusals of ``prime train``, and the
checks the CLI leaves to the platform, each with its source's exact text.

prime-rl's texts come from prime-rl-configs at the mirror's commit (configs/rl.py, configs/orchestrator.py,
utils/validation.py); the hosted refusals from prime_cli 0.18.0 utils/training_schema_worker.py; the
unknown taskset from verifiers' plugin loader (v1/utils/loaders.py at prime-rl's submodule pin).
Each finding points at the key it is about (``path``) and keeps prime-rl's own loc (``loc``) for a 422.
Values are read after prime-rl's shared-field propagation, as its after-validators read them.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from primetui.sft.cfg import Cfg, Finding
from primetui.sft.context import CheckContext
from primetui.sft.diagnostics import Level
from primetui.sft.renderers import MODEL_RENDERER_MAP
from primetui.sft.rl_propagate import conflict_message, propagate_shared_fields

# The hosted refusals (prime_cli utils/training_schema_worker.py ``normalize`` /
# ``reject_unsupported_hosted_settings``), word for word.
K8S_UNSUPPORTED = (
    "[k8s] is not supported for hosted runs: Platform manages deployment settings. Remove the [k8s] table."
)
CLEAN_UNSUPPORTED = "clean = true is unsupported for hosted runs: start a new run instead."
DISAGGREGATED_UNSUPPORTED = 'inference.deployment type = "disaggregated" is unsupported for hosted runs.'
NEEDS_INFERENCE_GPUS = (
    "Hosted RL runs need inference GPUs: set deployment.num_infer_gpus and an [inference] table, "
    "or use fake trainer data (trainer.data.fake) for a trainer-only run."
)
HOSTED_REJECTION_CODES = ("hosted-k8s", "hosted-clean", "hosted-disaggregated", "hosted-inference-gpus")
# prime train checks these on the validated config, so only a config prime-rl took gets them
HOSTED_AFTER_SCHEMA = ("hosted-clean", "hosted-disaggregated", "hosted-inference-gpus")

# Tasksets the local platform runs (prime-rl strips a hub ``owner/`` and an ``@version`` before importing).
KNOWN_TASKSETS = ("reverse-text",)
AGG_RESERVED = 'Environment name "agg" is reserved for cross-env metric aggregation. Use a different name or id.'
NO_ENV = 'no env configured — set env = { taskset = { id = "<id>" } }'
EVAL_NEEDS_SOURCE = (
    "EvalConfig must define at least one source. Either drop the [orchestrator.eval] block entirely "
    "(to disable eval) or add a [[orchestrator.eval.source]] block."
)
DEFERRED_CODES = ("taskset-unknown", "source-agg", "source-no-env", "eval-no-source", "source-duplicate")


def taskset_module(taskset_id: str) -> str:
    """The module verifiers imports for a taskset id: ``owner/`` and ``@version`` stripped, ``-`` -> ``_``."""
    return taskset_id.rsplit("/", 1)[-1].split("@", 1)[0].replace("-", "_").lower()


def is_known_taskset(taskset_id: str) -> bool:
    return taskset_module(taskset_id) in {taskset_module(t) for t in KNOWN_TASKSETS}


def unknown_taskset_message(taskset_id: str) -> str:
    """verifiers' ``ModuleNotFoundError`` text for a taskset whose package is not installed."""
    return (
        f"taskset {taskset_id!r} not found (tried to import {taskset_module(taskset_id)!r}). A taskset is a package "
        "exporting its Taskset subclass via `__all__` — the built-in ones ship with verifiers in the "
        "`verifiers.v1.tasksets` package; any other package must already be installed."
    )


def _p(dotted: str) -> tuple[str | int, ...]:
    return tuple(int(x) if x.isdigit() else x for x in dotted.split("."))


def _err(code: str, msg: str, where: str, loc: tuple[Any, ...], detail: str = "") -> Finding:
    return Finding("error", code, msg, _p(where), "prime-rl", loc=loc, detail=detail)


def run(raw: Cfg, ctx: CheckContext) -> Iterator[Finding]:
    """Every rule, in prime-rl's order: the shared propagation, the orchestrator, then RLConfig's own."""
    from primetui.sft.kind import schema_input

    data, conflicts = propagate_shared_fields(schema_input(raw.raw))
    c = Cfg(data)
    # RLConfig's own validators run only on a config with both components (else "Field required" is all),
    # and its shared ones only once propagation succeeded: one cause, one error.
    whole = isinstance(data.get("trainer"), dict) and isinstance(data.get("orchestrator"), dict)
    if conflicts:
        yield _err("shared-conflict", conflict_message(conflicts), conflicts[0][1], ())
    if isinstance(data.get("orchestrator"), dict):
        yield from batching_rules(c)
        yield from renderer_rule(c)
    if isinstance(data.get("trainer"), dict):
        yield from trainer_rules(data["trainer"])
    if isinstance(data.get("inference"), dict):
        yield from inference_rules(c)
    if whole and not conflicts:
        yield from shared_rules(c, raw)
        yield from run_dir_rule(c)
    if whole:
        yield from broadcast_rules(c)
        yield from plumbing_rules(c)
    yield from deployment_rules(c, ctx)
    yield from source_rules(c, ctx)
    if ctx.hosted:
        yield from hosted_rules(raw, c)


def _int(c: Cfg, dotted: str) -> int | float | None:
    """A number as pydantic's lax mode reads it: ``true`` is 1 (a bool the schema let through)."""
    v = c.get(dotted)
    return int(v) if isinstance(v, bool) else c.num(dotted)


def batching_rules(c: Cfg) -> Iterator[Finding]:
    """OrchestratorConfig ``resolve_batching`` and ConcurrencyConfig ``validate_bounds``."""
    loc = ("orchestrator",)
    batch, tokens, group = (_int(c, f"orchestrator.{k}") for k in ("batch_size", "token_batch_size", "group_size"))
    if batch is not None and tokens is not None:
        yield _err(
            "batch-exclusive", "Set exactly one of batch_size or token_batch_size", "orchestrator.token_batch_size", loc
        )
        return
    if batch is None and tokens is None:
        batch = 128
    if isinstance(batch, int) and isinstance(group, int) and group > 0 and batch % group:
        lower, upper = batch - batch % group, batch - batch % group + group
        near = f"{lower} or {upper}" if lower else f"{upper}"
        where = "orchestrator.batch_size" if c.is_set("orchestrator.batch_size") else "orchestrator.group_size"
        yield _err(
            "batch-group",
            "Batch size must be divisible by the number of samples per problem",
            where,
            loc,
            f"batch_size {batch} is not a multiple of group_size {group} (the nearest are {near})",
        )
    for key in ("max_inflight", "initial_inflight"):
        value = _int(c, f"orchestrator.concurrency.{key}")
        if value is not None and isinstance(group, int) and value < group:
            yield _err(
                "inflight-group",
                f"concurrency.{key} must be at least the number of rollouts per example",
                f"orchestrator.concurrency.{key}",
                loc,
                f"{key} {value} < group_size {group}",
            )
    # each is >= 1 by the schema: a value that broke that is its own error, and prime-rl never gets here
    hi, lo, ini = (
        v if v is not None and v >= 1 else None
        for v in (
            _int(c, f"orchestrator.concurrency.{k}") for k in ("max_inflight", "min_inflight", "initial_inflight")
        )
    )
    bounds = ("orchestrator", "concurrency")
    if hi is not None and ini is not None and ini > hi:
        yield _err(
            "inflight-bounds",
            "concurrency.initial_inflight must not exceed concurrency.max_inflight",
            "orchestrator.concurrency.initial_inflight",
            bounds,
        )
    if hi is not None and lo is not None and lo > hi:
        yield _err(
            "inflight-bounds",
            "concurrency.min_inflight must not exceed concurrency.max_inflight",
            "orchestrator.concurrency.min_inflight",
            bounds,
        )


def trainer_rules(trainer: dict[str, Any]) -> Iterator[Finding]:
    """TrainerConfig's and its ModelConfig's validators: the SFT trainer's own (``rules_primerl``), one level down.

    The trainer table is read on its own, where its keys (``model``, ``optim``, ``scheduler``,
    ``max_steps``) are where an sft.toml has them, with the same classes and defaults.
    """
    from primetui.sft import rules_primerl

    t = Cfg(trainer)
    for finding, loc in [
        *((f, ("trainer", "model")) for f in rules_primerl.model_rules(t)),
        *((f, ("trainer",)) for f in rules_primerl.scheduler_rules(t)),
        *((f, ("trainer",)) for f in _trainer_own_rules(t)),
    ]:
        yield replace(finding, path=("trainer", *finding.path), loc=loc)


def _trainer_own_rules(t: Cfg) -> Iterator[Finding]:
    def err(code: str, msg: str, where: str) -> Finding:
        return Finding("error", code, msg, _p(where), "prime-rl")

    full = t.get("model.full_offload") not in (None, False)
    if full and (t.get("optim.type") or "adamw") not in ("adamw", "sign_sgd"):
        yield err("full-offload", "Full optimizer offload only supports AdamW and SignSGD", "model.full_offload")
    if t.has_table("model.vlm") and (
        t.get("model.optimization_dtype") != "bfloat16" or t.get("model.reduce_dtype") != "bfloat16"
    ):
        yield err(
            "vlm",
            "VLM models must use optimization_dtype='bfloat16' and reduce_dtype='bfloat16' to match vLLM inference.",
            "model.vlm",
        )
    if t.is_set("trace_path"):
        steps = t.num("max_steps")
        if steps is None:
            yield err("trace", "Must specify max_steps when tracing", "trace_path")
        elif steps >= 10:
            yield err(
                "trace",
                "Tracing more than 10 steps is not recommended as your trace will be massive. Remove this "
                "line if you really want to trace more steps.",
                "trace_path",
            )
    if t.get("optim.type") == "muon" and t.get("model.fsdp_cpu_offload") is True:
        yield err("muon-offload", "Muon optimizer does not support FSDP CPU offload", "model.fsdp_cpu_offload")
    if t.has_table("model.lora") and t.get("weight_broadcast.type") in ("nccl", "nixl"):
        yield err("lora-broadcast", "In-memory weight broadcast does not support LoRA yet.", "weight_broadcast.type")
    if t.get("model.ep") not in (1, "auto", None) and t.get("model.impl") not in ("custom", "auto"):
        yield err("ep-impl", "EP is only supported with the custom implementation or auto mode", "model.ep")
    if t.get("enable_router_replay") is True and t.get("model.impl") not in ("custom", "auto"):
        yield err(
            "ep-impl",
            "Router replay is only supported with the custom implementation or auto mode",
            "enable_router_replay",
        )


def inference_rules(c: Cfg) -> Iterator[Finding]:
    """InferenceConfig's own validators (configs/inference.py) with their texts; prime-rl's loc is ``inference``."""
    loc = ("inference",)
    rank = c.num("inference.vllm.max_lora_rank")
    if rank is not None and rank > 512:
        yield _err(
            "inference",
            f"max_lora_rank={rank} exceeds vLLM maximum of 512",
            "inference.vllm.max_lora_rank",
            ("inference", "vllm"),
        )
    offload = c.written("inference.kv_cache_offload")
    if isinstance(offload, dict) and not isinstance(offload.get("cpu"), dict):
        yield _err(
            "kv-offload",
            "inference.kv_cache_offload requires a cpu tier (disk-only offload is not supported).",
            "inference.kv_cache_offload",
            ("inference", "kv_cache_offload"),
        )
    deployment = c.get("inference.deployment.type") or "single_node"
    router = c.written("inference.router")
    router_on = router not in (None, "None")
    if deployment in ("multi_node", "disaggregated") and not c.has_table("inference.slurm"):
        yield _err(
            "slurm", "Must use SLURM for multi-node / disaggregated deployment.", "inference.deployment.type", loc
        )
    llmd = router_on and c.get("inference.router.type") == "llm-d"
    if llmd and c.get("inference.vllm.enable_return_routed_experts") is True:
        yield _err(
            "router-replay",
            "The llm-d router backend does not support routed-expert return "
            "(enable_return_routed_experts): it breaks P/D and is unverified for multi-node. Use router type "
            "'vllm-router' for routed-expert runs.",
            "inference.router.type",
            loc,
        )
    if llmd and deployment == "single_node":
        yield _err(
            "router",
            "The llm-d router backend requires a multi-node or disaggregated SLURM deployment.",
            "inference.router.type",
            loc,
        )
    if not router_on and deployment in ("multi_node", "disaggregated"):
        yield _err(
            "router",
            "Multi-node / disaggregated deployments require a router fronting the per-rank engines.",
            "inference.router",
            loc,
        )
    if isinstance(offload, dict) and c.get("inference.vllm.enable_prefix_caching") is False:
        yield _err(
            "kv-offload",
            "KV cache offloading requires inference.vllm.enable_prefix_caching to be true.",
            "inference.vllm.enable_prefix_caching",
            loc,
        )


def run_dir_rule(c: Cfg) -> Iterator[Finding]:
    """RLConfig ``auto_setup_run_dir``: a component's ``output_dir`` is derived (``output_dir / run.name``)."""
    base = str(c.get("output_dir") or "outputs").rstrip("/")
    name = c.get("run.name")
    run_dir = f"{base}/{name}" if isinstance(name, str) else f"{base}/<run.name>"
    for sub, cls in (("trainer", "TrainerConfig"), ("orchestrator", "OrchestratorConfig")):
        value = c.written(f"{sub}.output_dir")
        if isinstance(value, str) and value.rstrip("/") != run_dir:
            yield _err(
                "run-dir",
                f"{cls}.output_dir ({value}) conflicts with the run directory ({run_dir}). Under the rl "
                "entrypoint, sub-config output directories are derived from output_dir / run.name — set those "
                "instead.",
                f"{sub}.output_dir",
                (),
            )


def renderer_rule(c: Cfg) -> Iterator[Finding]:
    """OrchestratorConfig ``validate_renderer_auto_resolves``: "auto" must find the model in the map."""
    if (c.get("orchestrator.renderer.name") or "auto") != "auto":
        return
    model_id = c.str_("orchestrator.tokenizer.name") or c.str_("orchestrator.model.name")
    if model_id is None or model_id in MODEL_RENDERER_MAP:
        return
    msg = (
        f"orchestrator.renderer.name='auto' but {model_id!r} is not in renderers.base.MODEL_RENDERER_MAP, so it "
        "would silently fall back to DefaultRenderer. Pick one: (a) [orchestrator.renderer] name='default' — for "
        "fine-tunes / vendored mirrors with custom chat templates (DefaultRenderer calls apply_chat_template); set "
        "tool_parser=<name> if the env uses tools. (b) [orchestrator.renderer] name=<model-specific renderer> — "
        f"if {model_id!r} is template-identical to a mapped family (and ideally also add it upstream to "
        "renderers.base.MODEL_RENDERER_MAP)."
    )
    where = (
        "orchestrator.renderer"
        if c.has_table("orchestrator.renderer")
        else ("model.name" if c.is_set("model.name") else "orchestrator.model.name")
    )
    yield _err("renderer-auto", msg, where, ("orchestrator",))


def shared_rules(c: Cfg, raw: Cfg) -> Iterator[Finding]:
    """RLConfig ``validate_shared_configs`` (validation.py), after propagation."""
    t_len, o_len = c.num("trainer.model.seq_len"), c.num("orchestrator.seq_len")
    if t_len is not None and o_len is not None and t_len < o_len:
        yield _err(
            "seq-len",
            f"Trainer model seq_len ({t_len}) must be >= orchestrator seq_len ({o_len}). The trainer "
            "needs to be able to handle sequences at least as long as those produced by the orchestrator.",
            "trainer.model.seq_len" if raw.is_set("trainer.model.seq_len") else "orchestrator.seq_len",
            (),
        )
    t_steps, o_steps = c.get("trainer.max_steps"), c.get("orchestrator.max_steps")
    if t_steps != o_steps:
        yield _err(
            "max-steps",
            f"Trainer max steps ({t_steps}) and orchestrator max steps ({o_steps}) are not the same. "
            "Please specify the same max steps for both.",
            "orchestrator.max_steps" if raw.is_set("orchestrator.max_steps") else "trainer.max_steps",
            (),
        )
    yield from _ckpt_both_sides(c)
    t_ckpt, o_ckpt = c.get("trainer.ckpt.interval"), c.get("orchestrator.ckpt.interval")
    if c.has_table("trainer.ckpt") and c.has_table("orchestrator.ckpt") and t_ckpt != o_ckpt:
        yield _err(
            "ckpt-interval",
            f"Trainer checkpoint interval ({t_ckpt}) and orchestrator checkpoint interval ({o_ckpt}) "
            "are not the same. Please specify the same checkpoint interval for both.",
            "orchestrator.ckpt.interval" if raw.is_set("orchestrator.ckpt.interval") else "trainer.ckpt",
            (),
        )
    yield from _wandb_rules(c)
    yield from _model_name_rule(c)
    yield from _chat_template_rule(c)


def _chat_template_rule(c: Cfg) -> Iterator[Finding]:
    """``validate_shared_tokenizer``: one chat template for every component."""
    t, o = c.get("trainer.tokenizer.chat_template"), c.get("orchestrator.tokenizer.chat_template")
    if t != o:
        yield _err(
            "chat-template",
            f"Trainer chat_template ({t!r}) and orchestrator chat_template ({o!r}) do not match. "
            "Use the shared [tokenizer] config to set chat_template for both.",
            "orchestrator.tokenizer.chat_template" if o is not None else "trainer.tokenizer.chat_template",
            (),
        )
    elif c.has_table("inference") and (i := c.get("inference.vllm.chat_template")) != t:
        yield _err(
            "chat-template",
            f"Inference chat_template ({i!r}) does not match the shared tokenizer chat_template "
            f"({t!r}). Use the shared [tokenizer] config to set chat_template for all components.",
            "inference.vllm.chat_template",
            (),
        )


def _ckpt_both_sides(c: Cfg) -> Iterator[Finding]:
    trainer, orch = c.has_table("trainer.ckpt"), c.has_table("orchestrator.ckpt")
    if trainer and not orch:
        yield _err(
            "ckpt-both",
            "Trainer checkpoint config is specified, but orchestrator checkpoint config is not. Please "
            "setup checkpointing on both for checkpointing to work properly.",
            "trainer.ckpt",
            (),
        )
    elif orch and not trainer:
        yield _err(
            "ckpt-both",
            "Orchestrator checkpoint config is specified, but trainer checkpoint config is not. Please "
            "setup checkpointing on both for checkpointing to work properly.",
            "orchestrator.ckpt",
            (),
        )


def _wandb_rules(c: Cfg) -> Iterator[Finding]:
    trainer, orch = c.has_table("trainer.monitors.wandb"), c.has_table("orchestrator.monitors.wandb")
    if trainer and not orch:
        yield _err(
            "wandb-both",
            "Trainer W&B config is specified, but orchestrator W&B config is not. This means only "
            "trainer metrics will be logged. Please specify [orchestrator.monitors.wandb] to log orchestrator "
            "metrics as well, or use [monitors.wandb] to configure both at once.",
            "trainer.monitors.wandb",
            (),
        )
    elif orch and not trainer:
        yield _err(
            "wandb-both",
            "Orchestrator W&B config is specified, but trainer W&B config is not. This means only "
            "orchestrator metrics will be logged. Please specify [trainer.monitors.wandb] to log trainer metrics "
            "as well, or use [monitors.wandb] to configure both at once.",
            "orchestrator.monitors.wandb",
            (),
        )
    elif trainer and orch:
        tp, op = c.get("trainer.monitors.wandb.project"), c.get("orchestrator.monitors.wandb.project")
        if tp != op:
            yield _err(
                "wandb-project",
                f"Trainer W&B project ({tp}) and orchestrator W&B project ({op}) are not the "
                "same. Please specify the same W&B project for both.",
                "orchestrator.monitors.wandb.project",
                (),
            )


def _model_name_rule(c: Cfg) -> Iterator[Finding]:
    orch = c.str_("orchestrator.model.name")
    if c.has_table("inference"):
        vllm = c.written("inference.vllm.model")
        infer = vllm if isinstance(vllm, str) else "Qwen/Qwen3-0.6B"
        if orch is not None and infer != orch:
            yield _err(
                "model-name",
                f"Inference model name ({infer}) and orchestrator model name ({orch}) are not the "
                "same. The orchestrator queries the inference server and must use the same model name.",
                "inference.vllm.model" if isinstance(vllm, str) else "orchestrator.model.name",
                (),
            )
        return
    trainer = c.str_("trainer.model.name")
    if trainer is not None and orch is not None and not trainer.startswith("Jackmin108/") and trainer != orch:
        yield _err(
            "model-name",
            f"Trainer model name ({trainer}) and orchestrator model name ({orch}) are not the same. "
            "Please specify the same model name for both.",
            "orchestrator.model.name",
            (),
        )


def broadcast_rules(c: Cfg) -> Iterator[Finding]:
    """``validate_enough_devices_for_nccl`` and ``auto_setup_weight_broadcast``'s LoRA refusal."""
    single = (c.get("deployment.type") or "single_node") == "single_node"
    if single and c.get("trainer.weight_broadcast.type") == "nccl":
        a, b = c.num("deployment.num_train_gpus"), c.num("deployment.num_infer_gpus")
        if a is not None and b is not None and a + b < 2:
            yield _err(
                "nccl-gpus",
                "NCCL weight broadcast requires at least 2 GPUs to build the broadcast process group.",
                "trainer.weight_broadcast.type",
                (),
            )
    lora = c.has_table("trainer.model.lora")
    kind = c.get("weight_broadcast.type") if c.has_table("weight_broadcast") else None
    if lora and kind not in (None, "filesystem"):
        yield _err(
            "lora-broadcast",
            "LoRA training is not yet supported with in-memory weight broadcast. "
            "Set weight_broadcast.type = 'filesystem'.",
            "weight_broadcast.type",
            (),
        )


def plumbing_rules(c: Cfg) -> Iterator[Finding]:
    """RLConfig's rules on transports, LoRA, EPLB, router replay and KV offload (configs/rl.py), in its order."""
    t, o = c.get("trainer.rollout_transport.type") or "zmq", c.get("orchestrator.rollout_transport.type") or "zmq"
    if t != o:
        yield _err(
            "rollout-transport",
            f"trainer.rollout_transport.type ({t!r}) != orchestrator.rollout_transport.type "
            f"({o!r}); set the shared [rollout_transport] block or make both sub-configs the same type.",
            "orchestrator.rollout_transport.type",
            (),
        )
    shared = c.get("weight_broadcast.type") if c.has_table("weight_broadcast") else None
    quantize = shared == "nccl" and c.get("weight_broadcast.quantize_in_weight_transfer") is True
    if quantize and not c.has_table("inference"):
        yield _err(
            "quantize-transfer",
            "weight_broadcast.quantize_in_weight_transfer requires an inference config.",
            "weight_broadcast.quantize_in_weight_transfer",
            (),
        )
    elif quantize and c.get("trainer.model.impl") != "custom":
        yield _err(
            "quantize-transfer",
            "weight_broadcast.quantize_in_weight_transfer requires trainer.model.impl = 'custom'.",
            "weight_broadcast.quantize_in_weight_transfer",
            (),
        )
    yield from _lora_rules(c)
    inference = c.has_table("inference")
    if inference and c.get("inference.vllm.enable_eplb") is True and not quantize:
        yield _err(
            "eplb",
            "inference.vllm.enable_eplb requires weight_broadcast.type = 'nccl' and "
            "weight_broadcast.quantize_in_weight_transfer = true.",
            "inference.vllm.enable_eplb",
            (),
        )
    replay = c.get("trainer.enable_router_replay") is True
    explicit = c.get("inference.vllm.enable_return_routed_experts") is True  # InferenceConfig's own rule says it then
    if (
        inference
        and replay
        and not explicit
        and c.get("inference.router.type") == "llm-d"
        and c.written("inference.router") not in (None, "None")
    ):
        yield _err(
            "router-replay",
            "The llm-d router backend does not support routed-expert return "
            "(inference.vllm.enable_return_routed_experts / trainer.enable_router_replay): it breaks P/D and is "
            "unverified for multi-node. Use router type 'vllm-router' for router-replay runs.",
            "inference.router.type",
            (),
        )
    offload = c.written("inference.kv_cache_offload")
    if inference and isinstance(offload, dict):
        if replay:
            yield _err(
                "router-replay",
                "Router replay with inference.kv_cache_offload is not supported. External KV "
                "cache hits do not carry routed-expert decisions.",
                "inference.kv_cache_offload",
                (),
            )
        if offload.get("type") == "mooncake" and not c.has_table("slurm"):
            yield _err(
                "kv-offload",
                "Mooncake KV offload requires SLURM — the per-node store is launched by the sbatch "
                "template. Use inference.kv_cache_offload.type='native' for local runs.",
                "inference.kv_cache_offload",
                (),
            )


def _lora_rules(c: Cfg) -> Iterator[Finding]:
    """``auto_setup_lora``: the orchestrator's adapter rank and alpha follow the trainer's."""
    if not c.has_table("trainer.model.lora"):
        return
    for key in ("rank", "alpha"):
        mine, theirs = c.get(f"trainer.model.lora.{key}"), c.written(f"orchestrator.model.lora.{key}")
        if theirs not in (Cfg.MISSING, None, "None") and theirs != mine:
            yield _err(
                "lora-orchestrator",
                f"orchestrator.model.lora.{key} ({theirs}) conflicts with trainer.model.lora."
                f"{key} ({mine}). Remove orchestrator.model.lora.{key} to inherit from trainer, or update "
                f"trainer.model.lora.{key} to match.",
                f"orchestrator.model.lora.{key}",
                (),
            )


def deployment_rules(c: Cfg, ctx: CheckContext) -> Iterator[Finding]:
    if (c.get("deployment.type") or "single_node") == "single_node":
        a, b, g = (_int(c, f"deployment.{k}") for k in ("num_train_gpus", "num_infer_gpus", "gpus_per_node"))
        if a is not None and b is not None and g is not None and a + b > g:
            yield _err(
                "gpu-budget",
                f"Total GPU count ({a + b} = {a} train + {b} infer) exceeds gpus_per_node ({g}).",
                "deployment",
                ("deployment", "single_node"),
            )
        return
    if not ctx.hosted and not c.has_table("slurm"):  # the hosted platform launches multi-node runs itself
        yield _err("slurm", "Must use SLURM for multi-node deployment.", "deployment.type", ())
    infer_nodes = c.num("deployment.num_infer_nodes")
    if infer_nodes is None:
        infer_nodes = 0 if not c.has_table("inference") else 1
    if infer_nodes > 0 and not c.has_table("inference"):
        yield _err(
            "multi-node",
            "Must configure inference when using multi-node deployment with inference nodes.",
            "deployment.num_infer_nodes",
            (),
        )
    if infer_nodes == 0 and c.has_table("inference"):
        yield _err(
            "multi-node",
            "Cannot configure inference with num_infer_nodes = 0. Either set num_infer_nodes > 0 or "
            "remove the inference config.",
            "inference",
            (),
        )
    if c.has_table("inference") and c.written("inference.router") in (None, "None"):  # the default is vllm-router
        yield _err(
            "multi-node-router",
            "Multi-node deployments require inference.router to front the per-rank engines.",
            "inference",
            (),
        )
    nodes, group = c.num("deployment.num_train_nodes"), c.num("deployment.nodes_per_fsdp_group")
    if isinstance(nodes, int) and isinstance(group, int) and group > 0 and nodes % group:
        yield _err(
            "fsdp-group",
            f"deployment.num_train_nodes ({nodes}) must be divisible by deployment.nodes_per_fsdp_group ({group})",
            "deployment.nodes_per_fsdp_group",
            (),
        )


def _sources(c: Cfg, split: str) -> list[tuple[int, dict[str, Any]]]:
    found = c.written(f"orchestrator.{split}.source")
    return [(i, s) for i, s in enumerate(found) if isinstance(s, dict)] if isinstance(found, list) else []


def _taskset_id(source: dict[str, Any]) -> Any:
    env = source.get("env")
    taskset = env.get("taskset") if isinstance(env, dict) else None
    if isinstance(taskset, dict) and isinstance(taskset.get("id"), str):
        return taskset["id"]
    return env.get("id") if isinstance(env, dict) else None


def source_rules(c: Cfg, ctx: CheckContext) -> Iterator[Finding]:
    """What ``prime train`` leaves to the platform: an error at dispatch, a warning in the editor."""
    level: Level = "error" if ctx.at_dispatch else "warning"
    train = _sources(c, "train")
    if not train and not _written_list(c, "orchestrator.train.source"):
        yield Finding(
            "warning",
            "no-train-source",
            "No [[orchestrator.train.source]]: the run has no environment to "
            'train on — add one (taskset id "reverse-text" runs locally).',
            ("orchestrator",),
            "review",
        )
    for split in ("train", "eval"):
        names: dict[str, int] = {}
        for i, source in _sources(c, split):
            yield from _source_findings(split, i, source, level)
            name = source.get("name") or _taskset_id(source)
            if isinstance(name, str):
                names[name] = names.get(name, 0) + 1
        dups = {n for n, k in names.items() if k > 1}
        if dups:
            what = "training" if split == "train" else "evaluation"
            yield replace(
                _err(
                    "source-duplicate",
                    f"Duplicate {what} environment names: {dups}. Each env must have a unique name.",
                    f"orchestrator.{split}.source",
                    ("orchestrator", split),
                ),
                level=level,
            )
    if c.has_table("orchestrator.eval") and not _sources(c, "eval"):
        yield replace(
            _err("eval-no-source", EVAL_NEEDS_SOURCE, "orchestrator.eval", ("orchestrator", "eval")), level=level
        )


def _written_list(c: Cfg, dotted: str) -> bool:
    return isinstance(c.written(dotted), list) and bool(c.written(dotted))


def _source_findings(split: str, i: int, source: dict[str, Any], level: Level) -> Iterator[Finding]:
    where = f"orchestrator.{split}.source.{i}"
    loc = ("orchestrator", split, "source", i)
    taskset = _taskset_id(source)
    if not taskset:
        yield replace(_err("source-no-env", NO_ENV, where, loc), level=level)
        return
    if (source.get("name") or taskset) == "agg":
        yield replace(
            _err("source-agg", AGG_RESERVED, f"{where}.name" if source.get("name") else where, loc), level=level
        )
    if isinstance(taskset, str) and not is_known_taskset(taskset):
        # verifiers raises it outside pydantic (a ModuleNotFoundError), so it names no field
        yield replace(
            _err("taskset-unknown", unknown_taskset_message(taskset), f"{where}.env.taskset.id", ()),
            level=level,
            source="platform",
        )


def hosted_rules(raw: Cfg, c: Cfg) -> Iterator[Finding]:
    """``prime train``'s refusals of what a hosted RL run cannot do, in the CLI's order."""
    if "k8s" in raw.raw:
        yield Finding("error", "hosted-k8s", K8S_UNSUPPORTED, ("k8s",), "platform", True, loc=())
        return
    if c.get("clean") is True:
        yield Finding("error", "hosted-clean", CLEAN_UNSUPPORTED, ("clean",), "platform", loc=())
        return
    if c.get("inference.deployment.type") == "disaggregated" and c.has_table("inference"):
        yield Finding(
            "error",
            "hosted-disaggregated",
            DISAGGREGATED_UNSUPPORTED,
            ("inference", "deployment", "type"),
            "platform",
            loc=(),
        )
        return
    single = (c.get("deployment.type") or "single_node") == "single_node"
    trainer_only = single and (not c.has_table("inference") or c.num("deployment.num_infer_gpus") == 0)
    if trainer_only and not c.has_table("trainer.data.fake"):
        where = ("deployment", "num_infer_gpus") if raw.is_set("deployment.num_infer_gpus") else ()
        yield Finding(
            "error", "hosted-inference-gpus", NEEDS_INFERENCE_GPUS, where or _first_table(raw), "platform", loc=()
        )


def _first_table(raw: Cfg) -> tuple[str, ...]:
    return ("orchestrator",) if "orchestrator" in raw.raw else ("trainer",)
