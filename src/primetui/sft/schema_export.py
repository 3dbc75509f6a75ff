"""The JSON Schema (draft 2020-12) of sft.toml, for editors that check TOML against one (taplo).

It is the mirror's pydantic model (``schema.root_model``) exported by pydantic, with two changes so
it accepts exactly what prime-rl accepts: a union on ``type`` / ``name`` becomes ``anyOf`` (prime-rl
fills in the default variant when ``type`` is left out, so a table without it may fit several
variants, which ``oneOf`` would refuse), and the document says which draft and version it is.
"""

from __future__ import annotations

import json
from typing import Any

from primetui.sft.schema import PRIME_RL_COMMIT, SCHEMA_NOTE, root_model

DRAFT = "https://json-schema.org/draft/2020-12/schema"
SCHEMA_ID = f"https://github.com/PrimeIntellect-ai/prime-rl/blob/{PRIME_RL_COMMIT}/sft.toml.schema.json"


def sft_json_schema() -> dict[str, Any]:
    """The schema as a JSON-ready dict."""
    schema = root_model().model_json_schema(mode="validation")
    _any_of_unions(schema)
    return {
        "$schema": DRAFT,
        "$id": SCHEMA_ID,
        "title": "sft.toml (prime-rl SFTConfig)",
        "description": f"The config of a prime-rl SFT run, as hosted SFT accepts it; {SCHEMA_NOTE}.",
        **{k: v for k, v in schema.items() if k != "title"},
    }


def _any_of_unions(node: Any) -> None:
    if isinstance(node, dict):
        if "discriminator" in node and "oneOf" in node:
            node["anyOf"] = node.pop("oneOf")
        for value in node.values():
            _any_of_unions(value)
    elif isinstance(node, list):
        for value in node:
            _any_of_unions(value)


def main() -> int:
    """``primetui schema``: print the schema."""
    print(json.dumps(sft_json_schema(), indent=2, ensure_ascii=False))
    return 0
