"""The runs cache is written only when the runs or their losses change, not on every poll."""

from __future__ import annotations

import os

from primetui.api.plainrun import PlainRun
from primetui.viewmodel import cache


def test_the_same_runs_are_not_written_again(tmp_path, monkeypatch):
    monkeypatch.setenv("PRIMETUI_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(cache, "_written", {})
    runs = [PlainRun(id="r1", status="COMPLETED")]
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


def test_a_running_runs_new_losses_are_written_at_most_every_30_s(monkeypatch):
    import time
    from types import SimpleNamespace

    from primetui.ui.screens import runs as runs_screen

    timers: list[float] = []
    stopped: list[float] = []

    def set_timer(delay, callback):  # type: ignore[no-untyped-def]
        timers.append(delay)
        return SimpleNamespace(stop=lambda: stopped.append(delay))

    screen = SimpleNamespace(
        _save_timer=None,
        _save_held=False,
        _saved_at=float("-inf"),
        _save_cache_if_alive=None,
        app=SimpleNamespace(set_timer=set_timer),
    )
    save_soon = runs_screen.RunsScreen._save_soon
    save_soon(screen)  # never written: soon (rows settle for 0.5 s)
    assert timers == [0.5] and not screen._save_held
    save_soon(screen)  # more rows within the 0.5 s: the wait starts again
    assert timers == [0.5, 0.5] and stopped == [0.5]
    screen._save_timer, screen._saved_at = None, time.monotonic()  # it was written just now
    save_soon(screen)
    assert 29 < timers[-1] <= runs_screen.LOSSES_SAVE_EVERY and screen._save_held
    save_soon(screen)  # the next poll's rows: the save already due writes them too
    assert len(timers) == 3 and len(stopped) == 1
