"""Optimizers (torch semantics) and gradient clipping, on dicts of numpy arrays.

AdamW keeps two fp32 moments per parameter, so a checkpoint is 12 bytes per parameter, as the
hosted platform's rule of thumb says; SGD keeps one momentum buffer; sign-SGD keeps nothing.
"""

from __future__ import annotations

import math

import numpy as np

from primetui.local.trainer.config import OptimConfig


def clip_grad_norm(grads: dict[str, np.ndarray], max_norm: float | None) -> float:
    """Total L2 norm before clipping (what prime-rl logs as Grad. Norm); clips in place."""
    total = math.sqrt(sum(float(np.vdot(g, g)) for g in grads.values()))
    if max_norm is not None and math.isfinite(total):
        coef = max_norm / (total + 1e-6)
        if coef < 1.0:
            for g in grads.values():
                g *= coef
    return total


class Optimizer:
    """One of adamw / sgd / sign_sgd; ``muon`` falls back to AdamW (see ``fallback_note``)."""

    def __init__(self, cfg: OptimConfig, params: dict[str, np.ndarray]) -> None:
        self.cfg = cfg
        self.kind = cfg.type if cfg.type in ("adamw", "sgd", "sign_sgd") else "adamw"
        self.fallback_note = (
            f"optim.type = '{cfg.type}' is not implemented by the local stand-in trainer; using AdamW "
            f"(betas {cfg.betas1}, {cfg.betas2}) instead."
            if self.kind != cfg.type
            else None
        )
        self.t = 0
        self.state: dict[str, dict[str, np.ndarray]] = {}
        for name, p in params.items():
            if self.kind == "adamw":
                self.state[name] = {"exp_avg": np.zeros_like(p), "exp_avg_sq": np.zeros_like(p)}
            elif self.kind == "sgd" and cfg.momentum:
                self.state[name] = {"momentum_buffer": np.zeros_like(p)}

    def step(self, params: dict[str, np.ndarray], grads: dict[str, np.ndarray], lr: float) -> None:
        self.t += 1
        c = self.cfg
        for name, p in params.items():
            g = grads[name]
            if self.kind == "adamw":
                st = self.state[name]
                p *= 1.0 - lr * c.weight_decay
                st["exp_avg"] *= c.betas1
                st["exp_avg"] += (1.0 - c.betas1) * g
                st["exp_avg_sq"] *= c.betas2
                st["exp_avg_sq"] += (1.0 - c.betas2) * g * g
                bc1 = 1.0 - c.betas1**self.t
                bc2 = 1.0 - c.betas2**self.t
                denom = np.sqrt(st["exp_avg_sq"] / bc2) + 1e-8
                p -= (lr / bc1) * st["exp_avg"] / denom
            elif self.kind == "sgd":
                d = g + c.weight_decay * p if c.weight_decay else g.copy()
                if c.momentum:
                    buf = self.state[name]["momentum_buffer"]
                    if self.t == 1:
                        buf[...] = d
                    else:
                        buf *= c.momentum
                        buf += d
                    d = d + c.momentum * buf if c.nesterov else buf
                p -= lr * d
            else:  # sign_sgd, decoupled weight decay
                p *= 1.0 - lr * c.weight_decay
                p -= lr * np.sign(g)

    def state_arrays(self) -> dict[str, np.ndarray]:
        return {f"{name}.{key}": arr for name, st in self.state.items() for key, arr in st.items()}

    def load_state_arrays(self, arrays: dict[str, np.ndarray], t: int) -> None:
        self.t = t
        for flat, arr in arrays.items():
            name, key = flat.rsplit(".", 1)
            if name in self.state and key in self.state[name]:
                self.state[name][key][...] = arr
