"""Dispatch refuses, through the official `prime` CLI, the configs `primetui validate` calls errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from primetui.local.testing import LocalPlatform
from tests.local.test_prime_cli import prime_env, run_all

SEED_EVAL = """
[eval]
interval = 5

[[eval.source]]
name = "reverse-text"
env = { taskset = { id = "primeintellect/reverse-text" } }
"""
SEED_INFERENCE = """
[inference]
[inference.vllm]
tensor_parallel_size = 1
"""


def _multi_node(text: str) -> str:
    start = text.index("[deployment]")
    end = text.index("[", start + 1)
    return text[:start] + '[deployment]\ntype = "multi_node"\nnum_train_nodes = 1\ngpus_per_node = 8\n\n' + text[end:]


@pytest.mark.parametrize(
    ("shape", "wording"),
    [
        ("gpu-budget", "Total GPU count (2 = 1 train + 1 infer) exceeds gpus_per_node (1)."),
        (
            "multi-node-eval",
            "Multi-node online evals require an [inference] block - the launcher submits a "
            "dedicated SLURM job running the inference pool and the evals process.",
        ),
    ],
)
def test_prime_train_prints_the_rule_the_editor_gives(
    local_platform: LocalPlatform, tmp_path: Path, shape: str, wording: str
) -> None:
    seed = (local_platform.data_dir / "sft.toml").read_text()
    text = seed + SEED_EVAL + SEED_INFERENCE if shape == "gpu-budget" else _multi_node(seed) + SEED_EVAL
    (tmp_path / "sft.toml").write_text(text)
    validate = subprocess.run(
        [str(Path(sys.executable).with_name("primetui")), "validate", "--offline", str(tmp_path / "sft.toml")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert validate.returncode == 1 and wording in validate.stdout, validate.stdout + validate.stderr

    env = prime_env(local_platform, tmp_path / "home")
    (reply,) = run_all(env, tmp_path, ["train", "sft.toml", "--volume", "research", "-y"])
    out = " ".join((reply.stdout + reply.stderr).split())
    assert reply.returncode != 0, out
    assert f"Error: {wording}" in out
    assert "Dispatched hosted run" not in out
