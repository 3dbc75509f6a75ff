"""Scripts always get a clean end from ``wait``/``dispatch``: Ctrl-C and SIGTERM, a restarted local
platform, a hanging hook; each stream ends with its ``done`` line and a documented exit code."""

from __future__ import annotations

import os
import pty
import signal
import subprocess
import sys

import httpx
import pytest
import tomlkit

from primetui.local.testing import LocalPlatform
from tests.ops.script_helpers import Script, hanging_hook, long_config, long_run, running, script_env

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]


@pytest.fixture(scope="module")
def restartable(tmp_path_factory):
    """A demo platform of this module's own, for the two tests that stop and restart it (each leaves it
    running); the others share the session's ``local_platform``. Its demo RL run is not needed here:
    it is stopped rather than trained."""
    with LocalPlatform.start(tmp_path_factory.mktemp("restartable"), demo=True) as lp:
        runs = httpx.get(lp.api_url + "/rft/runs", headers=lp.headers, timeout=30).json()["runs"]
        for run in runs:
            stop_run(lp, run["id"])
        yield lp


@pytest.fixture
def platform(restartable):
    """The module's platform, running: a test that failed between its stop and its restart left it down."""
    try:
        httpx.get(restartable.api_url + "/rft/runs", headers=restartable.headers, timeout=30)
    except httpx.TransportError:
        restartable.restart()
    return restartable


def stop_run(lp: LocalPlatform, run_id: str) -> None:
    httpx.put(f"{lp.api_url}/rft/runs/{run_id}/stop", headers=lp.headers, timeout=30)


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_ends_a_json_wait_with_end_and_done_events(local_platform, tmp_path, signum, code):
    platform = local_platform
    run_id = long_run(platform, paced=True)
    script = Script(["wait", run_id, "--json", "--local", "--interval", "0.3"], script_env(platform, tmp_path))
    try:
        script.until("a progress event", lambda: script.saw("progress", run_id=run_id))
        script.proc.send_signal(signum)
        assert script.finish() == code, script.text()
    finally:
        script.close()
        stop_run(platform, run_id)
    events = script.events()
    end = [e for e in events if e["event"] == "end"]
    assert len(end) == 1 and end[0]["status"] == "RUNNING" and end[0]["ended"] is False
    assert events[-1] == {
        "event": "done",
        "status": "INTERRUPTED",
        "exit": code,
        "signal": signal.Signals(signum).name,
        "running": [run_id],
        "unknown": [],
    }
    assert "Traceback" not in script.text()


def test_ctrl_c_on_a_terminal_ends_the_progress_line_and_says_the_run_goes_on(local_platform, tmp_path):
    platform = local_platform
    run_id = long_run(platform, paced=True)
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "primetui", "wait", run_id, "--local", "--interval", "0.3"],
        env=script_env(platform, tmp_path),
        stdin=subprocess.DEVNULL,
        stdout=follower,
        stderr=follower,
        start_new_session=True,
    )
    os.close(follower)
    seen = b""
    try:
        while b" step " not in seen.rsplit(b"\r\x1b[2K", 1)[-1]:  # the live progress line is drawn
            seen += os.read(leader, 4096)
        proc.send_signal(signal.SIGINT)
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the terminal's other end closed: the command ended
                break
            if not chunk:
                break
            seen += chunk
        assert proc.wait(timeout=60) == 130
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(leader)
        stop_run(platform, run_id)
    text = seen.decode(errors="replace")
    tail = text.rsplit("\r\x1b[2K", 1)[-1]
    progress, _, after = tail.partition("\r\n")
    assert progress.startswith(f"{run_id} step "), tail
    assert after.startswith(f"SIGINT: stopped following; run {run_id} goes on (RUNNING)."), tail
    assert f"Follow again with `primetui wait {run_id}`" in after and "Traceback" not in text


def test_wait_local_follows_a_platform_restarted_on_another_port(platform, tmp_path):
    run_id = long_run(platform, paced=True)
    script = Script(["wait", run_id, "--json", "--local", "--interval", "0.3"], script_env(platform, tmp_path))
    try:
        script.until("a progress event", lambda: script.saw("progress", run_id=run_id))
        old_url = platform.base_url
        platform.stop()  # SIGTERM by pid: the platform goes away, server.json with it
        script.until("a warning that it retries", lambda: script.saw("warning"))
        platform.restart()
        assert platform.base_url != old_url, "the restart took the same port: nothing tests the re-read"
        seen = len(script.out)
        script.until(
            "progress again after the restart",
            lambda: any(line.startswith('{"event": "progress"') for line in script.out[seen:]),
        )
        stop_run(platform, run_id)
        assert script.finish() == 1, script.text()
    finally:
        script.close()
        stop_run(platform, run_id)
    events = script.events()
    assert [e["status"] for e in events if e["event"] == "end"] == ["STOPPED"]
    assert events[-1] == {"event": "done", "status": "FAILED", "exit": 1, "timed_out": []}


def test_a_timed_out_json_wait_names_the_last_status_in_its_end_event(local_platform, tmp_path):
    platform = local_platform
    run_id = long_run(platform)  # idle: the test needs it RUNNING, not stepping
    script = Script(
        ["wait", run_id, "--json", "--local", "--interval", "0.3", "--timeout", "8"], script_env(platform, tmp_path)
    )
    try:
        assert script.finish() == 2, script.text()
    finally:
        script.close()
        stop_run(platform, run_id)
    events = script.events()
    end = [e for e in events if e["event"] == "end"][0]
    last_seen = [e["status"] for e in events if e["event"] == "status"][-1]
    assert end["status"] == last_seen and end["ended"] is False
    assert events[-1] == {"event": "done", "status": "TIMEOUT", "exit": 2, "timed_out": [run_id]}


