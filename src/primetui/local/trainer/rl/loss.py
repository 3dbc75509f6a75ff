"""The trainer's side of one RL step: the importance-weighted policy-gradient loss and its gradient.

As prime-rl's ``rl`` loss, per token: ``-A * pi_current(a) / pi_behaviour(a)``, summed over the tokens
of the trainable rollouts (non-zero advantage; ``filter_zero_advantages``) and divided by their
count. The behaviour policy is the one that sampled the batch (one step stale: the rollouts of step
n were written by the weights of step n-1's start, as prime-rl's async pipeline does with one step
in flight). The gradient with respect to the logits of a softmax action is
``A * ratio * (onehot(a) - p) / T``. Entropy and mismatch KL are exact per-token means over the
same tokens (KL(behaviour || current) of each token's distribution).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from primetui.local.trainer.rl.policy import BUCKETS, DELTAS, N_POINTER, Dists, Rollout, _t, bernoulli, entropy, kl


@dataclass
class StepResult:
    grads: dict[str, np.ndarray]
    loss: float
    entropy: float
    mismatch_kl: float
    tokens: int  # action tokens trained on


@dataclass
class _Counts:
    pointer: np.ndarray  # (BUCKETS, N_POINTER) advantage-weighted action counts
    tokens_per_bucket: np.ndarray  # (BUCKETS,)
    wrap: np.ndarray  # (2,) advantage-weighted format choices
    length: np.ndarray  # (len(DELTAS),)
    rollouts: int
    tokens: int


def _count(rollouts: list[Rollout], advantages: np.ndarray) -> _Counts:
    pointer = np.zeros((BUCKETS, N_POINTER))
    per_bucket = np.zeros(BUCKETS)
    wrap = np.zeros(2)
    length = np.zeros(len(DELTAS))
    for r, a in zip(rollouts, advantages, strict=True):
        flat = np.bincount(r.buckets * N_POINTER + r.actions, minlength=BUCKETS * N_POINTER).reshape(BUCKETS, N_POINTER)
        pointer += a * flat
        per_bucket += flat.sum(axis=1)
        wrap[int(r.wrapped)] += a
        length[r.delta] += a
    tokens = int(per_bucket.sum()) + 2 * len(rollouts)
    return _Counts(pointer, per_bucket, wrap, length, len(rollouts), tokens)


def _softmax_grad(weighted: np.ndarray, ratio: np.ndarray, p: np.ndarray, temperature: float) -> np.ndarray:
    """d/dlogits of sum(A * ratio(a)) for softmax actions: (W*r - sum(W*r) * p) / T, per row."""
    wr = weighted * ratio
    return (wr - wr.sum(axis=-1, keepdims=True) * p) / _t(temperature)


def policy_gradient(
    cur: Dists, beh: Dists, rollouts: list[Rollout], advantages: np.ndarray, temperature: float
) -> StepResult:
    keep = [i for i, a in enumerate(advantages) if a != 0.0]
    chosen = [rollouts[i] for i in keep] if keep else rollouts
    counts = _count(chosen, advantages[keep] if keep else np.zeros(len(rollouts)))
    wrap_cur, wrap_beh = bernoulli(cur.wrap), bernoulli(beh.wrap)
    r_ptr = cur.pointer / beh.pointer
    r_wrap = wrap_cur / np.maximum(wrap_beh, 1e-300)
    r_len = cur.length / beh.length
    surrogate = float((counts.pointer * r_ptr).sum() + (counts.wrap * r_wrap).sum() + (counts.length * r_len).sum())
    n = max(1, counts.tokens)
    g_wrap = _softmax_grad(counts.wrap, r_wrap, wrap_cur, temperature)
    grads = {
        "pointer": -_softmax_grad(counts.pointer, r_ptr, cur.pointer, temperature) / n,
        "format": -np.array([g_wrap[1]]) / n,  # f is the logit of "wrap" against a fixed 0
        "length": -_softmax_grad(counts.length, r_len, cur.length, temperature) / n,
    }
    ent = (
        counts.tokens_per_bucket @ entropy(cur.pointer) + counts.rollouts * (entropy(wrap_cur) + entropy(cur.length))
    ) / n
    mkl = (
        counts.tokens_per_bucket @ kl(beh.pointer, cur.pointer)
        + counts.rollouts * (kl(wrap_beh, wrap_cur) + kl(beh.length, cur.length))
    ) / n
    return StepResult(grads, -surrogate / n, float(ent), float(mkl), counts.tokens if keep else 0)
