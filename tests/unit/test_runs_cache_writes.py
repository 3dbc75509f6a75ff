"""The runs cache is written only when the runs or their losses change, not on every poll."""

from __future__ import annotations

import os

from primetui.viewmodel import cache


def test_the_same_runs_are_not_written_again(tmp_path, monkeypatch):
    monkeypatch.setenv("PRIMETUI_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(cache, "_written", {})
    runs = [{"id": "r1", "status": "COMPLETED"}]
    cache.save_runs("http://127.0.0.1:1", runs, {"r1": [(1, 5.5)]}, "2026-12-03T10:00:00")
    (path,) = tmp_path.glob("runs-*.json")
    os.utime(path, ns=(1, 1))  # so any rewrite shows in the mtime
    cache.save_runs("http://127.0.0.1:1", runs, {"r1": [(1, 5.5)]}, "2026-12-03T10:00:05")
    assert os.stat(path).st_mtime_ns == 1
    monkeypatch.setattr(cache, "_written", {})  # a new process: compares with the file itself
    cache.save_runs("http://127.0.0.1:1", runs, {"r1": [(1, 5.5)]}, "2026-12-03T10:00:09")
    assert os.stat(path).st_mtime_ns == 1
    cache.save_runs("http://127.0.0.1:1", runs, {"r1": [(1, 5.5), (2, 5.4)]}, "2026-12-03T10:00:10")
    assert os.stat(path).st_mtime_ns != 1
    assert cache.load_runs("http://127.0.0.1:1")["losses"] == {"r1": [[1, 5.5], [2, 5.4]]}
