"""The orchestrator's side of a step: pick tasks, sample groups of rollouts, score them, advantages.

Each rollout is timed as verifiers times a trace (``setup``, ``agent`` with its ``model`` share,
``scoring``), on this machine's clock. Advantages are prime-rl's GRPO: reward minus the group's
mean reward, no std normalisation.
"""

from __future__ import annotations

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


def run_rollout(task: Task, env_name: str, group_id: str, dists: Dists, source: Source, version: int,
                rng: np.random.Generator) -> Episode:
    t0 = time.time()
    t1 = time.time()  # setup: the task's messages are built from the data row; nothing to boot
    roll = sample(dists, task.prompt, source.sampling.temperature, source.sampling.max_completion_tokens, rng)
    t2 = time.time()
    score = rw.lcs(roll.text, task.answer)
    t3 = time.time()
    timing = {"start": t0, "boot": _span(0.0, 0.0), "setup": _span(t0, t1),
              "agent": {**_span(t1, t2), "model": {"duration": t2 - t1}, "harness": {"duration": 0.0}},
              "finalize": _span(t3, t3), "scoring": _span(t2, t3)}
    return Episode(env_name, task, group_id, roll, score, timing, version)


def run_group(task: Task, source: Source, size: int, dists: Dists, version: int,
              rng: np.random.Generator) -> list[Episode]:
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


class TaskSampler:
    """Cycles through each source's tasks in a shuffled order (reshuffled each epoch), by ratio."""

    def __init__(self, sources: list[Source], tasks: dict[str, list[Task]], seed: int) -> None:
        self.sources = sources
        self.tasks = tasks
        self.seed = seed
        self.cursors = {s.name: 0 for s in sources}
        total = sum(s.ratio for s in sources)
        self.weights = np.array([s.ratio / total for s in sources])

    def pick_source(self, rng: np.random.Generator) -> Source:
        if len(self.sources) == 1:
            return self.sources[0]
        return self.sources[int(rng.choice(len(self.sources), p=self.weights))]

    def next_task(self, source: Source) -> Task:
        tasks = self.tasks[source.name]
        cursor = self.cursors[source.name]
        epoch, pos = divmod(cursor, len(tasks))
        order = np.random.default_rng([self.seed, source.index, epoch]).permutation(len(tasks))
        self.cursors[source.name] = cursor + 1
        return tasks[int(order[pos])]

    def state(self) -> dict[str, int]:
        return dict(self.cursors)

    def load_state(self, state: dict[str, int]) -> None:
        for name, cursor in state.items():
            if name in self.cursors:
                self.cursors[name] = int(cursor)


@dataclass
class Batch:
    episodes: list[Episode]
    seconds: float  # generation + scoring wall time


def collect_batch(sampler: TaskSampler, policy: Callable[[Source], Dists], version: int, rollouts: int,
                  token_budget: int | None, rng: np.random.Generator, on_progress: Any = None) -> Batch:
    """Groups until ``rollouts`` rollouts (or ``token_budget`` tokens, with token_batch_size) are in."""
    start = time.perf_counter()
    episodes: list[Episode] = []
    tokens = 0
    while (tokens < token_budget) if token_budget else (len(episodes) < rollouts):
        source = sampler.pick_source(rng)
        if on_progress is not None:
            on_progress(episodes, source)  # the group is dispatched: its rollouts are in flight
        group = run_group(sampler.next_task(source), source, source.group_size, policy(source), version, rng)
        episodes += group
        tokens += sum(e.num_input_tokens + e.num_output_tokens for e in group)
    return Batch(episodes, time.perf_counter() - start)


def eval_examples(tasks: list[Task], num_examples: int) -> list[Task]:
    return tasks if num_examples < 0 else tasks[:num_examples]
