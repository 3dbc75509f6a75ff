"""What the checks know about where the config will run (all optional: unknown means skip that rule)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CheckContext:
    """Facts from outside the file.

    ``hosted``: apply the hosted platform's rules (and skip prime-rl's SLURM-only ones the platform
    replaces). ``cached_models``: the platform's model cache (T1), None when unknown.
    ``has_volume``: whether the run is dispatched with a volume, None when not decided yet.
    ``volume_size_bytes`` / ``volume_free_bytes``: for checkpoint-size advice, None when unknown.
    ``at_dispatch``: the platform's own check at submit time: what ``prime train`` leaves to the
    platform (an RL config's environments) is an error here, a warning in the editor.
    """

    hosted: bool = True
    cached_models: frozenset[str] | None = None
    has_volume: bool | None = None
    volume_size_bytes: int | None = None
    volume_free_bytes: int | None = None
    at_dispatch: bool = False
