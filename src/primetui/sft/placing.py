"""Where a finding is shown: spans for a TOML path, pydantic locs as TOML paths, line-removal fixes.

The bottom of the checking stack: ``check``, ``installed``, ``server_map`` and the rule modules all
place their findings through these, so none of them imports another to reach a helper.
"""

from __future__ import annotations

from typing import Any

from primetui.sft.diagnostics import Fix, Span, TextEdit
from primetui.sft.schema import ClassSpec, FieldSpec, specs, variants
from primetui.sft.spans import SpanMap


def anchor(spans: SpanMap, path: tuple, on_key: bool = False) -> Span:
    """The span a problem at ``path`` is shown on: the value, the key, or the nearest written table."""
    found, entry = spans.locate(path)
    if entry is None:
        first = _first_content_line(spans)
        return Span(first, 0, first, len(spans.line_text(first)))
    if entry.kind == "pair":
        if found != tuple(path) or on_key:
            return entry.key
        return entry.value
    return entry.value  # table header `[x]`


def _first_content_line(spans: SpanMap) -> int:
    for i in range(spans.line_count):
        s = spans.line_text(i).strip()
        if s and not s.startswith("#"):
            return i
    return 0


def walk_loc(loc: tuple, raw: dict) -> tuple[tuple, ClassSpec | None, FieldSpec | None, list[str]]:
    """Strip union tags and union-member names from a pydantic loc; return (toml path, class, field, tags)."""
    cls: ClassSpec | None = specs()["SFTConfig"]
    f: FieldSpec | None = None
    out: list[Any] = []
    tags: list[str] = []
    i = 0
    node: Any = raw
    while i < len(loc):
        part = loc[i]
        i += 1
        if isinstance(part, int):
            out.append(part)
            node = node[part] if isinstance(node, list) and part < len(node) else None
            continue
        if cls is None:
            if isinstance(node, dict) and part in node:
                out.append(part)
                node = node[part]
            continue
        f = cls.fields.get(part) or next((x for x in cls.fields.values() if part in x.aliases), None)
        out.append(part)
        node = node.get(part) if isinstance(node, dict) else None
        if f is None:
            cls = None
            continue
        if f.discriminator:
            v = variants(f)
            if i < len(loc) and loc[i] in v:
                tags.append(str(loc[i]))
                cls = v[loc[i]]
                i += 1
            else:
                cls = None
        elif f.classes and f.classes[0] in specs():
            cls = specs()[f.classes[0]]
        else:
            cls = None
    return tuple(out), cls, f, tags


def remove_line_fix(spans: SpanMap, path: tuple, title: str) -> Fix | None:
    entry = spans.get(tuple(path))
    if entry is None or entry.kind != "pair":
        return None
    start = entry.key.line
    end = entry.value.end_line
    return Fix(title, (TextEdit((start, 0), (end + 1, 0), ""),))
