"""Volume-hosted models: HF-format weights under /volume are accepted (the stand-in trains and says so),
and the seed's refusals come back for a missing path, a distributed checkpoint and an unknown architecture."""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx
import pytest

from primetui.local.testing import LocalPlatform
from tests.local.conftest import dispatch, wait_status, walkthrough_config
from tests.local.test_prime_cli import prime_env, run_all


def _model(lp: LocalPlatform, rel: str, arch: str = "Qwen3ForCausalLM", weights: bool = True) -> str:
    folder = lp.data_dir / "volumes" / "research" / rel
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps({"architectures": [arch], "model_type": "qwen3"}))
    if weights:
        (folder / "model.safetensors").write_bytes(b"\x08\x00\x00\x00\x00\x00\x00\x00{}      ")
    return "/volume/" + rel


def _config(lp: LocalPlatform, model: str) -> dict:
    return walkthrough_config(lp, max_steps=2, model={"name": model})


def test_hf_weights_on_the_volume_train_the_stand_in(local_platform: LocalPlatform, api: httpx.Client) -> None:
    run_id = dispatch(api, _config(local_platform, _model(local_platform, "models/tiny-qwen3")))
    assert wait_status(api, run_id)["status"] == "COMPLETED"
    logs = api.get(f"/rft/runs/{run_id}/logs", params={"tail_lines": 500}).json()["logs"]
    assert "stand-in" in logs and "/volume/models/tiny-qwen3" in logs


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (lambda lp: "/volume/models/nowhere", "does not exist on volume 'research'"),
        (lambda lp: _model(lp, "models/odd", arch="WeirdNetForCausalLM"), "Unknown architecture (WeirdNetForCausalLM)"),
        (lambda lp: _model(lp, "models/noweights", weights=False), "no safetensors weights"),
    ],
)
def test_refusals(local_platform: LocalPlatform, api: httpx.Client, make, words) -> None:
    reply = api.post(
        "/training/runs",
        json={"config": _config(local_platform, make(local_platform)), "mode": "sft", "volume": "research"},
    )
    assert reply.status_code == 400 and words in reply.json()["detail"], reply.text


def test_a_run_checkpoint_must_be_exported_first(
    local_platform: LocalPlatform, api: httpx.Client, tmp_path: Path
) -> None:
    config = walkthrough_config(local_platform, max_steps=2)
    run_id = dispatch(api, config)
    assert wait_status(api, run_id)["status"] == "COMPLETED"
    step = api.get(f"/rft/runs/{run_id}/checkpoints").json()["checkpoints"][0]["step"]
    model = f"/volume/runs/{run_id}/checkpoints/step_{step}"
    (tmp_path / "sft.toml").write_text(
        re.sub(
            r'(?m)^name = "PrimeIntellect/Qwen3-0.6B-Reverse-Text-SFT".*$',
            f'name = "{model}"',
            (local_platform.data_dir / "sft.toml").read_text(),
        )
    )
    (reply,) = run_all(
        prime_env(local_platform, tmp_path / "home"), tmp_path, ["train", "sft.toml", "--volume", "research", "-y"]
    )
    out = " ".join((reply.stdout + reply.stderr).split())
    assert (
        reply.returncode != 0
        and "is a prime-rl distributed checkpoint, not HF-format weights: export it to HF format first" in out
    ), out
