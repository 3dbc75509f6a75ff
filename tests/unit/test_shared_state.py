"""State two dashboards share is merged on write: two processes at once, and two stale writers.

Two real processes (each a dashboard as ``primetui`` starts one) watch runs, claim the same
anomalies and keep views at the same time on one config directory; nothing either wrote is lost,
and each anomaly is told by exactly one of them. ``save_prefs`` from two stale copies merges too.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tomllib
from pathlib import Path

import pytest

from primetui.config.prefs import Prefs, load_prefs, save_prefs
from tests.waiting import wait_for

pytestmark = pytest.mark.timeout(120)

N = 40

CHILD = r"""
import json, sys, time
from pathlib import Path
from primetui.config.prefs import load_prefs
from primetui.monitor_core.anomalies import Anomaly
from primetui.ui.app import PrimeApp
from primetui.ui.anomaly_notify import announce_anomalies
from primetui.viewmodel.views import save_view

path, me, n = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
app = PrimeApp(None, None, load_prefs(path)[0], prefs_file=path, poll_scale=0)
told = []
app.notifier.emit = lambda event: told.append(event.title)
app.notify = lambda *a, **k: None
app.bell = lambda: None
app.watch_run("run-shared")  # a run both dashboards watch
(path.parent / f"ready-{me}").write_text("")
while not (path.parent / "go").exists():  # both start together
    time.sleep(0.001)
for i in range(n):
    app.watch_run(f"run-{me}-{i}")
    announce_anomalies(app, "run-shared", "shared", [Anomaly("nan", i, "trainer", "loss is nan")])
    save_view(app, f"view-{me}-{i}", {"log_y": True})
print(json.dumps(told))
"""


async def test_two_dashboards_at_once_lose_nothing_and_tell_each_anomaly_once(tmp_path):
    path = tmp_path / "config.toml"
    procs = [
        await asyncio.create_subprocess_exec(
            sys.executable,
            "-c",
            CHILD,
            str(path),
            me,
            str(N),
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        for me in ("a", "b")
    ]
    try:
        await wait_for(
            lambda: (
                all((tmp_path / f"ready-{me}").exists() for me in "ab") or any(p.returncode is not None for p in procs)
            ),
            "both dashboards started",
        )
        (tmp_path / "go").write_text("")
        outs = [await asyncio.wait_for(p.communicate(), 100) for p in procs]
    finally:
        for p in procs:
            if p.returncode is None:
                p.kill()
                await p.wait()
    for (_out, err), p in zip(outs, procs, strict=True):
        assert p.returncode == 0, err.decode()
    watched = set(tomllib.loads(path.read_text())["watched"])
    expected = {"run-shared"} | {f"run-{me}-{i}" for me in "ab" for i in range(N)}
    assert watched == expected, f"{len(expected - watched)} watches lost"
    told = [title for out, _err in outs for title in json.loads(out.decode())]
    assert sorted(told) == sorted(f"Run shared: NaN/inf at step {i}" for i in range(N)), (
        "an anomaly told twice or never"
    )
    views = json.loads((tmp_path / "views.json").read_text())
    (entry,) = views.values()
    assert set(entry) == {f"view-{me}-{i}" for me in "ab" for i in range(N)}
    from primetui.config.shared import lock_path

    assert lock_path(path).exists() and lock_path(path).name == ".config.toml.lock"


def test_save_prefs_from_two_stale_copies_keeps_both_changes(tmp_path):
    path = tmp_path / "config.toml"
    a, _ = load_prefs(path)
    b, _ = load_prefs(path)
    a.theme = "primetui-light"
    save_prefs(a, path)
    b.chart_marker = "block"
    save_prefs(b, path)  # B never saw A's theme: it must not write its own stale "" over it
    assert tomllib.loads(path.read_text()) == {"theme": "primetui-light", "chart_marker": "block"}


def test_the_first_save_writes_only_the_chosen_key_so_defaults_stay_the_programs(tmp_path):
    path = tmp_path / "new" / "config.toml"
    save_prefs(Prefs(chart_marker="block"), path)
    assert tomllib.loads(path.read_text()) == {"chart_marker": "block"}
    prefs = Prefs(chart_marker="block")
    prefs.refresh.logs = 1.5
    save_prefs(prefs, path)
    assert tomllib.loads(path.read_text()) == {"chart_marker": "block", "refresh": {"logs": 1.5}}


def test_the_announced_set_stays_small(tmp_path, monkeypatch):
    import primetui.config.shared as shared
    from primetui.config.shared import Announced

    monkeypatch.setattr(shared, "MAX_ANNOUNCED_RUNS", 3)
    store = Announced(tmp_path / "announced.json")
    for i in range(5):
        assert store.claim(f"r{i}", "status:COMPLETED")
    assert Announced(tmp_path / "announced.json").claim("r0", "status:COMPLETED")  # the oldest run went first
    runs = json.loads((tmp_path / "announced.json").read_text())["runs"]
    assert list(runs) == ["r3", "r4", "r0"]
    assert not Announced(tmp_path / "announced.json").claim("r4", "status:COMPLETED")


def test_an_unwritable_announced_set_still_tells_once_per_dashboard(tmp_path):
    from primetui.config.shared import Announced

    (tmp_path / "ro").mkdir()
    (tmp_path / "ro" / "announced.json").write_text("{}")
    (tmp_path / "ro" / "announced.json").chmod(0o444)
    store = Announced(tmp_path / "ro" / "announced.json")
    assert store.claim("r1", "anomaly:nan:3:trainer") and "Could not record" in (store.problem or "")
    assert not store.claim("r1", "anomaly:nan:3:trainer")


def test_a_broken_views_file_is_replaced_not_fatal(tmp_path):
    from types import SimpleNamespace

    from primetui.viewmodel.views import load_view, save_view

    app = SimpleNamespace(prefs_file=tmp_path / "config.toml", client=None)
    Path(tmp_path / "views.json").write_text("{not json")
    save_view(app, "charts", {"log_y": True})
    assert load_view(app, "charts") == {"log_y": True}
