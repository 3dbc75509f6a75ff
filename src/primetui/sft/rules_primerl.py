"""prime-rl's own validators (prime-rl-sft-schema.md §3) with their exact texts.

prime-rl stops at the first root-level failure; these report every one at once, each on the field
it is about. Values come from ``Cfg`` (written, else default), so a rule still runs while another
field has a type error; a rule whose inputs have the wrong type stays silent.
"""

from __future__ import annotations

import re
from dataclasses import replace
from collections.abc import Iterator

from primetui.sft.cfg import Cfg, Finding
from primetui.sft.context import CheckContext
from primetui.sft.renderers import MODEL_RENDERER_MAP

PROTECTED_ENV = (
    "CUDA_VISIBLE_DEVICES",
    "PRL_RUN_ID",
    "PRL_RUN_NAME",
    "WANDB_RUN_ID",
    "WANDB_SHARED_MODE",
    "WANDB_SHARED_LABEL",
    "WANDB_SHARED_PRIMARY",
    "WANDB_SHARED_FINISHER",
)


def _p(dotted: str) -> tuple[str, ...]:
    return tuple(dotted.split("."))


def _err(code: str, msg: str, where: str, on_key: bool = False) -> Finding:
    return Finding("error", code, msg, _p(where), "prime-rl", on_key)


def _warn(code: str, msg: str, where: str) -> Finding:
    return Finding("warning", code, msg, _p(where), "prime-rl")


def data_rules(c: Cfg, prefix: str = "data") -> Iterator[Finding]:
    bs, mbs = c.num(f"{prefix}.batch_size"), c.num(f"{prefix}.micro_batch_size")
    # prime-rl's second check, "Batch size must be greater than or equal to micro batch size", cannot fail
    # here: a multiple of micro_batch_size (>= 1) below it is 0 or less, which the schema's ge=1 refuses first.
    if isinstance(bs, int) and isinstance(mbs, int) and mbs > 0 and bs % mbs != 0:
        lower, upper = bs - bs % mbs, bs - bs % mbs + mbs
        near = f"{lower} or {upper}" if lower else f"{upper}"
        yield replace(
            _err("batch-divisible", "Batch size must be divisible by micro batch size", f"{prefix}.batch_size"),
            detail=f"batch_size {bs} is not a multiple of micro_batch_size {mbs} (the nearest are {near})",
        )
    if (c.get(f"{prefix}.type") or "sft") != "sft":
        return
    subsets, splits, probs = c.get(f"{prefix}.subsets"), c.get(f"{prefix}.splits"), c.get(f"{prefix}.probabilities")
    if isinstance(subsets, list) and isinstance(splits, list) and len(subsets) != len(splits):
        yield _err(
            "data-lengths",
            "Number of subsets must be equal to number of splits. Please specify which split to load for each subset.",
            f"{prefix}.splits",
        )
    if isinstance(probs, list):
        if isinstance(subsets, list) and len(probs) != len(subsets):
            yield _err(
                "data-lengths",
                "Number of probabilities must be equal to number of subsets. Please specify a probability for each "
                "subset.",
                f"{prefix}.probabilities",
            )
        elif isinstance(splits, list) and len(probs) != len(splits):
            yield _err(
                "data-lengths",
                "Number of probabilities must be equal to number of splits. Please specify a probability for each "
                "split.",
                f"{prefix}.probabilities",
            )


