"""A filter's answer is a search of each line on its own, wherever the line is kept.

Lines in a frozen chunk are searched in the chunk's UTF-8 blob, at C speed; the newest lines one by one
as ``str``. The two gave different answers: a ``bytes`` regex knows only ASCII digits, word characters and
case, its ``.`` sees one byte of a two-byte character, a match could run from one line into the next, and
a lookaround or ``\\A`` saw the newline beside a line (a property test found a Tangsa digit that ``\\d``
matched only while its line was among the newest). Every query here is checked on every line of a store
whose chunks hold four lines, against ``re.search`` of the line alone."""

from __future__ import annotations

import re

import pytest

from primetui.monitor_core.filters import LogQuery, apply_filter, text_matches
from primetui.monitor_core.lines import LineParser
from primetui.monitor_core.store import LogStore

LINES = [
    "Step 1 | loss 0.91",
    "digits \U00016ac0 and \u0663",  # a Tangsa and an Arabic-Indic digit: \d in str, not in bytes
    "Kelvin \u212a and long \u017f and \u0130stanbul",  # matched by k, s and i when case is ignored
    "\u212a",  # alone, each: the Kelvin sign, a long s, a dotless i, a capital e acute
    "\u017f",
    "\u0131",
    "CAF\u00c9 ONLY",
    "caf\u00e9 CAF\u00c9 na\u00efve",
    "a\u00e9b",  # "a.b": one character between, two bytes
    "ends with x",
    "x starts",
    "word",
    "next word",
    "tab\u00a0nbsp",  # a no-break space: \s in str
    "",
    "xx",
    "the newest lines",  # the last three are searched one by one, as str
    "are not in a chunk",
    "yet",
]
QUERIES = [
    LogQuery(r"\d+", regex=True),
    LogQuery(r"\w+\s\w+", regex=True),
    LogQuery(r"word\s+next", regex=True),  # would run from one line into the next in a blob
    LogQuery(r"a.b", regex=True),
    LogQuery(r"(?<=\s)x", regex=True),
    LogQuery(r"(?<!\w)word", regex=True),
    LogQuery(r"\Ax", regex=True),
    LogQuery(r"x\Z", regex=True),
    LogQuery(r"^x", regex=True),
    LogQuery(r"x$", regex=True),
    LogQuery(r"\x41", regex=True),  # 'A', in a pattern with no capital: smart case ignores case
    LogQuery(r"\s", regex=True),
    LogQuery(r"caf\u00e9", regex=True),
    LogQuery(r"x*", regex=True),
    LogQuery("k"),
    LogQuery("s"),
    LogQuery("i"),
    LogQuery("caf\u00e9"),
    LogQuery("CAF\u00c9"),
    LogQuery("word"),
    LogQuery("x", invert=True),
]


def _store() -> LogStore:
    store = LogStore(chunk_lines=4)
    store.append(LineParser().parse_batch(LINES))
    return store


@pytest.mark.parametrize("query", QUERIES, ids=lambda q: ("!" if q.invert else "") + ("/" if q.regex else "") + q.text)
def test_every_line_answers_as_a_search_of_the_line_alone(query: LogQuery) -> None:
    store = _store()
    assert store.end - store.first == len(LINES) and len(LINES) % 4 == 3  # every other line in a frozen chunk
    assert store.text(0) == LINES[0]
    flags = 0 if query.case_sensitive else re.IGNORECASE
    pattern = re.compile(query.text if query.regex else re.escape(query.text), flags)
    hits = [g for g in range(store.first, store.end) if pattern.search(store.text(g))]
    assert text_matches(store, query).tolist() == hits
    wanted = [g for g in range(store.first, store.end) if (g in hits) != query.invert]
    assert apply_filter(store, query).tolist() == wanted


def test_the_property_tests_example_a_digit_beyond_ascii_in_a_frozen_chunk() -> None:
    store = LogStore(chunk_lines=8)
    store.append(LineParser().parse_batch(["", "", "", "", "", "", "", "\U00016ac0", ""]))
    assert apply_filter(store, LogQuery(r"\d+", regex=True)).tolist() == [7]
