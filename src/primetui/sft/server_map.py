"""Put the platform's dispatch errors (400 / 409 / 422) back on the lines of the sft.toml they name."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable
from typing import Any

from primetui.sft.diagnostics import Diagnostic, Span
from primetui.sft.spans import SpanMap

_DOTTED = re.compile(r"(?<![\w/.-])([a-z_]+(?:\.[a-z_0-9]+)+)(?![\w/-])")
_TABLE = re.compile(r"\[([a-z_]+(?:\.[a-z_]+)*)\]")
_HINTS: list[tuple[re.Pattern[str], tuple[str, ...]]] = [
    (re.compile(r"^(?:HTTP \d+: )?Model '"), ("model", "name")),
    (re.compile(r"Total GPU count|gpus_per_node"), ("deployment",)),
    (re.compile(r"(?<![.\w])output_dir\b"), ("output_dir",)),  # top-level only, not ckpt.output_dir
    (re.compile(r"online evals \(\[eval\]\)"), ("eval",)),
]


def _path_for_message(message: str, spans: SpanMap) -> tuple[Any, ...] | None:
    for pattern, path in _HINTS:
        if pattern.search(message):
            return path
    for m in _DOTTED.finditer(message):
        path = tuple(m.group(1).split("."))
        found, entry = spans.locate(path)
        if entry is not None and found:
            return path
    for m in _TABLE.finditer(message):
        path = tuple(m.group(1).split("."))
        if spans.get(path) is not None:
            return path
    return None


def map_server_error(text: str, status: int | None, message: str, issues: Iterable[Any] = ()) -> list[Diagnostic]:
    """Diagnostics for a refused dispatch: one per 422 issue, or one for a 400/409 that names a field.

    ``issues`` are objects with ``loc`` and ``msg`` (``primetui.api.errors.ValidationIssue``) or dicts.
    A message that names no field lands on line 1, so it is still listed with the problems.
    """
    from primetui.sft.placing import anchor, walk_loc as _walk_loc

    spans = SpanMap(text)
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        raw = {}
    out: list[Diagnostic] = []
    for issue in issues:
        loc = tuple(issue.get("loc", ()) if isinstance(issue, dict) else getattr(issue, "loc", ()))
        msg = issue.get("msg", "") if isinstance(issue, dict) else getattr(issue, "msg", "")
        if loc[:2] == ("body", "config"):
            loc = loc[2:]
        elif loc[:1] == ("body",):
            loc = loc[1:]
        path, *_ = _walk_loc(loc, raw)
        where = ".".join(str(p) for p in path) or "config"
        out.append(
            Diagnostic(
                "error", f"platform: {where}: {msg}", anchor(spans, path, False), "server-422", "platform", tuple(path)
            )
        )
    if out:
        return out
    named = _path_for_message(message, spans)
    code = f"server-{status}" if status else "server"
    prefix = f"platform ({status}): " if status else "platform: "
    if named is None:
        return [Diagnostic("error", prefix + message, Span(0, 0, 0, len(spans.line_text(0))), code, "platform")]
    return [Diagnostic("error", prefix + message, anchor(spans, named, False), code, "platform", named)]