def model_rules(c: Cfg) -> Iterator[Finding]:
    impl = c.get("model.impl")
    custom_or_auto = impl in ("custom", "auto")
    if c.get("model.trust_remote_code") is True and impl not in ("hf", "auto"):
        yield _err(
            "model-impl",
            "Trust remote code is only supported with the HF implementation or auto mode.",
            "model.trust_remote_code",
        )
    vlm = c.has_table("model.vlm")
    cp = c.num("model.cp") or 1
    if vlm and impl != "custom":
        yield _err(
            "model-impl",
            "VLM training requires model.impl='custom'",
            "model.impl" if c.is_set("model.impl") else "model.vlm",
        )
    if vlm and cp > 1 and c.get("model.cp_style") != "ulysses":
        yield _err(
            "model-cp",
            "VLM models require cp_style='ulysses' for context parallelism",
            "model.cp_style" if c.is_set("model.cp_style") else "model.cp",
        )
    if cp > 1 and not custom_or_auto:
        yield _err(
            "model-cp",
            "Context parallelism requires model.impl='custom' or 'auto' (resolved to a custom PrimeRL implementation)",
            "model.cp",
        )
    if c.get("model.ac") is not None:  # on by default; `ac = "None"` turns it off
        if c.get("model.ac.mode") == "selective":
            if not custom_or_auto:
                yield _err(
                    "model-ac",
                    "Selective activation checkpointing requires model.impl='custom' or 'auto'",
                    "model.ac.mode",
                )
            targets = c.get("model.ac.targets")
            if isinstance(targets, list) and not targets:
                yield _err(
                    "model-ac", "Selective activation checkpointing requires at least one target.", "model.ac.targets"
                )
    full = c.get("model.full_offload") not in (None, False)
    optim_off = c.get("model.optim_cpu_offload") is True
    if c.get("model.fsdp_cpu_offload") is True and (optim_off or full):
        yield _err(
            "model-offload", "Cannot combine fsdp_cpu_offload with optimizer CPU offloading.", "model.fsdp_cpu_offload"
        )
    if optim_off and full:
        yield _err(
            "model-offload",
            "Cannot enable both optim_cpu_offload and full_offload. Set optim_cpu_offload=false when enabling full "
            "optimizer offload.",
            "model.full_offload",
        )
    # only for a valid impl: a misspelt one ("HF") is its own error, and prime-rl would stop there
    if c.get("model.attn") in ("flash_attention_4", "auto") and not custom_or_auto and impl == "hf":
        yield _err(
            "model-attn",
            "Flash attention 4 is only supported with model.impl='custom' or 'auto'",
            "model.attn" if c.is_set("model.attn") else "model.impl",
        )
    q = c.get("model.quantization")
    if isinstance(q, dict) and not custom_or_auto and q.get("type") in ("fp8", "mxfp8"):
        yield _err(
            "model-quant",
            f"{q['type']} training is only supported with model.impl='custom' or 'auto'.",
            "model.quantization",
        )
    ep = c.get("model.ep")
    if c.get("model.ep_comm_backend") == "deepep" and isinstance(ep, int) and not isinstance(ep, bool) and ep <= 1:
        yield _err("model-ep", "model.ep_comm_backend='deepep' requires model.ep > 1.", "model.ep_comm_backend")
    if isinstance(q, dict) and q.get("type") == "mxfp8" and c.get("model.ep_comm_backend") != "torch":
        yield _err("model-quant", "MXFP8 quantization requires model.ep_comm_backend='torch'.", "model.ep_comm_backend")


def _resume_past_max(c: Cfg, step: object, d: object) -> Iterator[Finding]:
    """A resume at or past ``max_steps`` completes at once, without a step trained: say so before dispatch."""
    if isinstance(d, str):
        step = int(d.rstrip("/").rsplit("/", 1)[-1].removeprefix("step_"))
    max_steps = c.get("max_steps")
    if (
        not isinstance(step, int)
        or isinstance(step, bool)
        or not isinstance(max_steps, int)
        or isinstance(max_steps, bool)
    ):
        return
    if step >= max_steps:
        yield _warn(
            "resume-past-max",
            f"the run resumes from step {step} but max_steps is {max_steps}: it would complete "
            f"without training a step — raise max_steps past {step}.",
            "max_steps",
        )


