"""Line edits of the editor as pure functions: comment toggling, block indent/dedent, find matches.

Each takes the lines it changes and returns their replacement, so the screen applies it as one
undoable edit and tests need no UI.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

INDENT = "  "


def toggle_comment(lines: list[str]) -> list[str]:
    """Comment the lines out (``# `` at their common indent), or uncomment them if all are comments."""
    body = [ln for ln in lines if ln.strip()]
    if not body:
        return lines
    if all(ln.lstrip().startswith("#") for ln in body):
        return [re.sub(r"^(\s*)# ?", r"\1", ln, count=1) if ln.strip() else ln for ln in lines]
    indent = min(len(ln) - len(ln.lstrip()) for ln in body)
    return [ln[:indent] + "# " + ln[indent:] if ln.strip() else ln for ln in lines]


def indent(lines: list[str], unit: str = INDENT) -> list[str]:
    """One level more on every non-blank line (a selection is indented, never replaced)."""
    return [unit + ln if ln.strip() else ln for ln in lines]


def dedent(lines: list[str], unit: str = INDENT) -> list[str]:
    """One level less on every line that has one (a tab counts as a level)."""
    out = []
    for ln in lines:
        if ln.startswith(unit):
            ln = ln[len(unit) :]
        elif ln.startswith("\t"):
            ln = ln[1:]
        else:
            ln = ln.lstrip(" ")
        out.append(ln)
    return out


@dataclass(frozen=True)
class Match:
    start: int  # offsets in the text
    end: int
    replacement: str  # what "replace" puts here (a regex's groups expanded)


def find_matches(text: str, pattern: str, *, regex: bool, case: bool, replace: str = "") -> list[Match]:
    """Every match of ``pattern`` in ``text``; raises ``re.error`` for a bad regular expression."""
    if not pattern:
        return []
    flags = 0 if case else re.IGNORECASE
    rx = re.compile(pattern if regex else re.escape(pattern), flags | re.MULTILINE)
    out = []
    for m in rx.finditer(text):
        if m.end() == m.start():
            continue  # an empty match (``^``, ``x*``) selects nothing and replaces nothing
        out.append(Match(m.start(), m.end(), m.expand(replace) if regex else replace))
    return out


def replace_all(text: str, matches: list[Match]) -> str:
    parts, last = [], 0
    for m in matches:
        parts += [text[last : m.start], m.replacement]
        last = m.end
    return "".join(parts) + text[last:]
