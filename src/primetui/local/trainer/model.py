"""The stand-in language model: a byte-level windowed MLP LM with a hand-written backward pass.

For each position the model sees the previous ``context`` tokens of the same document (earlier
positions are padded), embeds and concatenates them, applies one tanh hidden layer and projects to
the vocabulary (Bengio et al., 2003). It has no recurrence, so a step only computes the positions
that carry loss: prompt tokens and padding cost nothing, which keeps CPU steps short.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from primetui.local.trainer.tokenizer import PAD, VOCAB_SIZE

PARAM_NAMES = ("embed", "w1", "b1", "w2", "b2")


@dataclass(frozen=True)
class ModelShape:
    vocab: int = VOCAB_SIZE
    context: int = 16
    embed: int = 32
    hidden: int = 256

    @classmethod
    def from_standin(cls, standin: dict[str, Any] | None) -> ModelShape:
        s = standin or {}
        return cls(
            vocab=VOCAB_SIZE,
            context=min(64, max(1, int(s.get("context", 16)))),
            embed=min(256, max(4, int(s.get("embed", 32)))),
            hidden=min(2048, max(8, int(s.get("hidden", 256)))),
        )

    @property
    def num_params(self) -> int:
        k_d = self.context * self.embed
        return self.vocab * self.embed + k_d * self.hidden + self.hidden + self.hidden * self.vocab + self.vocab

    @property
    def flops_per_token(self) -> int:
        """Forward + backward matmul FLOPs for one trained position (2 fwd + 4 bwd per weight)."""
        return 6 * (self.context * self.embed * self.hidden + self.hidden * self.vocab)

    def describe(self) -> str:
        return (
            f"byte-level windowed MLP language model with {self.num_params:,} parameters "
            f"(vocab {self.vocab}, context {self.context}, embed {self.embed}, hidden {self.hidden})"
        )


def init_params(shape: ModelShape, seed: int = 0, dtype: Any = np.float32) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    k_d = shape.context * shape.embed
    params = {
        "embed": rng.normal(0.0, 1.0, (shape.vocab, shape.embed)),
        "w1": rng.normal(0.0, 1.0 / np.sqrt(k_d), (k_d, shape.hidden)),
        "b1": np.zeros(shape.hidden),
        "w2": rng.normal(0.0, 0.5 / np.sqrt(shape.hidden), (shape.hidden, shape.vocab)),
        "b2": np.zeros(shape.vocab),
    }
    return {k: v.astype(dtype) for k, v in params.items()}


def contexts(ids: np.ndarray, doc_start: np.ndarray, positions: np.ndarray, k: int) -> np.ndarray:
    """Left-context windows (N, k) for target ``positions``; tokens of earlier documents become PAD."""
    offs = positions[:, None] - k + np.arange(k)[None, :]
    valid = offs >= doc_start[positions][:, None]
    return np.where(valid, ids[np.clip(offs, 0, None)], PAD).astype(np.int64)


def _hidden(params: dict[str, np.ndarray], ctx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    x = params["embed"][ctx].reshape(ctx.shape[0], -1)
    h = np.tanh(x @ params["w1"] + params["b1"])
    return x, h


def _log_softmax(logits: np.ndarray) -> np.ndarray:
    m = logits.max(axis=1, keepdims=True)
    z = logits - m
    return z - np.log(np.exp(z).sum(axis=1, keepdims=True))


def loss_sum(params: dict[str, np.ndarray], ctx: np.ndarray, targets: np.ndarray) -> float:
    """Summed token cross-entropy (no gradient)."""
    _, h = _hidden(params, ctx)
    logp = _log_softmax(h @ params["w2"] + params["b2"])
    return float(-logp[np.arange(len(targets)), targets].sum())


def forward_backward(
    params: dict[str, np.ndarray], ctx: np.ndarray, targets: np.ndarray, grads: dict[str, np.ndarray]
) -> tuple[float, int]:
    """Add d(sum of token CE)/d(params) into ``grads``; return (summed CE, non-finite token count)."""
    n = len(targets)
    x, h = _hidden(params, ctx)
    logp = _log_softmax(h @ params["w2"] + params["b2"])
    ce = -logp[np.arange(n), targets]
    nan_count = int(np.count_nonzero(~np.isfinite(ce)))
    dlogits = np.exp(logp)
    dlogits[np.arange(n), targets] -= 1.0
    grads["w2"] += h.T @ dlogits
    grads["b2"] += dlogits.sum(axis=0)
    da = (dlogits @ params["w2"].T) * (1.0 - h * h)
    grads["w1"] += x.T @ da
    grads["b1"] += da.sum(axis=0)
    vocab, dim = params["embed"].shape
    dx = (da @ params["w1"].T).reshape(-1, dim)
    # Scatter-add into the embedding rows with one bincount (measured 3-4x faster than np.add.at).
    flat = (ctx.reshape(-1, 1) * dim + np.arange(dim)).ravel()
    grads["embed"] += np.bincount(flat, weights=dx.ravel(), minlength=vocab * dim).reshape(vocab, dim)
    return float(ce.sum()), nan_count


def generate(
    params: dict[str, np.ndarray],
    prompts: list[np.ndarray],
    *,
    context: int,
    max_new_tokens: int,
    stop_token: int,
    temperature: float = 0.0,
    seed: int = 0,
) -> list[np.ndarray]:
    """Continue every prompt at once (one batched forward per new token) until ``stop_token``."""
    rng = np.random.default_rng(seed)
    n = len(prompts)
    windows = np.full((n, context), PAD, dtype=np.int64)
    for row, p in enumerate(prompts):
        tail = p[-context:]
        windows[row, context - len(tail) :] = tail
    outputs: list[list[int]] = [[] for _ in range(n)]
    alive = np.ones(n, dtype=bool)
    for _ in range(max_new_tokens):
        idx = np.flatnonzero(alive)
        if idx.size == 0:
            break
        _, h = _hidden(params, windows[idx])
        logits = h @ params["w2"] + params["b2"]
        if temperature and temperature > 0:
            logp = _log_softmax(logits / temperature)
            cum = np.cumsum(np.exp(logp), axis=1)
            nxt = (cum < rng.random((len(idx), 1))).sum(axis=1).clip(0, logits.shape[1] - 1)
        else:
            nxt = logits.argmax(axis=1)
        for j, i in enumerate(idx):
            tok = int(nxt[j])
            if tok == stop_token:
                alive[i] = False
            else:
                outputs[i].append(tok)
        windows[idx] = np.concatenate([windows[idx, 1:], nxt[:, None]], axis=1)
    return [np.array(o, dtype=np.int64) for o in outputs]
