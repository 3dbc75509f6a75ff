"""The RL run's view of an rl.toml: the fields the local run honours, with prime-rl's defaults.

Dispatch has validated the config against the schema; this module only reads it. Shared keys
(``max_steps``, ``[ckpt]``, ``[resume]``, ``[model]``) may sit at the top or in the sub-configs,
as prime-rl's ``propagate_shared_fields`` allows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from primetui.local.trainer.config import (
    CkptConfig,
    OptimConfig,
    ResumeConfig,
    SchedulerConfig,
    _none,
    _pick,
    _section,
    _taskset_id,
)

DEFAULT_BATCH_SIZE = 128
SAMPLE_INTERVAL = 10  # prime-rl's platform monitor uploads the samples of every 10th step


@dataclass
class Sampling:
    temperature: float = 1.0
    max_completion_tokens: int | None = None


DEFAULT_POOLS = {"hard": (0.25, 0.2), "normal": (0.75, 1.0), "easy": (1.0, 0.2)}
"""prime-rl's ``default_difficulty_pools``: name -> (inclusive max reward, per-task weight)."""


@dataclass
class Curriculum:
    """``[…train.source.curriculum]``: the task sampler and the admission gates (prime-rl's CurriculumConfig)."""

    sampler: str = "standard"  # standard | difficulty_pool
    pools: dict[str, tuple[float, float]] = field(default_factory=lambda: dict(DEFAULT_POOLS))
    seed: int = 42
    gates: dict[str, tuple[float, float]] = field(default_factory=dict)  # name -> (reject_min, reject_max)


@dataclass
class Source:
    name: str
    taskset: str
    index: int
    ratio: float = 1.0
    group_size: int = 1
    sampling: Sampling = field(default_factory=Sampling)
    num_examples: int = -1  # eval only
    interval: int = 100  # eval only
    dataset_split: str = "train"  # the taskset's own knob (env.taskset.dataset_split)
    curriculum: Curriculum = field(default_factory=lambda: Curriculum())  # train only


@dataclass
class EvalSettings:
    sources: list[Source]
    skip_first_step: bool = False
    retrigger_on_resume: bool = False


@dataclass
class RLRunConfig:
    model_name: str = "Qwen/Qwen3-0.6B"
    max_steps: int | None = None
    batch_size: int = DEFAULT_BATCH_SIZE
    token_batch_size: int | None = None
    group_size: int = 1
    max_off_policy_steps: int = 8
    sources: list[Source] = field(default_factory=list)
    eval: EvalSettings | None = None
    optim: OptimConfig = field(default_factory=OptimConfig)
    scheduler: SchedulerConfig = field(default_factory=SchedulerConfig)
    ckpt: CkptConfig | None = None
    resume: ResumeConfig | None = None
    env_vars: dict[str, Any] = field(default_factory=dict)

    @property
    def all_sources(self) -> list[Source]:
        """Train sources first, then eval sources: the order prime-rl launches their env servers."""
        return self.sources + (self.eval.sources if self.eval else [])


def _table(raw: Any) -> dict[str, Any]:
    raw = _none(raw)
    return dict(raw) if isinstance(raw, dict) else {}


def _sampling(shared: dict[str, Any], own: dict[str, Any]) -> Sampling:
    merged = {**shared, **own}
    temperature = _none(merged.get("temperature"))
    tokens = _none(merged.get("max_completion_tokens"))
    return Sampling(
        temperature=float(1.0 if temperature is None else temperature),
        max_completion_tokens=int(tokens) if tokens is not None else None,
    )


def _curriculum(raw: dict[str, Any]) -> Curriculum:
    sampler = _table(raw.get("sampler"))
    out = Curriculum(sampler=str(sampler.get("type", "standard")), seed=int(sampler.get("seed", 42)))
    if "pools" in sampler:
        out.pools = {
            str(k): (float(_table(v).get("threshold", 1.0)), float(_table(v).get("weight", 0.0)))
            for k, v in _table(sampler["pools"]).items()
        }
    out.gates = {
        str(k): (float(_table(v).get("reject_min", 0.0)), float(_table(v).get("reject_max", 0.0)))
        for k, v in _table(raw.get("gates")).items()
    }
    return out


