"""A mirror of prime-rl's ``SFTConfig`` schema: field specs for help and rules, pydantic models for checks.

It follows PrimeIntellect-ai/prime-rl at ``PRIME_RL_COMMIT`` (prime-rl-configs 0.4.0) and the
renderers package ``RENDERERS_VERSION``; the tables live in ``schema_data.py``. The pydantic models
are built from the same tables with ``extra="forbid"``, discriminated unions on ``type`` / ``name``
and prime-rl's before-validators (``"None"`` means None, default ``type`` injection), so type,
range, unknown-key and union errors carry pydantic's own words and locations, as prime-rl's do.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Any, Literal, Optional, Union

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, create_model, model_validator

from primetui.sft.renderers import RENDERER_EXTRA_ALLOW, RENDERER_FIELDS, RENDERERS_VERSION
from primetui.sft.schema_data import CLASSES

PRIME_RL_COMMIT = "559b44772e471d1538537b8805cc77f3824a5e64"
PRIME_RL_VERSION = "prime-rl 0.8.0 (prime-rl-configs 0.4.0, 2026-08-21)"
SCHEMA_NOTE = (f"schema mirror of {PRIME_RL_VERSION} @ {PRIME_RL_COMMIT[:9]}, renderers {RENDERERS_VERSION}")

ROOT = "SFTConfig"
# verifiers models whose exact shape at the pinned commit is unknown: accepted as open tables.
_OPEN = {"EnvConfig", "ServeConfig"}
# Fields whose default is a model instance with a `type`: prime-rl injects that type (§1.3).
INJECTED_TYPES: dict[tuple[str, str], str] = {
    ("SFTConfig", "data"): "sft",
    ("SFTConfig", "optim"): "adamw",
    ("SFTConfig", "scheduler"): "constant",
    ("SFTConfig", "deployment"): "single_node",
    ("InferenceConfig", "deployment"): "single_node",
}
_CLASS_RE = re.compile(r"\b([A-Z][A-Za-z0-9]*(?:Config|Tier))\b")


@dataclass
class FieldSpec:
    """One field: its type text, default text, constraints and description as prime-rl states them."""

    name: str
    type: str
    default: str
    constraints: str
    description: str
    owner: str
    classes: list[str] = field(default_factory=list)  # model classes named in the type
    discriminator: str | None = None
    is_list: bool = False
    aliases: tuple[str, ...] = ()

    @property
    def required(self) -> bool:
        return self.default == "REQUIRED"

    @property
    def optional_table(self) -> bool:
        return bool(self.classes) and "None" in self.type

    def default_value(self) -> Any:
        return parse_default(self.default)

    def bounds(self) -> dict[str, float]:
        out: dict[str, float] = {}
        for m in re.finditer(r"\b(ge|gt|le|lt)=(-?[\d.]+)", self.constraints):
            out[m.group(1)] = float(m.group(2)) if "." in m.group(2) else int(m.group(2))
        return out

    def allowed_values(self) -> list[str]:
        m = re.search(r"Literal\[([^\]]*)\]", self.type)
        if not m:
            return []
        return [v.strip().strip("'\"") for v in m.group(1).split(",")]


@dataclass
class ClassSpec:
    name: str
    extra: str
    source: str
    fields: dict[str, FieldSpec]

    def tag(self, discriminator: str) -> str | None:
        f = self.fields.get(discriminator)
        if f is None:
            return None
        vals = f.allowed_values()
        return vals[0] if len(vals) == 1 else None


def parse_default(text: str) -> Any:
    if text == "REQUIRED":
        return ...
    if text.endswith("()") and text[:-2].isidentifier():
        return {}  # a sub-model with its own defaults
    if text.startswith("$"):
        m = re.search(r"'([^']*)'", text)
        return m.group(1) if m else None
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def _renderer_specs() -> dict[str, ClassSpec]:
    out: dict[str, ClassSpec] = {}
    for name, fields in RENDERER_FIELDS.items():
        cls = "Renderer[" + name + "]"
        specs = {"name": FieldSpec("name", f"Literal['{name}']", repr(name), "", "Renderer name.", cls)}
        for fname, (typ, default, desc) in fields.items():
            specs[fname] = FieldSpec(fname, typ, default, "", desc, cls)
        specs["thinking_retention"] = FieldSpec(
            "thinking_retention", "Literal['tool_cycle', 'all'] | None", "None", "",
            "How earlier turns' thinking is kept (overrides the template knob).", cls)
        out[cls] = ClassSpec(cls, "allow" if name in RENDERER_EXTRA_ALLOW else "forbid", "renderers/configs.py", specs)
    return out


@lru_cache(maxsize=1)
def specs() -> dict[str, ClassSpec]:
    """Every config class of the mirror, by class name."""
    out: dict[str, ClassSpec] = {}
    renderer_classes = _renderer_specs()
    out.update(renderer_classes)
    for cname, data in CLASSES.items():
        fields: dict[str, FieldSpec] = {}
        for fname, fd in data["fields"].items():
            typ = fd["type"]
            f = FieldSpec(fname, typ, fd["default"], fd["constraints"], fd["description"], cname)
            if cname == ROOT and fname == "renderer":
                f.type = "RendererConfig"
                f.default = "AutoRendererConfig()"
                f.classes = list(renderer_classes)
                f.discriminator = "name"
                f.description = (f"Renderer config: `name` picks the chat-template renderer (renderers {RENDERERS_VERSION}); "
                                 "SFT needs a typed renderer that matches the model family.")
            else:
                f.classes = [c for c in _CLASS_RE.findall(typ) if c in CLASSES]
                f.is_list = typ.startswith("list[") and bool(f.classes)
            m = re.search(r"alias:([\w/]+)", fd["constraints"])
            if m:
                f.aliases = tuple(m.group(1).split("/"))
            fields[fname] = f
        out[cname] = ClassSpec(cname, data["extra"], data["source"], fields)
    for c in out.values():
        for f in c.fields.values():
            if len(f.classes) > 1 and f.discriminator is None:
                f.discriminator = "type"
    return out


def variants(f: FieldSpec) -> dict[str, ClassSpec]:
    """tag -> class for a discriminated-union field (empty for plain fields)."""
    if not f.discriminator:
        return {}
    s = specs()
    out = {}
    for c in f.classes:
        tag = s[c].tag(f.discriminator)
        if tag is not None:
            out[tag] = s[c]
    return out


def injected_tag(f: FieldSpec) -> str | None:
    """The `type` prime-rl injects when the table leaves it out (None: no injection, tag required)."""
    return INJECTED_TYPES.get((f.owner, f.name))


def resolve(path: tuple, raw: Any = None) -> tuple[FieldSpec | None, ClassSpec | None]:
    """The field spec at a config path and the class of its value, choosing union variants from ``raw``.

    ``raw`` is the config dict (root); unions pick the variant named by the table's tag, else the
    injected default. Returns (None, None) for a path the schema does not know.
    """
    s = specs()
    cls: ClassSpec | None = s[ROOT]
    fspec: FieldSpec | None = None
    node = raw
    for part in path:
        if cls is None:
            return None, None
        if isinstance(part, int):
            if fspec is None or not fspec.is_list:
                return None, None
            node = node[part] if isinstance(node, list) and part < len(node) else None
            continue
        fspec = cls.fields.get(part)
        if fspec is None:
            fspec = next((f for f in cls.fields.values() if part in f.aliases), None)
        if fspec is None:
            return None, None
        node = node.get(part) if isinstance(node, dict) else None
        if fspec.discriminator:
            v = variants(fspec)
            tag = node.get(fspec.discriminator) if isinstance(node, dict) else None
            if tag is None:
                tag = injected_tag(fspec) or ("auto" if fspec.discriminator == "name" else None)
            cls = v.get(tag) if isinstance(tag, str) else None
        elif fspec.classes:
            cls = s[fspec.classes[0]]
        else:
            cls = None
    return fspec, cls


# -- pydantic models -------------------------------------------------------------------------------

class _Base(BaseModel):
    model_config = ConfigDict(extra="forbid")

    @model_validator(mode="before")
    @classmethod
    def _prime_before(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        data = {k: (None if v == "None" else v) for k, v in data.items()}
        for (owner, fname), tag in INJECTED_TYPES.items():
            if owner == cls.__name__ and isinstance(data.get(fname), dict) and "type" not in data[fname]:
                data[fname] = {**data[fname], "type": tag}
        hook = _BEFORE.get(cls.__name__)
        return hook(data) if hook else data


def _model_full_offload(data: dict) -> dict:
    fo = data.get("full_offload")
    if fo is True:
        data["full_offload"] = {}
    elif fo is False:
        data["full_offload"] = None
    return data


def _vllm_snake(data: dict) -> dict:
    return {k.replace("-", "_"): v for k, v in data.items()}


def _sft_before(data: dict) -> dict:
    dep = data.get("deployment")
    if isinstance(dep, dict) and dep.get("type") == "multi_node":
        data["deployment"] = {k: v for k, v in dep.items() if k not in ("num_train_gpus", "num_infer_gpus")}
    model = data.get("model")
    inf = data.get("inference")
    if isinstance(inf, dict) and isinstance(model, dict) and isinstance(model.get("name"), str):
        vllm = inf.get("vllm") if isinstance(inf.get("vllm"), dict) else {}
        if "vllm" not in inf or isinstance(inf.get("vllm"), dict):
            data["inference"] = {**inf, "vllm": {"model": model["name"], **vllm}}
    return data


_BEFORE = {"ModelConfig": _model_full_offload, "VllmConfig": _vllm_snake, "SFTConfig": _sft_before}


class _Builder:
    def __init__(self) -> None:
        self.models: dict[str, type[BaseModel]] = {}

    def model(self, cname: str) -> type[BaseModel]:
        if cname in self.models:
            return self.models[cname]
        spec = specs()[cname]
        fields: dict[str, Any] = {}
        for fname, f in spec.fields.items():
            fields[fname] = (self.annotation(f), self.field_info(f))
        model_name = cname.replace("[", "_").replace("]", "").replace("-", "_").replace(".", "_")
        m = create_model(model_name, __base__=_Base, **fields)
        m.__name__ = cname if cname.isidentifier() else m.__name__
        if spec.extra == "allow":
            m.model_config["extra"] = "allow"
            m.model_rebuild(force=True)
        self.models[cname] = m
        return m

    def annotation(self, f: FieldSpec) -> Any:
        if f.classes and f.discriminator:
            members = tuple(self.model(c) for c in f.classes)
            ann: Any = Annotated[Union[members], Field(discriminator=f.discriminator)]  # type: ignore[valid-type]
            return Optional[ann] if "None" in f.type else ann
        ns: dict[str, Any] = {"int": int, "float": float, "bool": bool, "str": str, "Path": Path, "Any": Any,
                              "Literal": Literal, "list": list, "dict": dict, "None": None}
        for c in _CLASS_RE.findall(f.type):
            ns[c] = dict[str, Any] if c in _OPEN or c not in CLASSES else self.model(c)
        try:
            return eval(f.type, ns)  # the type text comes from our own generated tables
        except Exception:  # noqa: BLE001 - an unparseable type must not take the validator down
            return Any

    def field_info(self, f: FieldSpec) -> Any:
        kwargs: dict[str, Any] = dict(f.bounds())
        if f.description:
            kwargs["description"] = f.description  # for the JSON Schema export (primetui schema)
        if f.aliases:
            kwargs["validation_alias"] = AliasChoices(*f.aliases)
        if f.default == "REQUIRED":
            return Field(**kwargs)
        if f.default.endswith("()") and f.classes:
            target = f.default[:-2]
            if target in self.models or target in CLASSES:
                return Field(default_factory=lambda t=target: self.model(t)(), **kwargs)
            return Field(default_factory=lambda: None, **kwargs)
        return Field(default=f.default_value(), **kwargs)


@lru_cache(maxsize=1)
def root_model() -> type[BaseModel]:
    """The pydantic ``SFTConfig`` built from the mirror (cached; first build takes ~0.1 s)."""
    return _Builder().model(ROOT)
