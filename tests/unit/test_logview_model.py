"""The log view's pure parts (primetui.viewmodel.logview): query syntax, jumps, selection."""

from __future__ import annotations

import numpy as np

from primetui.monitor_core.filters import LogQuery
from primetui.viewmodel.logview import (
    parse_query,
    plain_line,
    query_text,
    selection_range,
    step_index,
    visible_errors,
    visible_hits,
)


def test_query_syntax_round_trips():
    for text in ("loss", "/lo+ss/", "!warn", "!/x\\d/"):
        assert query_text(parse_query(text)) == text
    assert parse_query("!/a/", 30) == LogQuery(text="a", regex=True, invert=True, min_level=30)
    assert query_text(parse_query("!x"), with_invert=False) == "x"
    assert query_text(None) == "" and query_text(LogQuery(min_level=30)) == ""


def test_jumps_wrap_around():
    marks = np.array([10, 20, 30])
    assert [step_index(marks, h, True) for h in (5, 10, 25, 30, 99)] == [0, 1, 2, 0, 0]
    assert [step_index(marks, h, False) for h in (5, 10, 25, 30, 99)] == [2, 2, 1, 1, 2]


def test_hits_and_errors_under_a_filter():
    hits = np.array([1, 4, 7])
    assert visible_hits(hits, None) is hits
    assert visible_hits(hits, np.array([4, 5, 7])).tolist() == [4, 7]
    assert visible_errors(hits, np.array([1])).tolist() == [1]


class _Row:
    def __init__(self, text: str, source: int) -> None:
        self.text, self.source = text, source


class _Source:
    def row(self, g: int):  # type: ignore[no-untyped-def]
        return _Row(f"line {g}", g % 2) if g >= 0 else None


def test_selection_and_plain_lines():
    assert selection_range(None, 3) == (-1, -1)
    assert selection_range(5, None) == (5, 5)
    assert selection_range(5, 2) == (2, 5)
    assert plain_line(_Source(), 3, None) == "line 3"
    assert plain_line(_Source(), 3, ["trainer", "orchestrator"]) == "orchestrator | line 3"
    assert plain_line(_Source(), -1, None) == ""
