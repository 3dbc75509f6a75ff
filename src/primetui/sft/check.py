"""Validate sft.toml text: TOML syntax, the prime-rl schema, prime-rl's rules, the hosted platform's
rules and a reviewer's advice, each placed on an exact span of the text.

``check_text(text, ctx)`` never raises on any input; it is what the editor, ``primetui validate`` and
the local platform's dispatch (via ``server_checks``) all call.
"""

from __future__ import annotations

import difflib
import re
import tomllib
from dataclasses import dataclass, field, replace
from typing import Any

from pydantic import ValidationError
from pydantic_core import ErrorDetails

from primetui.sft.cfg import Cfg, Finding
from primetui.sft.context import CheckContext
from primetui.sft.diagnostics import (
    Diagnostic,
    Fix,
    Level,
    Span,
    TextEdit,
    apply_fix,
    sort_key,
)
from primetui.sft.placing import anchor, remove_line_fix
from primetui.sft.placing import dotted as _dotted
from primetui.sft.placing import move_fixes as _move_fixes
from primetui.sft.placing import pair_line as _pair_line
from primetui.sft.placing import walk_loc as _walk_loc
from primetui.sft.renames import RENAMED, RL_RENAMED
from primetui.sft.schema import ClassSpec, FieldSpec, injected_tag, kind_of, root_model, variants
from primetui.sft.spans import Entry, SpanMap
from primetui.sft.syntax import explain

_TOML_POS = re.compile(r"\(at line (\d+), column (\d+)\)")


@dataclass
class Report:
    """Everything one check produced: the diagnostics in document order, the parsed dict, the spans."""

    diagnostics: list[Diagnostic]
    config: dict[str, Any] | None
    spans: SpanMap | None  # None when the check ran in another process (spans do not pickle)
    schema_errors: list[dict[str, Any]] = field(default_factory=list)  # pydantic-shaped, for a 422
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


# Trying each fix re-checks the text once per fix: above this many characters x fixes (a 60,000-character
# file with 25 fixes, about a second of checking) fixes are offered untried.
PROVE_FIXES_BUDGET = 1_500_000


def check_text(text: str, ctx: CheckContext | None = None, *, prove_fixes: bool = True) -> Report:
    """Check one sft.toml document; see the module docstring.

    Every quick fix offered is tried on a copy first and kept only when it leaves fewer errors
    than the text has now (so no fix trades one error for another).
    """
    ctx = ctx or CheckContext()
    spans = SpanMap(text)
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        report = Report([_syntax_diagnostic(str(exc), spans, text)], None, spans)
    else:
        report = check_parsed(raw, spans, ctx)
    if prove_fixes and len(text) * sum(len(d.fixes) for d in report.diagnostics) <= PROVE_FIXES_BUDGET:
        report.diagnostics = _fixes_that_help(text, report, ctx)
    return report


def _fixes_that_help(text: str, report: Report, ctx: CheckContext) -> list[Diagnostic]:
    errors = len(report.errors)
    out = []
    for d in report.diagnostics:
        if not d.fixes:
            out.append(d)
            continue
        good = [
            f
            for f in d.fixes
            if len(check_text(apply_fix(text, f), ctx, prove_fixes=False).errors) < errors
            or (d.level != "error" and len(check_text(apply_fix(text, f), ctx, prove_fixes=False).errors) <= errors)
        ]
        out.append(replace(d, fix=good[0] if good else None, alternatives=tuple(good[1:])))
    return out


