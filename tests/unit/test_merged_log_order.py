"""The merged "all" log keeps each component's own order and breaks equal clocks by arrival (issue 18 #5)."""

from __future__ import annotations

from primetui.monitor_core import lines as L
from primetui.monitor_core.store import LogStore, MergedLog


def _texts(merged: MergedLog) -> list[str]:
    return [merged.row(g).text.split()[-1] for g in range(merged.first, merged.end)]


def _feed(store: LogStore, parser: L.LineParser, merged: MergedLog, raw: list[str]) -> None:
    store.append(parser.parse_batch(raw))
    merged.sync()


def test_equal_seconds_keep_arrival_order_and_each_component_its_own_order():
    trainer, inference = LogStore("trainer"), LogStore("inference")
    merged = MergedLog([trainer, inference])
    pt, pi = L.LineParser(), L.LineParser()
    _feed(trainer, pt, merged, ["10:00:05    INFO Step 254", "10:00:05    INFO broadcast255"])
    _feed(inference, pi, merged, ["10:00:05    INFO loaded255"])
    # the trainer's clock is a whole second; a line printed just after the tick may carry an
    # earlier second than the line before it (another process's stamp): its order stays
    _feed(trainer, pt, merged, ["10:00:06    INFO Step 260", "10:00:05    INFO after260"])
    _feed(inference, pi, merged, ["10:00:06    INFO generated260", "no clock: cont260"])
    _feed(trainer, pt, merged, ["10:00:06    INFO Step 261"])
    assert _texts(merged) == ["254", "broadcast255", "loaded255", "260", "after260", "generated260", "cont260", "261"]


def test_a_late_batch_is_inserted_after_lines_of_the_same_second_that_came_first():
    a, b = LogStore("trainer"), LogStore("inference")
    merged = MergedLog([a, b])
    pa, pb = L.LineParser(), L.LineParser()
    _feed(a, pa, merged, ["10:00:01    INFO a1", "10:00:03    INFO a3", "10:00:09    INFO a9"])
    _feed(b, pb, merged, ["10:00:03    INFO b3", "10:00:02    INFO b2", "10:00:04    INFO b4"])
    assert _texts(merged) == ["a1", "a3", "b3", "b2", "b4", "a9"]
    assert merged.reorders == 1


def test_a_line_without_a_clock_stays_where_it_arrived():
    trainer, inference = LogStore("trainer"), LogStore("inference")
    merged = MergedLog([trainer, inference])
    pt, pi = L.LineParser(), L.LineParser()
    _feed(trainer, pt, merged, ["10:00:05    INFO t1"])
    _feed(inference, pi, merged, ["vLLM banner"])
    _feed(trainer, pt, merged, ["10:00:05    INFO t2"])
    _feed(inference, pi, merged, ["10:00:05    INFO i1"])
    assert _texts(merged) == ["t1", "banner", "t2", "i1"]
