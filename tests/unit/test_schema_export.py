"""`primetui schema`: a draft 2020-12 JSON Schema that accepts the seed's configs and rejects typos."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib

import jsonschema
import pytest

from primetui.sft.kind import schema_kind
from primetui.sft.schema_export import DRAFT, json_schema, sft_json_schema
from primetui.sft.templates import TEMPLATES


@pytest.fixture(scope="module")
def schema() -> dict:
    out = subprocess.run(
        [sys.executable, "-m", "primetui.commands.cli", "schema"], capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout)


@pytest.fixture(scope="module")
def rl_schema() -> dict:
    out = subprocess.run(
        [sys.executable, "-m", "primetui.commands.cli", "schema", "--rl"], capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout)


def test_the_printed_schema_is_a_valid_2020_12_schema(schema):
    assert schema["$schema"] == DRAFT and schema == sft_json_schema()
    jsonschema.Draft202012Validator.check_schema(schema)


@pytest.mark.parametrize("template", TEMPLATES, ids=[t.key for t in TEMPLATES])
def test_the_seed_configs_validate(schema, rl_schema, template):
    config = tomllib.loads(template.text)
    chosen, other = (rl_schema, schema) if schema_kind(config) == "rl" else (schema, rl_schema)
    assert list(jsonschema.Draft202012Validator(chosen).iter_errors(config)) == []
    assert list(jsonschema.Draft202012Validator(other).iter_errors(config))  # the other kind's schema refuses it


def test_the_rl_schema_is_rlconfig_with_its_ranges_and_variants(rl_schema):
    assert rl_schema == json_schema("rl") and rl_schema["title"] == "rl.toml (prime-rl RLConfig)"
    jsonschema.Draft202012Validator.check_schema(rl_schema)
    assert set(rl_schema["required"]) == {"trainer", "orchestrator"}
    orch = rl_schema["$defs"]["OrchestratorConfig"]["properties"]
    assert orch["group_size"]["minimum"] == 1 and orch["group_size"]["default"] == 1
    assert "Samples to train on per step" in str(orch["batch_size"])
    rl = tomllib.loads(next(t.text for t in TEMPLATES if t.key == "rl-reverse-text"))
    rl["orchestrator"]["rollouts_per_example"] = 16
    assert list(jsonschema.Draft202012Validator(rl_schema).iter_errors(rl))


def test_prime_trains_own_keys_are_in_both_schemas(schema, rl_schema):
    for s in (schema, rl_schema):
        assert {
            "name",
            "image_tag",
            "gpu_type",
            "volume",
            "volume_size",
            "env_file",
            "env_files",
            "source_ref",
            "type",
        } <= set(s["properties"])


@pytest.mark.parametrize("typo", [("max_steps =", "max_step ="), ("[optim]\n", "[optim]\nlrr = 1\n")])
def test_a_typo_is_rejected(schema, typo):
    text = TEMPLATES[0].text
    assert typo[0] in text
    errors = list(jsonschema.Draft202012Validator(schema).iter_errors(tomllib.loads(text.replace(*typo, 1))))
    assert errors


def test_descriptions_defaults_and_variants_are_there(schema):
    defs = schema["$defs"]
    sft = schema["properties"]
    assert sft["max_steps"].get("description")
    assert any("default" in p for d in defs.values() for p in d.get("properties", {}).values())
    sched = sft["scheduler"]
    assert sched["discriminator"]["propertyName"] == "type"
    assert (
        set(sched["discriminator"]["mapping"]) == {"constant", "linear", "cosine"} and len(sched["allOf"]) == 4
    )  # a branch per tag, and the untagged table is constant
