"""Checkpoint and volume sizing (prime-rl-sft-schema.md §8.1), for the volume size helper and the reviewer.

A prime-rl SFT checkpoint holds the FSDP-sharded fp32 weights plus the optimizer state: 12 bytes per
parameter for AdamW, about 4 for the stateless sign_sgd, about 8 for sgd (momentum) and muon,
about 6 with ``optimization_dtype = "bfloat16"`` and AdamW.
"""

from __future__ import annotations

import math
import re
from typing import Any

GIB = 1024**3
GB = 1000**3

BYTES_PER_PARAM = {"adamw": 12, "sgd": 8, "muon": 8, "sign_sgd": 4}
_PARAMS = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s*([BM])(?![a-z])", re.IGNORECASE)
KNOWN_PARAMS: tuple[tuple[re.Pattern[str], float], ...] = (
    (re.compile(r"^glm-4\.[5-9]-air\b"), 106e9),  # GLM-4.5-Air: 106B total, 12B active (Z.ai's model card)
    (re.compile(r"^glm-4\.[5-9]\b"), 355e9),  # GLM-4.5 to 4.7: 355B total, 32B active
    (re.compile(r"^glm-5(\.\d+)?\b"), 744e9),  # GLM-5 and its point releases: 744B total, 40B active
)
"""Total parameters of model families whose ids do not state them (the multi-node example's GLM)."""


def bytes_per_param(optim_type: str = "adamw", optimization_dtype: str = "float32") -> int:
    """Checkpoint bytes per parameter for an optimizer and weight dtype."""
    per = BYTES_PER_PARAM.get(optim_type, 12)
    if optimization_dtype == "bfloat16":
        per = per // 2
    return per


def params_from_model_name(name: str) -> float | None:
    """Total parameters read from a model id such as ``Qwen/Qwen3-30B-A3B`` (30e9) or None when absent.

    For mixture-of-experts ids the first (total) count wins over the active ``A3B`` part.
    """
    tail = name.rsplit("/", 1)[-1]
    for pattern, params in KNOWN_PARAMS:
        if pattern.search(tail.lower()):
            return params
    for m in _PARAMS.finditer(tail):
        start = m.start()
        if start > 0 and tail[start - 1] in "Aa" and (start < 2 or not tail[start - 2].isalnum()):
            continue  # the active-parameter part, e.g. -A3B
        value = float(m.group(1))
        return value * (1e9 if m.group(2).upper() == "B" else 1e6)
    return None


def checkpoint_bytes(params: float, optim_type: str = "adamw", optimization_dtype: str = "float32") -> int:
    """Bytes one checkpoint step directory takes on the volume."""
    return int(params * bytes_per_param(optim_type, optimization_dtype))


def checkpoints_kept(max_steps: int | None, interval: int | None, keep_last: int | None) -> int | None:
    """How many step directories stay on disk at the end of a run with a [ckpt] table (None: unbounded)."""
    if max_steps is None:
        return keep_last
    # The saves are every interval-th step before the last, and the last: counted, not listed (a config
    # being typed can say max_steps = 10**12, and a set of its saves took all memory).
    n = 1 + (_range_len(interval, max_steps, interval) if interval else 0)
    return min(n, keep_last) if keep_last else n


def _range_len(start: int, stop: int, step: int) -> int:
    """``len(range(start, stop, step))`` for any size (``len`` of a range past ``sys.maxsize`` raises)."""
    return max(0, (stop - start + step - (1 if step > 0 else -1)) // step)


def volume_size_for(
    params: float,
    kept: int,
    dataset_bytes: int = 0,
    optim_type: str = "adamw",
    optimization_dtype: str = "float32",
    headroom: float = 0.2,
) -> int:
    """A volume size in bytes (rounded up to whole GiB) for the dataset plus ``kept`` checkpoints and headroom."""
    need = dataset_bytes + kept * checkpoint_bytes(params, optim_type, optimization_dtype)
    return int(math.ceil(need * (1 + headroom) / GIB)) * GIB


def gpu_split(config: dict[str, Any]) -> tuple[int, int] | None:
    """(train GPUs, inference GPUs) a config's deployment holds; None if it does not say.

    An SFT run with ``[eval]`` has an inference server too: ``num_infer_gpus`` defaults to 1.
    """
    dep = config.get("deployment")
    dep = dep if isinstance(dep, dict) else {}
    # an empty [inference] table (an rl.toml's usual one) still starts an inference server
    infers = bool(config.get("eval")) or isinstance(config.get("inference"), dict) or "num_infer_gpus" in dep
    try:
        if dep.get("type") == "multi_node":
            per_node = int(dep.get("gpus_per_node", 8))
            train = int(dep.get("num_train_nodes", 1)) * per_node
            infer = int(dep.get("num_infer_nodes", 1 if infers else 0)) * per_node
        else:
            if not dep and not infers:
                return None
            train = int(dep.get("num_train_gpus", 1))
            infer = int(dep.get("num_infer_gpus", 1)) if infers else 0
    except (TypeError, ValueError):
        return None
    return train, infer


def gpus(config: dict[str, Any]) -> int:
    """GPUs one run of ``config`` holds (train plus inference), as the runs list counts them (1 when unsaid)."""
    split = gpu_split(config)
    return sum(split) if split is not None else 1


def human_bytes(n: float) -> str:
    """``7.2 GB`` style (decimal units, like the seed's "~7.2 GB")."""
    for unit, size in (("TB", 1000**4), ("GB", GB), ("MB", 1000**2), ("KB", 1000)):
        if abs(n) >= size:
            return f"{n / size:.1f} {unit}"
    return f"{int(n)} B"


_UNITS = {
    "": 1,
    "k": 1000,
    "m": 1000**2,
    "g": GB,
    "t": 1000**4,
    "p": 1000**5,
    "ki": 1024,
    "mi": 1024**2,
    "gi": GIB,
    "ti": 1024**4,
    "pi": 1024**5,
}


def parse_size(text: str | None) -> int | None:
    """Bytes in a Kubernetes-style size (``100Gi``, ``5Ti``, ``500G``, ``1.5Ti``), None when unreadable."""
    if not text:
        return None
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kmgtp]i?)?b?\s*", text.strip(), re.IGNORECASE)
    if not m:
        return None
    unit = (m.group(2) or "").lower()
    return int(float(m.group(1)) * _UNITS[unit])
