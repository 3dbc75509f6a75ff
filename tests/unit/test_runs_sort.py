"""The runs list's sort over every run (issue 41 #1): sort values are read once per column and kept
while the runs stay the same, so ``S`` only sorts again; ties keep the list's order both ways, and
runs without a value come last both ways."""

from __future__ import annotations

from types import SimpleNamespace

from primetui.ui.screens.runs_table import RunsTableMixin
from primetui.viewmodel import run_list
from tests.unit.test_run_list import NOW, run


class Sorter(RunsTableMixin):
    """The mixin's sort alone: a column and a direction, no screen."""

    sort_key = None
    sort_reverse = False

    def __init__(self) -> None:
        self.prime = SimpleNamespace(state=SimpleNamespace(progress={}))


def ids(rows) -> list[str]:
    return [r.id for r in rows]


def test_ties_keep_the_list_order_both_ways_and_missing_values_come_last():
    runs = [run(i, "RUNNING" if i % 3 == 0 else "COMPLETED") for i in range(12)]
    cache = run_list.RowCache()
    rows = cache.rows(runs, {}, NOW)
    sorter = Sorter()
    sorter.sort_key = "status"
    up = sorter.sorted_rows(rows, cache.by_id, NOW)
    completed = [r.id for r in rows if r.status == "COMPLETED"]
    running = [r.id for r in rows if r.status == "RUNNING"]
    assert ids(up) == completed + running  # by status, each status in the list's order
    sorter.sort_reverse = True
    assert ids(sorter.sorted_rows(rows, cache.by_id, NOW)) == running + completed  # ties not reversed

    sorter.sort_key, sorter.sort_reverse = "lr", False  # no run has a learning rate: all missing, list order
    assert ids(sorter.sorted_rows(rows, cache.by_id, NOW)) == ids(rows)


def test_kept_values_are_read_again_once_the_runs_change():
    runs = [run(i, name=f"b-{i}") for i in range(5)]
    cache = run_list.RowCache()
    rows = cache.rows(runs, {}, NOW)
    sorter = Sorter()
    sorter.sort_key = "name"
    assert ids(sorter.sorted_rows(rows, cache.by_id, NOW)) == [f"run{i:04d}" for i in range(5)]
    sorter.sort_reverse = True
    assert ids(sorter.sorted_rows(rows, cache.by_id, NOW)) == [f"run{i:04d}" for i in reversed(range(5))]

    renamed = [run(0, name="z-last"), *runs[1:]]  # the platform's next poll: run 0 was renamed
    rows = cache.rows(renamed, {}, NOW)
    sorter.sort_reverse = False
    assert ids(sorter.sorted_rows(rows, cache.by_id, NOW))[-1] == "run0000"  # its new name, not the kept one
    filtered = cache.filtered("b-")
    assert ids(sorter.sorted_rows(filtered, cache.by_id, NOW)) == [f"run{i:04d}" for i in range(1, 5)]


def test_values_kept_for_one_filter_serve_another_and_the_whole_list():
    runs = [run(i, name=f"{'ab'[i % 2]}-{i:02d}") for i in range(20)]
    cache = run_list.RowCache()
    rows = cache.rows(runs, {}, NOW)
    sorter = Sorter()
    sorter.sort_key, sorter.sort_reverse = "name", True
    for query in ("a-", "b-", "a-1", ""):  # each filter's runs, some read before and some not
        kept = cache.filtered(query)
        want = sorted((r.name for r in kept), reverse=True)
        assert [r.name for r in sorter.sorted_rows(kept, cache.by_id, NOW)] == want, query
    assert len(rows) == 20
