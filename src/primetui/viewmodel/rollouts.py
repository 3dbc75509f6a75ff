"""What the Rollouts tab and ``primetui rollouts`` show: one step's samples grouped by problem.

A step's rows (R11, :class:`primetui.api.rl.Sample`) become :class:`Completion` s (the text the
model wrote, its reward, per-rubric scores, advantage, tokens, truncation) grouped into
:class:`Group` s by ``problem_id`` (the prompt, the answer, the mean reward, the spread, the
advantage; a group whose rewards are all equal carries no signal under GRPO: every advantage is 0).

Reading a row is tolerant of the three generations of its columns (research §2.1): the prompt and
answer from ``task`` (today), the ``prompt``/``answer`` columns (legacy), or the messages; the
per-rubric scores from ``info.native_wrapper.traces[].rewards`` (today) and the ``metrics`` dict
(verifiers v0). No textual, no rich: the texts here are raw; the screens and the headless command
pass them through the neutraliser where they draw or print them.
"""

from __future__ import annotations

import difflib
import json
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from primetui.api.rl import Sample
from primetui.monitor_core.rl_health import SamplePoint

SORTS = ("reward", "advantage", "length", "spread")
"""Orders of the groups (and of the completions inside one): the `s` key cycles through them."""

TRUNCATING_STOPS = frozenset(
    {
        "max_turns",
        "max_input_tokens",
        "max_output_tokens",
        "max_total_tokens",
        "context_length",
        "length",
        "generation_truncated",
    }
)
"""Stop conditions that mean the rollout was cut (verifiers v1 ``Trace.is_truncated``)."""

_TAG = re.compile(r"<reversed_text>(.*?)</reversed_text>", re.DOTALL)
_ANY_TAG = re.compile(r"<([A-Za-z_][\w-]{0,40})>\s*(.*?)\s*</\1>", re.DOTALL)


# ---- reading one row ------------------------------------------------------------------------------


def _messages(value: Any) -> list[dict[str, Any]]:
    if isinstance(value, list):
        return [m for m in value if isinstance(m, dict)]
    return []


