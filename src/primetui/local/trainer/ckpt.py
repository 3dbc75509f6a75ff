"""Checkpoints: ``checkpoints/step_N/trainer/`` with weights, optimizer, scheduler, progress, data.

A checkpoint is written into a hidden temp dir and renamed into place, so a crash never leaves a
half-written ``step_N`` behind. Sizes are the real bytes on disk.
"""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

STEP_DIR = re.compile(r"^step_(\d+)$")


class CheckpointError(RuntimeError):
    """A checkpoint that cannot be resumed from; the message says which and why."""


@dataclass
class TrainState:
    params: dict[str, np.ndarray]
    optim_arrays: dict[str, np.ndarray]
    optim_t: int
    scheduler: dict[str, Any]
    progress: dict[str, Any]
    dataloader: dict[str, Any]


def dir_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def save(ckpt_root: Path, step: int, state: TrainState) -> tuple[Path, int]:
    """Write step ``step``; returns (the step dir, its size in bytes)."""
    ckpt_root.mkdir(parents=True, exist_ok=True)
    final = ckpt_root / f"step_{step}"
    tmp = ckpt_root / f".step_{step}.tmp"
    if tmp.exists():
        shutil.rmtree(tmp)
    trainer = tmp / "trainer"
    (trainer / "dataloader").mkdir(parents=True)
    np.savez(trainer / "model.npz", **state.params)  # type: ignore[arg-type]  # numpy stub: a **dict might fill allow_pickle
    np.savez(trainer / "optimizer.npz", **state.optim_arrays)  # type: ignore[arg-type]  # numpy stub: a **dict might fill allow_pickle
    (trainer / "scheduler.json").write_text(json.dumps({**state.scheduler, "optimizer_step": state.optim_t}))
    (trainer / "progress.json").write_text(json.dumps(state.progress))
    (trainer / "dataloader" / "rank_0.json").write_text(json.dumps(state.dataloader))
    if final.exists():
        shutil.rmtree(final)
    tmp.rename(final)
    return final, dir_size(final)


def load(step_dir: Path, shown: str | None = None) -> TrainState:
    shown = shown or str(step_dir)
    trainer = step_dir / "trainer"
    if not (trainer / "model.npz").is_file():
        raise CheckpointError(
            f"No checkpoint found at {shown} (expected trainer/model.npz inside it); point [resume] at a "
            "checkpoints/step_N directory written by a local run."
        )
    try:
        with np.load(trainer / "model.npz") as z:
            params = {k: z[k] for k in z.files}
        with np.load(trainer / "optimizer.npz") as z:
            optim = {k: z[k] for k in z.files}
        sched = json.loads((trainer / "scheduler.json").read_text())
        progress = json.loads((trainer / "progress.json").read_text())
        loader = json.loads((trainer / "dataloader" / "rank_0.json").read_text())
    except (OSError, ValueError, KeyError) as exc:
        raise CheckpointError(f"Checkpoint {shown} is damaged ({exc}); resume from an earlier step.") from exc
    return TrainState(params, optim, int(sched.get("optimizer_step", 0)), sched, progress, loader)


def list_steps(ckpt_root: Path) -> list[int]:
    if not ckpt_root.is_dir():
        return []
    return sorted(int(m.group(1)) for p in ckpt_root.iterdir() if p.is_dir() and (m := STEP_DIR.match(p.name)))


def prune(ckpt_root: Path, keep_last: int | None, keep_interval: int | None) -> list[int]:
    """Delete the oldest step dirs beyond ``keep_last`` (multiples of ``keep_interval`` stay)."""
    if not keep_last:
        return []
    steps = list_steps(ckpt_root)
    removable = steps[:-keep_last] if len(steps) > keep_last else []
    deleted = []
    for step in removable:
        if keep_interval and step % keep_interval == 0:
            continue
        shutil.rmtree(ckpt_root / f"step_{step}", ignore_errors=True)
        deleted.append(step)
    return deleted
