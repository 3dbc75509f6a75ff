"""Learning-rate schedules: constant, linear (warmup / constant / decay) and cosine with warmup.

``lr_at(step)`` is the LR *used* at 1-based ``step`` (what the step line prints). Warmup ramps
linearly from 0 at step 1 to the peak at step ``warmup_steps + 1`` (torch ``LinearLR`` semantics);
linear decay spans the last ``decay_steps`` steps down to ``min_lr``; cosine anneals from the peak
to ``min_lr`` between the end of warmup and ``max_steps``.
"""

from __future__ import annotations

import math

from primetui.local.trainer.config import SchedulerConfig


class Scheduler:
    def __init__(self, cfg: SchedulerConfig, lr: float, max_steps: int | None) -> None:
        self.cfg = cfg
        self.lr = lr
        self.max_steps = max_steps

    def describe(self) -> str:
        c = self.cfg
        if c.type == "linear":
            return f"type='linear' warmup_steps={c.warmup_steps} decay_steps={c.decay_steps} min_lr={c.min_lr}"
        if c.type == "cosine":
            return f"type='cosine' warmup_steps={c.warmup_steps} min_lr={c.min_lr}"
        return "type='constant'"

    def lr_at(self, step: int) -> float:
        c = self.cfg
        s = step - 1
        if c.type not in ("linear", "cosine"):
            return self.lr
        if s < c.warmup_steps:
            return self.lr * s / c.warmup_steps
        if c.type == "linear":
            if not c.decay_steps or self.max_steps is None:
                return self.lr
            start = self.max_steps - c.decay_steps
            if s < start:
                return self.lr
            frac = min(1.0, (s - start) / c.decay_steps)
            return self.lr + (c.min_lr - self.lr) * frac
        total = max(1, (self.max_steps or (c.warmup_steps + 1)) - c.warmup_steps)
        frac = min(1.0, (s - c.warmup_steps) / total)
        return c.min_lr + (self.lr - c.min_lr) * 0.5 * (1.0 + math.cos(math.pi * frac))
