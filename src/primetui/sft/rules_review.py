"""What a careful reviewer would say: not errors, but runs that waste GPU hours or fill the volume."""

from __future__ import annotations

from collections.abc import Iterator

from primetui.sft.cfg import Cfg, Finding
from primetui.sft.diagnostics import Fix
from primetui.sft.context import CheckContext
from primetui.sft.placing import move_fixes
from primetui.sft.spans import SpanMap
from primetui.sft.sizing import (
    checkpoint_bytes,
    checkpoints_kept,
    human_bytes,
    params_from_model_name,
)


def run(c: Cfg, ctx: CheckContext) -> Iterator[Finding]:
    max_steps = c.num("max_steps")
    kind = c.get("scheduler.type") or "constant"
    w, d = c.num("scheduler.warmup_steps"), c.num("scheduler.decay_steps")
    if kind in ("linear", "cosine") and max_steps is not None and w is not None and w > max_steps:
        fatal = kind == "cosine" or (kind == "linear" and d is not None and d > 0)
        if not fatal:  # those cases are already prime-rl errors
            yield Finding(
                "warning",
                "warmup-too-long",
                f"warmup_steps ({w}) is longer than max_steps ({max_steps}): the run never leaves warmup, "
                "so the LR never reaches its peak and the losses are warmup-dominated.",
                ("scheduler", "warmup_steps") if c.is_set("scheduler.warmup_steps") else ("scheduler", "type"),
                "review",
            )
    if c.has_table("ckpt"):
        interval = c.num("ckpt.interval")
        if interval is not None and max_steps is not None and interval > max_steps:
            yield Finding(
                "warning",
                "ckpt-never-fires",
                f"ckpt.interval ({interval}) is larger than max_steps ({max_steps}): it never fires, so only the "
                "final step is saved.",
                ("ckpt", "interval"),
                "review",
            )
        yield from _volume_fit(c, ctx, max_steps, interval)
    elif ctx.hosted and (c.get("data.type") or "sft") != "fake":
        yield Finding(
            "hint",
            "no-ckpt",
            "No [ckpt] table: this run saves no checkpoint to the volume — add [ckpt] to keep the final step.",
            (),
            "review",
        )
    yield from _model_seq_len(c)
    if c.get("model.debug.force_balanced_routing") is True:
        yield Finding(
            "warning",
            "force-balanced-routing",
            "force_balanced_routing forces round-robin expert routing and is debug-only — remove it for a real run.",
            ("model", "debug", "force_balanced_routing"),
            "review",
        )


def _model_seq_len(c: Cfg) -> Iterator[Finding]:
    """model.seq_len exists in prime-rl but the SFT path never reads it: data.seq_len is the length."""
    model_len = c.written("model.seq_len")
    if not isinstance(model_len, int) or isinstance(model_len, bool):
        return
    data_written = c.is_set("data.seq_len")
    data_len = c.num("data.seq_len")
    said = f"{data_len}" if data_written else f"{data_len}, the default"

    def move(spans: SpanMap) -> Fix | None:
        return next(iter(move_fixes(spans, ("model", "seq_len"), ("data",))), None)

    yield Finding(
        "warning",
        "model-seq-len",
        f"model.seq_len ({model_len}) is not used by SFT: samples are packed and "
        f"trained at data.seq_len ({said})"
        + (" — move it to [data]." if not data_written else " — remove it, or set data.seq_len."),
        ("model", "seq_len"),
        "review",
        True,
        fix_builder=None if data_written else move,
    )


def _whole(v: int | float | None) -> int | None:
    """A count as pydantic's lax mode reads it: ``10.0`` is 10; ``2.5`` is none (its type error is reported)."""
    if isinstance(v, float):
        return int(v) if v.is_integer() else None
    return v


def _volume_fit(
    c: Cfg, ctx: CheckContext, max_steps: int | float | None, interval: int | float | None
) -> Iterator[Finding]:
    if ctx.volume_size_bytes is None:
        return
    given = (max_steps, interval, c.num("ckpt.keep_last"))
    counts = [_whole(v) for v in given]
    if any(v is not None and n is None for v, n in zip(given, counts)):
        return  # a fractional count: the schema's type error says it
    steps, every, keep_last = counts
    model = c.str_("model.name") or ""
    params = params_from_model_name(model)
    if params is None:
        return
    kept = checkpoints_kept(steps, every, keep_last)
    if kept is None:
        return
    per = checkpoint_bytes(params, c.get("optim.type") or "adamw", c.get("model.optimization_dtype") or "float32")
    total = per * kept
    if total > ctx.volume_size_bytes:
        yield Finding(
            "error",  # what the dispatch pre-flight's Space line refuses (✗), the editor says as much
            "ckpt-exceeds-volume",
            f"{kept} checkpoint(s) × {human_bytes(per)} = {human_bytes(total)} is more than the volume's "
            f"{human_bytes(ctx.volume_size_bytes)} — lower ckpt.keep_last or expand the volume.",
            ("ckpt", "keep_last") if c.is_set("ckpt.keep_last") else ("ckpt",),
            "review",
        )