def check_parsed(raw: dict[str, Any], spans: SpanMap, ctx: CheckContext) -> Report:
    """Check an already parsed config (``spans`` may be of an empty text: then every span is line 0).

    The document's kind (``primetui.sft.kind``) picks the schema: SFTConfig, or RLConfig for an rl.toml.
    """
    from primetui.sft.kind import is_retired_shape, schema_input, schema_kind

    if is_retired_shape(raw):
        return Report([_retired_diagnostic(raw, spans)], raw, spans)
    kind = schema_kind(raw)
    # prime train takes ``name`` and its request-level keys (image_tag, volume, …) for itself.
    schema_raw = schema_input(raw) if ctx.hosted else raw
    if kind == "rl" and ctx.hosted and "k8s" in schema_raw:  # prime train refuses it first, in its own words
        schema_raw = {k: v for k, v in schema_raw.items() if k != "k8s"}
    diags, schema_errors = schema_diagnostics(schema_raw, spans, deferred_level=_deferred_level(ctx))
    from primetui.sft import rules  # the rule modules import this one's helpers

    bad_paths = {d.loc for d in diags}
    for finding in rules.run_all(Cfg(raw), ctx, spans, kind):
        if tuple(finding.path) in bad_paths and finding.level != "hint" and finding.code not in BEFORE_FIELDS:
            continue  # prime-rl never runs a validator on a field that failed its own type/range check
        diags.append(place(finding, spans))
    from primetui.sft import installed

    seen = {(d.span, d.loc) for d in diags if d.level == "error"}
    diags.extend(d for d in installed.diagnostics(schema_raw, spans, ctx.hosted, kind) if (d.span, d.loc) not in seen)
    diags.sort(key=sort_key)
    return Report(_dedupe(diags), raw, spans, schema_errors, installed.note(kind))


def _deferred_level(ctx: CheckContext) -> Level:
    """What a check ``prime train`` leaves to the platform is: an error at dispatch, else a warning."""
    return "error" if ctx.at_dispatch else "warning"


def _retired_diagnostic(raw: dict[str, Any], spans: SpanMap) -> Diagnostic:
    from primetui.sft.kind import retired_shape_key, retired_shape_message

    key = retired_shape_key(raw)
    return Diagnostic(
        "error",
        retired_shape_message("This file"),
        anchor(spans, (key,), on_key=True),
        "retired-shape",
        "platform",
        (key,),
        platform_loc=(),
    )


def _dedupe(diags: list[Diagnostic]) -> list[Diagnostic]:
    seen: set[tuple[Any, ...]] = set()
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
        return Diagnostic(
            "error",
            f"Invalid TOML: {better.message} Nothing else can be checked until it parses.",
            better.span,
            "toml-syntax",
            "toml",
            (),
            better.fix,
        )
    m = _TOML_POS.search(message)
    line, col = (int(m.group(1)) - 1, int(m.group(2)) - 1) if m else (0, 0)
    if m is None and "end of document" in message:
        # tomllib names no line for a file that ends mid-value: that is the last line, at its end
        lines = text.split("\n")
        line = len(lines) - 1
        while line > 0 and not lines[line].strip():
            line -= 1
        col = len(lines[line].rstrip())
        message = message.replace("(at end of document)", "(at the end of the file)")
    text = _TOML_POS.sub("", message).strip().rstrip(".")
    line_len = len(spans.line_text(line))
    col = min(col, line_len)
    end = min(col + 1, line_len) if line_len > col else col
    return Diagnostic(
        "error",
        f"Invalid TOML: {text} — fix the syntax here; nothing else can be checked until it parses.",
        Span(line, col, line, end),
        "toml-syntax",
        "toml",
    )


# -- placing findings ---------------------------------------------------------------------------------


def place(f: Finding, spans: SpanMap) -> Diagnostic:
    fix = f.fix if f.fix is not None else (f.fix_builder(spans) if f.fix_builder else None)
    message = f"{f.message.rstrip('.')}: {f.detail}." if f.detail else f.message
    return Diagnostic(
        f.level,
        message,
        anchor(spans, f.path, f.on_key),
        f.code,
        f.source,
        tuple(f.path),
        fix,
        platform_message=f.message if f.detail else None,
        platform_loc=f.loc,
    )


# -- schema (pydantic) errors ---------------------------------------------------------------------------


def _got(inp: Any) -> str:
    if isinstance(inp, (dict, list)):
        return ""
    return f" (got {inp!r})" if isinstance(inp, str) else f" (got {inp})"


# Raised by a before-validator, ahead of every field check: shown even on a field with a type error.
BEFORE_FIELDS = ("shared-conflict",)
# Where ``prime train`` defers an RL config's checks to the platform (its ``defer_environments``).
DEFERRED_RL = (("orchestrator", "train", "source"), ("orchestrator", "eval", "source"))
DEFERRED_NOTE = " (the platform refuses this at submit; prime train leaves environment sources to it)"


