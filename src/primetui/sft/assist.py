"""Help while typing, shared by the editor and the language server: hover help and completion.

Both work on text that may not parse yet (the user is mid-word): positions come from the tolerant
span parser, variants from the text when it parses, else from prime-rl's default variant.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

from primetui.sft.help import KeyHelp, _field_lines, describe
from primetui.sft.kind import schema_kind
from primetui.sft.positions import line_start
from primetui.sft.schema import ClassSpec, FieldSpec, resolve, root_spec, specs, variants
from primetui.sft.spans import SpanMap

Kind = Literal["table", "key", "value"]
MODEL_NAME = ("model", "name")
# Where a config names its model: SFT's [model]; an rl.toml's shared [model] or a component's own.
MODEL_PATHS = (MODEL_NAME, ("trainer", "model", "name"), ("orchestrator", "model", "name"))


@dataclass(frozen=True)
class Completion:
    """One completion: ``insert`` replaces the word being typed (``start`` .. cursor on the line)."""

    label: str
    insert: str
    kind: Kind
    detail: str  # type and default, as F1 shows them
    documentation: str


def loads_or_none(text: str) -> dict[str, Any] | None:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return None


# Above this many characters, hover and completion read only the table around the cursor (its header
# to the next one): parsing a 5 MB file per hover took seconds. Ten times any real config.
WINDOW_ABOVE = 200_000


_HEADER = re.compile(r"^[^\S\n]*\[", re.M)  # a line that starts a [table] or [[array]]


def _window(text: str, line: int) -> tuple[str, int]:
    """The [table] holding ``line`` (its header to the next header) and the line it starts at.

    Found from the cursor outwards (``line_start`` and a regex search, in C): splitting a 4.6 MB
    text into lines took a loaded machine up to 0.1 s per hover."""
    at = line_start(text, line)
    if at is None:  # past the end: the last line
        line, at = text.count("\n"), text.rfind("\n") + 1
    after = text.find("\n", at)
    following = _HEADER.search(text, after + 1) if after >= 0 else None
    top = line
    while top > 0 and not _HEADER.match(text, at):
        at = text.rfind("\n", 0, at - 1) + 1
        top -= 1
    return text[at : following.start() if following else len(text)] + ("" if following else "\n"), top


def help_at(
    text: str, line: int, col: int, spans: SpanMap | None = None, raw: Any = None
) -> tuple[tuple[Any, ...], KeyHelp | None]:
    """(path, help) for the key or [table] header at a position; path is () when there is none."""
    if spans is None and raw is None and len(text) > WINDOW_ABOVE:
        window, top = _window(text, line)
        return help_at(window, line - top, col)  # an array of tables' index counts from this window
    spans = spans or SpanMap(text)
    raw = raw if raw is not None else loads_or_none(text)
    hit = spans.at(line, col)
    path = hit[0] if hit else spans.table_at_line(line)
    return path, (describe(path, raw, text_kind(raw, spans)) if path else None)


def _detail(f: FieldSpec) -> str:
    lines = _field_lines(f)
    return " · ".join(x for x in lines if x.startswith(("type:", "default:")))


def _doc(f: FieldSpec) -> str:
    return "\n".join([f.description, *_field_lines(f)] if f.description else _field_lines(f))


def text_kind(raw: Any, spans: SpanMap) -> str:
    """The document's kind (SFT or RL) even while it does not parse: from its top-level tables then."""
    if isinstance(raw, dict):
        return schema_kind(raw)
    return schema_kind({p[0]: {} for p in spans.entries if p and isinstance(p[0], str)})


def _class_at(table: tuple[Any, ...], raw: Any, kind: str = "sft") -> ClassSpec | None:
    if not table:
        return root_spec(kind)
    _f, cls = resolve(tuple(p for p in table), raw, kind)
    return cls


def _table_paths(
    cls: ClassSpec, prefix: tuple[Any, ...], raw: Any, depth: int = 0
) -> list[tuple[tuple[Any, ...], FieldSpec]]:
    """Every table path below ``cls``: the variant the text picks, else every variant's tables."""
    out: list[tuple[tuple[Any, ...], FieldSpec]] = []
    if depth > 4:
        return out
    for name, f in cls.fields.items():
        if not f.classes:
            continue
        path = (*prefix, name)
        out.append((path, f))
        chosen = resolve(path, raw, cls.kind)[1] if raw is not None else None
        kinds = specs(cls.kind)
        subs = (
            [chosen]
            if chosen is not None
            else list(variants(f).values()) or [kinds[c] for c in f.classes if c in kinds]
        )
        seen: set[tuple[Any, ...]] = {p for p, _ in out}
        for sub in subs:
            for p, sf in _table_paths(sub, path, raw, depth + 1):
                if p not in seen:
                    seen.add(p)
                    out.append((p, sf))
    return out


_WORD = re.compile(r"[A-Za-z0-9_.\-/]*$")