def misc_submodel_rules(c: Cfg) -> Iterator[Finding]:
    if c.has_table("resume"):
        step, d = c.get("resume.step"), c.get("resume.dir")
        if step is not None and d is not None:
            yield _err(
                "resume",
                "resume.step and resume.dir are mutually exclusive — the step is taken from the directory name",
                "resume.dir",
            )
        elif isinstance(d, str) and not re.fullmatch(r"step_\d+", d.rstrip("/").rsplit("/", 1)[-1]):
            yield _err(
                "resume",
                f"resume.dir must point at a checkpoint step directory (`.../step_<N>`), got '{d}'",
                "resume.dir",
            )
        else:
            yield from _resume_past_max(c, step, d)
    for table in ("env_vars", "inference.env_vars"):
        ev = c.get(table)
        if isinstance(ev, dict):
            bad = [k for k in ev if k in PROTECTED_ENV]
            if bad:
                yield Finding(
                    "error",
                    "env-protected",
                    f"env_vars cannot set launcher-managed vars {bad} — set by the launcher, not overridable",
                    _p(table) + (bad[0],),
                    "prime-rl",
                    True,
                )
    if c.has_table("eval"):
        sources = c.get("eval.source")
        if isinstance(sources, dict):
            pass  # [eval.source] with single brackets: the schema error on it says so, one error for one cause
        elif not isinstance(sources, list) or not sources:
            yield _err(
                "eval-source",
                "EvalConfig must define at least one source: add an [[eval.source]] table (name, env), or drop the "
                "[eval] table to turn evaluation off.",
                "eval",
            )
        else:
            names: dict[str, int] = {}
            for i, s in enumerate(sources):
                if not isinstance(s, dict):
                    continue
                env = s.get("env")
                has_id = isinstance(env, dict) and (
                    isinstance(env.get("taskset"), dict) and env["taskset"].get("id") or env.get("id")
                )
                if not has_id:
                    yield Finding(
                        "error",
                        "eval-source",
                        'no env configured — set env = { taskset = { id = "<id>" } }',
                        ("eval", "source", i, "env") if isinstance(env, dict) else ("eval", "source", i),
                        "prime-rl",
                    )
                name = s.get("name") or (
                    env.get("taskset", {}).get("id")
                    if isinstance(env, dict) and isinstance(env.get("taskset"), dict)
                    else None
                )
                if s.get("name") == "agg":
                    yield Finding(
                        "error",
                        "eval-source",
                        'Environment name "agg" is reserved for cross-env metric aggregation. Use a different name '
                        "or id.",
                        ("eval", "source", i, "name"),
                        "prime-rl",
                    )
                if isinstance(name, str):
                    names[name] = names.get(name, 0) + 1
            dups = {n for n, k in names.items() if k > 1}
            if dups:
                yield _err(
                    "eval-source",
                    f"Duplicate evaluation environment names: {dups}. Each env must have a unique name.",
                    "eval.source",
                )
        lo, hi, ini = (
            c.num("eval.concurrency.min_inflight"),
            c.num("eval.concurrency.max_inflight"),
            c.num("eval.concurrency.initial_inflight"),
        )
        if hi is not None and ini is not None and ini > hi:
            yield _err(
                "eval-concurrency",
                "concurrency.initial_inflight must not exceed concurrency.max_inflight",
                "eval.concurrency.initial_inflight",
            )
        if hi is not None and lo is not None and lo > hi:
            yield _err(
                "eval-concurrency",
                "concurrency.min_inflight must not exceed concurrency.max_inflight",
                "eval.concurrency.min_inflight",
            )
    if c.has_table("inference"):
        rank = c.num("inference.vllm.max_lora_rank")
        if rank is not None and rank > 512:
            yield _err("inference", f"max_lora_rank={rank} exceeds vLLM maximum of 512", "inference.vllm.max_lora_rank")
        kv = c.get("inference.kv_cache_offload")
        if isinstance(kv, dict):
            if c.get("inference.vllm.enable_prefix_caching") is not True:
                yield _err(
                    "inference",
                    "KV cache offloading requires inference.vllm.enable_prefix_caching to be true.",
                    "inference.kv_cache_offload",
                )
            if not isinstance(kv.get("cpu"), dict):
                yield _err(
                    "inference",
                    "inference.kv_cache_offload requires a cpu tier (disk-only offload is not supported).",
                    "inference.kv_cache_offload",
                )


