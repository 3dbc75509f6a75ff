"""``[model].name = "/volume/…"``: weights on the run's volume, checked at dispatch as the seed describes.

Accepted: a folder with HF-format weights, ``config.json`` plus ``*.safetensors`` (or a
``model.safetensors.index.json``), of a causal-LM architecture the trainer knows. Refused, one
sentence each: a missing path, a prime-rl distributed checkpoint (``step_N`` with ``trainer/``,
or ``.distcp`` shards: "export it to HF format first"), a folder without weights, and an unknown
architecture. The weights are checked, not loaded: the run trains the default stand-in, and its
log says so.
"""

from __future__ import annotations

import json
from pathlib import Path

from primetui.local.errors import fail
from primetui.local.paths import PathEscapeError, volume_name_of
from primetui.local.state import LocalState

KNOWN_ARCHITECTURES = frozenset(
    {
        "Qwen2ForCausalLM",
        "Qwen3ForCausalLM",
        "Qwen3MoeForCausalLM",
        "LlamaForCausalLM",
        "MistralForCausalLM",
        "MixtralForCausalLM",
        "Gemma2ForCausalLM",
        "Gemma3ForCausalLM",
        "Phi3ForCausalLM",
        "GptOssForCausalLM",
        "Glm4MoeForCausalLM",
        "DeepseekV3ForCausalLM",
        "OlmoForCausalLM",
        "Olmo2ForCausalLM",
    }
)
NEEDS_VOLUME = (
    "model.name '{model}' reads weights from a volume; dispatch with --volume <name> (the volume that holds them)."
)


def _distributed(path: Path) -> bool:
    return (
        (path / "trainer").is_dir()
        or (path / ".metadata").is_file()
        or any(path.glob("*.distcp"))
        or any(path.glob("trainer/*.distcp"))
    )


def check_volume_model(state: LocalState, volume: str | None, model: str) -> None:
    """Raise the 400 for a /volume/… model.name that is not HF-format weights the trainer can load.

    ``volume``: the run's volume as a ``paths.volume_key`` (its owner and name), or None.
    """
    if volume is None:
        raise fail(400, NEEDS_VOLUME.format(model=model))
    try:
        path = state.volume_path(volume, model)
    except PathEscapeError:
        raise fail(400, f"model.name '{model}' points outside the volume; use a path under /volume.") from None
    if not path.exists():
        raise fail(
            400,
            f"Model path {model} does not exist on volume '{volume_name_of(volume)}'; upload HF-format weights there "
            "(prime volumes put) or pick a cached model from `prime train models`.",
        )
    if path.is_dir() and _distributed(path):
        raise fail(
            400,
            f"{model} is a prime-rl distributed checkpoint, not HF-format weights: export it to HF format "
            f'first, or resume its full training state with [resume] dir = "{model}".',
        )
    config = path / "config.json"
    if not path.is_dir() or not config.is_file():
        raise fail(
            400,
            f"{model} holds no HF-format model (no config.json); point model.name at the folder "
            "`hf download` or `save_pretrained` wrote.",
        )
    if not (any(path.glob("*.safetensors")) or (path / "model.safetensors.index.json").is_file()):
        raise fail(
            400,
            f"{model} has a config.json but no safetensors weights (model.safetensors or "
            "model.safetensors.index.json); upload the weights too.",
        )
    try:
        doc = json.loads(config.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        raise fail(400, f"{model}/config.json is not valid JSON; upload the model's config.json again.") from None
    archs = doc.get("architectures") if isinstance(doc, dict) else None
    names = [a for a in archs if isinstance(a, str)] if isinstance(archs, list) else []
    if not names or not any(a in KNOWN_ARCHITECTURES for a in names):
        shown = ", ".join(names[:3]) or "none"
        raise fail(
            400,
            f"Unknown architecture ({shown}) in {model}/config.json: the trainer loads causal LMs such as "
            "Qwen3ForCausalLM or LlamaForCausalLM; pick a supported model.",
        )
