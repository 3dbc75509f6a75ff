"""Validate sft.toml text: TOML syntax, the prime-rl schema, prime-rl's rules, the hosted platform's
rules and a reviewer's advice, each placed on an exact span of the text.

``check_text(text, ctx)`` never raises on any input; it is what the editor, ``primetui validate`` and
the local platform's dispatch (via ``server_checks``) all call.
"""

from __future__ import annotations

import difflib
import re
import tomllib
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from primetui.sft.cfg import Cfg, Finding
from primetui.sft.context import CheckContext
from primetui.sft.diagnostics import Diagnostic, Fix, Span, TextEdit, sort_key
from primetui.sft.placing import anchor
from primetui.sft.placing import walk_loc as _walk_loc
from primetui.sft.renames import RENAMED
from primetui.sft.schema import ClassSpec, FieldSpec, injected_tag, root_model, variants
from primetui.sft.spans import Entry, SpanMap
from primetui.sft.syntax import explain

_TOML_POS = re.compile(r"\(at line (\d+), column (\d+)\)")


@dataclass
class Report:
    """Everything one check produced: the diagnostics in document order, the parsed dict, the spans."""

    diagnostics: list[Diagnostic]
    config: dict | None
    spans: SpanMap | None  # None when the check ran in another process (spans do not pickle)
    schema_errors: list[dict] = field(default_factory=list)  # pydantic-shaped, for a 422
    note: str | None = None  # "also validated with prime_rl.configs …" when that package is importable

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.level == "error"]

    def count(self, level: str) -> int:
        return sum(1 for d in self.diagnostics if d.level == level)


def check_text_portable(text: str, ctx: CheckContext | None = None) -> Report:
    """``check_text`` without the span map, so the report can cross a process boundary."""
    report = check_text(text, ctx)
    report.spans = None
    return report


def check_text(text: str, ctx: CheckContext | None = None) -> Report:
    """Check one sft.toml document; see the module docstring."""
    ctx = ctx or CheckContext()
    spans = SpanMap(text)
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        return Report([_syntax_diagnostic(str(exc), spans, text)], None, spans)
    return check_parsed(raw, spans, ctx)


def check_parsed(raw: dict, spans: SpanMap, ctx: CheckContext) -> Report:
    """Check an already parsed config (``spans`` may be of an empty text: then every span is line 0)."""
    from primetui.sft.run_name import schema_input

    # The hosted platform takes a top-level ``name`` as the run's name, outside prime-rl's schema.
    diags, schema_errors = schema_diagnostics(schema_input(raw) if ctx.hosted else raw, spans)
    from primetui.sft import rules  # the rule modules import this one's helpers

    bad_paths = {d.loc for d in diags}
    for finding in rules.run_all(Cfg(raw), ctx, spans):
        if tuple(finding.path) in bad_paths and finding.level != "hint":
            continue  # prime-rl never runs a validator on a field that failed its own type/range check
        diags.append(place(finding, spans))
    from primetui.sft import installed

    seen = {(d.span, d.loc) for d in diags if d.level == "error"}
    diags.extend(d for d in installed.diagnostics(schema_input(raw) if ctx.hosted else raw, spans, ctx.hosted) if (d.span, d.loc) not in seen)
    diags.sort(key=sort_key)
    return Report(_dedupe(diags), raw, spans, schema_errors, installed.note())


def _dedupe(diags: list[Diagnostic]) -> list[Diagnostic]:
    seen: set[tuple] = set()
    out = []
    for d in diags:
        key = (d.span, d.message)
        if key not in seen:
            seen.add(key)
            out.append(d)
    return out


def _syntax_diagnostic(message: str, spans: SpanMap, text: str = "") -> Diagnostic:
    better = explain(text, message) if text else None
    if better is not None:
        return Diagnostic("error", f"Invalid TOML: {better.message} Nothing else can be checked until it parses.",
                          better.span, "toml-syntax", "toml", (), better.fix)
    m = _TOML_POS.search(message)
    line, col = (int(m.group(1)) - 1, int(m.group(2)) - 1) if m else (0, 0)
    text = _TOML_POS.sub("", message).strip().rstrip(".")
    line_len = len(spans.line_text(line))
    col = min(col, line_len)
    end = min(col + 1, line_len) if line_len > col else col
    return Diagnostic("error", f"Invalid TOML: {text} — fix the syntax here; nothing else can be checked until it parses.",
                      Span(line, col, line, end), "toml-syntax", "toml")


# -- placing findings ---------------------------------------------------------------------------------

