"""Trainers forked by the platform's fork server (``primetui.local.trainer.forks``) are the trainers a fresh
interpreter runs: the same numbers and output file, their exit statuses told as a ``Popen``'s, found after a
restart by their run dir; and a server that dies leaves its trainers running while the next ones start fresh."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from primetui.local.procs import FORKED_TRAINER, trainer_in
from primetui.local.testing import IDLE_PACE, LocalPlatform
from tests.local.conftest import http, wait_status
from tests.local.test_crash_recovery import seed_dataset, trainer_pid
from tests.local.test_runs import small_config
from tests.waiting import wait_for_sync


def _cmdline(pid: int) -> list[bytes]:
    return Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")


def _fork_server(lp: LocalPlatform) -> int:
    """The platform's fork server: its child whose command line is the server's, working in ``/``."""
    assert lp.process is not None
    for task in Path(f"/proc/{lp.process.pid}/task").iterdir():
        for kid in (task / "children").read_text().split():
            if FORKED_TRAINER in _cmdline(int(kid)) and os.readlink(f"/proc/{kid}/cwd") == "/":
                return int(kid)
    raise AssertionError("the platform has no trainer fork server")


def _kind(target: str) -> str:
    """What an open descriptor is, without the numbers that differ from process to process."""
    return target.split(":")[0] if ":[" in target else Path(target).name


def _dispatch(lp: LocalPlatform, config: dict) -> str:
    with http(lp) as api:
        reply = api.post("/training/runs", json={"config": config, "mode": "sft", "volume": "research"})
        assert reply.status_code == 200, reply.text
        return reply.json()["runId"]


def _paced(lp: LocalPlatform) -> dict:
    config = small_config(lp, max_steps=100000)
    config["env_vars"] = dict(IDLE_PACE)  # it sleeps between micro-batches: running, at almost no CPU
    return config


@pytest.fixture
def fresh_interpreters(tmp_path_factory: pytest.TempPathFactory):
    """A platform that starts every trainer as a fresh interpreter (``PRIMETUI_LOCAL_TRAINER_FORKS=0``)."""
    with LocalPlatform.start(tmp_path_factory.mktemp("no-forks"), env={"PRIMETUI_LOCAL_TRAINER_FORKS": "0"}) as lp:
        with http(lp) as api:
            seed_dataset(lp, api)
        yield lp


def test_a_forked_trainer_is_the_run_dirs_trainer_and_trains_what_a_fresh_one_trains(
    fresh_platform: LocalPlatform, fresh_interpreters: LocalPlatform
) -> None:
    with http(fresh_platform) as api:
        seed_dataset(fresh_platform, api)
    runs = []
    for lp in (fresh_platform, fresh_interpreters):
        run_id = _dispatch(lp, small_config(lp, max_steps=3))
        with http(lp) as api:
            run = wait_status(api, run_id)
            assert run["status"] == "COMPLETED", run.get("errorMessage")
            metrics = api.get(f"/rft/runs/{run_id}/metrics").json()["metrics"]
        runs += [[{k: v for k, v in m.items() if k == "step" or k.startswith(("loss/", "optim/"))} for m in metrics]]
    assert runs[0] == runs[1] and [m["step"] for m in runs[0]] == [1, 2, 3] and "loss/mean" in runs[0][0]

    fds: list[list[str]] = []
    for lp, forked in ((fresh_platform, True), (fresh_interpreters, False)):
        run_id = _dispatch(lp, _paced(lp))
        with http(lp) as api:
            wait_status(api, run_id, {"RUNNING"})
            pid = trainer_pid(lp, run_id)
            run_dir = lp.data_dir / "runs" / run_id
            assert (FORKED_TRAINER in _cmdline(pid)) is forked
            assert os.readlink(f"/proc/{pid}/cwd") == str(run_dir.resolve())
            assert os.readlink(f"/proc/{pid}/fd/0") == os.devnull
            fds.append(sorted(_kind(os.readlink(f"/proc/{pid}/fd/{fd}")) for fd in os.listdir(f"/proc/{pid}/fd")))
            assert os.getsid(pid) == pid  # its own session, as start_new_session gives
            assert api.put(f"/rft/runs/{run_id}/stop").status_code == 200
            assert wait_status(api, run_id)["status"] == "STOPPED"
    assert fds[0] == fds[1]  # nothing of the server's (its socket, its wake-up pipe) is left open in a fork


def test_a_killed_forked_trainer_fails_its_run_with_the_signal_as_its_exit_code(local_platform: LocalPlatform) -> None:
    run_id = _dispatch(local_platform, _paced(local_platform))
    with http(local_platform) as api:
        wait_status(api, run_id, {"RUNNING"})
        pid = trainer_pid(local_platform, run_id)
        assert FORKED_TRAINER in _cmdline(pid)
        os.kill(pid, signal.SIGKILL)
        run = wait_status(api, run_id)
    assert run["status"] == "FAILED"
    assert "The trainer process exited with code -9 before finishing" in run["errorMessage"]


def test_a_dead_fork_server_leaves_its_trainers_running_and_the_next_one_starts_fresh(
    fresh_platform: LocalPlatform,
) -> None:
    lp = fresh_platform
    with http(lp) as api:
        seed_dataset(lp, api)
        first = _dispatch(lp, _paced(lp))
        wait_status(api, first, {"RUNNING"})
        pid = trainer_pid(lp, first)
        server = _fork_server(lp)
        os.kill(server, signal.SIGKILL)
        second = _dispatch(lp, small_config(lp, max_steps=2))
        assert wait_status(api, second)["status"] == "COMPLETED"  # started fresh: the server is not asked again
        assert trainer_in(pid, lp.data_dir / "runs" / first, exact=True)  # the first one trains on
        assert wait_status(api, first, {"RUNNING"})["status"] == "RUNNING"
        assert api.put(f"/rft/runs/{first}/stop").status_code == 200  # followed by its pid, as an adopted one
        assert wait_status(api, first)["status"] == "STOPPED"
    wait_for_sync(lambda: not trainer_in(pid, lp.data_dir / "runs" / first, exact=True), "the first trainer to end")