def is_deferred(kind: str, path: tuple[Any, ...]) -> bool:
    """Whether ``prime train`` leaves the check at ``path`` to the platform."""
    return kind == "rl" and any(tuple(path[: len(p)]) == p for p in DEFERRED_RL)


def schema_diagnostics(
    raw: dict[str, Any], spans: SpanMap, deferred_level: Level = "warning"
) -> tuple[list[Diagnostic], list[dict[str, Any]]]:
    """Validate against the mirrored pydantic model; one diagnostic per distinct place.

    An RL config's environment sources are checked too, as the platform checks them at submit;
    their problems are ``deferred_level`` (``prime train`` does not check them locally).
    """
    from primetui.sft.kind import schema_kind

    kind = schema_kind(raw)
    try:
        root_model(kind).model_validate(raw)
        return [], []
    except ValidationError as exc:
        errors = exc.errors(include_url=False)
    grouped: dict[tuple[Any, ...], list[ErrorDetails]] = {}
    for e in errors:
        path, _cls, _f, _tags = _walk_loc(tuple(e["loc"]), raw)
        grouped.setdefault((path, e["type"] == "extra_forbidden"), []).append(e)
    diags: list[Diagnostic] = []
    schema_errors: list[dict[str, Any]] = []
    for (path, _is_extra), errs in grouped.items():
        for e in errs:
            schema_errors.append({"loc": ["body", "config", *e["loc"]], "msg": e["msg"], "type": e["type"]})
        d = _schema_diagnostic(path, errs, raw, spans)
        if is_deferred(kind, path) and deferred_level != "error":
            d = replace(d, level=deferred_level, message=d.message.rstrip(".") + DEFERRED_NOTE + ".")
        diags.append(d)
    return diags, schema_errors


def _schema_diagnostic(
    path: tuple[Any, ...], errs: list[ErrorDetails], raw: dict[str, Any], spans: SpanMap
) -> Diagnostic:
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
        return Diagnostic(
            "error", f"{where}: Field required — {todo}.", sp, "missing-field", "prime-rl", path, None, etype
        )
    if etype == "union_tag_invalid":
        f = _field_at(path, raw)
        disc = f.discriminator if f else "type"
        sp = anchor(spans, path + (disc,))
        return Diagnostic(
            "error", f"{where}.{disc}: {e['msg']}", sp, "bad-variant", "prime-rl", path + (disc,), None, etype
        )
    msgs = []
    for x in errs:
        if x["msg"] not in msgs:
            msgs.append(x["msg"])
    msg = " or ".join(msgs) + _got(e.get("input"))
    sp = anchor(spans, path)
    if etype == "list_type" and isinstance(e.get("input"), dict):
        entry = spans.get(tuple(path))
        if entry is not None and entry.kind == "table":
            name = _dotted(path)
            k = entry.key
            line = spans.line_text(k.line)
            fix = None
            if line.lstrip().startswith(f"[{name}]"):
                col = len(line) - len(line.lstrip())
                fix = Fix(
                    f"Make it [[{name}]]", (TextEdit((k.line, col), (k.line, col + len(name) + 2), f"[[{name}]]"),)
                )
            return Diagnostic(
                "error",
                f"{name}: Input should be a valid list — [{name}] is a list of tables: write "
                f"[[{name}]] (double brackets), one per entry.",
                sp,
                "bad-type",
                "prime-rl",
                path,
                fix,
                etype,
            )
    if etype == "literal_error" and isinstance(e.get("input"), str):
        fix = _literal_fix(path, e["input"], raw, spans)
        if fix is not None:
            return Diagnostic(
                "error",
                f"{where}: {msg} — did you mean {fix.title.split(' to ', 1)[1]}?",
                sp,
                "bad-value",
                "prime-rl",
                path,
                fix,
                etype,
            )
    code = (
        "out-of-range"
        if etype in ("greater_than_equal", "greater_than", "less_than_equal", "less_than")
        else ("bad-value" if etype in ("literal_error", "enum") else "bad-type")
    )
    return Diagnostic("error", f"{where}: {msg}", sp, code, "prime-rl", path, None, etype)


