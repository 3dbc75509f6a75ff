"""The CLI's mode rule (prime train 0.18.0): which prime-rl schema a TOML document is checked against."""

from __future__ import annotations

import pytest

from primetui.sft.kind import config_kind, is_retired_shape, retired_shape_message, schema_input


@pytest.mark.parametrize(
    ("doc", "kind"),
    [
        ({"data": {}}, "sft"),
        ({"data": {"name": "x"}, "model": {"name": "m"}}, "sft"),
        ({"data": {}, "trainer": {}}, "rl"),
        ({"data": {}, "orchestrator": {}}, "rl"),
        ({"trainer": {}, "orchestrator": {}}, "rl"),
        ({}, "rl"),  # no [data]: everything else is an RL run
        ({"max_steps": 5}, "rl"),
        ("not a table", "sft"),
    ],
)
def test_config_kind_follows_the_cli_rule(doc, kind):
    assert config_kind(doc) == kind


def test_the_retired_shared_lora_shape_is_recognised_and_refused_with_the_cli_text():
    assert is_retired_shape({"model": "Qwen/Qwen3.5-0.8B"})
    assert is_retired_shape({"env": [{"id": "primeintellect/reverse-text"}]})
    assert not is_retired_shape({"model": {"name": "Qwen/Qwen3-0.6B"}})
    assert not is_retired_shape({"env": {"id": "x"}})
    assert retired_shape_message("rl.toml") == (
        'rl.toml is a shared LoRA training config (a top-level `model = "..."` or `[[env]]`). Shared LoRA training '
        "no longer accepts new runs; Hosted Training runs prime-rl configs on dedicated clusters. See prime-rl's "
        "examples/ for starter configs."
    )


def test_schema_input_drops_every_key_prime_train_takes_for_itself():
    doc = {
        "name": "n",
        "image_tag": "main",
        "gpu_type": "H100_80GB",
        "volume": "v",
        "volume_size": "500Gi",
        "env_file": ".env",
        "env_files": ["a.env"],
        "source_ref": "main",
        "type": "full_finetune",
        "max_steps": 3,
    }
    assert schema_input(doc) == {"max_steps": 3}