def completions(text: str, line: int, col: int, models: frozenset[str] | None = None) -> tuple[int, list[Completion]]:
    """What may be typed at (line, col): (start column of the word being replaced, items).

    Section names after ``[``, the keys of the table (and variant) under the cursor, and after
    ``key =`` the values it allows (enum values, booleans, variant tags, cached model names).
    """
    if len(text) > WINDOW_ABOVE:
        window, top = _window(text, line)
        return completions(window, line - top, col, models)
    lines = text.split("\n")
    if line >= len(lines):
        return col, []
    before = lines[line][:col]
    # the line being typed rarely parses: the rest of the file still says which variants are chosen
    raw = loads_or_none(text)
    if raw is None:
        raw = loads_or_none("\n".join([*lines[:line], *lines[line + 1 :]]))
    spans = SpanMap(text)
    kind = text_kind(raw, spans)
    stripped = before.lstrip()
    if stripped.startswith("["):
        word = stripped.lstrip("[")
        start = col - len(word)
        return start, [
            Completion(".".join(p), ".".join(p), "table", _detail(f), _doc(f))
            for p, f in _table_paths(root_spec(kind), (), raw)
            if ".".join(p).startswith(word)
        ]
    inline = _inline_context(before)
    if inline is not None:
        return _inline_completions(inline, spans.table_at_line(line), col, raw, models, kind)
    if "=" in before:
        key_text, _, value_part = before.partition("=")
        word_match = re.search(r'"?[^"\s=]*$', value_part)
        word = word_match.group(0) if word_match else ""
        start = col - len(word)
        key = tuple(k.strip().strip('"') for k in key_text.strip().split("."))
        path = (*spans.table_at_line(line), *key)
        return start, [
            c
            for c in _values(path, raw, models, kind)
            if c.insert.startswith(word.strip('"')) or c.insert.startswith(word)
        ]
    m = _WORD.search(before)  # matches at the end of any text (maybe empty)
    word = m.group(0) if m else ""
    start = col - len(word)
    table = spans.table_at_line(line)
    cls = _class_at(table, raw, kind)
    if cls is None:
        return start, []
    present = {p[len(table)] for p in spans.entries if len(p) > len(table) and p[: len(table)] == table}
    return start, [
        Completion(name, name, "key", _detail(f), _doc(f))
        for name, f in cls.fields.items()
        if name.startswith(word) and (name not in present or name == word)
    ]


def _keys(text: str) -> tuple[str, ...]:
    return tuple(k.strip().strip('"') for k in text.strip().split("."))


def _inline_context(before: str) -> tuple[tuple[str, ...], str, set[str]] | None:
    """Inside an unclosed inline table on this line: (its key path from the line's table, the text
    typed since its last ``{`` or ``,``, the keys already written in it); None outside one."""
    stack: list[tuple[tuple[str, ...], set[str]]] = []
    start, quote = 0, ""
    for i, ch in enumerate(before):
        if quote:
            quote = "" if ch == quote and before[i - 1] != "\\" else quote
        elif ch in "\"'":
            quote = ch
        elif ch == "{":
            key = before[start:i].rpartition("=")[0]
            if not key.strip() or "[" in key:
                return None  # an inline table in an array: not followed here
            stack.append((_keys(key), set()))
            start = i + 1
        elif ch in ",}":
            if stack and "=" in before[start:i]:
                stack[-1][1].add(_keys(before[start:i].partition("=")[0])[0])
            if ch == "}" and stack:
                stack.pop()
            start = i + 1
    if not stack:
        return None
    return tuple(k for keys, _ in stack for k in keys), before[start:], stack[-1][1]


def _inline_completions(
    inline: tuple[tuple[str, ...], str, set[str]],
    table: tuple[str | int, ...],
    col: int,
    raw: Any,
    models: frozenset[str] | None,
    kind: str,
) -> tuple[int, list[Completion]]:
    keys, typed, present = inline
    base = (*table, *keys)
    if "=" in typed:
        key_text, _, value_part = typed.partition("=")
        m = re.search(r'"?[^"\s=]*$', value_part)  # matches at the end of any text (maybe empty)
        word = m.group(0) if m else ""
        return col - len(word), [
            c
            for c in _values((*base, *_keys(key_text)), raw, models, kind)
            if c.insert.startswith(word.strip('"')) or c.insert.startswith(word)
        ]
    m = _WORD.search(typed)
    word = m.group(0) if m else ""
    cls = _class_at(base, raw, kind)
    if cls is None:
        return col - len(word), []
    return col - len(word), [
        Completion(name, name, "key", _detail(f), _doc(f))
        for name, f in cls.fields.items()
        if name.startswith(word) and name not in present
    ]


def _values(path: tuple[Any, ...], raw: Any, models: frozenset[str] | None, kind: str = "sft") -> list[Completion]:
    if len(path) > 1:
        parent, _cls = resolve(path[:-1], raw, kind)
        if parent is not None and parent.discriminator == path[-1]:
            return [
                Completion(tag, f'"{tag}"', "value", f"variant of [{'.'.join(path[:-1])}]", ", ".join(cls.fields))
                for tag, cls in variants(parent).items()
            ]
    f, _cls = resolve(path, raw, kind)
    if f is None:
        return []
    out = [Completion(v, f'"{v}"', "value", f"one of {f.type}", f.description) for v in f.allowed_values()]
    if re.fullmatch(r"bool( \| None)?", f.type):
        out += [Completion(v, v, "value", _detail(f), f.description) for v in ("true", "false")]
    if path in MODEL_PATHS and models:
        out += [Completion(m, f'"{m}"', "value", "in the platform's model cache", "") for m in sorted(models)]
    return out


@lru_cache(maxsize=2)
def table_homes(kind: str = "sft") -> dict[str, list[tuple[Any, ...]]]:
    """key -> every table path (any variant) where the schema defines it; () is the top level."""
    out: dict[str, list[tuple[Any, ...]]] = {}
    root = root_spec(kind)
    kinds = specs(kind)
    for name in root.fields:
        out.setdefault(name, []).append(())
    for path, f in _table_paths(root, (), None):
        classes = list(variants(f).values()) or [kinds[c] for c in f.classes if c in kinds]
        for cls in classes:
            for name in cls.fields:
                if path not in out.setdefault(name, []):
                    out[name].append(path)
    return out
