"""The JSON Schema (draft 2020-12) of sft.toml or rl.toml, for editors that check TOML against one (taplo).

It is the mirror's pydantic model (``schema.root_model``) exported by pydantic, with two changes so
it accepts exactly what prime-rl accepts: each union on ``type`` / ``name`` becomes one ``if``/``then``
per variant (the tag picks the variant; a table without its tag is the variant prime-rl injects, or
is refused when prime-rl injects none), so a checker names the bad key instead of underlining the
table with an ``anyOf`` message; and the document says which draft and version it is.
The top-level keys ``prime train`` reads itself (``name``, ``image_tag``, ``volume``, …) are added,
since the CLI takes them in both kinds of file.
"""

from __future__ import annotations

import json
from typing import Any

from primetui.sft.schema import PRIME_RL_COMMIT, ROOTS, SCHEMA_NOTE, _injected, root_model

DRAFT = "https://json-schema.org/draft/2020-12/schema"
SCHEMA_ID = f"https://github.com/PrimeIntellect-ai/prime-rl/blob/{PRIME_RL_COMMIT}/sft.toml.schema.json"
RL_SCHEMA_ID = f"https://github.com/PrimeIntellect-ai/prime-rl/blob/{PRIME_RL_COMMIT}/rl.toml.schema.json"
_STRING = {"type": "string"}
# prime train's own top-level keys (prime_cli commands/rl.py), stripped before the config reaches prime-rl.
CLI_PROPERTIES: dict[str, dict[str, Any]] = {
    "name": {
        **_STRING,
        "pattern": "^[^\\x00-\\x1f\\x7f]*\\S[^\\x00-\\x1f\\x7f]*$",
        "maxLength": 128,
        "description": "The run's name on the platform (prime train sends it as the run name): not blank, "
        "at most 128 characters, no control characters.",
    },
    "image_tag": {**_STRING, "description": "The prime-rl image to run (prime train --image-tag)."},
    "gpu_type": {**_STRING, "description": "Narrows the cluster picker to this GPU type (prime train --gpu-type)."},
    "volume": {**_STRING, "description": "The volume mounted at /volume (prime train --volume)."},
    "volume_size": {**_STRING, "description": 'Size of a volume prime train creates, like "500Gi" (needs volume).'},
    "env_file": {
        "anyOf": [_STRING, {"type": "array", "items": _STRING}],
        "description": "Deprecated: secrets file(s) relative to the config (use env_files).",
    },
    "env_files": {
        "anyOf": [_STRING, {"type": "array", "items": _STRING}],
        "description": "Secrets files relative to the config (prime train reads them; never sent as config).",
    },
    "source_ref": {
        **_STRING,
        "pattern": "^[A-Za-z0-9][A-Za-z0-9._/-]{0,199}$",
        "not": {"pattern": "^(refs|pull)/"},
        "description": "A prime-rl git ref (branch, tag or sha) overlaid on the image (--ref); not refs/ "
        "or pull/ (prime train takes --pr N for a pull request).",
    },
    "type": {"description": "No longer used by prime train (it warns and ignores it)."},
}


def json_schema(kind: str = "sft") -> dict[str, Any]:
    """The schema of an sft.toml (``"sft"``) or an rl.toml (``"rl"``) as a JSON-ready dict."""
    schema = root_model(kind).model_json_schema(mode="validation")
    _tagged_unions(schema, ROOTS[kind], _injected(kind))
    _before_validators(schema, kind)
    _tables_first(schema)
    schema["properties"] = {**schema.get("properties", {}), **CLI_PROPERTIES}
    what = (
        ("sft.toml (prime-rl SFTConfig)", "SFT", "hosted SFT")
        if kind == "sft"
        else ("rl.toml (prime-rl RLConfig)", "RL", "hosted RL")
    )
    return {
        "$schema": DRAFT,
        "$id": SCHEMA_ID if kind == "sft" else RL_SCHEMA_ID,
        "title": what[0],
        "description": f"The config of a prime-rl {what[1]} run, as {what[2]} accepts it; {SCHEMA_NOTE}.",
        **{k: v for k, v in schema.items() if k != "title"},
    }


def sft_json_schema() -> dict[str, Any]:
    """The sft.toml schema as a JSON-ready dict."""
    return json_schema("sft")


