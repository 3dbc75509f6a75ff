"""The log store's memory budget: lines past it move to a spill file and page back in on demand.

Before the budget, a store held every line in memory up to 2,000,000 lines per stream (about
1.5 GB for an open run followed all day) and nothing said so.
"""

from __future__ import annotations

from primetui.monitor_core import lines as L
from primetui.monitor_core.filters import LogQuery, apply_filter, text_matches
from primetui.monitor_core.store import LogStore, MergedLog


def _fill(store: LogStore, n: int, start: int = 0) -> None:
    parser = L.LineParser()
    lines = [
        f"20:{i // 3600 % 60:02d}:{i % 60:02d}    INFO line {i}" if i % 7 else f"20:00:{i % 60:02d}   ERROR failure {i}"
        for i in range(start, start + n)
    ]
    for i in range(0, n, 100):  # polls of 100 lines: chunks of about chunk_lines
        store.append(parser.parse_batch(lines[i : i + 100]))


def test_a_store_over_its_budget_holds_only_the_budget_in_memory_and_reads_every_line_back():
    store = LogStore(chunk_lines=256, held_lines=1000)
    _fill(store, 20_000)
    assert store.first == 0 and len(store) == 20_000  # nothing lost: the oldest lines are on disk
    assert store.held <= 1000 + 256 + 2 * 256  # the budget, the chunk being filled, the paged-in chunks
    assert store.spilled_lines >= 18_000
    full = LogStore(chunk_lines=256)
    _fill(full, 20_000)
    assert store.held_bytes * 5 < full.held_bytes
    # Scrolling to the top pages the oldest lines back in, with their levels and steps.
    assert store.text(0) == "20:00:00   ERROR failure 0"
    assert store.row(1).level == L.INFO and store.row(7).level == L.ERROR
    assert store.text(12_345).endswith("line 12345")
    assert list(store.levels(0, 8)) == [L.ERROR] + [L.INFO] * 6 + [L.ERROR]
    assert store.held <= 1000 + 256 + 2 * 256  # paging in keeps to a few chunks


def test_search_and_filter_cover_the_spilled_lines_too():
    store = LogStore(chunk_lines=256, held_lines=500)
    _fill(store, 10_000)
    assert len(text_matches(store, LogQuery("failure"))) == len(range(0, 10_000, 7))
    assert apply_filter(store, LogQuery(r"line 1\d\d$", regex=True)).tolist() == [g for g in range(100, 200) if g % 7]
    assert store.held <= 500 + 256 + 2 * 256


def test_the_merged_view_reads_spilled_lines_of_its_stores():
    a, b = LogStore("trainer", chunk_lines=128, held_lines=256), LogStore("inference", chunk_lines=128, held_lines=256)
    merged = MergedLog([a, b])
    _fill(a, 3000)
    _fill(b, 3000, start=100_000)
    merged.sync()
    assert len(merged) == 6000
    texts = [merged.row(g).text for g in range(merged.first, merged.end)]
    assert sum("line" in t or "failure" in t for t in texts) == 6000
    assert "(dropped" not in "".join(texts)


def test_without_a_budget_nothing_spills_and_closing_lets_the_spill_go():
    store = LogStore(chunk_lines=256)
    _fill(store, 5000)
    assert store.held == 5000 and store.spilled_lines == 0
    store.set_budget(1000)
    assert store.held <= 1000 + 256 and len(store) == 5000
    store.close()
    assert store.first > 0 and store.spilled_lines == 0 and store.text(4999).endswith("line 4999")
