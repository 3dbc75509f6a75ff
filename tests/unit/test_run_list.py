"""The runs list's kept rows (issue 41 #1): a row is rebuilt when its run, its metric rows or (for a
run still going) the clock change, and the filter keeps exactly what ``run_matches`` keeps."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from primetui.api.models import RLRun
from primetui.viewmodel import run_list
from primetui.viewmodel.progress import RunProgress
from primetui.viewmodel.run_rows import run_matches, run_row

NOW = datetime(2026, 12, 6, 9, 0, tzinfo=timezone.utc)


def run(i: int, status: str = "COMPLETED", name: str | None = None) -> RLRun:
    return RLRun.model_validate(
        {
            "id": f"run{i:04d}",
            "userId": "u",
            "status": status,
            "createdAt": "2026-12-06T08:00:00Z",
            "updatedAt": "2026-12-06T08:00:00Z",
            "startedAt": "2026-12-06T08:00:00Z",
            "name": name or f"s{i // 6:03d}-lr1e-4-bs{8 + i % 2 * 8}",
            "maxSteps": 10,
        }
    )


def test_kept_rows_follow_a_new_snapshot_new_metric_rows_and_the_clock_of_a_live_run():
    runs = [run(i) for i in range(30)] + [run(30, "RUNNING")]
    cache = run_list.RowCache()
    first = cache.rows(runs, {}, NOW)
    assert cache.rows(runs, {}, NOW) is first  # nothing changed: the same rows, not rebuilt
    assert [r.id for r in first] == [r.id for r in (run_row(x, None, NOW) for x in runs)]

    later = cache.rows(runs, {}, NOW + timedelta(seconds=90))
    assert later[-1].elapsed != first[-1].elapsed  # the running run's Elapsed moves with the clock
    assert later[0] is first[0]  # an ended run's row is kept

    runs2 = [*runs[:-1], run(30, "FAILED")]  # the platform's next page: the run ended
    assert cache.rows(runs2, {}, NOW)[-1].status == "FAILED"

    progress = {"run0003": RunProgress()}
    progress["run0003"].extend([{"step": 4, "loss/mean": 1.5}])
    rows = cache.rows(runs2, progress, NOW)
    assert (rows[3].step, rows[3].loss) == (4, 1.5)
    assert cache.by_id["run0003"] is runs2[3]


def test_the_kept_filter_keeps_what_run_matches_keeps():
    runs = [run(i) for i in range(60)] + [run(60, name="broken-one")]
    cache = run_list.RowCache()
    rows = cache.rows(runs, {}, NOW)
    typed = ("s", "s0", "s00", "s002", "s002-", "s002- bs", "s002- bs16", "s00", "S001")  # keys typed, then erased
    for query in (*typed, "s002-", "BROKEN", "bs16 s001", "completed s003-", "nothing-like-it", ""):
        assert cache.filtered(query) == [r for r in rows if run_matches(r, query)], query
    assert len(cache.filtered("s002-")) == 6


def test_pages_of_the_filtered_rows_and_the_loaded_note():
    rows = list(range(45))
    assert run_list.page_count(45, 20) == 3 and run_list.page_count(0, 20) == 1
    assert run_list.page_slice(rows, 3, 20) == rows[40:]
    assert run_list.page_slice(rows, 9, 20) == rows[40:]  # past the end: the last page
    assert run_list.loaded_note(312, 334, False) == "312 of 334 loaded"
    assert run_list.loaded_note(334, 334, True) is None
