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
from typing import Annotated, Any, ClassVar, Literal, Optional, Union

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, create_model, model_validator

from primetui.sft.kind import Kind, schema_kind
from primetui.sft.renderers import RENDERER_EXTRA_ALLOW, RENDERER_FIELDS, RENDERERS_VERSION
from primetui.sft.schema_data import CLASSES
from primetui.sft.schema_rows import ClassRow

PRIME_RL_COMMIT = "559b44772e471d1538537b8805cc77f3824a5e64"
PRIME_RL_VERSION = "prime-rl 0.8.0 (prime-rl-configs 0.4.0, 2026-08-21)"
SCHEMA_NOTE = f"schema mirror of {PRIME_RL_VERSION} @ {PRIME_RL_COMMIT[:9]}, renderers {RENDERERS_VERSION}"

ROOT = "SFTConfig"
ROOTS: dict[str, str] = {"sft": ROOT, "rl": "RLConfig"}
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


def _tables(kind: str) -> dict[str, ClassRow]:
    if kind == "rl":
        from primetui.sft.rl_schema_data import CLASSES as RL_CLASSES

        return RL_CLASSES
    return CLASSES


def _injected(kind: str) -> dict[tuple[str, str], str]:
    if kind == "rl":
        from primetui.sft.rl_schema_data import INJECTED_TYPES as RL_INJECTED

        return RL_INJECTED
    return INJECTED_TYPES


def kind_of(raw: Any) -> Kind:
    """The schema a parsed document is checked against (``primetui.sft.kind.schema_kind``)."""
    return schema_kind(raw)


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
    kind: str = "sft"  # which schema the field belongs to ("sft" or "rl")

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
    kind: str = "sft"

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


def _renderer_specs(kind: str = "sft") -> dict[str, ClassSpec]:
    out: dict[str, ClassSpec] = {}
    for name, fields in RENDERER_FIELDS.items():
        cls = "Renderer[" + name + "]"
        specs = {"name": FieldSpec("name", f"Literal['{name}']", repr(name), "", "Renderer name.", cls, kind=kind)}
        for fname, (typ, default, desc) in fields.items():
            specs[fname] = FieldSpec(fname, typ, default, "", desc, cls, kind=kind)
        specs["thinking_retention"] = FieldSpec(
            "thinking_retention",
            "Literal['tool_cycle', 'all'] | None",
            "None",
            "",
            "How earlier turns' thinking is kept (overrides the template knob).",
            cls,
            kind=kind,
        )
        out[cls] = ClassSpec(
            cls, "allow" if name in RENDERER_EXTRA_ALLOW else "forbid", "renderers/configs.py", specs, kind
        )
    return out


@lru_cache(maxsize=2)
def specs(kind: str = "sft") -> dict[str, ClassSpec]:
    """Every config class of one mirror (``"sft"``: SFTConfig, ``"rl"``: RLConfig), by class name."""
    out: dict[str, ClassSpec] = {}
    renderer_classes = _renderer_specs(kind)
    out.update(renderer_classes)
    tables = _tables(kind)
    for cname, data in tables.items():
        fields: dict[str, FieldSpec] = {}
        for fname, fd in data["fields"].items():
            f = FieldSpec(fname, fd["type"], fd["default"], fd["constraints"], fd["description"], cname, kind=kind)
            if _is_renderer_field(kind, cname, fname, fd["type"]):
                _make_renderer_field(f, renderer_classes, optional="None" in fd["type"] and kind == "rl")
            else:
                f.classes = [c for c in _CLASS_RE.findall(fd["type"]) if c in tables]
                f.is_list = fd["type"].startswith("list[") and bool(f.classes)
            m = re.search(r"alias:([\w/]+)", fd["constraints"])
            if m:
                f.aliases = tuple(m.group(1).split("/"))
            fields[fname] = f
        out[cname] = ClassSpec(cname, data["extra"], data["source"], fields, kind)
    for c in out.values():
        for f in c.fields.values():
            if len(f.classes) > 1 and f.discriminator is None:
                f.discriminator = "type"
    return out


def _is_renderer_field(kind: str, cname: str, fname: str, typ: str) -> bool:
    if kind == "sft":
        return cname == ROOT and fname == "renderer"
    return "RendererConfig" in typ.split(" | ")


def _make_renderer_field(f: FieldSpec, renderer_classes: dict[str, ClassSpec], optional: bool) -> None:
    f.type = "RendererConfig | None" if optional else "RendererConfig"
    if not optional:
        f.default = "AutoRendererConfig()"
    f.classes = list(renderer_classes)
    f.discriminator = "name"
    what = "SFT needs a typed renderer that matches the model family." if f.kind == "sft" else f.description
    f.description = f"Renderer config: `name` picks the chat-template renderer (renderers {RENDERERS_VERSION}); {what}"


def root_spec(kind: str = "sft") -> ClassSpec:
    """The root class of one mirror: ``SFTConfig`` or ``RLConfig``."""
    return specs(kind)[ROOTS[kind]]


def variants(f: FieldSpec) -> dict[str, ClassSpec]:
    """tag -> class for a discriminated-union field (empty for plain fields)."""
    if not f.discriminator:
        return {}
    s = specs(f.kind)
    out = {}
    for c in f.classes:
        tag = s[c].tag(f.discriminator)
        if tag is not None:
            out[tag] = s[c]
    return out


