"""The orchestrator's side of a step: pick tasks, sample groups of rollouts, score them, advantages.

Each rollout is timed as verifiers times a trace (``setup``, ``agent`` with its ``model`` share,
``scoring``), on this machine's clock. Advantages are prime-rl's GRPO: reward minus the group's
mean reward, no std normalisation.
"""

from __future__ import annotations

import random
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from primetui.local.trainer.rl import reward as rw
from primetui.local.trainer.rl.config import Source
from primetui.local.trainer.rl.policy import Dists, Rollout, sample
from primetui.local.trainer.rl.taskset import Task


@dataclass
class Episode:
    env_name: str
    task: Task
    group_id: str
    rollout: Rollout
    reward: float
    timing: dict[str, Any]
    policy_version: int
    advantage: float = 0.0
    id: str = field(default_factory=lambda: uuid.uuid4().hex)

    @property
    def num_input_tokens(self) -> int:
        return len(self.task.system_prompt) + len(self.task.prompt)

    @property
    def num_output_tokens(self) -> int:
        return len(self.rollout.text)

    @property
    def truncated(self) -> bool:
        return self.rollout.truncated


def _span(start: float, end: float) -> dict[str, float]:
    return {"start": start, "end": end}


def run_rollout(
    task: Task, env_name: str, group_id: str, dists: Dists, source: Source, version: int, rng: np.random.Generator
) -> Episode:
    t0 = time.time()
    t1 = time.time()  # setup: the task's messages are built from the data row; nothing to boot
    roll = sample(dists, task.prompt, source.sampling.temperature, source.sampling.max_completion_tokens, rng)
    t2 = time.time()
    score = rw.lcs(roll.text, task.answer)
    t3 = time.time()
    timing = {
        "start": t0,
        "boot": _span(0.0, 0.0),
        "setup": _span(t0, t1),
        "agent": {**_span(t1, t2), "model": {"duration": t2 - t1}, "harness": {"duration": 0.0}},
        "finalize": _span(t3, t3),
        "scoring": _span(t2, t3),
    }
    return Episode(env_name, task, group_id, roll, score, timing, version)


def run_group(
    task: Task, source: Source, size: int, dists: Dists, version: int, rng: np.random.Generator
) -> list[Episode]:
    group_id = uuid.uuid4().hex
    group = [run_rollout(task, source.name, group_id, dists, source, version, rng) for _ in range(size)]
    for e, advantage in zip(group, group_advantages([e.reward for e in group])):
        e.advantage = advantage
    return group


def group_advantages(rewards: list[float]) -> list[float]:
    """GRPO's advantages: each reward minus the group's mean (no std normalisation, as prime-rl).

    A group whose rewards are all equal has a mean of exactly that reward: summing it in floats would
    leave rounding noise as tiny advantages, and count a group with no signal as trainable."""
    mean = rewards[0] if min(rewards) == max(rewards) else sum(rewards) / len(rewards)
    return [r - mean for r in rewards]


class StandardSampler:
    """prime-rl's default ``StandardSampler``: the taskset's tasks in source order, cycled (no shuffle,
    no replacement within a pass; a task comes back after ``len(tasks)`` draws)."""

    def __init__(self, tasks: list[Task]) -> None:
        self.tasks = tasks
        self.cursor = 0

    def next(self) -> Task:
        task = self.tasks[self.cursor % len(self.tasks)]
        self.cursor += 1
        return task

    def observe(self, group: list[Episode]) -> None:
        """The standard sampler learns nothing from results."""

    def state(self) -> dict[str, Any]:
        return {"cursor": self.cursor}

    def load_state(self, state: dict[str, Any]) -> None:
        self.cursor = int(state.get("cursor", 0))


