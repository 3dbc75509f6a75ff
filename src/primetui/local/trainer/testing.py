"""Helpers to prepare and run a trainer process in tests and benchmarks (no server needed)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from primetui.sft.templates import RL_MULTI_ENV, RL_NIGHTLY, RL_REVERSE_TEXT


WALKTHROUGH_MODEL = "PrimeIntellect/Qwen3-0.6B-Reverse-Text-SFT"


def write_reverse_text(volume_dir: Path, rows: int = 1000, *, fmt: str = "parquet", seed: int = 0) -> Path:
    """The demo's reverse-text dataset in the ``hf download`` layout under ``datasets/reverse-text``."""
    from primetui.local.demo import reverse_text_rows

    data = reverse_text_rows(rows, seed)
    root = volume_dir / "datasets" / "reverse-text"
    (root / "data").mkdir(parents=True, exist_ok=True)
    if fmt == "parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        pq.write_table(pa.Table.from_pylist(data), root / "data" / "train-00000-of-00001.parquet")
    else:
        with open(root / "data" / "train.jsonl", "w", encoding="utf-8") as fh:
            for row in data:
                fh.write(json.dumps(row) + "\n")
    return root


def walkthrough_config(**overrides: Any) -> dict[str, Any]:
    """The seed's walkthrough sft.toml as a dict, with top-level section overrides merged in."""
    cfg: dict[str, Any] = {
        "max_steps": 10,
        "ckpt": {"interval": 10, "keep_last": 1},
        "model": {"name": WALKTHROUGH_MODEL},
        "data": {"name": "datasets/reverse-text", "type": "sft", "seq_len": 2048, "batch_size": 8},
        "optim": {"lr": 2e-5},
        "deployment": {"type": "single_node", "num_train_gpus": 1, "gpus_per_node": 1},
        "renderer": {"name": "prime-qwen3"},
    }
    for key, value in overrides.items():
        if isinstance(value, dict) and isinstance(cfg.get(key), dict):
            cfg[key] = {**cfg[key], **value}
        elif value is None:
            cfg.pop(key, None)
        else:
            cfg[key] = value
    return cfg


def online_eval_block(interval: int = 5, name: str = "reverse-text") -> dict[str, Any]:
    """The seed's "Online evals" additions (with a GPU budget that fits)."""
    return {
        "eval": {
            "interval": interval,
            "source": [{"name": name, "env": {"taskset": {"id": "primeintellect/reverse-text"}}}],
        },
        "inference": {"vllm": {"tensor_parallel_size": 1}},
        "deployment": {"type": "single_node", "num_train_gpus": 1, "num_infer_gpus": 1, "gpus_per_node": 2},
    }


def write_run_dir(
    run_dir: Path,
    config: dict[str, Any],
    *,
    volume_dir: Path | None,
    run_id: str = "run-test",
    standin: dict[str, Any] | None = None,
    resume_from: Path | None = None,
) -> Path:
    run_dir.mkdir(parents=True, exist_ok=True)
    output = (volume_dir / "runs" / run_id) if volume_dir else (run_dir / "output")
    spec = {
        "run_id": run_id,
        "config": config,
        "volume_dir": str(volume_dir) if volume_dir else None,
        "output_dir": str(output),
        "model": {"name": (config.get("model") or {}).get("name", WALKTHROUGH_MODEL), "standin": standin or {}},
        "resume_from": str(resume_from) if resume_from else None,
    }
    (run_dir / "config.json").write_text(json.dumps(spec))
    return output


def start(run_dir: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "primetui.local.trainer", "--run-dir", str(run_dir)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, "OPENBLAS_NUM_THREADS": "1"},
    )


def run(run_dir: Path, timeout: float = 120.0) -> int:
    proc = start(run_dir)
    try:
        return proc.wait(timeout=timeout)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def run_inline(run_dir: Path) -> int:
    """Run the trainer in this process (no signal handlers): the same code path minus start-up."""
    from primetui.local.trainer.rl.select import trainer_class

    trainer = trainer_class(run_dir)(run_dir)
    try:
        return trainer.run()
    finally:
        trainer.log.close()
        trainer.files.metrics.close()
        trainer.files.checkpoints.close()


def status(run_dir: Path) -> dict[str, Any]:
    try:
        return json.loads((run_dir / "status.json").read_text())
    except (OSError, ValueError):
        return {}


def wait_for(predicate: Any, timeout: float = 60.0, interval: float = 0.05) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(interval)
    return False


def metric_rows(run_dir: Path) -> list[dict[str, Any]]:
    path = run_dir / "metrics.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def series(run_dir: Path, key: str) -> dict[int, float]:
    return {r["step"]: r[key] for r in metric_rows(run_dir) if key in r}


# The three RL example configs of prime-rl that the local platform must run unchanged, verbatim from
# PrimeIntellect-ai/prime-rl at 559b44772: examples/basic/reverse-text/rl.toml,
# configs/ci/nightly-fft/reverse-text.toml and configs/debug/multi-env/rl.toml.
RL_EXAMPLES = {"reverse-text": RL_REVERSE_TEXT, "nightly": RL_NIGHTLY, "multi-env": RL_MULTI_ENV}


def rl_example(name: str, **overrides: Any) -> dict[str, Any]:
    """One of ``RL_EXAMPLES`` as a dict, with top-level keys replaced (None drops a key)."""
    import tomllib

    cfg = tomllib.loads(RL_EXAMPLES[name])
    for key, value in overrides.items():
        if value is None:
            cfg.pop(key, None)
        else:
            cfg[key] = value
    return cfg