def injected_tag(f: FieldSpec) -> str | None:
    """The `type` prime-rl injects when the table leaves it out (None: no injection, tag required)."""
    return _injected(f.kind).get((f.owner, f.name))


def resolve(
    path: tuple[Any, ...], raw: Any = None, kind: str | None = None
) -> tuple[FieldSpec | None, ClassSpec | None]:
    """The field spec at a config path and the class of its value, choosing union variants from ``raw``.

    ``raw`` is the config dict (root); unions pick the variant named by the table's tag, else the
    injected default. Returns (None, None) for a path the schema does not know. ``kind`` picks the
    schema; by default the document's own (``schema_kind(raw)``), SFT when there is no document.
    """
    kind = kind or (schema_kind(raw) if isinstance(raw, dict) else "sft")
    s = specs(kind)
    cls: ClassSpec | None = s[ROOTS[kind]]
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
    prime_kind: ClassVar[str] = "sft"

    @model_validator(mode="before")
    @classmethod
    def _prime_before(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        data = {k: (None if v == "None" else v) for k, v in data.items()}
        for (owner, fname), tag in _injected(cls.prime_kind).items():
            if owner == cls.__name__ and isinstance(data.get(fname), dict) and "type" not in data[fname]:
                data[fname] = {**data[fname], "type": tag}
        hook = _BEFORE.get((cls.prime_kind, cls.__name__)) or _BEFORE.get(("*", cls.__name__))
        return hook(data) if hook else data


class _RLBase(_Base):
    prime_kind: ClassVar[str] = "rl"


def _model_full_offload(data: dict[str, Any]) -> dict[str, Any]:
    fo = data.get("full_offload")
    if fo is True:
        data["full_offload"] = {}
    elif fo is False:
        data["full_offload"] = None
    return data


def _vllm_snake(data: dict[str, Any]) -> dict[str, Any]:
    return {k.replace("-", "_"): v for k, v in data.items()}


def _sft_before(data: dict[str, Any]) -> dict[str, Any]:
    dep = data.get("deployment")
    if isinstance(dep, dict) and dep.get("type") == "multi_node":
        data["deployment"] = {k: v for k, v in dep.items() if k not in ("num_train_gpus", "num_infer_gpus")}
    model = data.get("model")
    inf = data.get("inference")
    if isinstance(inf, dict) and isinstance(model, dict) and isinstance(model.get("name"), str):
        got = inf.get("vllm")
        vllm = got if isinstance(got, dict) else {}
        if "vllm" not in inf or isinstance(got, dict):
            data["inference"] = {**inf, "vllm": {"model": model["name"], **vllm}}
    return data


def _rl_before(data: dict[str, Any]) -> dict[str, Any]:
    """prime-rl's ``propagate_shared_fields``: the shared top-level keys fill the sub-configs.

    The conflicts it raises on are reported by ``rules_rl`` on the duplicated key, not here.
    """
    from primetui.sft.rl_propagate import propagate_shared_fields

    filled: dict[str, Any] = propagate_shared_fields(data)[0]
    return filled


_BEFORE = {
    ("*", "ModelConfig"): _model_full_offload,
    ("*", "VllmConfig"): _vllm_snake,
    ("sft", "SFTConfig"): _sft_before,
    ("rl", "RLConfig"): _rl_before,
}


class _Builder:
    def __init__(self, kind: str = "sft") -> None:
        self.models: dict[str, type[BaseModel]] = {}
        self.kind = kind
        self.tables = _tables(kind)
        self.base: type[_Base] = _RLBase if kind == "rl" else _Base

    def model(self, cname: str) -> type[BaseModel]:
        if cname in self.models:
            return self.models[cname]
        spec = specs(self.kind)[cname]
        fields: dict[str, Any] = {}
        for fname, f in spec.fields.items():
            fields[fname] = (self.annotation(f), self.field_info(f))
        model_name = cname.replace("[", "_").replace("]", "").replace("-", "_").replace(".", "_")
        m = create_model(model_name, __base__=self.base, **fields)
        m.__name__ = cname if cname.isidentifier() else m.__name__
        if spec.extra == "allow":
            m.model_config["extra"] = "allow"
            m.model_rebuild(force=True)
        self.models[cname] = m
        return m

    def annotation(self, f: FieldSpec) -> Any:
        if f.classes and f.discriminator:
            members = tuple(self.model(c) for c in f.classes)
            ann: Any = Annotated[Union[members], Field(discriminator=f.discriminator)]
            return Optional[ann] if "None" in f.type else ann
        ns: dict[str, Any] = {
            "int": int,
            "float": float,
            "bool": bool,
            "str": str,
            "Path": Path,
            "Any": Any,
            "Literal": Literal,
            "list": list,
            "dict": dict,
            "None": None,
        }
        for c in _CLASS_RE.findall(f.type):
            ns[c] = dict[str, Any] if c in _OPEN or c not in self.tables else self.model(c)
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
            if target in self.models or target in self.tables:
                return Field(default_factory=lambda t=target: self.model(t)(), **kwargs)
            return Field(default_factory=lambda: None, **kwargs)
        return Field(default=f.default_value(), **kwargs)


@lru_cache(maxsize=2)
def root_model(kind: str = "sft") -> type[BaseModel]:
    """The pydantic ``SFTConfig`` (or, for ``"rl"``, ``RLConfig``) built from the mirror (cached; first build ~0.1
    s)."""
    return _Builder(kind).model(ROOTS[kind])