def deployment_rules(c: Cfg) -> Iterator[Finding]:
    if c.get("deployment.type") == "multi_node":
        dep = c.written("deployment")
        for key in ("num_train_gpus", "num_infer_gpus"):
            if isinstance(dep, dict) and key in dep:
                yield Finding(
                    "hint",
                    "ignored-multi-node",
                    f"deployment.{key} is dropped on multi_node (prime-rl uses num_train_nodes × gpus_per_node) — "
                    f"remove it.",
                    ("deployment", key),
                    "prime-rl",
                    True,
                )
    if (c.get("deployment.type") or "single_node") == "single_node":
        n, g = c.num("deployment.num_train_gpus"), c.num("deployment.gpus_per_node")
        if n is not None and g is not None and n > g:
            yield _err("gpu-budget", f"num_train_gpus ({n}) exceeds gpus_per_node ({g}).", "deployment.num_train_gpus")


def root_rules(c: Cfg, ctx: CheckContext) -> Iterator[Finding]:
    """SFTConfig after-validators (§3.1), in prime-rl's order."""
    optim_type = c.get("optim.type") or "adamw"
    full = c.get("model.full_offload") not in (None, False)
    if c.get("model.ep_comm_backend") == "deepep" and c.get("optim.max_norm") is not None:
        yield _warn(
            "clipping-off",
            "Gradient clipping is not compatible with DeepEP. Automatically setting optim.max_norm to None (disabled).",
            "model.ep_comm_backend",
        )
    if full and optim_type not in ("adamw", "sign_sgd"):
        yield _err(
            "full-offload",
            "Full optimizer offload only supports AdamW and SignSGD",
            "optim.type",  # an unset optim.type is adamw, which passes
        )
    if full and c.get("optim.max_norm") is not None:
        yield _warn(
            "clipping-off",
            "Gradient clipping prevents optimizer-in-backward overlap with CPU optimizer offload. Automatically "
            "setting optim.max_norm to None (disabled).",
            "model.full_offload",
        )
    multi = c.get("deployment.type") == "multi_node"
    if multi and not ctx.hosted and not c.has_table("slurm"):
        yield _err("slurm", "Must use SLURM for multi-node deployment.", "deployment.type")
    yield from online_eval_rules(c, ctx)
    yield from typed_renderer_rule(c)
    cp = c.num("model.cp") or 1
    if isinstance(cp, int) and cp > 1:
        for prefix, label in (("data", ""), ("val.data", "Validation ")):
            if prefix == "val.data" and not c.has_table("val"):
                continue
            sl, mbs = c.num(f"{prefix}.seq_len"), c.num(f"{prefix}.micro_batch_size")
            if sl is not None and sl % cp != 0:
                yield _err(
                    "cp",
                    "Validation sequence length must be divisible by CP degree"
                    if label
                    else "Sequence length must be divisible by CP degree",
                    f"{prefix}.seq_len",
                )
            if mbs is not None and mbs != 1:
                yield _err(
                    "cp",
                    "Validation micro batch size must be 1 when CP is enabled"
                    if label
                    else "Micro batch size must be 1 when CP is enabled",
                    f"{prefix}.micro_batch_size",
                )
    if c.has_table("model.vlm"):
        vlm = c.get("model.vlm")
        if isinstance(vlm, dict) and vlm.get("freeze_vision_encoder") is False and c.has_table("model.lora"):
            yield _err(
                "vlm",
                "freeze_vision_encoder=false is incompatible with LoRA. LoRA freezes all non-adapter parameters "
                "including the vision encoder.",
                "model.vlm.freeze_vision_encoder",
            )
        if c.get("model.optimization_dtype") != "bfloat16" or c.get("model.reduce_dtype") != "bfloat16":
            yield _err(
                "vlm",
                "VLM models must use optimization_dtype='bfloat16' and reduce_dtype='bfloat16' to match vLLM "
                "inference.",
                "model.vlm",
            )
        if c.num("data.micro_batch_size") not in (None, 1):
            yield _err("vlm", "VLM SFT requires data.micro_batch_size = 1.", "data.micro_batch_size")
        if c.has_table("val") and c.num("val.data.micro_batch_size") not in (None, 1):
            yield _err("vlm", "VLM SFT requires val.data.micro_batch_size = 1.", "val.data.micro_batch_size")
    max_steps = c.num("max_steps")
    if c.is_set("trace_path"):
        if max_steps is None:
            yield _err("trace", "Must specify max_steps when tracing", "trace_path")
        elif max_steps >= 10:
            yield _err(
                "trace",
                "Tracing more than 10 steps is not recommended as your trace will be massive. Remove this line if "
                "you really want to trace more steps.",
                "trace_path",
            )
    yield from scheduler_rules(c)
    if optim_type == "muon" and c.get("model.fsdp_cpu_offload") is True:
        yield _err("muon-offload", "Muon optimizer does not support FSDP CPU offload", "model.fsdp_cpu_offload")
    ep = c.get("model.ep")
    if ep not in (1, "auto", None) and c.get("model.impl") not in ("custom", "auto"):
        yield _err("ep-impl", "EP is only supported with the custom implementation or auto mode", "model.ep")
    if multi:
        n, g = c.num("deployment.num_train_nodes"), c.num("deployment.nodes_per_fsdp_group")
        if n is not None and g and n % g != 0:
            yield _err(
                "fsdp-group",
                f"deployment.num_train_nodes ({n}) must be divisible by deployment.nodes_per_fsdp_group ({g})",
                "deployment.nodes_per_fsdp_group",
            )
    if c.get("weight_broadcast.type") == "nccl" and c.has_table("weight_broadcast") and not c.has_table("inference"):
        yield _err(
            "nccl",
            "NCCL weight broadcast requires launcher-managed inference. Add an [inference] block or set "
            "weight_broadcast.type = 'filesystem'.",
            "weight_broadcast.type",
        )


