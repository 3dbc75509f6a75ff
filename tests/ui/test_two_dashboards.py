"""Two dashboards on one machine share their state: watches, the "already announced" set, the theme.

Each dashboard here is a real ``PrimeApp`` on the shared preferences file, the way ``primetui``
starts one (its preferences loaded from that file). Two instances interleaved as in the finding
(issue 41, 4 and 5): both watch and unwatch, then save; an ending and two anomalies go through the
real notification path to a real ``--on-event`` hook script that appends each event to a file.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest
from tests.waiting import until
from dash_helpers import make_app, notifications

from tests.runs import wire_run
from primetui.config.prefs import load_prefs
from primetui.monitor_core.anomalies import detect
from primetui.ui.app import PrimeApp
from primetui.ui.anomaly_notify import announce_anomalies

pytestmark = pytest.mark.timeout(180)

RUN = "run-sweep-7"
LOSSES = [2.0, 1.9, float("nan"), 1.8, 1.7, 1.7, 1.6, 1.6, 40.0, 1.5]
ROWS = [{"step": s, "time": 100.0 + s, "loss/mean": v} for s, v in enumerate(LOSSES, start=1)]
"""A NaN at step 3 and a loss spike at step 9: the finding's "same two anomalies"."""


def dashboard(path: Path, **kw) -> PrimeApp:
    """A dashboard as ``primetui`` starts one: its preferences read from the shared file."""
    prefs, _warning = load_prefs(path)
    return PrimeApp(None, None, prefs, prefs_file=path, poll_scale=0, **kw)


def watched_in(path: Path) -> set[str]:
    return set(tomllib.loads(path.read_text()).get("watched", []))


def test_two_dashboards_watching_different_runs_keep_both(tmp_path):
    path = tmp_path / "config" / "config.toml"
    a, b = dashboard(path), dashboard(path)  # both open before either saves
    a.watch_run("run-x")
    b.watch_run("run-y")
    assert watched_in(path) == {"run-x", "run-y"}, "B's save dropped A's watch"
    assert load_prefs(path)[0].watched == ["run-x", "run-y"]
    assert b.state.watched == {"run-x", "run-y"} and b.watched == {"run-x", "run-y"}  # B follows A's watch


def test_an_unwatch_is_not_undone_by_the_other_dashboards_save(tmp_path):
    path = tmp_path / "config.toml"
    dashboard(path).watch_run("run-x")
    a, b = dashboard(path), dashboard(path)  # both started watching run-x
    a.unwatch("run-x")
    b.watch_run("run-y")  # B saves with its stale memory of run-x
    assert watched_in(path) == {"run-y"}, "B's save brought back the run A stopped watching"
    assert "run-x" not in b.state.watched
    assert dashboard(path).state.watched == {"run-y"}  # and the next start agrees


def test_a_dashboard_learns_of_an_unwatch_before_it_announces(tmp_path):
    """B never saves after A's unwatch: its next poll reads the shared file and stays quiet."""
    path = tmp_path / "config.toml"
    dashboard(path).watch_run("run-x")
    a, b = dashboard(path), dashboard(path)
    told: list[str] = []
    b.notifier.emit = lambda event: told.append(event.title)  # type: ignore[method-assign]
    b.notify = lambda *args, **kw: told.append(str(args[0]))  # type: ignore[method-assign]
    b.bell = lambda: None  # type: ignore[method-assign]
    b.observe_run(wire_run(id="run-x", name="x", status="RUNNING"))
    a.unwatch("run-x")
    b.observe_run(wire_run(id="run-x", name="x", status="COMPLETED"))
    assert told == [] and b.watched == frozenset()


def test_the_first_preferences_save_writes_only_what_was_chosen(tmp_path):
    path = tmp_path / "fresh" / "config.toml"
    app = dashboard(path)
    app.watch_run("run-x")  # the dashboard's first save: a watch
    assert tomllib.loads(path.read_text()) == {"watched": ["run-x"]}, path.read_text()
    assert "Run ids you watch" in path.read_text()  # the key written says what it is
    app.theme_chosen = True
    app.theme = "textual-light"
    app.remember()
    assert tomllib.loads(path.read_text()) == {"watched": ["run-x"], "theme": "textual-light"}


def _lines(sink: Path) -> int:
    return len(sink.read_text().splitlines()) if sink.exists() else 0


def _hook(tmp_path: Path) -> tuple[str, Path]:
    sink = tmp_path / "events.jsonl"
    script = tmp_path / "on-event.sh"
    script.write_text('#!/bin/sh\ncat >> "$1"\n')
    script.chmod(0o755)
    return f"{script} {sink}", sink


async def _sees_the_run_end_and_its_anomalies(app: PrimeApp, pilot, rows=ROWS) -> None:
    """What a dashboard does with a watched run: its poll sees it end; a screen finds its anomalies."""
    app.observe_run(wire_run(id=RUN, name="lr-sweep", status="RUNNING"))
    app.observe_run(wire_run(id=RUN, name="lr-sweep", status="COMPLETED"))
    announce_anomalies(app, RUN, "lr-sweep", detect(rows))
    await app.notifier.drain()


async def test_an_anomaly_or_ending_is_announced_once_across_dashboards_and_restarts(local_platform, tmp_path):
    path = tmp_path / "config" / "config.toml"
    hook, sink = _hook(tmp_path)
    first = make_app(local_platform, prefs=load_prefs(path)[0], prefs_file=path, on_event=hook)
    async with first.run_test(size=(100, 30)) as pilot:
        first.watch_run(RUN)
        await _sees_the_run_end_and_its_anomalies(first, pilot)
        await until(pilot, lambda: _lines(sink) == 3, "the hook told the ending and the two anomalies")
    kinds = [(e["kind"], e["status"] or e["title"]) for e in map(json.loads, sink.read_text().splitlines())]
    assert sorted(kinds) == [
        ("anomaly", "Run lr-sweep: NaN/inf at step 3"),
        ("anomaly", "Run lr-sweep: loss spike at step 9"),
        ("status", "COMPLETED"),
    ]  # hooks run side by side: any order

    # A second dashboard on the same machine, then three restarts: each sees the same run and
    # anomalies again, and none of them tells the person (hook or toast) a second time.
    for _start in range(4):
        again = make_app(local_platform, prefs=load_prefs(path)[0], prefs_file=path, on_event=hook)
        async with again.run_test(size=(100, 30)) as pilot:
            assert RUN in again.state.watched
            await _sees_the_run_end_and_its_anomalies(again, pilot)
            assert _lines(sink) == 3, sink.read_text()
            assert not [n for n in notifications(again) if "lr-sweep" in n]
    # what has not been told yet still is: a new NaN at step 11
    later = make_app(local_platform, prefs=load_prefs(path)[0], prefs_file=path, on_event=hook)
    async with later.run_test(size=(100, 30)) as pilot:
        await _sees_the_run_end_and_its_anomalies(
            later, pilot, ROWS + [{"step": 11, "time": 111.0, "loss/mean": float("inf")}]
        )
        await until(pilot, lambda: _lines(sink) == 4, "the hook told the new anomaly")
    assert "NaN/inf at step 11" in sink.read_text().splitlines()[-1]
