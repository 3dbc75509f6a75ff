"""The workers get the longest files first (tests/file_order.py), each file whole and in its own order."""

from __future__ import annotations

import json
from types import SimpleNamespace

from tests.file_order import WALLS, longest_first


def _items(*nodeids: str) -> list:
    return [SimpleNamespace(nodeid=n) for n in nodeids]


def test_files_go_longest_first_each_whole_and_in_its_own_order() -> None:
    items = _items("a.py::t1", "b.py::t1", "a.py::t2", "c.py::t1", "b.py::t2", "new.py::t1", "new.py::t2")
    walls = {"a.py": 5.0, "b.py": 50.0, "c.py": 1.0}
    ordered = [i.nodeid for i in longest_first(items, walls, per_test=10.0)]
    # new.py was not profiled: 2 tests x 10 s lands it between b.py (50 s) and a.py (5 s)
    assert ordered == ["b.py::t1", "b.py::t2", "new.py::t1", "new.py::t2", "a.py::t1", "a.py::t2", "c.py::t1"]


def test_files_of_equal_weight_keep_the_collection_order() -> None:
    items = _items("z.py::t", "y.py::t", "x.py::t")
    assert [i.nodeid for i in longest_first(items, {}, per_test=1.0)] == ["z.py::t", "y.py::t", "x.py::t"]


def test_the_committed_walls_name_test_files_of_this_suite() -> None:
    data = json.loads(WALLS.read_text())
    root = WALLS.parent.parent
    missing = [name for name in data["walls"] if not (root / name).is_file()]
    assert data["tests"] > 0 and len(data["walls"]) > 100
    # a renamed or deleted file only loses its place; most of the table must still be this suite's
    assert len(missing) < len(data["walls"]) // 10, missing
