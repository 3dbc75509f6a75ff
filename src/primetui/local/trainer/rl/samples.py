"""What the platform's sample viewer and distributions read: ``samples/step_N.jsonl`` and
``distributions.jsonl`` (see RL-FILES in the trainer package docstring).

A sample row is prime-rl's uploaded Parquet row (``monitors/prime.py`` ``episodes_to_parquet_bytes``
over verifiers' ``build_samples``), with its JSON columns decoded: ``completion`` is the final
branch's messages, ``task`` the task data, ``info`` carries the whole episode under
``native_wrapper`` (its traces hold the per-rubric ``rewards``).
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from primetui.config.fileio import atomic_write
from primetui.local.trainer.rl.metrics import AGENT, STOP_CONDITION
from primetui.local.trainer.rl.reward import REWARD_NAME, REWARD_WEIGHT
from primetui.local.trainer.rl.rollouts import Episode

SAMPLES_DIR = "samples"
DISTRIBUTIONS = "distributions.jsonl"


def messages(e: Episode) -> list[dict[str, str]]:
    return [
        {"role": "system", "content": e.task.system_prompt},
        {"role": "user", "content": e.task.prompt},
        {"role": "assistant", "content": e.rollout.text},
    ]


def _trace(e: Episode) -> dict[str, Any]:
    return {
        "id": e.id,
        "task": {"type": "ReverseTextTask", "data": e.task.as_dict()},
        "agent": {"name": AGENT, "trainable": True},
        "rewards": {REWARD_NAME: {"score": e.reward, "weight": REWARD_WEIGHT}},
        "metrics": {},
        "info": {"advantage": e.advantage},
        "is_completed": True,
        "ok": True,
        "stop_condition": STOP_CONDITION,
        "is_truncated": e.truncated,
        "errors": [],
        "timing": e.timing,
    }


def _episode_record(e: Episode, run_id: str, step: int) -> dict[str, Any]:
    return {
        "id": e.id,
        "env": {"id": e.env_name, "name": e.env_name},
        "task": e.task.as_dict(),
        "group": {"id": e.group_id},
        "run": {
            "type": "train",
            "id": run_id,
            "work": {"type": "train", "step": step, "policy": {"start": e.policy_version, "end": e.policy_version}},
        },
        "ok": True,
        "errors": [],
        "traces": [_trace(e)],
    }


def sample_row(e: Episode, run_id: str, step: int, sample_id: int, created_at: str) -> dict[str, Any]:
    msgs = messages(e)
    branch = {
        "messages": msgs,
        "num_input_tokens": e.num_input_tokens,
        "num_output_tokens": e.num_output_tokens,
        "advantage": e.advantage,
    }
    return {
        "run_id": run_id,
        "step": step,
        "tag": "",
        "problem_id": e.task.idx,
        "sample_id": sample_id,
        "prompt": "",
        "completion": msgs,
        "trajectory": [branch],
        "answer": "",
        "env_name": e.env_name,
        "task": e.task.as_dict(),
        "info": {
            "native_wrapper": _episode_record(e, run_id, step),
            "native_trace_index": 0,
            "stop_condition": STOP_CONDITION,
            "is_truncated": e.truncated,
            "is_completed": True,
        },
        "reward": e.reward,
        "advantage": e.advantage,
        "metrics": {},
        "timing": e.timing,
        "num_input_tokens": e.num_input_tokens,
        "num_output_tokens": e.num_output_tokens,
        "created_at": created_at,
    }


def iso_now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def step_file(run_dir: Path, step: int) -> Path:
    return run_dir / SAMPLES_DIR / f"step_{step:06d}.jsonl"


def write_samples(run_dir: Path, run_id: str, step: int, episodes: list[Episode]) -> Path:
    """Every rollout of ``step``, written whole under a temp name and renamed into place."""
    final = step_file(run_dir, step)
    final.parent.mkdir(parents=True, exist_ok=True)
    created = iso_now()
    rows = (
        json.dumps(sample_row(e, run_id, step, i, created), separators=(",", ":")) + "\n"
        for i, e in enumerate(episodes)
    )
    return atomic_write(final, "".join(rows))


def is_sample_step(step: int, max_steps: int | None) -> bool:
    from primetui.local.trainer.rl.config import SAMPLE_INTERVAL

    return step % SAMPLE_INTERVAL == 0 or (max_steps is not None and step == max_steps)


def distributions_row(step: int, episodes: list[Episode]) -> dict[str, Any]:
    return {"step": step, "rewards": [e.reward for e in episodes], "advantages": [e.advantage for e in episodes]}