def _field_at(path: tuple[Any, ...], raw: dict[str, Any]) -> FieldSpec | None:
    from primetui.sft.schema import resolve

    f, _ = resolve(tuple(p for p in path), raw)
    return f


def _table_of(path: tuple[Any, ...], raw: dict[str, Any]) -> tuple[FieldSpec | None, ClassSpec | None, Any]:
    """For a path ``table.key``: the union field of ``table`` (if any), its class, and the raw table."""
    from primetui.sft.schema import resolve

    f, cls = resolve(path[:-1], raw)
    node: Any = raw
    for p in path[:-1]:
        node = (
            node.get(p)
            if isinstance(node, dict)
            else (node[p] if isinstance(node, list) and isinstance(p, int) and p < len(node) else None)
        )
    return f, cls, node


def _extra_diagnostic(path: tuple[Any, ...], e: ErrorDetails, raw: dict[str, Any], spans: SpanMap) -> Diagnostic:
    key = path[-1] if path else "?"
    sp = anchor(spans, path, on_key=True)
    table_path = tuple(p for p in path[:-1] if not isinstance(p, int))
    union_f, cls, node = _table_of(path, raw)
    base = f"{_dotted(path)}: Extra inputs are not permitted{_got(e.get('input'))}"
    renamed = (RL_RENAMED if kind_of(raw) == "rl" else RENAMED).get((table_path, str(key)))
    if renamed is not None:
        new, why = renamed
        fix = _rename_fix(spans, path, new) if new else _split_pair_fix(spans, path, e.get("input"))
        return Diagnostic("error", f"{base} — {why}.", sp, "renamed-key", "prime-rl", path, fix, "extra_forbidden")
    tagged_union = union_f if union_f is not None and union_f.discriminator and isinstance(node, dict) else None
    if tagged_union is not None:
        found = _untagged_union_diagnostic(path, key, tagged_union, node, sp, spans) or _other_variant_diagnostic(
            path, key, tagged_union, node, base, sp, spans
        )
        if found is not None:
            return found
    if cls is not None and str(key) not in cls.fields:
        homes = [p for p in key_homes(str(key), cls.kind) if p != table_path]
        if homes:
            return _wrong_table_diagnostic(path, homes, base, sp, spans, cls.kind)
    return _unknown_key_diagnostic(path, union_f, cls, base, sp, spans)


def _untagged_union_diagnostic(
    path: tuple[Any, ...], key: Any, union_f: FieldSpec, node: dict[str, Any], sp: Span, spans: SpanMap
) -> Diagnostic | None:
    """The §1.3 trap: a union table without its tag silently became the default variant."""
    disc = union_f.discriminator or "type"
    if disc in node:
        return None
    tag = injected_tag(union_f)
    fitting = [t for t, c in variants(union_f).items() if all(k in c.fields or k == disc for k in node)]
    if not (tag and fitting):
        return None
    picks = " or ".join(f'`{disc} = "{p}"`' for p in fitting)
    msg = (
        f"{_dotted(path)}: Extra inputs are not permitted — [{_dotted(path[:-1])}] has no `{disc}`, so prime-rl "
        f"uses the default `{tag}` variant, which has no `{key}`; add {picks}."
    )
    fixes = [f for f in (_add_key_fix(spans, path[:-1], disc, p) for p in fitting) if f]
    return Diagnostic(
        "error",
        msg,
        sp,
        "missing-type",
        "prime-rl",
        path,
        fixes[0] if fixes else None,
        "extra_forbidden",
        tuple(fixes[1:]),
    )


def _other_variant_diagnostic(
    path: tuple[Any, ...], key: Any, union_f: FieldSpec, node: dict[str, Any], base: str, sp: Span, spans: SpanMap
) -> Diagnostic | None:
    owners = [t for t, c in variants(union_f).items() if str(key) in c.fields]
    return _variant_key_diagnostic(path, union_f, owners, node, base, sp, spans) if owners else None