class DifficultyPoolSampler:
    """prime-rl's ``DifficultyPoolSampler``: draws with replacement, each task weighted by the pool its
    latest group mean reward falls in (a pool's threshold is its inclusive max reward; the last pool
    catches the rest); a task not yet seen weighs 1."""

    def __init__(self, tasks: list[Task], pools: dict[str, tuple[float, float]], seed: int) -> None:
        self.tasks = tasks
        self.pools = sorted(pools.values())
        self.rng = random.Random(seed)
        self.rewards: dict[int, float] = {}

    def weight(self, task: Task) -> float:
        score = self.rewards.get(task.idx)
        if score is None:
            return 1.0
        return next((w for threshold, w in self.pools if score <= threshold), self.pools[-1][1])

    def next(self) -> Task:
        weights = [self.weight(t) for t in self.tasks]
        if not any(weights):
            raise RuntimeError("DifficultyPoolSampler has no tasks in a pool with positive weight")
        return self.rng.choices(self.tasks, weights=weights, k=1)[0]

    def observe(self, group: list[Episode]) -> None:
        self.rewards[group[0].task.idx] = sum(e.reward for e in group) / len(group)

    def state(self) -> dict[str, Any]:
        version, internal, gauss = self.rng.getstate()
        return {"rng": [version, list(internal), gauss], "task_rewards": {str(k): v for k, v in self.rewards.items()}}

    def load_state(self, state: dict[str, Any]) -> None:
        if "rng" in state:
            version, internal, gauss = state["rng"]
            self.rng.setstate((version, tuple(internal), gauss))
        self.rewards = {int(k): float(v) for k, v in (state.get("task_rewards") or {}).items()}


def task_sampler(source: Source, tasks: list[Task]) -> StandardSampler | DifficultyPoolSampler:
    cur = source.curriculum
    if cur.sampler == "difficulty_pool":
        return DifficultyPoolSampler(tasks, cur.pools, cur.seed)
    return StandardSampler(tasks)


class TaskSampler:
    """prime-rl's ``TrainSource``: each group's source drawn by ``ratio`` (``random.Random(42)``), and
    each source's task from its curriculum's sampler (the standard one unless the source sets one)."""

    def __init__(self, sources: list[Source], tasks: dict[str, list[Task]], seed: int = 0) -> None:
        self.sources = sources
        self.samplers = {s.name: task_sampler(s, tasks[s.name]) for s in sources}
        self.rng = random.Random(42)
        self.weights = [s.ratio for s in sources]

    def pick_source(self) -> Source:
        if len(self.sources) == 1:
            return self.sources[0]
        return self.rng.choices(self.sources, weights=self.weights, k=1)[0]

    def next_task(self, source: Source) -> Task:
        return self.samplers[source.name].next()

    def observe(self, group: list[Episode]) -> None:
        self.samplers[group[0].env_name].observe(group)

    def state(self) -> dict[str, Any]:
        version, internal, gauss = self.rng.getstate()
        return {"rng": [version, list(internal), gauss], "envs": {k: v.state() for k, v in self.samplers.items()}}

    def load_state(self, state: dict[str, Any]) -> None:
        if "rng" in state:
            version, internal, gauss = state["rng"]
            self.rng.setstate((version, tuple(internal), gauss))
        for name, own in (state.get("envs") or {}).items():
            if name in self.samplers:
                self.samplers[name].load_state(own)


@dataclass
class Batch:
    episodes: list[Episode]
    seconds: float  # generation + scoring wall time


def collect_batch(
    sampler: TaskSampler,
    policy: Callable[[Source], Dists],
    version: int,
    rollouts: int,
    token_budget: int | None,
    rng: np.random.Generator,
    on_progress: Any = None,
) -> Batch:
    """Groups until ``rollouts`` rollouts (or ``token_budget`` tokens, with token_batch_size) are in."""
    start = time.perf_counter()
    episodes: list[Episode] = []
    tokens = 0
    while (tokens < token_budget) if token_budget else (len(episodes) < rollouts):
        source = sampler.pick_source()
        if on_progress is not None:
            on_progress(episodes, source)  # the group is dispatched: its rollouts are in flight
        group = run_group(sampler.next_task(source), source, source.group_size, policy(source), version, rng)
        sampler.observe(group)
        episodes += group
        tokens += sum(e.num_input_tokens + e.num_output_tokens for e in group)
    return Batch(episodes, time.perf_counter() - start)


def eval_examples(tasks: list[Task], num_examples: int) -> list[Task]:
    return tasks if num_examples < 0 else tasks[:num_examples]
