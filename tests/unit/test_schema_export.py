"""`primetui schema`: a draft 2020-12 JSON Schema that accepts the seed's configs and rejects typos."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib

import jsonschema
import pytest

from primetui.sft.schema_export import DRAFT, sft_json_schema
from primetui.sft.templates import TEMPLATES


@pytest.fixture(scope="module")
def schema() -> dict:
    out = subprocess.run([sys.executable, "-m", "primetui.commands.cli", "schema"], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def test_the_printed_schema_is_a_valid_2020_12_schema(schema):
    assert schema["$schema"] == DRAFT and schema == sft_json_schema()
    jsonschema.Draft202012Validator.check_schema(schema)


@pytest.mark.parametrize("template", TEMPLATES, ids=[t.key for t in TEMPLATES])
def test_the_seed_configs_validate(schema, template):
    errors = list(jsonschema.Draft202012Validator(schema).iter_errors(tomllib.loads(template.text)))
    assert errors == []


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
    assert set(sched["discriminator"]["mapping"]) == {"constant", "linear", "cosine"} and len(sched["anyOf"]) == 3