def _unknown_key_diagnostic(
    path: tuple[Any, ...], union_f: FieldSpec | None, cls: ClassSpec | None, base: str, sp: Span, spans: SpanMap
) -> Diagnostic:
    """A key no table knows: suggest the closest known key of its table (any variant), else say to remove it."""
    key = str(path[-1]) if path else "?"
    candidates: list[str] = list(cls.fields) if cls is not None else []
    if union_f is not None and union_f.discriminator:
        for c in variants(union_f).values():
            candidates += [k for k in c.fields if k not in candidates]
    close = difflib.get_close_matches(key, [c for c in candidates if c != key], n=1, cutoff=0.6)
    if close:
        fix = _rename_fix(spans, path, close[0])
        return Diagnostic(
            "error", f"{base} — did you mean `{close[0]}`?", sp, "unknown-key", "prime-rl", path, fix, "extra_forbidden"
        )
    return Diagnostic(
        "error",
        f"{base} — prime-rl forbids unknown keys; remove it.",
        sp,
        "unknown-key",
        "prime-rl",
        path,
        None,
        "extra_forbidden",
    )


def _variant_key_diagnostic(
    path: tuple[Any, ...],
    union_f: FieldSpec,
    owners: list[str],
    node: dict[str, Any],
    base: str,
    sp: Span,
    spans: SpanMap,
) -> Diagnostic:
    """A key of another variant: say which, and offer to switch the variant or drop the key."""
    disc = union_f.discriminator or "type"
    table = path[:-1]
    current = node.get(disc) or injected_tag(union_f) or "?"
    names = " or ".join(f"`{o}`" for o in owners[:3])
    msg = (
        f"{base} — `{path[-1]}` belongs to the {names} variant{'s' if len(owners) > 1 else ''} of "
        f"[{_dotted(table)}], which is `{current}` here; switch `{disc}` or remove the key."
    )
    switches = [f for f in (_set_tag_fix(spans, table, disc, o) for o in owners[:3]) if f is not None]
    drop = remove_line_fix(spans, path, f"Remove {path[-1]}")
    ordered = [*switches, drop] if disc == "type" else [drop, *switches]
    fixes = [f for f in ordered if f is not None]
    return Diagnostic(
        "error",
        msg,
        sp,
        "variant-key",
        "prime-rl",
        path,
        fixes[0] if fixes else None,
        "extra_forbidden",
        tuple(fixes[1:]),
    )


def _wrong_table_diagnostic(
    path: tuple[Any, ...], homes: list[tuple[Any, ...]], base: str, sp: Span, spans: SpanMap, kind: str = "sft"
) -> Diagnostic:
    """A known key written in the wrong table: name where it belongs, and offer to move it there."""
    where = " or ".join("the top level (before any [table])" if not h else f"[{_dotted(h)}]" for h in homes[:3])
    msg = f"{base} — `{path[-1]}` belongs in {where}; here prime-rl refuses it."
    fixes = [f for home in homes[:3] for f in _move_fixes(spans, path, home, kind)]
    return Diagnostic(
        "error",
        msg,
        sp,
        "wrong-table",
        "prime-rl",
        path,
        fixes[0] if fixes else None,
        "extra_forbidden",
        tuple(fixes[1:]),
    )


def key_homes(key: str, kind: str = "sft") -> list[tuple[Any, ...]]:
    """Every table path whose class (any variant) has the field ``key``; () is the top level."""
    from primetui.sft.assist import table_homes

    return table_homes(kind).get(key, [])


