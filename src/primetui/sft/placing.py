"""Where a finding is shown: spans for a TOML path, pydantic locs as TOML paths, line-removal fixes.

The bottom of the checking stack: ``check``, ``installed``, ``server_map`` and the rule modules all
place their findings through these, so none of them imports another to reach a helper.
"""

from __future__ import annotations

from typing import Any

from primetui.sft.diagnostics import Fix, Span, TextEdit
from primetui.sft.schema import ClassSpec, FieldSpec, injected_tag, specs, variants
from primetui.sft.spans import SpanMap


def anchor(spans: SpanMap, path: tuple[Any, ...], on_key: bool = False) -> Span:
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


def walk_loc(
    loc: tuple[Any, ...], raw: dict[str, Any]
) -> tuple[tuple[Any, ...], ClassSpec | None, FieldSpec | None, list[str]]:
    """Strip union tags and union-member names from a pydantic loc; return (toml path, class, field, tags)."""
    from primetui.sft.schema import kind_of, root_spec

    kind = kind_of(raw)
    cls: ClassSpec | None = root_spec(kind)
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
        elif f.classes and f.classes[0] in specs(kind):
            cls = specs(kind)[f.classes[0]]
        else:
            cls = None
    return tuple(out), cls, f, tags


def remove_line_fix(spans: SpanMap, path: tuple[Any, ...], title: str) -> Fix | None:
    entry = spans.get(tuple(path))
    if entry is None or entry.kind != "pair":
        return None
    start = entry.key.line
    end = entry.value.end_line
    return Fix(title, (TextEdit((start, 0), (end + 1, 0), ""),))


def dotted(path: tuple[Any, ...]) -> str:
    s = ""
    for p in path:
        s += f"[{p}]" if isinstance(p, int) else (("." if s else "") + str(p))
    return s or "<root>"


def pair_line(spans: SpanMap, path: tuple[Any, ...]) -> tuple[int, str] | None:
    """The line of a one-line ``key = value`` pair that is alone on its line, and that line's text."""
    entry = spans.get(tuple(path))
    if entry is None or entry.kind != "pair" or entry.key.line != entry.value.end_line:
        return None
    line = entry.key.line
    text = spans.line_text(line)
    if text[: entry.key.col].strip():
        return None  # an inline table or another pair before it
    return line, text


def move_fixes(spans: SpanMap, path: tuple[Any, ...], home: tuple[Any, ...], kind: str = "sft") -> list[Fix]:
    """Cut the ``key = value`` line and put it in ``home`` (the top level, or a table, created if missing).

    A missing table of a union gets one candidate per variant that has the key (with its ``type``).
    """
    from primetui.sft.schema import resolve

    found = pair_line(spans, path)
    if found is None:
        return []
    f, _cls = resolve(home, kind=kind) if home else (None, None)
    entry = spans.get(home) if home else None
    if home and entry is None and f is not None and f.discriminator:
        tags = [t for t, c in variants(f).items() if str(path[-1]) in c.fields]
        if injected_tag(f) in tags:  # the default variant has it: the new table needs no `type`
            fx = _move_fix(spans, path, home, found)
            return [fx] if fx else []
        return [fx for t in tags if (fx := _move_fix(spans, path, home, found, f'{f.discriminator} = "{t}"\n'))]
    fx = _move_fix(spans, path, home, found)
    return [fx] if fx else []


def _move_fix(
    spans: SpanMap, path: tuple[Any, ...], home: tuple[Any, ...], found: tuple[int, str], head: str = ""
) -> Fix | None:
    line, text = found
    pair = text.strip() + "\n"
    cut = TextEdit((line, 0), (line + 1, 0), "")
    if not home:
        first = min((h for _p, h, _l in spans.tables), default=0)
        insert = TextEdit((first, 0), (first, 0), pair)
    else:
        entry = spans.get(home)
        if entry is not None and entry.kind in ("table", "array_table") and entry.header_line >= 0:
            at = entry.header_line + 1
            insert = TextEdit((at, 0), (at, 0), pair)
        else:
            end = len(spans.text.split("\n"))
            sep = "" if spans.text.endswith("\n") or not spans.text else "\n"
            insert = TextEdit((end, 0), (end, 0), f"{sep}\n[{dotted(home)}]\n{head}{pair}")
    where = "the top level" if not home else f"[{dotted(home)}]" + (f" ({head.strip()})" if head else "")
    return Fix(f"Move {path[-1]} to {where}", (cut, insert))
