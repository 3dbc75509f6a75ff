"""Regenerate src/primetui/sft/rl_schema_data.py from prime-rl-configs (RLConfig) at the mirror's commit.

    git -C prime-rl archive 559b44772 packages/prime-rl-configs | tar -x -C /tmp/prl-src
    uv venv /tmp/prl-venv && VIRTUAL_ENV=/tmp/prl-venv uv pip install /tmp/prl-src/packages/prime-rl-configs
    PYTHONPATH=<a verifiers stub>:/tmp/prl-src/packages/prime-rl-configs/src /tmp/prl-venv/bin/python \
        scripts/gen_rl_schema_data.py > tables.py      # then put the module docstring back on top

verifiers (``vf.EnvConfig``, ``vf.ServeConfig``) is only needed for the environment sources, which the
mirror keeps as open tables (``prime train`` defers them): a stub module ``verifiers.v1`` defining those
two as ``extra="allow"`` models, ``SingleAgentEnvConfig``, ``resolve_env_field(data, ann) -> data`` and
``narrowed_env_annotation(cls)`` is enough. Field descriptions are the attributes' docstrings.
"""

import enum, inspect, pprint, sys, types, typing
from typing import Annotated, Any, Literal, Union, get_args, get_origin
from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined
from pathlib import Path
from prime_rl.configs.rl import RLConfig
from pydantic._internal._docs_extraction import extract_docstrings_from_cls

RENDERER_MARK = "RendererConfig"
names: dict[type, str] = {}
order: list[type] = []
by_name: dict[str, type] = {}


def is_model(t):
    return inspect.isclass(t) and issubclass(t, BaseModel)


def is_renderer(t):
    return is_model(t) and t.__module__.startswith("renderers")


def is_open(t):
    return is_model(t) and t.__module__.startswith("verifiers")


def cname(t):
    if t in names:
        return names[t]
    n = t.__name__
    if not (n.endswith("Config") or n.endswith("Tier")):
        n = n + "Config"
    if n in by_name and by_name[n] is not t:
        mod = t.__module__.rsplit(".", 1)[-1]
        n = mod[:1].upper() + mod[1:].replace("_", "") + n
        k = 2
        base = n
        while n in by_name and by_name[n] is not t:
            n = f"{base}{k}"
            k += 1
    names[t] = n
    by_name[n] = t
    return n


def tyt(t) -> str:
    """Type text in the mirror's grammar."""
    if t is type(None) or t is None:
        return "None"
    o = get_origin(t)
    if o is Annotated:
        return tyt(get_args(t)[0])
    if o in (Union, types.UnionType):
        args = get_args(t)
        if any(is_renderer(a) for a in args):
            parts = ["RendererConfig"] + (["None"] if type(None) in args else [])
            return " | ".join(parts)
        return " | ".join(dict.fromkeys(tyt(a) for a in args))
    if o is Literal:
        return "Literal[" + ", ".join(repr(a) for a in get_args(t)) + "]"
    if o in (list, typing.List):
        a = get_args(t)
        return f"list[{tyt(a[0])}]" if a else "list"
    if o in (dict, typing.Dict):
        a = get_args(t)
        return f"dict[{tyt(a[0])}, {tyt(a[1])}]" if a else "dict"
    if o in (tuple,):
        return "list[" + " | ".join(dict.fromkeys(tyt(a) for a in get_args(t) if a is not Ellipsis)) + "]"
    if is_renderer(t):
        return "RendererConfig"
    if is_open(t):
        return "EnvConfig" if "Env" in t.__name__ else "ServeConfig"
    if is_model(t):
        if t not in order:
            order.append(t)
        return cname(t)
    if inspect.isclass(t) and issubclass(t, enum.Enum):
        return "Literal[" + ", ".join(repr(m.value) for m in t) + "]"
    if t is Any:
        return "Any"
    if inspect.isclass(t):
        if issubclass(t, Path):
            return "Path"
        return {"int": "int", "float": "float", "bool": "bool", "str": "str"}.get(t.__name__, t.__name__)
    return str(t).replace("typing.", "")