def _tagged_unions(schema: dict[str, Any], root: str, injected: dict[tuple[str, str], str]) -> None:
    """Every discriminated union of the schema as per-variant ``if``/``then`` (see the module docstring)."""
    owners = [(root, schema.get("properties", {}))]
    owners += [(name, d.get("properties", {})) for name, d in schema.get("$defs", {}).items()]
    for owner, props in owners:
        for field, node in props.items():
            _tag_in(node, injected.get((owner, field)))


def _before_validators(schema: dict[str, Any], kind: str) -> None:
    """What prime-rl's before-validators accept (schema._prime_before and its hooks), so the schema does too:
    ``"None"`` for a key that may be null, ``full_offload = true/false``, and the GPU counts a multi-node
    [deployment] of an sft.toml drops."""
    for d in [schema, *schema.get("$defs", {}).values()]:
        for prop in d.get("properties", {}).values():
            arms = prop.get("anyOf", []) if isinstance(prop, dict) else []
            if {"type": "null"} in arms:
                arms.append({"const": "None", "description": 'prime-rl reads the string "None" as no value.'})
    offload = schema.get("$defs", {}).get("ModelConfig", {}).get("properties", {}).get("full_offload")
    if offload and "anyOf" in offload:
        offload["anyOf"].append({"type": "boolean", "description": "true is the default offload, false none."})
    multi = schema.get("$defs", {}).get("MultiNodeDeploymentConfig", {}).get("properties")
    if kind == "sft" and multi is not None:
        for key in ("num_train_gpus", "num_infer_gpus"):
            multi[key] = {"description": "Ignored on a multi-node deployment (prime-rl drops it)."}


def _tag_in(node: Any, injected: str | None) -> None:
    """Rewrite the union in a field's schema: itself, or an ``anyOf`` arm when the field may be null."""
    if not isinstance(node, dict):
        return
    if "discriminator" in node and "oneOf" in node:
        _tag_union(node, injected)
    for arm in node.get("anyOf", []):
        _tag_in(arm, injected)


def _tables_first(schema: dict[str, Any]) -> None:
    """A key that holds a table or a plain value (``null``, ``"None"``) checks a table against the table's
    schema alone (``if`` object ``then`` …): an error inside names its key, where an ``anyOf`` makes
    taplo underline the whole table with "not valid under any of the schemas listed in the 'anyOf'"."""
    defs = schema.get("$defs", {})

    def is_table(arm: Any) -> bool:
        if not isinstance(arm, dict):
            return False
        target = defs.get(arm["$ref"].rsplit("/", 1)[-1], {}) if "$ref" in arm else arm
        return target.get("type") == "object"

    for d in [schema, *defs.values()]:
        for prop in d.get("properties", {}).values():
            arms = (prop.get("anyOf") if isinstance(prop, dict) else None) or []
            tables = [a for a in arms if is_table(a)]
            if len(tables) != 1 or any(
                isinstance(a, dict) and a.get("type") in ("array", None) and "const" not in a and a is not tables[0]
                for a in arms
            ):
                continue
            rest = [a for a in arms if a is not tables[0]]
            plain = [None if a == {"type": "null"} else a.get("const", a) for a in rest]
            other = {"enum": plain} if all(not isinstance(v, dict) for v in plain) else {"anyOf": rest}
            prop.pop("anyOf")
            prop.update({"if": {"type": "object"}, "then": tables[0], "else": other})


def _tag_union(node: dict[str, Any], injected: str | None) -> None:
    disc = node["discriminator"]["propertyName"]
    mapping: dict[str, str] = node["discriminator"]["mapping"]
    node.pop("oneOf")
    branches: list[dict[str, Any]] = [
        {"if": {"type": "object", "properties": {disc: {"const": tag}}, "required": [disc]}, "then": {"$ref": ref}}
        for tag, ref in mapping.items()
    ]
    if injected in mapping:  # no tag: prime-rl validates the table as this variant
        branches.append({"if": {"type": "object", "not": {"required": [disc]}}, "then": {"$ref": mapping[injected]}})
    else:
        node["required"] = [disc]
    node["type"] = "object"
    node["properties"] = {disc: {"enum": list(mapping)}}
    node["allOf"] = branches


def main(kind: str = "sft") -> int:
    """``primetui schema [--rl]``: print the schema."""
    print(json.dumps(json_schema(kind), indent=2, ensure_ascii=False))
    return 0
