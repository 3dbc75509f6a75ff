"""The hosted platform's dispatch rules, with the texts of the hosted-SFT walkthrough (seed/hosted-sft.md)."""

from __future__ import annotations

from collections.abc import Iterator

from primetui.sft.cfg import Cfg, Finding
from primetui.sft.context import CheckContext
from primetui.sft.renderers import renderer_family

VOLUME_REQUIRED = (
    "data.name requires `--volume <name>`. Create a volume with `prime volumes create <name>`, "
    "then rerun `prime train sft.toml --volume <name>`."
)
OUTPUT_DIR_INJECTED = "output_dir is injected by the platform — omit it."
MULTI_NODE_ROUTER = "On multi_node, set num_infer_nodes to at least 1 and add an [inference.router] block."


def model_not_available(model: str) -> str:
    return f"Model '{model}' is not available on this cluster. Reach out to Prime support to get it added."


def is_volume_path(name: str) -> bool:
    return name == "/volume" or name.startswith("/volume/")


def run(c: Cfg, ctx: CheckContext) -> Iterator[Finding]:
    if not ctx.hosted:
        return
    from primetui.sft.placing import remove_line_fix

    if "output_dir" in c.raw:
        yield Finding(
            "warning",
            "output-dir",
            OUTPUT_DIR_INJECTED,
            ("output_dir",),
            "platform",
            True,
            fix_builder=lambda spans: remove_line_fix(
                spans, ("output_dir",), "Remove output_dir (the platform injects it)"
            ),
        )
    if ctx.has_volume is False and (c.get("data.type") or "sft") != "fake":
        yield Finding(
            "error",
            "volume-required",
            VOLUME_REQUIRED,
            ("data", "name") if c.is_set("data.name") else ("data",),
            "platform",
        )
    model = c.str_("model.name")
    if (
        model is not None
        and ctx.cached_models is not None
        and not is_volume_path(model)
        and model not in ctx.cached_models
    ):
        yield Finding("error", "model-cache", model_not_available(model), ("model", "name"), "platform")
    if c.has_table("eval") and c.get("deployment.type") == "multi_node":
        if (
            c.has_table("inference")
            and not isinstance(c.written("inference.router"), dict)
            and c.written("inference.router") != "None"
        ):
            yield Finding("error", "multi-node-router", MULTI_NODE_ROUTER, ("inference",), "platform")
    if (
        c.has_table("eval")
        and not c.has_table("inference")
        and (c.get("deployment.type") or "single_node") == "single_node"
    ):
        # The platform always runs an inference server for [eval]; it takes num_infer_gpus from the same node.
        a, b, g = (
            c.num("deployment.num_train_gpus"),
            c.num("deployment.num_infer_gpus"),
            c.num("deployment.gpus_per_node"),
        )
        if a is not None and b is not None and g is not None and a + b > g:
            from primetui.sft.rules_primerl import gpu_budget_text

            infer = str(b) if _written(c, "deployment.num_infer_gpus") else f"{b}, the default"
            yield Finding(
                "error",
                "gpu-budget",
                gpu_budget_text(a, b, g),
                ("deployment",),
                "platform",
                detail=(
                    f"[eval] without [inference] still starts an inference server on this node, on num_infer_gpus "
                    f"({infer}); {_gpu_budget_fix(a, b, g)}"
                ),
            )
    yield from renderer_family_rule(c)
    for key in ("deployment", "slurm", "output_dir", "dry_run"):
        if _written(c, f"inference.{key}"):
            yield Finding(
                "hint",
                "ignored-under-sft",
                f"inference.{key} is ignored by the SFT launcher — remove it.",
                ("inference", key),
                "prime-rl",
                True,
            )


def _gpu_budget_fix(train: float, infer: float, per_node: float) -> str:
    """How to fit training and the eval's inference server on one node: never "lower … to 0"."""
    if per_node - infer >= 1:
        return f"lower num_train_gpus to {per_node - infer}"
    if per_node - train >= 1:
        return f"lower num_infer_gpus to {per_node - train}"
    if per_node >= 2:
        return f"lower num_train_gpus and num_infer_gpus so that they add up to {per_node} (at least 1 each)"
    return (
        f"a node of {per_node} GPU cannot hold both: remove [eval], or raise gpus_per_node to 2 on nodes that have them"
    )


def _written(c: Cfg, dotted: str) -> bool:
    node = c.raw
    for part in dotted.split("."):
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    return True


def renderer_family_rule(c: Cfg) -> Iterator[Finding]:
    """The renderer must match the model family (seed §3); only checked when the family is known."""
    name = c.get("renderer.name") if c.has_table("renderer") else None
    model = c.str_("tokenizer.name") or c.str_("model.name")
    if not isinstance(name, str) or model is None or name in ("auto", "default", "custom") or is_volume_path(model):
        return
    family, certain = renderer_family(model)
    if family and family != name:
        how = "is" if certain else "looks like"
        yield Finding(
            "warning",
            "renderer-family",
            f"renderer.name = \"{name}\" does not match the model family: '{model}' {how} a `{family}` model — "
            f'use name = "{family}" unless you verified the template.',
            ("renderer", "name"),
            "platform",
        )