def constraints(fi: FieldInfo) -> str:
    out = []
    for m in fi.metadata:
        for k in ("ge", "gt", "le", "lt"):
            v = getattr(m, k, None)
            if v is not None:
                out.append(f"{k}={v}")
        if getattr(m, "min_length", None) is not None:
            out.append(f"min_length={m.min_length}")
    if fi.discriminator:
        out.append(f"discriminator={fi.discriminator}")
    if fi.validation_alias is not None:
        al = fi.validation_alias
        ch = getattr(al, "choices", None)
        if ch:
            out.append("alias:" + "/".join(str(c) for c in ch))
        elif isinstance(al, str):
            out.append("alias:" + al)
    return ", ".join(out)


def default_text(fi: FieldInfo) -> str:
    if fi.default_factory is not None:
        try:
            v = fi.default_factory()
        except TypeError:
            v = fi.default_factory({})
        if isinstance(v, BaseModel):
            if is_renderer(type(v)):
                return type(v).__name__ + "()"
            tyt(type(v))
            return cname(type(v)) + "()"
        return _plain_repr(v)
    d = fi.default
    if d is PydanticUndefined:
        return "REQUIRED"
    if isinstance(d, BaseModel) and is_renderer(type(d)):
        return type(d).__name__ + "()"
    if isinstance(d, BaseModel) and is_open(type(d)):
        return ("EnvConfig" if "Env" in type(d).__name__ else "ServeConfig") + "()"
    if isinstance(d, BaseModel):
        tyt(type(d))
        return cname(type(d)) + "()"
    if isinstance(d, enum.Enum):
        return repr(d.value)
    if isinstance(d, Path):
        return repr(str(d))
    return _plain_repr(d)


def _plain_repr(v):
    """A container default holding models, as the plain data TOML would write."""

    def plain(x):
        if isinstance(x, BaseModel):
            return x.model_dump(mode="json")
        if isinstance(x, dict):
            return {k: plain(y) for k, y in x.items()}
        if isinstance(x, (list, tuple)):
            return [plain(y) for y in x]
        if isinstance(x, Path):
            return str(x)
        return x

    return repr(plain(v))


classes = {}


def emit(t):
    n = cname(t)
    fields = {}
    docs = {}
    for klass in reversed(t.__mro__):
        if is_model(klass) and klass is not BaseModel:
            try:
                docs.update(extract_docstrings_from_cls(klass, use_inspect=True))
            except Exception:
                pass
    for fname, fi in t.model_fields.items():
        typ = tyt(fi.annotation)
        fields[fname] = {
            "type": typ,
            "default": default_text(fi),
            "constraints": constraints(fi),
            "description": (fi.description or docs.get(fname) or "").strip(),
        }
    extra = t.model_config.get("extra") or "ignore"
    src = t.__module__.replace("prime_rl.configs.", "configs/").replace(".", "/") + ".py"
    classes[n] = {"source": src, "extra": extra, "fields": fields}


cname(RLConfig)
order.append(RLConfig)
i = 0
while i < len(order):
    emit(order[i])
    i += 1
print(len(classes), file=sys.stderr)
print("from primetui.sft.schema_rows import ClassRow\n")
print("# fmt: off")
print("CLASSES: dict[str, ClassRow] = ", end="")
pprint.pprint(classes, width=120, sort_dicts=False)

injected = {}
for t, n in list(names.items()):
    if not hasattr(t, "model_fields"):
        continue
    for fname, fi in t.model_fields.items():
        d = fi.default
        if isinstance(d, BaseModel) and isinstance(getattr(d, "type", None), str):
            injected[(n, fname)] = d.type
print()
print("# (class, field) -> the `type` prime-rl injects when the table leaves it out (pydantic_config BaseConfig).")
print("INJECTED_TYPES: dict[tuple[str, str], str] = ", end="")
pprint.pprint(injected, width=120)
