"""The JSON Schema (draft 2020-12) of sft.toml or rl.toml, for editors that check TOML against one (taplo).

It is the mirror's pydantic model (``schema.root_model``) exported by pydantic, with two changes so
it accepts exactly what prime-rl accepts: a union on ``type`` / ``name`` becomes ``anyOf`` (prime-rl
fills in the default variant when ``type`` is left out, so a table without it may fit several
variants, which ``oneOf`` would refuse), and the document says which draft and version it is.
The top-level keys ``prime train`` reads itself (``name``, ``image_tag``, ``volume``, …) are added,
since the CLI takes them in both kinds of file.
"""

from __future__ import annotations

import json
from typing import Any

from primetui.sft.schema import PRIME_RL_COMMIT, SCHEMA_NOTE, root_model

DRAFT = "https://json-schema.org/draft/2020-12/schema"
SCHEMA_ID = f"https://github.com/PrimeIntellect-ai/prime-rl/blob/{PRIME_RL_COMMIT}/sft.toml.schema.json"
RL_SCHEMA_ID = f"https://github.com/PrimeIntellect-ai/prime-rl/blob/{PRIME_RL_COMMIT}/rl.toml.schema.json"
_STRING = {"type": "string"}
# prime train's own top-level keys (prime_cli commands/rl.py), stripped before the config reaches prime-rl.
CLI_PROPERTIES: dict[str, dict[str, Any]] = {
    "name": {**_STRING, "description": "The run's name on the platform (prime train sends it as the run name)."},
    "image_tag": {**_STRING, "description": "The prime-rl image to run (prime train --image-tag)."},
    "gpu_type": {**_STRING, "description": "Narrows the cluster picker to this GPU type (prime train --gpu-type)."},
    "volume": {**_STRING, "description": "The volume mounted at /volume (prime train --volume)."},
    "volume_size": {**_STRING, "description": 'Size of a volume prime train creates, like "500Gi" (needs volume).'},
    "env_file": {"anyOf": [_STRING, {"type": "array", "items": _STRING}],
                 "description": "Deprecated: secrets file(s) relative to the config (use env_files)."},
    "env_files": {"anyOf": [_STRING, {"type": "array", "items": _STRING}],
                  "description": "Secrets files relative to the config (prime train reads them; never sent as config)."},
    "source_ref": {**_STRING, "description": "A prime-rl git ref (branch, tag or sha) overlaid on the image (--ref)."},
    "type": {"description": "No longer used by prime train (it warns and ignores it)."},
}


def json_schema(kind: str = "sft") -> dict[str, Any]:
    """The schema of an sft.toml (``"sft"``) or an rl.toml (``"rl"``) as a JSON-ready dict."""
    schema = root_model(kind).model_json_schema(mode="validation")
    _any_of_unions(schema)
    schema["properties"] = {**schema.get("properties", {}), **CLI_PROPERTIES}
    what = ("sft.toml (prime-rl SFTConfig)", "SFT", "hosted SFT") if kind == "sft" else (
        "rl.toml (prime-rl RLConfig)", "RL", "hosted RL")
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


def _any_of_unions(node: Any) -> None:
    if isinstance(node, dict):
        if "discriminator" in node and "oneOf" in node:
            node["anyOf"] = node.pop("oneOf")
        for value in node.values():
            _any_of_unions(value)
    elif isinstance(node, list):
        for value in node:
            _any_of_unions(value)


def main(kind: str = "sft") -> int:
    """``primetui schema [--rl]``: print the schema."""
    print(json.dumps(json_schema(kind), indent=2, ensure_ascii=False))
    return 0
