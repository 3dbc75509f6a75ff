"""The local RL policy: a factorised pointer policy over the prompt's characters, in numpy.

It writes real text, one character (= one token) at a time, from three kinds of decisions:

- **format** (the first token): wrap the body in ``<reversed_text>`` tags or not, Bernoulli(sigmoid(f/T));
- **length** (the first token): the body has ``len(prompt) + delta`` characters, delta in -3..+3;
- **pointer** (every body character ``t``): copy the prompt's character ``(L-1-t) + d`` for an offset d
  in -3..+3 (d = 0 is the exact reversal), or *hallucinate* a character of the prompt at random;
  the logits depend on the position bucket ``4*t // L`` (four buckets).

The untrained policy favours hallucinating (logit +1.5), so it scores about 0.2, like a weak base
model. ``T`` is the sampling temperature (logits are divided by it, as vLLM and prime-rl's
trainer do). The policy is small on purpose: one step of 128 rollouts takes milliseconds.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from primetui.local.trainer.rl.reward import CLOSE_TAG, OPEN_TAG

OFFSETS = np.arange(-3, 4)
HALLUCINATE = len(OFFSETS)
N_POINTER = len(OFFSETS) + 1
BUCKETS = 4
DELTAS = np.arange(-3, 4)
INIT_HALLUCINATE = 1.5
INIT_FORMAT = 0.5
GREEDY_BELOW = 1e-6  # temperature 0 samples greedily (and trains at T = 1)


def init_params() -> dict[str, np.ndarray]:
    pointer = np.zeros((BUCKETS, N_POINTER))
    pointer[:, HALLUCINATE] = INIT_HALLUCINATE
    return {"pointer": pointer, "format": np.array([INIT_FORMAT]), "length": np.zeros(len(DELTAS))}


NUM_PARAMS = BUCKETS * N_POINTER + 1 + len(DELTAS)  # 40: pointer logits, the format logit, the length logits


def softmax(logits: np.ndarray, temperature: float) -> np.ndarray:
    z = logits / _t(temperature)
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def sigmoid(x: float, temperature: float) -> float:
    return float(1.0 / (1.0 + np.exp(-x / _t(temperature))))


def _t(temperature: float) -> float:
    return temperature if temperature > GREEDY_BELOW else 1.0


@dataclass
class Dists:
    """The policy's action distributions at one temperature."""

    pointer: np.ndarray  # (BUCKETS, N_POINTER)
    wrap: float  # probability of the tags
    length: np.ndarray  # (len(DELTAS),)

    @classmethod
    def of(cls, params: dict[str, np.ndarray], temperature: float) -> Dists:
        return cls(
            softmax(params["pointer"], temperature),
            sigmoid(float(params["format"][0]), temperature),
            softmax(params["length"], temperature),
        )


@dataclass
class Rollout:
    """One sampled completion and the decisions that wrote it (only tokens inside the cut count)."""

    text: str
    wrapped: bool
    delta: int  # index into DELTAS
    buckets: np.ndarray  # bucket of each kept body token
    actions: np.ndarray  # pointer action of each kept body token
    truncated: bool

    @property
    def num_action_tokens(self) -> int:
        return 2 + len(self.actions)


def _choose(probs: np.ndarray, u: float | np.ndarray, greedy: bool) -> np.ndarray:
    if greedy:
        return np.argmax(probs, axis=-1)
    cum = np.cumsum(probs, axis=-1)
    return np.minimum((np.asarray(u)[..., None] > cum).sum(axis=-1), probs.shape[-1] - 1)


def sample(dists: Dists, prompt: str, temperature: float, max_tokens: int | None, rng: np.random.Generator) -> Rollout:
    greedy = temperature <= GREEDY_BELOW
    size = len(prompt)
    wrapped = bool(dists.wrap >= 0.5) if greedy else bool(rng.random() < dists.wrap)
    delta = int(_choose(dists.length, rng.random(), greedy))
    n = max(1, size + int(DELTAS[delta]))
    t = np.arange(n)
    buckets = np.minimum(BUCKETS - 1, (BUCKETS * t) // max(1, size))
    actions = _choose(dists.pointer[buckets], rng.random(n), greedy)
    body = _write(prompt, t, actions, None if greedy else rng)
    return _finish(body, wrapped, delta, buckets, actions, max_tokens)


def _write(prompt: str, t: np.ndarray, actions: np.ndarray, rng: np.random.Generator | None) -> str:
    """The body's characters; a "random prompt character" is drawn with ``rng``, or (greedy: None) is the
    first prompt character, so greedy decoding writes one text for one prompt, as an LLM's does."""
    size = len(prompt)
    chars = np.frombuffer(prompt.encode("utf-8", "replace"), dtype=np.uint8) if prompt.isascii() else None
    if chars is None:  # non-ASCII prompt: index characters, not bytes
        chars = np.array([ord(c) for c in prompt])
    source = (size - 1 - t) + OFFSETS[np.minimum(actions, len(OFFSETS) - 1)]
    random_pick = rng.integers(0, size, len(t)) if rng is not None else np.zeros(len(t), dtype=int)
    copy = (actions != HALLUCINATE) & (source >= 0) & (source < size)
    index = np.where(copy, np.clip(source, 0, size - 1), random_pick)
    return "".join(map(chr, chars[index]))


def _finish(
    body: str, wrapped: bool, delta: int, buckets: np.ndarray, actions: np.ndarray, max_tokens: int | None
) -> Rollout:
    text = f"{OPEN_TAG}{body}{CLOSE_TAG}" if wrapped else body
    if max_tokens is None or len(text) <= max_tokens:
        return Rollout(text, wrapped, delta, buckets, actions, False)
    kept_body = max(0, min(len(body), max_tokens - (len(OPEN_TAG) if wrapped else 0)))
    return Rollout(text[:max_tokens], wrapped, delta, buckets[:kept_body], actions[:kept_body], True)


def entropy(p: np.ndarray) -> np.ndarray:
    return -(p * np.log(np.maximum(p, 1e-30))).sum(axis=-1)


def kl(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """KL(p || q) over the last axis."""
    return (p * (np.log(np.maximum(p, 1e-30)) - np.log(np.maximum(q, 1e-30)))).sum(axis=-1)


def bernoulli(p: float) -> np.ndarray:
    return np.array([1.0 - p, p])
