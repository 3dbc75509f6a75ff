"""F1 help: what a key is (type, default, allowed values, range, description), from the schema mirror."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from primetui.sft.schema import SCHEMA_NOTE, FieldSpec, injected_tag, resolve, variants


@dataclass(frozen=True)
class KeyHelp:
    title: str
    lines: tuple[str, ...]

    def text(self) -> str:
        return "\n".join((self.title, *self.lines))


def _field_lines(f: FieldSpec) -> list[str]:
    lines = [f"type: {f.type}"]
    if f.required:
        lines.append("default: required (no default)")
    elif f.default.endswith("()"):
        lines.append(
            "default: on, with its defaults"
            if f.optional_table is False and "None" not in f.type
            else f"default: {f.default}"
        )
    else:
        lines.append(f"default: {f.default}")
    allowed = f.allowed_values()
    if allowed and len(allowed) > 1:
        lines.append("allowed: " + ", ".join(allowed))
    bounds = f.bounds()
    if bounds:
        sym = {"ge": ">=", "gt": ">", "le": "<=", "lt": "<"}
        lines.append("range: " + ", ".join(f"{sym[k]} {v}" for k, v in bounds.items()))
    if f.aliases:
        lines.append("also accepted as: " + ", ".join(a for a in f.aliases if a != f.name))
    if f.optional_table:
        lines.append('optional table: an empty table enables it with defaults; `= "None"` disables it')
    v = variants(f)
    if v:
        tag = injected_tag(f)
        lines.append(f"variants ({f.discriminator} = …): " + ", ".join(v))
        if tag:
            lines.append(f"without `{f.discriminator}`, prime-rl picks `{tag}`")
        else:
            lines.append(f"`{f.discriminator}` is required in this table")
    return lines


def describe(path: tuple[Any, ...], raw: Any = None, kind: str | None = None) -> KeyHelp | None:
    """Help for the key at ``path`` (list indices allowed), or None when the schema does not know it."""
    clean = tuple(p for p in path if not isinstance(p, int))
    if not clean:
        return None
    if len(path) > 1:
        # the discriminator of a union table, e.g. scheduler.type or renderer.name
        parent, _pcls = resolve(tuple(path[:-1]), raw, kind)
        if parent is not None and parent.discriminator == path[-1]:
            v = variants(parent)
            return KeyHelp(
                f"{'.'.join(map(str, clean))} — picks the [{'.'.join(map(str, clean[:-1]))}] variant",
                (
                    "allowed: " + ", ".join(v),
                    f"default: "
                    f"{injected_tag(parent) or ('auto' if parent.discriminator == 'name' else 'none: required')}",
                    f"source: {parent.owner}, {SCHEMA_NOTE}",
                ),
            )
    f, cls = resolve(tuple(path), raw, kind)
    if f is None:
        return _inside_opaque(path, raw, kind)
    title = ".".join(map(str, clean))
    lines = []
    if f.description:
        lines.append(f.description)
    lines += _field_lines(f)
    if cls is not None and (f.classes or f.discriminator):
        keys = [k for k in cls.fields]
        if keys:
            lines.append(f"keys ({cls.name}): " + ", ".join(keys))
    lines.append(f"source: {f.owner}, {SCHEMA_NOTE}")
    return KeyHelp(title, tuple(lines))


def _inside_opaque(path: tuple[Any, ...], raw: Any, kind: str | None) -> KeyHelp | None:
    """A key inside a value whose keys the mirror does not describe (``env`` is verifiers' EnvConfig):
    say where it sits and that its keys are not checked here, rather than that it is no key at all."""
    for cut in range(len(path) - 1, 0, -1):
        f, cls = resolve(tuple(path[:cut]), raw, kind)
        if f is None:
            continue
        if cls is not None or f.classes or not f.type[:1].isupper() and not f.type.startswith("dict"):
            return None  # a described table (the key is unknown there), or a plain value
        outer = ".".join(str(p) for p in path[:cut] if not isinstance(p, int))
        title = ".".join(str(p) for p in path if not isinstance(p, int))
        return KeyHelp(
            title,
            (
                f"A key inside `{outer}` ({f.type}): {f.description}".rstrip(),
                f"The schema mirror does not describe the keys inside `{outer}`; they are not checked here.",
                f"source: {f.owner}, {SCHEMA_NOTE}",
            ),
        )
    return None
