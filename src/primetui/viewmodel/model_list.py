"""What the models screen says: the order of model names, and why the list is empty."""

from __future__ import annotations

import re


def models_empty_reason(on_demand_beta_access: bool | None) -> str:
    """Why the model list is empty, told apart exactly as the prime CLI does (T1 tri-state)."""
    if on_demand_beta_access is False:
        return (
            "On-demand training is in beta and this account is not enrolled: contact Prime support to request access."
        )
    if on_demand_beta_access is True:
        return "Your account has on-demand access, but no on-demand capacity is currently listed: try again later."
    return (
        "No dispatchable clusters have a warm model cache yet, or the endpoint isn't deployed on this backend: "
        "ask Prime support, or point [model].name at weights on a volume (/volume/...)."
    )


def model_sort_key(name: str) -> tuple[tuple[int, float | str], ...]:
    """Sort by name, comparing ``-<N>B`` parameter counts numerically (as the CLI does)."""
    parts = re.split(r"(\d+(?:\.\d+)?)(?=B\b)", name)
    return tuple((0, float(p)) if i % 2 else (1, p.lower()) for i, p in enumerate(parts))