def _source(raw: dict[str, Any], index: int, sampling: dict[str, Any], defaults: dict[str, Any]) -> Source:
    taskset = _taskset_id(raw.get("env"))
    knobs = _table(_table(raw.get("env")).get("taskset"))
    src = Source(
        name=str(raw.get("name") or taskset),
        taskset=taskset,
        index=index,
        ratio=float(raw.get("ratio", 1.0)),
        sampling=_sampling(sampling, _table(raw.get("sampling"))),
        dataset_split=str(knobs.get("dataset_split") or "train"),
        curriculum=_curriculum(_table(raw.get("curriculum"))),
    )
    for key in ("group_size", "num_examples", "interval"):
        setattr(src, key, int(raw.get(key, defaults.get(key, getattr(src, key)))))
    return src


def _train_sources(orch: dict[str, Any], group_size: int) -> list[Source]:
    train = _table(orch.get("train"))
    sampling = _table(train.get("sampling"))
    return [
        _source(_table(raw), i, sampling, {"group_size": group_size}) for i, raw in enumerate(train.get("source") or [])
    ]


def _eval(orch: dict[str, Any], first_index: int) -> EvalSettings | None:
    raw = _section(orch, "eval")
    if raw is None:
        return None
    sampling = _table(raw.get("sampling"))
    defaults = {
        "group_size": raw.get("group_size", 1),
        "num_examples": raw.get("num_examples", -1),
        "interval": raw.get("interval", 100),
    }
    sources = [_source(_table(s), first_index + i, sampling, defaults) for i, s in enumerate(raw.get("source") or [])]
    return EvalSettings(sources, bool(raw.get("skip_first_step", False)), bool(raw.get("retrigger_on_resume", False)))


def _shared(config: dict[str, Any], key: str, *subs: dict[str, Any]) -> Any:
    """A shared key at the top level, else in the first sub-config that sets it."""
    if key in config:
        return _none(config[key])
    for sub in subs:
        if key in sub:
            return _none(sub[key])
    return None


def _optim(trainer: dict[str, Any]) -> OptimConfig:
    raw = _table(trainer.get("optim"))
    optim = _pick(OptimConfig, raw)
    if "max_norm" in raw and _none(raw["max_norm"]) is None:
        optim.max_norm = None
    return optim


def parse_rl_config(config: dict[str, Any]) -> RLRunConfig:
    """Read the fields the local RL run honours out of an rl.toml dict."""
    orch = _table(config.get("orchestrator"))
    trainer = _table(config.get("trainer"))
    group_size = int(orch.get("group_size", 1))
    token_batch = _none(orch.get("token_batch_size"))
    batch = _none(orch.get("batch_size"))
    sources = _train_sources(orch, group_size)
    max_steps = _shared(config, "max_steps", trainer, orch)
    ckpt_raw = _section(config, "ckpt")
    resume_raw = _section(config, "resume")
    model = _table(config.get("model"))
    return RLRunConfig(
        model_name=str(model.get("name", "Qwen/Qwen3-0.6B")),
        max_steps=int(max_steps) if max_steps is not None else None,
        batch_size=int(batch) if batch is not None else DEFAULT_BATCH_SIZE,
        token_batch_size=int(token_batch) if token_batch is not None else None,
        group_size=group_size,
        max_off_policy_steps=int(orch.get("max_off_policy_steps", 8)),
        sources=sources,
        eval=_eval(orch, len(sources)),
        optim=_optim(trainer),
        scheduler=_pick(SchedulerConfig, _table(trainer.get("scheduler"))),
        ckpt=_pick(CkptConfig, ckpt_raw) if ckpt_raw is not None else None,
        resume=_pick(ResumeConfig, resume_raw) if resume_raw is not None else None,
        env_vars=_table(config.get("env_vars")),
    )
