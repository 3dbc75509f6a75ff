"""The volumes screen's size helper: checkpoints × keep_last + dataset, against the volume size.

The bytes-per-parameter rule belongs to ``primetui.sft.sizing``; this module only
parses what the user typed and phrases the answer.
"""

from __future__ import annotations

from primetui.viewmodel.fmt import fmt_bytes
from primetui.viewmodel.volume_view import parse_size

import re


_UNITS = {
    "": 1,
    "B": 1,
    "K": 1024,
    "KI": 1024,
    "M": 1024**2,
    "MI": 1024**2,
    "G": 1024**3,
    "GI": 1024**3,
    "T": 1024**4,
    "TI": 1024**4,
}


def parse_params(text: str) -> float | None:
    """``0.6B`` / ``7b`` / ``600M`` / ``1.5e9`` → parameter count."""
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:e[0-9]+)?)\s*([KMBT]?)\s*", text, re.I)
    if not m:
        return None
    mult = {"": 1, "K": 1e3, "M": 1e6, "B": 1e9, "T": 1e12}[m.group(2).upper()]
    value = float(m.group(1)) * mult
    return value if value > 0 else None


def parse_bytes(text: str) -> int | None:
    """``2Gi`` / ``500Mi`` / ``1.5G`` / ``0`` → bytes."""
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*([KMGT]?i?|B)?\s*", text, re.I)
    if not m:
        return None
    unit = (m.group(2) or "").upper()
    if unit not in _UNITS:
        return None
    return int(float(m.group(1)) * _UNITS[unit])


def parse_inputs(values: dict[str, str]) -> tuple[tuple[float, int, int] | None, str | None]:
    params = parse_params(values.get("params", ""))
    if params is None:
        return None, "Write the parameter count like 0.6B, 7B or 600M."
    keep = values.get("keep_last", "").strip()
    if not keep.isdigit() or int(keep) < 1:
        return None, "Checkpoints kept must be a whole number of at least 1 (ckpt.keep_last)."
    dataset = parse_bytes(values.get("dataset", ""))
    if dataset is None:
        return None, "Write the dataset size like 2Gi, 500Mi or 0."
    return (params, int(keep), dataset), None


def checkpoint_bytes(params: float) -> int:
    """Bytes of one full checkpoint, from primetui.sft.sizing."""
    from primetui.sft import sizing  # weights + optimizer state per parameter

    for name in ("checkpoint_bytes", "checkpoint_size_bytes", "bytes_per_checkpoint"):
        fn = getattr(sizing, name, None)
        if callable(fn):
            return int(fn(params))
    return int(params * float(getattr(sizing, "BYTES_PER_PARAM", 12)))


def size_report(values: dict[str, str], volume_size: str) -> str:
    """One line: what the run will keep on the volume, and whether it fits."""
    parsed, problem = parse_inputs(values)
    if parsed is None:
        return problem or ""
    params, keep, dataset = parsed
    try:
        per_ckpt = checkpoint_bytes(params)
    except ImportError:
        return "The size helper needs primetui.sft.sizing, which is not installed in this build."
    need = per_ckpt * keep + dataset
    have = parse_size(volume_size)
    verdict = (
        ""
        if have is None
        else (
            f" → fits in {volume_size} ({fmt_bytes(have - need)} spare)"
            if need <= have
            else f" → does NOT fit in {volume_size}: expand by at least {fmt_bytes(need - have)}"
        )
    )
    return (
        f"Size: {fmt_bytes(per_ckpt)} per checkpoint × {keep} kept + {fmt_bytes(dataset)} dataset = "
        f"{fmt_bytes(need)}{verdict}"
    )
