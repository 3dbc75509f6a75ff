"""Config diff: the dotted keys whose values differ between sft configs, defaults shown as such.

Each config is flattened to dotted leaf keys (``optim.lr``, ``data.seq_len``; lists stay whole
values). For every key any config writes, each config's value is what it wrote, else prime-rl's
default from the schema mirror (``source == "default"``), else nothing (``source == "unset"``).
Only keys whose effective values are not all equal are listed.
"""

from __future__ import annotations

import json

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from primetui.sft.schema import resolve

SET, DEFAULT, UNSET = "set", "default", "unset"


@dataclass(frozen=True, slots=True)
class Value:
    value: Any
    source: str  # SET, DEFAULT or UNSET

    def to_json(self) -> dict[str, Any]:
        return {"value": self.value, "source": self.source}

    def text(self) -> str:
        if self.source == UNSET:
            return "-"
        shown = _show(self.value)
        return f"{shown} (default)" if self.source == DEFAULT else shown


def flatten(cfg: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """``{"optim": {"lr": 1e-3}}`` -> ``{"optim.lr": 1e-3}``; an empty table stays a key (``{}``)."""
    out: dict[str, Any] = {}
    for key, value in cfg.items():
        dotted = f"{prefix}{key}"
        if isinstance(value, Mapping) and value:
            out.update(flatten(value, dotted + "."))
        else:
            out[dotted] = value
    return out


def _default(raw: Mapping[str, Any], dotted: str) -> Value:
    try:
        spec, _cls = resolve(tuple(dotted.split(".")), raw)
    except Exception:  # noqa: BLE001 - an odd shape is simply not in the schema
        spec = None
    if spec is None:
        return Value(None, UNSET)
    default = spec.default_value()
    if default is ... or isinstance(default, dict):
        return Value(None, UNSET)
    return Value(default, DEFAULT)


def _norm(value: Any) -> Any:
    if value == "None":
        return None
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        return float(value)
    return value


def config_diff(configs: Sequence[Mapping[str, Any]]) -> dict[str, list[Value]]:
    """Dotted key -> each config's value, for the keys where they differ (sorted by key)."""
    flats = [flatten(c or {}) for c in configs]
    keys = sorted(set().union(*flats)) if flats else []
    out: dict[str, list[Value]] = {}
    for key in keys:
        values = [Value(f[key], SET) if key in f else _default(c or {}, key) for f, c in zip(flats, configs)]
        effective = [_norm(v.value) if v.source != UNSET else ("<unset>",) for v in values]
        if any(e != effective[0] for e in effective[1:]):
            out[key] = values
    return out


def _show(value: Any) -> str:
    """A value as the sft.toml would write it (a bare string reads as itself); None is prime-rl's unset."""
    if isinstance(value, str):
        return value
    return _toml(value)


def _toml(value: Any) -> str:
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # a TOML basic string: the same escapes
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "None"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{k} = {_toml(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return str(value)