def _content(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # multimodal parts: the text ones
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return "" if content is None else str(content)


def completion_text(sample: Any) -> str:
    """What the model wrote: the last assistant message of ``completion`` (or the text itself)."""
    value = sample.completion
    if isinstance(value, str):
        return value
    messages = _messages(value)
    replies = [m for m in messages if m.get("role") == "assistant"]
    if replies:
        return _content(replies[-1])
    return _content(messages[-1]) if messages else ""


def _task(sample: Any) -> dict[str, Any]:
    return sample.task if isinstance(sample.task, dict) else {}


def prompt_text(sample: Any) -> str:
    """The problem as the user saw it: ``task.prompt``, the ``prompt`` column, or the last user message."""
    task_prompt = _task(sample).get("prompt")
    if isinstance(task_prompt, str) and task_prompt:
        return task_prompt
    if isinstance(task_prompt, list):
        users = [m for m in _messages(task_prompt) if m.get("role") == "user"]
        if users:
            return _content(users[-1])
    if isinstance(sample.prompt, str) and sample.prompt:
        return sample.prompt
    for source in (sample.prompt, sample.completion):
        users = [m for m in _messages(source) if m.get("role") == "user"]
        if users:
            return _content(users[-1])
    return ""


def answer_text(sample: Any) -> str:
    """The expected answer: ``task.answer`` or the ``answer`` column ('' when the env has none)."""
    answer = _task(sample).get("answer")
    if answer is None or answer == "":
        answer = sample.answer
    if answer is None:
        return ""
    return answer if isinstance(answer, str) else json.dumps(answer, ensure_ascii=False)


def _trace(sample: Any) -> dict[str, Any]:
    info = sample.info if isinstance(sample.info, dict) else {}
    wrapper = info.get("native_wrapper")
    traces = wrapper.get("traces") if isinstance(wrapper, dict) else None
    if not isinstance(traces, list) or not traces:
        return {}
    index = info.get("native_trace_index", 0)
    if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(traces):
        index = 0
    trace = traces[index]
    return trace if isinstance(trace, dict) else {}


def _finite(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def rubric_scores(sample: Any) -> dict[str, float]:
    """Per-reward-function scores: ``info.native_wrapper.traces[i].rewards[name].score`` and, for
    legacy rows, the numbers of the ``metrics`` dict."""
    scores: dict[str, float] = {}
    rewards = _trace(sample).get("rewards")
    if isinstance(rewards, dict):
        for name, reward in rewards.items():
            value = _finite(reward.get("score")) if isinstance(reward, dict) else _finite(reward)
            if value is not None:
                scores[str(name)] = value
    metrics = sample.metrics if isinstance(sample.metrics, dict) else {}
    for name, value in metrics.items():
        number = _finite(value)
        if number is not None and str(name) not in scores:
            scores[str(name)] = number
    return scores


def is_truncated(sample: Any) -> bool:
    """True when the rollout was cut (a truncation flag, or a stop condition that cuts)."""
    trace = _trace(sample)
    info = sample.info if isinstance(sample.info, dict) else {}
    for source in (trace, info):
        flag = source.get("is_truncated")
        if isinstance(flag, bool):
            return flag
    stop = trace.get("stop_condition", info.get("stop_condition"))
    return isinstance(stop, str) and stop in TRUNCATING_STOPS


def parsed_answer(text: str) -> str:
    """The part of a completion the reward reads: inside ``<reversed_text>`` (or the one tag used), else all of it."""
    match = _TAG.search(text) or _ANY_TAG.search(text)
    return match.group(match.lastindex or 1).strip() if match else text.strip()


# ---- completions and groups -------------------------------------------------------------------------


@dataclass
class Completion:
    """One rollout as the tab lists it."""

    sample: Sample
    text: str
    reward: float | None
    advantage: float | None
    rubric: dict[str, float]
    tokens_in: int | None
    tokens_out: int | None
    truncated: bool

    @property
    def problem_id(self) -> int | None:
        return self.sample.problem_id

    @property
    def sample_id(self) -> int | None:
        return self.sample.sample_id

    @property
    def step(self) -> int:
        return self.sample.step

    @property
    def length(self) -> int:
        """Output tokens when the platform counted them, else characters."""
        return self.tokens_out if self.tokens_out is not None else len(self.text)


def completion_of(sample: Sample) -> Completion:
    text = completion_text(sample)
    return Completion(
        sample,
        text,
        _finite(sample.reward),
        _finite(sample.advantage),
        rubric_scores(sample),
        sample.num_input_tokens,
        sample.num_output_tokens,
        is_truncated(sample),
    )


def _reward(c: Completion) -> float:
    return c.reward if c.reward is not None else -math.inf


@dataclass
class Group:
    """The rollouts of one problem at one step."""

    problem_id: int | None
    prompt: str
    answer: str
    env: str
    completions: list[Completion] = field(default_factory=list)

    def rewards(self) -> list[float]:
        return [c.reward for c in self.completions if c.reward is not None]

    @property
    def mean(self) -> float | None:
        rewards = self.rewards()
        return sum(rewards) / len(rewards) if rewards else None

    @property
    def spread(self) -> float | None:
        """Max minus min reward (0: no signal)."""
        rewards = self.rewards()
        return max(rewards) - min(rewards) if rewards else None

    @property
    def std(self) -> float | None:
        rewards = self.rewards()
        if not rewards:
            return None
        mean = sum(rewards) / len(rewards)
        return math.sqrt(sum((r - mean) ** 2 for r in rewards) / len(rewards))

    @property
    def advantage(self) -> float | None:
        """The mean |advantage| of the group: how much it pushes the policy (0: nothing to learn)."""
        values = [abs(c.advantage) for c in self.completions if c.advantage is not None]
        return sum(values) / len(values) if values else None

    @property
    def no_signal(self) -> bool:
        """Every reward equal (solved by all or by none): GRPO's advantages are all 0."""
        spread = self.spread
        return spread is not None and len(self.rewards()) > 1 and spread <= 1e-12

    @property
    def mean_length(self) -> float:
        return sum(c.length for c in self.completions) / len(self.completions) if self.completions else 0.0

    def best(self) -> Completion | None:
        scored = [c for c in self.completions if c.reward is not None]
        return max(scored, key=_reward) if scored else (self.completions[0] if self.completions else None)

    def to_json(self) -> dict[str, Any]:
        return {
            "problem_id": self.problem_id,
            "env_name": self.env or None,
            "prompt": self.prompt,
            "answer": self.answer,
            "mean_reward": self.mean,
            "reward_spread": self.spread,
            "reward_std": self.std,
            "advantage": self.advantage,
            "no_signal": self.no_signal,
            "samples": [completion_json(c) for c in self.completions],
        }


def completion_json(c: Completion) -> dict[str, Any]:
    return {
        "sample_id": c.sample_id,
        "reward": c.reward,
        "advantage": c.advantage,
        "rubric": c.rubric,
        "num_input_tokens": c.tokens_in,
        "num_output_tokens": c.tokens_out,
        "truncated": c.truncated,
        "completion": c.text,
    }


def _none_last(value: float | None, reverse: bool) -> tuple[int, float]:
    # None sorts after every number in either direction.
    if value is None:
        return (1, 0.0)
    return (0, -value if reverse else value)


def completion_key(sort: str) -> Any:
    if sort == "advantage":
        return lambda c: c.advantage
    if sort == "length":
        return lambda c: float(c.length)
    return lambda c: c.reward  # reward, and spread (within a group, by reward)


def group_key(sort: str) -> Any:
    if sort == "advantage":
        return lambda g: g.advantage
    if sort == "length":
        return lambda g: g.mean_length
    if sort == "spread":
        return lambda g: g.spread
    return lambda g: g.mean


def sort_by(items: Iterable[Any], key: Any, descending: bool = True) -> list[Any]:
    """``items`` ordered by ``key`` (high first unless not ``descending``); None values last; stable."""
    return sorted(items, key=lambda item: _none_last(key(item), descending))


class StepSamples:
    """One step's samples as they arrive page by page, grouped on demand (cached until the next page)."""

    def __init__(self, step: int) -> None:
        self.step = step
        self.total: int | None = None
        self.complete = False
        self._by_id: dict[Any, Any] = {}
        self._groups: list[Group] | None = None
        self._completions: list[Completion] | None = None

    def add(self, samples: Sequence[Any], total: int | None = None, done: bool = False) -> None:
        for sample in samples:
            key = sample.sample_id if sample.sample_id is not None else ("row", len(self._by_id))
            self._by_id[key] = sample
        if total is not None:
            self.total = total
        self.complete = self.complete or done
        self._groups = self._completions = None

    def __len__(self) -> int:
        return len(self._by_id)

    def completions(self) -> list[Completion]:
        if self._completions is None:
            self._completions = [completion_of(s) for s in self._by_id.values()]
        return self._completions

    def groups(self) -> list[Group]:
        """Groups in the order their problems first appear."""
        if self._groups is None:
            by_problem: dict[Any, Group] = {}
            for c in self.completions():
                key = c.problem_id if c.problem_id is not None else ("sample", c.sample_id)
                group = by_problem.get(key)
                if group is None:
                    s = c.sample
                    group = by_problem[key] = Group(c.problem_id, prompt_text(s), answer_text(s), s.env_name or "")
                group.completions.append(c)
            self._groups = list(by_problem.values())
        return self._groups

    def group(self, problem_id: int | None) -> Group | None:
        return next((g for g in self.groups() if g.problem_id == problem_id), None)

    def sorted_groups(self, sort: str = "reward", descending: bool = True) -> list[Group]:
        return sort_by(self.groups(), group_key(sort), descending)

    def top(self, k: int, bottom: bool = False, sort: str = "reward") -> list[Completion]:
        """The ``k`` best completions of the step by ``sort`` (the worst with ``bottom``)."""
        return sort_by(self.completions(), completion_key(sort), not bottom)[:k]

    def search(self, query: str) -> list[Completion]:
        """Completions whose text holds ``query`` (case-insensitive), in sample order."""
        needle = query.casefold()
        return [c for c in self.completions() if needle and needle in c.text.casefold()] if needle else []

    def summary(self) -> dict[str, Any]:
        groups = self.groups()
        rewards = [c.reward for c in self.completions() if c.reward is not None]
        silent = sum(1 for g in groups if g.no_signal)
        return {
            "samples": len(self),
            "total": self.total,
            "groups": len(groups),
            "mean_reward": sum(rewards) / len(rewards) if rewards else None,
            "no_signal_groups": silent,
            "truncated": sum(1 for c in self.completions() if c.truncated),
        }


# ---- the diff, the JSON copy --------------------------------------------------------------------------

EQUAL, EXTRA, MISSING = "equal", "extra", "missing"


def char_diff(got: str, want: str, limit: int = 20_000) -> list[tuple[str, str]]:
    """``got`` (the completion) against ``want`` (the answer), character by character.

    ``(op, text)`` runs in reading order: ``equal`` text both have, ``extra`` text only the completion
    has, ``missing`` answer text the completion lacks (a replaced run is the missing text, then the
    extra). Texts past ``limit`` characters are cut first: a diff is quadratic at worst.
    """
    got, want = got[:limit], want[:limit]
    matcher = difflib.SequenceMatcher(None, got, want, autojunk=False)
    runs: list[tuple[str, str]] = []
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            runs.append((EQUAL, got[i1:i2]))
            continue
        if j2 > j1:
            runs.append((MISSING, want[j1:j2]))
        if i2 > i1:
            runs.append((EXTRA, got[i1:i2]))
    return runs


def match_ratio(got: str, want: str) -> float:
    """The reverse-text reward's own measure: ``SequenceMatcher.ratio()`` of the two texts."""
    return difflib.SequenceMatcher(None, got, want).ratio()


def sample_json(sample: Any) -> str:
    """The row as the platform sent it (its JSON columns decoded), as JSON text for the clipboard."""
    data = sample.model_dump(mode="json") if hasattr(sample, "model_dump") else dict(sample)
    return json.dumps(data, ensure_ascii=False, indent=2, allow_nan=True)


# ---- steps -----------------------------------------------------------------------------------------


def neighbour_step(steps: Sequence[int], current: int | None, delta: int) -> int | None:
    """The step ``delta`` places from ``current`` in ``steps`` (clamped); the last one when none is current."""
    ordered = sorted(set(steps))
    if not ordered:
        return None
    if current is None or current not in ordered:
        if current is None:
            return ordered[-1]
        below = [s for s in ordered if s <= current]
        index = ordered.index(below[-1]) if below else 0
    else:
        index = ordered.index(current)
    return ordered[max(0, min(len(ordered) - 1, index + delta))]


SIMILARITY_MOST = 256
"""Completions of a step whose answer similarity is measured (evenly spread): the ratio is quadratic in
the text's length, and a mean over 256 of 1,024 rollouts moves by far less than the flag's threshold."""


def sample_point(held: StepSamples) -> SamplePoint | None:
    """A step's mean reward and its completions' mean similarity to their answer (the diff's ratio);
    None when no group has an answer (an environment without one) or no completion a reward."""
    pairs = [
        (c.reward, c.text, g.answer)
        for g in held.groups()
        if g.answer
        for c in g.completions
        if c.reward is not None and math.isfinite(c.reward)
    ]
    if not pairs:
        return None
    picked = pairs[:: max(1, math.ceil(len(pairs) / SIMILARITY_MOST))]
    similarity = sum(match_ratio(parsed_answer(text), answer) for _, text, answer in picked) / len(picked)
    return SamplePoint(held.step, sum(r for r, _, _ in pairs) / len(pairs), similarity, len(pairs))


def other_steps(steps: Sequence[int], current: int | None) -> list[int]:
    """Where to look for the current step's problem: the earlier sample steps nearest first, then the later ones."""
    ordered = sorted(set(steps))
    if current is None:
        return ordered[::-1]
    return [s for s in reversed(ordered) if s < current] + [s for s in ordered if s > current]


@dataclass
class Hunt:
    """The search for one problem at the other sample steps, one step's samples read at a time.

    The samples route serves a step, not a problem, so each step is read (page by page) until the
    problem shows up in it or the step ends; the problems of every step read are remembered
    (:attr:`ProblemIndex`), so a step is read once however many problems are looked for."""

    problem: int
    order: list[int]
    """The steps to look in, in order (:func:`other_steps`)."""
    position: int = 0
    """The next step of ``order`` to look in."""
    looking: int | None = None
    """The step being read for it now, if any."""

    @property
    def done(self) -> bool:
        return self.looking is None and self.position >= len(self.order)


class ProblemIndex:
    """The problem ids of each step whose samples were read whole (a few ints per step, kept for the run)."""

    def __init__(self) -> None:
        self.by_step: dict[int, frozenset[int]] = {}

    def note(self, held: StepSamples) -> None:
        if held.complete:
            self.by_step[held.step] = frozenset(g.problem_id for g in held.groups() if g.problem_id is not None)

    def holds(self, step: int, problem: int) -> bool | None:
        """Whether ``step`` has ``problem`` (None: the step is not read yet)."""
        ids = self.by_step.get(step)
        return None if ids is None else problem in ids

    def steps_with(self, problem: int | None) -> list[int]:
        return sorted(s for s, ids in self.by_step.items() if problem in ids)


def hunt_next(hunt: Hunt, index: ProblemIndex) -> int | None:
    """Advance ``hunt`` over the steps already read: the first that holds the problem (returned, the
    hunt stays past it), else None with ``hunt.position`` at the first step not read yet (or the end)."""
    while hunt.position < len(hunt.order):
        step = hunt.order[hunt.position]
        held = index.holds(step, hunt.problem)
        if held is None:
            return None
        hunt.position += 1
        if held:
            return step
    return None


def fmt_num(value: float | None, digits: int = 3) -> str:
    if value is None:
        return "-"
    if not math.isfinite(value):
        return str(value)
    return f"{value:.{digits}f}"


def fmt_signed(value: float | None, digits: int = 3) -> str:
    if value is None:
        return "-"
    return f"{value:+.{digits}f}"
