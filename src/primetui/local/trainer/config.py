"""The trainer's view of an sft.toml: the fields it honours, with prime-rl's defaults.

Dispatch has already validated the config against the schema (``primetui.sft``); this module
only reads it, applying the same defaults and the ``"None"`` convention (TOML has no null).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


def _none(value: Any) -> Any:
    return None if value == "None" else value


def _section(config: dict[str, Any], key: str, *, on_by_default: bool = False) -> dict[str, Any] | None:
    """An optional sub-config: absent/"None" -> None, an empty table -> enabled with defaults."""
    if key not in config:
        return {} if on_by_default else None
    value = _none(config[key])
    if value is None:
        return None
    return dict(value) if isinstance(value, dict) else {}


@dataclass
class LossMask:
    system: bool = False
    user: bool = False
    assistant: bool = True
    tool: bool = False


@dataclass
class DataConfig:
    type: str = "sft"
    name: str = "PrimeIntellect/Reverse-Text-SFT"
    batch_size: int = 128
    seq_len: int = 128
    micro_batch_size: int = 1
    subsets: list[str] | None = None
    splits: list[str] | None = None
    probabilities: list[float] | None = None
    stopping_strategy: str = "all_exhausted"
    shuffle: bool = True
    seed: int = 0
    loss_mask: LossMask = field(default_factory=LossMask)
    length: str = "fixed"  # fake data only
    input_ids: str = "increasing"  # fake data only


@dataclass
class OptimConfig:
    type: str = "adamw"
    lr: float = 1e-6
    weight_decay: float = 0.01
    max_norm: float | None = 1.0
    betas1: float = 0.9
    betas2: float = 0.999
    momentum: float = 0.9
    nesterov: bool = True


@dataclass
class SchedulerConfig:
    type: str = "constant"
    warmup_steps: int = 10
    decay_steps: int = 10
    min_lr: float = 0.0


@dataclass
class CkptConfig:
    interval: int | None = None
    keep_last: int | None = None
    keep_interval: int | None = None
    output_dir: str | None = None
    skip_progress: bool = False
    skip_scheduler: bool = False
    skip_dataloader: bool = False
    skip_optimizer: bool = False


@dataclass
class ResumeConfig:
    step: int | None = None
    dir: str | None = None


@dataclass
class EvalSource:
    name: str
    taskset: str
    num_examples: int
    group_size: int
    interval: int
    max_completion_tokens: int | None
    temperature: float | None


@dataclass
class EvalConfig:
    interval: int = 100
    skip_first_step: bool = False
    retrigger_on_resume: bool = False
    sources: list[EvalSource] = field(default_factory=list)


@dataclass
class ValConfig:
    interval: int = 50
    eval_on_start: bool = False
    data: DataConfig = field(default_factory=DataConfig)


@dataclass
class TrainConfig:
    model_name: str = "Qwen/Qwen3-0.6B"
    max_steps: int | None = None
    data: DataConfig = field(default_factory=DataConfig)
    optim: OptimConfig = field(default_factory=OptimConfig)
    scheduler: SchedulerConfig = field(default_factory=SchedulerConfig)
    ckpt: CkptConfig | None = None
    resume: ResumeConfig | None = None
    eval: EvalConfig | None = None
    val: ValConfig | None = None
    log_data: bool = False
    log_level: str = "info"


def _pick(cls: type, raw: dict[str, Any]) -> Any:
    names = cls.__dataclass_fields__.keys()  # type: ignore[attr-defined]
    return cls(**{k: _none(v) for k, v in raw.items() if k in names and not isinstance(v, dict)})


def _taskset_id(env: Any) -> str:
    if isinstance(env, dict):
        taskset = env.get("taskset")
        if isinstance(taskset, dict) and taskset.get("id"):
            return str(taskset["id"])
        if env.get("id"):
            return str(env["id"])
    return ""


def parse_eval(raw: dict[str, Any]) -> EvalConfig:
    """``[eval]`` with per-source values inherited from the ``[eval]`` level, as prime-rl does."""
    interval = int(raw.get("interval", 100))
    num_examples = int(raw.get("num_examples", -1))
    group_size = int(raw.get("group_size", 1))
    sampling = raw.get("sampling") or {}
    sources = []
    for i, src in enumerate(raw.get("source") or []):
        taskset = _taskset_id(src.get("env"))
        name = src.get("name") or taskset.rsplit("/", 1)[-1] or f"env-{i}"
        s_sampling = {**sampling, **(src.get("sampling") or {})}
        sources.append(
            EvalSource(
                name=str(name),
                taskset=taskset,
                num_examples=int(src.get("num_examples", num_examples)),
                group_size=int(src.get("group_size", group_size)),
                interval=int(src.get("interval", interval)),
                max_completion_tokens=_none(s_sampling.get("max_completion_tokens")),
                temperature=_none(s_sampling.get("temperature")),
            )
        )
    return EvalConfig(
        interval=interval,
        skip_first_step=bool(raw.get("skip_first_step", False)),
        retrigger_on_resume=bool(raw.get("retrigger_on_resume", False)),
        sources=sources,
    )


def _data(raw: dict[str, Any]) -> DataConfig:
    data = _pick(DataConfig, raw)
    if isinstance(raw.get("loss_mask"), dict):
        data.loss_mask = _pick(LossMask, raw["loss_mask"])
    return data


def parse_config(config: dict[str, Any]) -> TrainConfig:
    """Read the fields the stand-in trainer honours out of an sft.toml dict."""
    model = _section(config, "model", on_by_default=True) or {}
    data = _data(_section(config, "data", on_by_default=True) or {})
    val_raw = _section(config, "val")
    val = None
    if val_raw is not None:
        val = _pick(ValConfig, val_raw)
        val.data = _data(val_raw.get("data") or {})
    optim = _pick(OptimConfig, _section(config, "optim", on_by_default=True) or {})
    if "max_norm" in (config.get("optim") or {}) and _none(config["optim"]["max_norm"]) is None:
        optim.max_norm = None
    scheduler = _pick(SchedulerConfig, _section(config, "scheduler", on_by_default=True) or {})
    ckpt_raw = _section(config, "ckpt")
    resume_raw = _section(config, "resume")
    eval_raw = _section(config, "eval")
    log = _section(config, "log", on_by_default=True) or {}
    max_steps = _none(config.get("max_steps"))
    return TrainConfig(
        model_name=str(model.get("name", "Qwen/Qwen3-0.6B")),
        max_steps=int(max_steps) if max_steps is not None else None,
        data=data,
        optim=optim,
        scheduler=scheduler,
        ckpt=_pick(CkptConfig, ckpt_raw) if ckpt_raw is not None else None,
        resume=_pick(ResumeConfig, resume_raw) if resume_raw is not None else None,
        eval=parse_eval(eval_raw) if eval_raw is not None else None,
        val=val,
        log_data=bool(log.get("log_data", False)),
        log_level=str(log.get("level", "info")),
    )