def _shown(c: Cfg, dotted: str, v: int | float | None) -> str:
    """A value for a message: as written, or marked as prime-rl's default when the user did not write it."""
    return str(v) if c.is_set(dotted) else f"{v}, the default"


def scheduler_rules(c: Cfg) -> Iterator[Finding]:
    kind = c.get("scheduler.type") or "constant"
    max_steps = c.num("max_steps")
    w, d = c.num("scheduler.warmup_steps"), c.num("scheduler.decay_steps")
    where_w = "scheduler.warmup_steps" if c.is_set("scheduler.warmup_steps") else "scheduler.type"
    ws, ds = _shown(c, "scheduler.warmup_steps", w), _shown(c, "scheduler.decay_steps", d)
    if kind == "linear" and w is not None and d is not None:
        if w == 0 and d == 0:
            yield _err(
                "scheduler",
                "Linear scheduler requires warmup_steps > 0 or decay_steps > 0 (use the constant scheduler instead)",
                "scheduler.type",
            )
        elif d > 0 and max_steps is None:
            yield _err(
                "scheduler",
                "Must specify max_steps when using a linear scheduler with decay_steps > 0",
                "scheduler.decay_steps" if c.is_set("scheduler.decay_steps") else "scheduler.type",
            )
        elif max_steps is not None and d > 0 and w + d > max_steps:
            yield _err(
                "scheduler",
                f"warmup_steps ({ws}) + decay_steps ({ds}) must not exceed max_steps ({max_steps})",
                where_w,
            )
    elif kind == "cosine":
        if max_steps is None:
            yield _err("scheduler", "Must specify max_steps when using a cosine scheduler", "scheduler.type")
        elif w is not None and w >= max_steps:
            yield _err("scheduler", f"warmup_steps ({ws}) must be less than max_steps ({max_steps})", where_w)