def place(f: Finding, spans: SpanMap) -> Diagnostic:
    fix = f.fix if f.fix is not None else (f.fix_builder(spans) if f.fix_builder else None)
    return Diagnostic(f.level, f.message, anchor(spans, f.path, f.on_key), f.code, f.source,
                      tuple(f.path), fix)


# -- schema (pydantic) errors ---------------------------------------------------------------------------

def _got(inp: Any) -> str:
    if isinstance(inp, (dict, list)):
        return ""
    return f" (got {inp!r})" if isinstance(inp, str) else f" (got {inp})"


def _dotted(path: tuple) -> str:
    s = ""
    for p in path:
        s += f"[{p}]" if isinstance(p, int) else (("." if s else "") + str(p))
    return s or "<root>"


def schema_diagnostics(raw: dict, spans: SpanMap) -> tuple[list[Diagnostic], list[dict]]:
    """Validate against the mirrored pydantic model; one diagnostic per distinct place."""
    try:
        root_model().model_validate(raw)
        return [], []
    except ValidationError as exc:
        errors = exc.errors(include_url=False)
    grouped: dict[tuple, list[dict]] = {}
    for e in errors:
        path, _cls, _f, _tags = _walk_loc(tuple(e["loc"]), raw)
        grouped.setdefault((path, e["type"] == "extra_forbidden"), []).append(e)
    diags: list[Diagnostic] = []
    schema_errors: list[dict] = []
    for (path, _is_extra), errs in grouped.items():
        for e in errs:
            schema_errors.append({"loc": ["body", "config", *e["loc"]], "msg": e["msg"], "type": e["type"]})
        diags.append(_schema_diagnostic(path, errs, raw, spans))
    return diags, schema_errors


def _schema_diagnostic(path: tuple, errs: list[dict], raw: dict, spans: SpanMap) -> Diagnostic:
    e = errs[0]
    etype = e["type"]
    where = _dotted(path)
    if etype == "extra_forbidden":
        return _extra_diagnostic(path, e, raw, spans)
    if etype == "union_tag_not_found":
        return _missing_tag_diagnostic(path, e, raw, spans)
    if etype == "missing":
        sp = anchor(spans, path)
        f = _field_at(path, raw)
        todo = f"add a [{where}] table" if f is not None and f.classes else f"add `{path[-1]} = …` to this table"
        return Diagnostic("error", f"{where}: Field required — {todo}.", sp,
                          "missing-field", "prime-rl", path, None, etype)
    if etype == "union_tag_invalid":
        f = _field_at(path, raw)
        disc = f.discriminator if f else "type"
        sp = anchor(spans, path + (disc,))
        return Diagnostic("error", f"{where}.{disc}: {e['msg']}", sp, "bad-variant", "prime-rl", path + (disc,), None, etype)
    msgs = []
    for x in errs:
        if x["msg"] not in msgs:
            msgs.append(x["msg"])
    msg = " or ".join(msgs) + _got(e.get("input"))
    sp = anchor(spans, path)
    code = "out-of-range" if etype in ("greater_than_equal", "greater_than", "less_than_equal", "less_than") else (
        "bad-value" if etype in ("literal_error", "enum") else "bad-type")
    return Diagnostic("error", f"{where}: {msg}", sp, code, "prime-rl", path, None, etype)


def _field_at(path: tuple, raw: dict) -> FieldSpec | None:
    from primetui.sft.schema import resolve

    f, _ = resolve(tuple(p for p in path), raw)
    return f


def _table_of(path: tuple, raw: dict) -> tuple[FieldSpec | None, ClassSpec | None, Any]:
    """For a path ``table.key``: the union field of ``table`` (if any), its class, and the raw table."""
    from primetui.sft.schema import resolve

    f, cls = resolve(path[:-1], raw)
    node: Any = raw
    for p in path[:-1]:
        node = node.get(p) if isinstance(node, dict) else (node[p] if isinstance(node, list) and isinstance(p, int) and p < len(node) else None)
    return f, cls, node


