"""A run read without pydantic, for the dashboard's first frame (the prefetched page, the disk cache).

The first frame must not wait for pydantic and the wire models (see :mod:`primetui.api.prefetch`),
yet the view model reads runs by attribute, never by duck typing. :class:`PlainRun` has exactly
the attributes of :class:`primetui.api.models.RLRun` (tests/api/test_plain_run.py holds them
equal) and is built from a reply that :mod:`primetui.api.prefetch` already checked, or from the
runs cache (whose runs it wrote from models), so every function of the view model takes either.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, TypeAlias

from primetui.api.wire import is_terminal_run_status

if TYPE_CHECKING:
    from primetui.api.models import RLRun


def _snake(camel: str) -> str:
    return "".join("_" + c.lower() if c.isupper() else c for c in camel)


@dataclass(frozen=True, slots=True)
class PlainRun:
    """The attributes of :class:`~primetui.api.models.RLRun`, without validation (see the module docstring)."""

    id: str
    user_id: str = ""
    status: str = "UNKNOWN"
    created_at: str = ""
    updated_at: str = ""
    name: str | None = None
    team_id: str | None = None
    cluster_id: str | None = None
    prime_cluster_id: str | None = None
    kind: str | None = None
    rollouts_per_example: int | None = None
    seq_len: int | None = None
    max_steps: int | None = None
    max_tokens: int | None = None
    batch_size: int | None = None
    loss: str | None = "rl"
    teacher: dict[str, Any] | None = None
    base_model: str | None = None
    environments: list[dict[str, Any]] = field(default_factory=list)
    run_config: dict[str, Any] | None = None
    eval_config: dict[str, Any] | None = None
    val_config: dict[str, Any] | None = None
    buffer_config: dict[str, Any] | None = None
    learning_rate: float | None = None
    lora_alpha: int | None = None
    max_inflight_rollouts: int | None = None
    oversampling_factor: float | None = None
    max_async_level: int | None = None
    volume_name: str | None = None
    gpu_count: int | None = None
    wandb_entity: str | None = None
    wandb_project: str | None = None
    wandb_run_name: str | None = None
    runs_ahead: int | None = None
    queue_reason: str | None = None
    notice: str | None = None
    started_at: str | None = None
    completed_at: str | None = None
    error_message: str | None = None
    failure_analysis: dict[str, Any] | None = None
    source_commit: str | None = None

    @classmethod
    def from_wire(cls, raw: dict[str, Any]) -> PlainRun | None:
        """A run from its wire dict (camelCase, as the models dump it), or None without a string id."""
        names = _FIELDS
        known: dict[str, Any] = {}
        for key, value in raw.items():
            name = "cluster_id" if key == "rftClusterId" else "teacher" if key == "teacherConfig" else _snake(key)
            if name in names and value is not None:
                known[name] = value
        if not isinstance(known.get("id"), str):
            return None
        return cls(**known)

    def to_wire(self) -> dict[str, Any]:
        """The camelCase dict the models would dump (``by_alias=True, exclude_none=True``)."""
        out: dict[str, Any] = {}
        for name in _ORDER:
            value = getattr(self, name)
            if value is not None:
                out["rftClusterId" if name == "cluster_id" else _camel(name)] = value
        return out

    @property
    def is_terminal(self) -> bool:
        """True when this run will not change any more."""
        return is_terminal_run_status(self.status)

    @property
    def is_sft(self) -> bool:
        """True for SFT runs (`loss == "sft"`)."""
        return (self.loss or "").lower() == "sft"

    @property
    def has_online_evals(self) -> bool:
        """True for SFT runs with online evals (an `eval` table in `runConfig`)."""
        return bool(self.run_config and self.run_config.get("eval"))


_ORDER = tuple(f.name for f in fields(PlainRun))
_FIELDS = frozenset(_ORDER)


def _camel(snake: str) -> str:
    head, *rest = snake.split("_")
    return head + "".join(part.title() for part in rest)


@dataclass(frozen=True, slots=True)
class PlainRunPage:
    """The prefetched R1 page, with the attributes of :class:`~primetui.api.models.RLRunPage` the pager reads."""

    runs: list[PlainRun]
    total: int | None = None
    page: int | None = None
    limit: int | None = None
    total_pages: int | None = None
    notes: list[str] = field(default_factory=list)

    @classmethod
    def from_wire(cls, reply: dict[str, Any]) -> PlainRunPage | None:
        """The page :func:`primetui.api.prefetch.runs_page` accepted, or None if a run has no id."""
        runs = [PlainRun.from_wire(r) for r in reply.get("runs", [])]
        if any(r is None for r in runs):
            return None
        return cls(
            [r for r in runs if r is not None],
            reply.get("total"),
            reply.get("page"),
            reply.get("limit"),
            reply.get("total_pages"),
        )


Run: TypeAlias = "RLRun | PlainRun"
"""What the view model takes as a run: the validated model, or its pydantic-free twin on the first frame."""