def typed_renderer_rule(c: Cfg) -> Iterator[Finding]:
    if c.get("data.type") == "fake" and not c.has_table("val"):
        return
    if c.has_table("renderer") and not c.is_set("renderer.name"):
        return  # the [renderer] table itself fails (missing-type says what to add); prime-rl stops there
    name = c.get("renderer.name") if c.has_table("renderer") else "auto"
    model_id = c.str_("tokenizer.name") or c.str_("model.name")
    tail = (
        " Implement and register the renderer in the renderers package, or explicitly select an existing "
        "typed renderer only when its template is verified to match."
    )
    where = "renderer.name" if c.is_set("renderer.name") else ("model.name" if c.is_set("model.name") else "model")
    if name == "auto" and model_id is not None and model_id not in MODEL_RENDERER_MAP:
        yield _err(
            "typed-renderer",
            f"SFT requires a typed renderer with sampled-token and content attribution, but no typed renderer is "
            f"registered for '{model_id}'.{tail}",
            where,
        )
    elif name == "default":
        yield _err(
            "typed-renderer",
            f"SFT requires a typed renderer with sampled-token and content attribution, but renderer.name='default' "
            f"selects DefaultRenderer.{tail}",
            "renderer.name",
        )


def online_eval_rules(c: Cfg, ctx: CheckContext) -> Iterator[Finding]:
    """auto_setup_online_eval (§3.2)."""
    has_eval, has_inf = c.has_table("eval"), c.has_table("inference")
    if not has_eval:
        if has_inf:
            yield Finding(
                "error",
                "inference-without-eval",
                "[inference] is only used for online evals — add an [eval] block or remove it.",
                ("inference",),
                "prime-rl",
            )
        return
    lora = c.has_table("model.lora")
    if lora and not has_inf:
        yield _warn("lora-no-inference", "LoRA is enabled, but inference is not configured.", "model.lora")
    wb = c.get("weight_broadcast.type") if c.has_table("weight_broadcast") else None
    transport = wb or ("filesystem" if lora or not has_inf else "nccl")
    # nixl and in-memory LoRA are only reachable with weight_broadcast.type written: the errors name it
    if transport != "filesystem":
        if transport == "nixl":
            yield _err(
                "weight-broadcast",
                "NIXL weight broadcast is not supported for SFT online evals.",
                "weight_broadcast.type",
            )
        elif lora:
            yield _err(
                "weight-broadcast",
                "LoRA training is not yet supported with in-memory weight broadcast. Set weight_broadcast.type = "
                "'filesystem'.",
                "weight_broadcast.type",
            )
        elif c.get("eval.retrigger_on_resume") is True:
            yield _err(
                "weight-broadcast",
                "eval.retrigger_on_resume requires weight_broadcast.type = 'filesystem'.",
                "eval.retrigger_on_resume",
            )
    model_name = c.str_("model.name")
    vllm_model = c.written("inference.vllm.model")
    mismatch = isinstance(vllm_model, str) and model_name is not None and vllm_model != model_name
    if c.get("deployment.type") == "multi_node":
        if not has_inf:
            yield _err(
                "multi-node-eval",
                "Multi-node online evals require an [inference] block - the launcher submits a dedicated SLURM job "
                "running the inference pool and the evals process.",
                "eval",
            )
            return
        ni = c.num("deployment.num_infer_nodes")
        if ni is not None and ni < 1:
            yield _err(
                "multi-node-eval",
                "Online evals on a multi-node deployment require deployment.num_infer_nodes >= 1.",
                "deployment.num_infer_nodes",  # None unless written
            )
        if c.written("inference.router") == "None":
            yield _err(
                "multi-node-eval",
                "Multi-node online evals require an inference router - the eval job starts one router in front of "
                "the per-rank engines. Remove inference.router = 'None'.",
                "inference.router",
            )
        if mismatch:
            yield _err(
                "vllm-model",
                f"inference.vllm.model ({vllm_model}) does not match model.name ({model_name}). Remove "
                f"inference.vllm.model to inherit it.",
                "inference.vllm.model",
            )
        g, tp = c.num("deployment.gpus_per_node"), c.num("inference.vllm.tensor_parallel_size")
        if g is not None and tp and g % tp != 0:
            yield _err(
                "tp",
                f"deployment.gpus_per_node ({g}) must be divisible by inference.vllm.tensor_parallel_size ({tp}).",
                "inference.vllm.tensor_parallel_size",
            )
        if c.num("max_steps") is None:
            yield _warn("eval-no-max-steps", "Online evals without max_steps: the eval job has no natural end.", "eval")
        return
    if not has_inf:
        if not ctx.hosted:
            yield _warn(
                "eval-no-inference",
                "Online evals are configured without an [inference] block - the launcher will not start an inference "
                "server. Make sure one is running at eval.client.base_url.",
                "eval",
            )
        return
    a, b, g = c.num("deployment.num_train_gpus"), c.num("deployment.num_infer_gpus"), c.num("deployment.gpus_per_node")
    if a is not None and b is not None and g is not None and a + b > g:
        yield _err(
            "gpu-budget",
            gpu_budget_text(a, b, g),
            "deployment.num_infer_gpus"
            if c.is_set("deployment.num_infer_gpus")
            else "deployment.gpus_per_node"
            if c.is_set("deployment.gpus_per_node")
            else "deployment",
        )
    if mismatch:
        yield _err(
            "vllm-model",
            f"inference.vllm.model ({vllm_model}) does not match model.name ({model_name}). Remove "
            f"inference.vllm.model to inherit it.",
            "inference.vllm.model",
        )
    tp = c.num("inference.vllm.tensor_parallel_size")
    if b is not None and tp and b % tp != 0:
        yield _err(
            "tp",
            f"deployment.num_infer_gpus ({b}) must be divisible by inference.vllm.tensor_parallel_size ({tp}).",
            "inference.vllm.tensor_parallel_size",
        )
    base = c.get("eval.client.base_url")
    port = c.num("inference.server.port")
    if c.is_set("eval.client.base_url") and isinstance(base, str) and port is not None:
        m = re.match(r"^[a-z]+://[^/:]+:(\d+)", base)
        if m and int(m.group(1)) != port:
            yield _err(
                "eval-port",
                f"eval.client.base_url port ({m.group(1)}) does not match inference.server.port ({port}).",
                "eval.client.base_url",
            )