def _extra_diagnostic(path: tuple, e: dict, raw: dict, spans: SpanMap) -> Diagnostic:
    key = path[-1] if path else "?"
    where = _dotted(path)
    sp = anchor(spans, path, on_key=True)
    table_path = tuple(p for p in path[:-1] if not isinstance(p, int))
    union_f, cls, node = _table_of(path, raw)
    got = _got(e.get("input"))
    base = f"{where}: Extra inputs are not permitted{got}"
    renamed = RENAMED.get((table_path, str(key)))
    if renamed is not None:
        new, why = renamed
        fix = _rename_fix(spans, path, new) if new else None
        return Diagnostic("error", f"{base} — {why}.", sp, "renamed-key", "prime-rl", path, fix, "extra_forbidden")
    # The §1.3 trap: a union table without its tag silently became the default variant.
    if union_f is not None and union_f.discriminator and isinstance(node, dict) and union_f.discriminator not in node:
        tag = injected_tag(union_f)
        fitting = [t for t, c in variants(union_f).items()
                   if all(k in c.fields or k == union_f.discriminator for k in node)]
        if tag and fitting:
            pick = fitting[0]
            name = _dotted(path[:-1])
            msg = (f"{where}: Extra inputs are not permitted — [{name}] has no `{union_f.discriminator}`, so prime-rl "
                   f"uses the default `{tag}` variant, which has no `{key}`; add `{union_f.discriminator} = \"{pick}\"`.")
            fix = _add_key_fix(spans, path[:-1], union_f.discriminator, pick)
            return Diagnostic("error", msg, sp, "missing-type", "prime-rl", path, fix, "extra_forbidden")
    candidates: list[str] = list(cls.fields) if cls is not None else []
    if union_f is not None and union_f.discriminator:
        for c in variants(union_f).values():
            candidates += [k for k in c.fields if k not in candidates]
    close = difflib.get_close_matches(str(key), candidates, n=1, cutoff=0.6)
    if close:
        fix = _rename_fix(spans, path, close[0])
        return Diagnostic("error", f"{base} — did you mean `{close[0]}`?", sp, "unknown-key", "prime-rl", path, fix,
                          "extra_forbidden")
    return Diagnostic("error", f"{base} — prime-rl forbids unknown keys; remove it.", sp, "unknown-key", "prime-rl",
                      path, None, "extra_forbidden")


def _missing_tag_diagnostic(path: tuple, e: dict, raw: dict, spans: SpanMap) -> Diagnostic:
    from primetui.sft.schema import resolve

    f, _ = resolve(path, raw)
    disc = f.discriminator if f is not None and f.discriminator else "type"
    where = _dotted(path)
    sp = anchor(spans, path)
    pick: str | None = None
    note = ""
    if path == ("renderer",):
        from primetui.sft.renderers import renderer_family

        model = Cfg(raw).str_("model.name") or "Qwen/Qwen3-0.6B"
        pick, certain = renderer_family(model)
        if pick:
            note = f" For `{model}` that is `name = \"{pick}\"`{'' if certain else ' (a guess from the model family: verify it)'}."
    elif path == ("inference", "router"):
        pick = "vllm-router"
        note = " The default router is `type = \"vllm-router\"`."
    elif f is not None:
        node = Cfg(raw).written(".".join(str(p) for p in path)) if all(isinstance(p, str) for p in path) else None
        fitting = [t for t, c in variants(f).items()
                   if isinstance(node, dict) and node and all(k in c.fields for k in node)]
        if len(fitting) == 1:
            pick = fitting[0]
    msg = f"{where}: {e['msg']} — a [{where}] table must say which variant it is with `{disc} = \"…\"`.{note}"
    fix = _add_key_fix(spans, path, disc, pick) if pick else None
    return Diagnostic("error", msg, sp, "missing-type", "prime-rl", path, fix, "union_tag_not_found")


# -- quick fixes ------------------------------------------------------------------------------------------

def _add_key_fix(spans: SpanMap, table: tuple, key: str, value: str) -> Fix | None:
    entry = spans.get(tuple(table))
    if entry is None or entry.kind not in ("table", "array_table") or entry.header_line < 0:
        return None
    line = entry.header_line + 1
    return Fix(f"Add {key} = \"{value}\" to [{_dotted(table)}]",
               (TextEdit((line, 0), (line, 0), f'{key} = "{value}"\n'),))


def _rename_fix(spans: SpanMap, path: tuple, new: str) -> Fix | None:
    entry: Entry | None = spans.get(tuple(path))
    if entry is None or entry.kind not in ("pair", "table"):
        return None
    k = entry.key
    old = str(path[-1])
    if k.line != k.end_line:
        return None
    # The key span of a dotted key covers all its parts; replace only the last part.
    text = spans.line_text(k.line)[k.col:k.end_col]
    if not text.endswith(old):
        return None
    start = k.end_col - len(old)
    if entry.kind == "table" and "." in new:
        start = k.col
    return Fix(f"Rename {old} to {new}", (TextEdit((k.line, start), (k.line, k.end_col), new),))


