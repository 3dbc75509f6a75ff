"""A run deleted while its trainer was ending (issue 38: found by the type checker): the supervisor's
judgement of the ended process, a restart and a respawn find no row, and end quietly instead of raising
TypeError in the platform's supervision loop."""

from __future__ import annotations

import asyncio
import subprocess

from primetui.local.models_cache import ModelCache
from primetui.local.state import LocalState
from primetui.local.store import Store
from primetui.local.supervisor import Supervisor


def _supervisor(tmp_path) -> Supervisor:
    store = Store(tmp_path / "s.sqlite3")
    state = LocalState(data_dir=tmp_path, store=store, token="t", models=ModelCache(tmp_path / "models.toml"))
    return Supervisor(state)


def test_an_ended_trainer_of_a_deleted_run_is_forgotten_not_judged(tmp_path):
    sup = _supervisor(tmp_path)
    proc = subprocess.Popen(["true"])
    proc.wait()
    sup.procs["gone"] = proc
    sup.adopted["gone"] = proc.pid
    sup.signal_sent_at["gone"] = 0.0
    sup.finish("gone", 0)
    assert "gone" not in sup.procs and "gone" not in sup.adopted and "gone" not in sup.signal_sent_at


def test_a_deleted_run_is_neither_respawned_nor_restarted(tmp_path):
    sup = _supervisor(tmp_path)
    sup.respawn_from_latest("gone", "a test")
    sup.spawn("gone")
    asyncio.run(sup.restart("gone"))
    assert not sup.procs and "gone" not in sup.busy and "gone" not in sup.restarting
    assert not (tmp_path / "runs" / "gone").exists()