def gpu_budget_text(train: float, infer: float, per_node: float) -> str:
    return f"Total GPU count ({train + infer} = {train} train + {infer} infer) exceeds gpus_per_node ({per_node})."


def runtime_rules(c: Cfg) -> Iterator[Finding]:
    """Checks prime-rl only makes once the trainer starts (§3.4): a warning now beats a crash later."""
    multi = c.get("deployment.type") == "multi_node"
    if multi:
        n, g = c.num("deployment.num_train_nodes"), c.num("deployment.gpus_per_node")
        world = n * g if n is not None and g is not None else None
    else:
        world = c.num("deployment.num_train_gpus")
    bs, mbs, cp = c.num("data.batch_size"), c.num("data.micro_batch_size"), c.num("model.cp") or 1
    # (a batch_size not divisible by micro_batch_size: prime-rl's own batch error already says it)
    if world and bs and mbs and bs % mbs == 0 and isinstance(cp, int) and (bs * cp) % (world * mbs) != 0:
        yield Finding(
            "warning",
            "world-batch",
            f"batch_size * cp ({bs * cp}) must be divisible by world_size * micro_batch_size ({world * mbs}) — the "
            f"trainer asserts this at startup.",
            _p("data.batch_size"),
            "prime-rl",
        )
    sl = c.num("data.seq_len")
    if isinstance(cp, int) and cp > 1 and sl is not None and sl % (2 * cp) != 0 and sl % cp == 0:
        yield Finding(
            "warning",
            "cp-seq-len",
            f"Sequence length ({sl}) must be divisible by seq_len_divisor ({2 * cp}) for the given parallel "
            f"dimensions. This requirement comes from context parallel (CP={cp}).",
            _p("data.seq_len"),
            "prime-rl",
        )


def run(c: Cfg, ctx: CheckContext) -> Iterator[Finding]:
    yield from data_rules(c)
    if c.has_table("val") and c.has_table("val.data"):
        yield from data_rules(c, "val.data")
    yield from model_rules(c)
    yield from misc_submodel_rules(c)
    yield from deployment_rules(c)
    yield from root_rules(c, ctx)
    yield from runtime_rules(c)