def test_dispatch_json_prints_a_refused_preflight_and_its_done_line(local_platform, tmp_path):
    platform = local_platform
    cfg = long_config(platform)
    cfg["max_steps"] = "many"
    path = tmp_path / "bad.toml"
    path.write_text(tomlkit.dumps(cfg))
    script = Script(
        ["dispatch", str(path), "--volume", "research", "--json", "--local"], script_env(platform, tmp_path)
    )
    assert script.finish() == 3, script.text()
    refused, done = script.events()
    assert refused["event"] == "refused" and refused["reason"] == "preflight"
    assert refused["message"] == "primetui dispatch: the pre-flight failed; nothing was dispatched."
    assert any(line.startswith("pre-flight FAIL Config") for line in refused["details"])
    assert done == {"event": "done", "status": "REFUSED", "exit": 3}


def test_ci_script_dispatch_wait_json_with_a_hanging_hook_a_restart_and_ctrl_c(platform, tmp_path):
    """The issue's 'done when': a hanging hook, a platform restart, then SIGINT; the stream is complete."""
    hook, pids, hook_events = hanging_hook(tmp_path)
    path = tmp_path / "sft.toml"
    path.write_text(tomlkit.dumps(long_config(platform, paced=True)))
    script = Script(
        [
            "dispatch",
            str(path),
            "--volume",
            "research",
            "--wait",
            "--json",
            "--local",
            "--interval",
            "0.3",
            "--on-event",
            hook,
        ],
        script_env(platform, tmp_path, hook_timeout=1),
    )
    run_id = None
    try:
        script.until("the run id", lambda: script.saw("dispatched"))
        run_id = script.events()[0]["run_id"]
        script.until(
            "the hook's timeout warning", lambda: any("took longer than 1 s and was stopped" in ln for ln in script.err)
        )
        script.until("a progress event", lambda: script.saw("progress", run_id=run_id))
        platform.stop()
        script.until("a warning that it retries", lambda: script.saw("warning"))
        platform.restart()
        seen = len(script.out)
        script.until(
            "progress again after the restart",
            lambda: any(line.startswith('{"event": "progress"') for line in script.out[seen:]),
        )
        script.proc.send_signal(signal.SIGINT)
        assert script.finish() == 130, script.text()
    finally:
        script.close()
        if run_id:
            stop_run(platform, run_id)
    events = script.events()
    assert events[0] == {"event": "dispatched", "run_id": run_id}
    assert [e["event"] for e in events[-2:]] == ["end", "done"]
    assert events[-1] == {
        "event": "done",
        "status": "INTERRUPTED",
        "exit": 130,
        "signal": "SIGINT",
        "running": [run_id],
        "unknown": [],
    }
    assert "Traceback" not in script.text() and "Event loop is closed" not in script.text()
    # Each status change ran the hook once; each call was stopped and said so exactly once (on its
    # timeout, or when the command ended).
    calls = sum(e["event"] == "status" for e in events)
    assert hook_events.read_text().count('"kind": "status"') >= calls - 1  # the last may be cut before it read
    warned = [ln for ln in script.err if ln.startswith("The on-event command")]
    assert calls >= 1 and len(warned) == calls, script.text()
    assert len((tmp_path / "log" / "notify.log").read_text().splitlines()) == calls
    left = [pid for pid in map(int, pids.read_text().split()) if running(pid)]
    assert left == [], f"hook processes left behind: {left}"


def test_a_run_that_ends_while_its_hooks_hang_exits_0_after_one_warning_per_hook(local_platform, tmp_path):
    platform = local_platform
    hook, pids, _ = hanging_hook(tmp_path)
    cfg = long_config(platform)
    cfg.pop("env_vars")  # two steps at full speed
    cfg["max_steps"] = 2
    # A read-write session on the volume holds the run PENDING until `wait` has seen it, so the run
    # goes through at least two statuses under `wait` however fast its two steps are.
    with httpx.Client(base_url=platform.api_url, headers=platform.headers, timeout=30) as api:
        session = api.post("/training/volumes/research/sessions", json={"readOnly": False})
        assert session.status_code == 200, session.text
        session_id = session.json()["id"]
        reply = api.post("/training/runs", json={"config": cfg, "mode": "sft", "volume": "research"})
        run_id = reply.json()["runId"]
        script = Script(
            ["wait", run_id, "--json", "--local", "--interval", "0.3", "--on-event", hook],
            script_env(platform, tmp_path, hook_timeout=1),
        )
        try:
            try:
                script.until("the run seen PENDING", lambda: script.saw("status", status="PENDING"))
            finally:
                api.delete(f"/training/volumes/research/sessions/{session_id}")
            assert script.finish() == 0, script.text()
        finally:
            script.close()
    events = script.events()
    assert events[-1] == {"event": "done", "status": "COMPLETED", "exit": 0, "timed_out": []}
    calls = sum(e["event"] == "status" for e in events)
    warned = [ln for ln in script.err if "took longer than 1 s and was stopped" in ln]
    assert calls >= 2 and len(warned) == calls, script.text()
    assert "Traceback" not in script.text() and "Event loop is closed" not in script.text()
    assert [pid for pid in map(int, pids.read_text().split()) if running(pid)] == []