def _missing_tag_diagnostic(path: tuple[Any, ...], e: ErrorDetails, raw: dict[str, Any], spans: SpanMap) -> Diagnostic:
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
            note = (
                f" For `{model}` that is `name = "
                f'"{pick}"`{"" if certain else " (a guess from the model family: verify it)"}.'
            )
    elif path == ("inference", "router"):
        pick = "vllm-router"
        note = ' The default router is `type = "vllm-router"`.'
    elif f is not None:
        node = Cfg(raw).written(".".join(str(p) for p in path)) if all(isinstance(p, str) for p in path) else None
        fitting = [
            t for t, c in variants(f).items() if isinstance(node, dict) and node and all(k in c.fields for k in node)
        ]
        if len(fitting) == 1:
            pick = fitting[0]
    msg = f'{where}: {e["msg"]} — a [{where}] table must say which variant it is with `{disc} = "…"`.{note}'
    fix = _add_key_fix(spans, path, disc, pick) if pick else None
    return Diagnostic("error", msg, sp, "missing-type", "prime-rl", path, fix, "union_tag_not_found")


# -- quick fixes ------------------------------------------------------------------------------------------


def _add_key_fix(spans: SpanMap, table: tuple[Any, ...], key: str, value: str) -> Fix | None:
    entry = spans.get(tuple(table))
    if entry is None or entry.kind not in ("table", "array_table") or entry.header_line < 0:
        return None
    line = entry.header_line + 1
    return Fix(
        f'Add {key} = "{value}" to [{_dotted(table)}]', (TextEdit((line, 0), (line, 0), f'{key} = "{value}"\n'),)
    )


def _literal_fix(path: tuple[Any, ...], value: str, raw: dict[str, Any], spans: SpanMap) -> Fix | None:
    """``"HF"`` for ``"hf"``: a value that differs from an allowed one only in case or by a typo."""
    f = _field_at(path, raw)
    allowed = f.allowed_values() if f is not None else []
    same = [a for a in allowed if a.lower() == value.lower()]
    close = same or difflib.get_close_matches(value, allowed, n=1, cutoff=0.75)
    entry = spans.get(tuple(path))
    if not close or entry is None or entry.kind != "pair" or entry.value.line != entry.value.end_line:
        return None
    v = entry.value
    return Fix(f'Change "{value}" to "{close[0]}"', (TextEdit((v.line, v.col), (v.line, v.end_col), f'"{close[0]}"'),))


def _split_pair_fix(spans: SpanMap, path: tuple[Any, ...], value: Any) -> Fix | None:
    """``betas = [0.9, 0.99]`` becomes ``betas1 = 0.9`` and ``betas2 = 0.99`` (prime-rl's two scalars)."""
    if str(path[-1]) != "betas" or not (
        isinstance(value, list) and len(value) == 2 and all(isinstance(x, (int, float)) for x in value)
    ):
        return None
    found = _pair_line(spans, path)
    if found is None:
        return None
    line, _text = found
    new = f"betas1 = {value[0]!r}\nbetas2 = {value[1]!r}\n"
    return Fix("Split betas into betas1 and betas2", (TextEdit((line, 0), (line + 1, 0), new),))


def _set_tag_fix(spans: SpanMap, table: tuple[Any, ...], disc: str, value: str) -> Fix | None:
    """Set the table's ``type`` / ``name`` to ``value``: rewrite its value, or add the line."""
    entry = spans.get((*table, disc))
    if entry is not None and entry.kind == "pair" and entry.value.line == entry.value.end_line:
        v = entry.value
        return Fix(
            f'Switch [{_dotted(table)}] to {disc} = "{value}"',
            (TextEdit((v.line, v.col), (v.line, v.end_col), f'"{value}"'),),
        )
    add = _add_key_fix(spans, table, disc, value)
    return Fix(f'Switch [{_dotted(table)}] to {disc} = "{value}"', add.edits) if add else None


def _rename_fix(spans: SpanMap, path: tuple[Any, ...], new: str) -> Fix | None:
    entry: Entry | None = spans.get(tuple(path))
    if entry is None or entry.kind not in ("pair", "table"):
        return None
    k = entry.key
    old = str(path[-1])
    if k.line != k.end_line:
        return None
    # The key span of a dotted key covers all its parts; replace only the last part.
    text = spans.line_text(k.line)[k.col : k.end_col]
    if not text.endswith(old):
        return None
    start = k.end_col - len(old)
    if entry.kind == "table" and "." in new:
        start = k.col
    return Fix(f"Rename {old} to {new}", (TextEdit((k.line, start), (k.line, k.end_col), new),))
