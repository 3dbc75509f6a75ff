"""`primetui schema` is as tight as the validator (issue 43 finding 4, deliverable 3).

The corpus is every TOML config written in the validator's own tests (the string literals of
those test modules that parse as a TOML document). For each, three verdicts must agree:
- Python jsonschema with `primetui schema` (or `--rl`);
- taplo (the pinned dev dependency, as an editor runs it) with the same schema, over all the files
  at once;
- `primetui validate`'s model check: prime-rl's pydantic model on the config without prime train's
  own keys, plus the validator's errors on those keys. prime-rl's cross-field checks (its model
  validators: "only AdamW and SignSGD offload") are left out: a JSON Schema cannot state them.
And the errors name the key: a union table names the bad key or the missing tag, never "anyOf".
"""

from __future__ import annotations

import ast
import json
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import jsonschema
import pytest
from pydantic import ValidationError

from primetui.sft.check import check_text
from primetui.sft.kind import schema_kind
from primetui.sft.schema import root_model
from primetui.sft.schema_export import CLI_PROPERTIES, json_schema

TESTS = Path(__file__).resolve().parents[1]
VALIDATOR_TESTS = [
    "unit/test_sft_corners.py",
    "unit/test_sft_precision.py",
    "unit/test_sft_one_cause.py",
    "unit/test_sft_rules.py",
    "unit/test_rl_config.py",
    "unit/test_sft_property.py",
    "unit/test_validate_for_tools.py",
    "unit/test_run_name_rule.py",
    "ui/test_editor.py",
]
CROSS_FIELD = {"value_error", "assertion_error"}  # prime-rl's model validators: not a schema's business
# The cases: (config, the key the error must name)
FINDING = [
    ("[scheduler]\nwarmup_steps = 10\n", "warmup_steps"),
    ("[renderer]\n", "name"),
    ("[optim]\nmomentum = 0.9\n", "momentum"),  # sgd's key in an untyped table: the default adamw
    ("[deployment]\nnum_train_nodes = 2\n", "num_train_nodes"),  # multi_node's key, untyped: single_node
    ('[scheduler]\ntype = "cosin"\n', "cosin"),
]


def corpus() -> list[str]:
    texts: set[str] = set()
    for name in VALIDATOR_TESTS:
        for node in ast.walk(ast.parse((TESTS / name).read_text())):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and "=" in node.value
                and "\n" in node.value
            ):
                try:
                    if tomllib.loads(node.value):
                        texts.add(node.value)
                except tomllib.TOMLDecodeError:
                    continue
    texts.update(text for text, _ in FINDING)
    return sorted(texts)


def validator_refuses(text: str) -> bool:
    raw = tomllib.loads(text)
    try:
        root_model(schema_kind(raw)).model_validate({k: v for k, v in raw.items() if k not in CLI_PROPERTIES})
        errors = []
    except ValidationError as exc:
        errors = [e for e in exc.errors(include_url=False) if e["type"] not in CROSS_FIELD]
    cli = [
        d
        for d in check_text(text, prove_fixes=False).diagnostics
        if d.level == "error" and d.loc and d.loc[0] in CLI_PROPERTIES
    ]
    return bool(errors or cli)


@pytest.fixture(scope="module")
def verdicts() -> dict[str, bool]:
    texts = corpus()
    assert len(texts) > 150  # the validator's tests hold that many configs: the corpus was found
    return {text: validator_refuses(text) for text in texts}


def test_jsonschema_gives_the_validators_verdict_on_the_whole_corpus(verdicts):
    checkers = {kind: jsonschema.Draft202012Validator(json_schema(kind)) for kind in ("sft", "rl")}
    assert any(verdicts.values()) and not all(verdicts.values())
    differ = [
        (text, refused)
        for text, refused in verdicts.items()
        if bool(list(checkers[schema_kind(tomllib.loads(text))].iter_errors(tomllib.loads(text)))) != refused
    ]
    assert differ == []


@pytest.mark.parametrize(("text", "key"), FINDING, ids=[k for _, k in FINDING])
def test_a_union_tables_error_names_the_key(text, key):
    raw = tomllib.loads(text)
    assert validator_refuses(text)
    errors = list(jsonschema.Draft202012Validator(json_schema("sft")).iter_errors(raw))
    assert errors and all(key in e.message and "anyOf" not in e.message for e in errors)


def taplo(files: list[Path], schema: Path) -> str:
    return subprocess.run(
        [TAPLO, "check", "--schema", schema.as_uri(), *map(str, files)],
        capture_output=True,
        text=True,
        check=False,
        env={"RUST_LOG": "error", "NO_COLOR": "1"},
    ).stderr


def taplo_refused(files: list[Path], schema: Path) -> set[Path]:
    return {Path(p) for p in re.findall(r"┌─ (\S+?\.toml):\d+:\d+", taplo(files, schema))}


TAPLO = shutil.which("taplo", path=str(Path(sys.executable).parent)) or shutil.which("taplo")


@pytest.mark.skipif(TAPLO is None, reason="taplo (a dev dependency) is not installed")
def test_taplo_gives_the_validators_verdict_on_the_whole_corpus(verdicts, tmp_path):
    files: dict[str, list[Path]] = {"sft": [], "rl": []}
    expected: set[Path] = set()
    for i, (text, refused) in enumerate(verdicts.items()):
        path = tmp_path / f"c{i:03}.toml"
        path.write_text(text)
        files[schema_kind(tomllib.loads(text))].append(path)
        if refused:
            expected.add(path)
    refused_by_taplo: set[Path] = set()
    for kind, paths in files.items():
        schema = tmp_path / f"{kind}.schema.json"
        schema.write_text(json.dumps(json_schema(kind)))
        refused_by_taplo |= taplo_refused(paths, schema)
    assert sorted(p.name for p in refused_by_taplo ^ expected) == []


@pytest.mark.skipif(TAPLO is None, reason="taplo (a dev dependency) is not installed")
def test_taplo_names_the_key_of_a_union_table(tmp_path):
    schema = tmp_path / "sft.schema.json"
    schema.write_text(json.dumps(json_schema("sft")))
    for i, (text, key) in enumerate(FINDING):
        path = tmp_path / f"f{i}.toml"
        path.write_text(text)
        out = taplo([path], schema)
        errors = [line for line in out.splitlines() if line.startswith("error:")]
        assert errors and all(key in e and "anyOf" not in e for e in errors), out
