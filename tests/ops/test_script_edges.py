"""Scripts at the edges (issue 41, finding 10): a signal at any instant ends ``wait`` with a ``done``
line carrying the true state; usage errors have their own exit code and JSON; ``--timeout`` is
validated and counted from the process's start; ``--json`` never claims a status it did not see.

Every command runs through the real parser (a subprocess, or ``cli.main``) against the real local
platform; waits are on what the output or the process shows, never on time."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
import tomlkit

from primetui.commands import cli
from primetui.local.testing import LocalPlatform
from tests.api.faultproxy import FaultProxy
from tests.cli_zygote import primetui_cli
from tests.ops.script_helpers import Script, long_config, long_run, script_env
from tests.waiting import wait_for_sync as wait_for

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]

EXIT_USAGE, EXIT_CONFIG = 64, 78
"""The documented codes (docs/ops.md), spelled here so that the test runs against any version."""
SIGTERM_CAUGHT = 1 << (signal.SIGTERM - 1)
"""The SIGTERM bit of /proc/PID/status's SigCgt mask: set once the process catches SIGTERM."""


def stop_run(lp: LocalPlatform, run_id: str) -> None:
    httpx.put(f"{lp.api_url}/rft/runs/{run_id}/stop", headers=lp.headers, timeout=30)


def proxied_env(lp: LocalPlatform, proxy: FaultProxy, tmp: Path) -> dict[str, str]:
    """A user whose platform is ``lp`` reached through ``proxy`` (no --local: the proxy is the platform)."""
    env = script_env(lp, tmp)
    env.update(PRIME_BASE_URL=proxy.base_url, PRIME_API_KEY=lp.token)
    return env


@pytest.fixture(scope="module")
def running_run(local_platform):
    """One idle run that stays RUNNING, shared by the tests that only watch it (none stops or changes it)."""
    run_id = long_run(local_platform)
    yield run_id
    stop_run(local_platform, run_id)


def catches_sigterm(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    mask = next(line.split()[1] for line in status.splitlines() if line.startswith("SigCgt:"))
    return bool(int(mask, 16) & SIGTERM_CAUGHT)


def truthful_done(script: Script, run_id: str, code: int, signame: str) -> dict:
    """The stream ends with ``done``; the run is running only if a RUNNING status was seen for it."""
    events = script.events()
    done = events[-1]
    assert done["event"] == "done" and done["status"] == "INTERRUPTED", script.text()
    assert done["exit"] == code and done["signal"] == signame
    unknown = done.get("unknown", [])
    assert sorted(done["running"] + unknown) == [run_id], done  # never "running: []" for a run it asked about
    end = [e for e in events if e["event"] == "end" and e["run_id"] == run_id]
    assert len(end) == 1, script.text()
    if run_id in done["running"]:
        assert end[0]["status"] == "RUNNING" and end[0]["ended"] is False
    else:
        assert end[0]["status"] is None, "a status nobody saw was claimed"
    assert "Traceback" not in script.text()
    return done


# --- a signal at any instant ----------------------------------------------------------------------


def test_a_sigterm_as_soon_as_the_process_catches_it_still_ends_with_done(local_platform, running_run, tmp_path):
    """The first instant Python can act on SIGTERM (before the heavy imports): a ``done`` line, exit 143."""
    run_id = running_run
    script = Script(["wait", run_id, "--json", "--local", "--interval", "0.3"], script_env(local_platform, tmp_path))
    try:
        wait_for(
            lambda: catches_sigterm(script.proc.pid) or script.proc.poll() is not None,
            "the process catches SIGTERM",
            timeout=60,
        )
        os.kill(script.proc.pid, signal.SIGTERM)
        assert script.finish() == 143, script.text()
    finally:
        script.close()
    truthful_done(script, run_id, 143, "SIGTERM")


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_before_the_first_poll_reports_the_true_state(local_platform, running_run, tmp_path, signum, code):
    """Ready (handlers in, nothing asked yet), then the signal: the run is RUNNING or unknown, never absent."""
    run_id = running_run
    env = dict(script_env(local_platform, tmp_path), PRIMETUI_DEBUG_READY="1")
    script = Script(["wait", run_id, "--json", "--local", "--interval", "0.3"], env)
    try:
        script.until(
            "the readiness line", lambda: any(line.startswith("primetui: ready (pid ") for line in script.err), limit=60
        )
        assert not script.out, "it polled before it said ready"
        os.kill(script.proc.pid, signum)
        assert script.finish() == code, script.text()
    finally:
        script.close()
    truthful_done(script, run_id, code, signal.Signals(signum).name)


def _sigterm_while_the_first_poll_hangs(lp, run_id, tmp_path, *flags: str) -> tuple[Script, str]:
    """``wait`` on a running run whose first poll the platform never answers, ended by a SIGTERM."""
    with FaultProxy(lp.base_url, rate=1.0, kinds=("stall",), stall_seconds=60) as proxy:
        script = Script(["wait", run_id, *flags, "--interval", "0.3"], proxied_env(lp, proxy, tmp_path))
        try:
            wait_for(lambda: proxy.requests >= 1, "the first poll reaches the platform", timeout=60)
            os.kill(script.proc.pid, signal.SIGTERM)
            assert script.finish() == 143, script.text()
        finally:
            script.close()
    return script, run_id


def test_a_sigterm_while_the_first_poll_hangs_says_unknown_not_not_running(local_platform, running_run, tmp_path):
    """The platform does not answer the first poll: the run's state was never seen, so it is unknown."""
    script, run_id = _sigterm_while_the_first_poll_hangs(local_platform, running_run, tmp_path, "--json")
    done = truthful_done(script, run_id, 143, "SIGTERM")
    assert done["running"] == [] and done["unknown"] == [run_id]


def test_a_sigterm_during_a_later_poll_or_a_sleep_reports_the_last_status_seen(local_platform, running_run, tmp_path):
    """A poll hangs after a RUNNING was seen: the done line says RUNNING (the last seen), exit 143."""
    run_id = running_run
    with FaultProxy(local_platform.base_url, rate=0.0, kinds=("stall",), stall_seconds=60) as proxy:
        script = Script(["wait", run_id, "--json", "--interval", "0.3"], proxied_env(local_platform, proxy, tmp_path))
        try:
            script.until("a RUNNING status", lambda: script.saw("status", run_id=run_id, status="RUNNING"), limit=120)
            proxy.rate = 1.0  # every request from now on hangs
            seen = proxy.requests
            wait_for(lambda: proxy.requests > seen, "a poll in flight", timeout=60)
            os.kill(script.proc.pid, signal.SIGTERM)
            assert script.finish() == 143, script.text()
        finally:
            script.close()
    done = truthful_done(script, run_id, 143, "SIGTERM")
    assert done["running"] == [run_id] and done.get("unknown", []) == []


# --- usage errors: their own code, and JSON -------------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["wait", "r1", "--timeout", "-1", "--json"],
        ["wait", "r1", "--timeout", "nan", "--json"],
        ["wait", "r1", "--timeout", "inf", "--json"],
        ["wait", "r1", "--timeout", "0", "--json"],
        ["wait", "r1", "--interval", "-3", "--json"],
        ["dispatch", "sft.toml", "--json"],  # --volume missing
        ["sweep", "sft.toml", "--volume", "v", "--wait", "--timeout", "abc", "--json"],
        ["wait", "--json"],
    ],
)
def test_a_usage_error_exits_64_with_a_json_done_record(argv, capsys):
    code = cli.main(argv)
    out, err = capsys.readouterr()
    from primetui.commands.exits import MEANING

    assert code == EXIT_USAGE and MEANING[code] == "usage error"
    assert "usage: primetui" in err and "error:" in err
    record = json.loads(out.strip().splitlines()[-1])
    assert record["event"] == "done" and record["status"] == "USAGE" and record["exit"] == 64
    assert record["error"].startswith("primetui ")


def test_a_usage_error_without_json_prints_only_to_stderr(capsys):
    assert cli.main(["runs", "--no-such-flag"]) == EXIT_USAGE
    out, err = capsys.readouterr()
    assert out == "" and "unrecognized arguments: --no-such-flag" in err


def test_a_negative_timeout_is_refused_before_anything_waits(local_platform, tmp_path):
    """``--timeout -1`` used to wait forever: now it is a usage error, in a real process too."""
    out = primetui_cli(["wait", "r1", "--timeout", "-1", "--local"], script_env(local_platform, tmp_path), timeout=60)
    assert out.returncode == 64, out.stdout + out.stderr
    assert "--timeout: '-1' is not a positive, finite number of seconds" in out.stderr


def test_a_settings_mistake_is_78_in_every_command(tmp_path, monkeypatch, capsys):
    """One code for a setting that cannot work: the same for wait (was 3) and runs --once (was 2)."""
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("PRIME_API_KEY", "k")
    monkeypatch.setenv("PRIME_BASE_URL", "http://127.0.0.1:99999")
    for argv in (
        ["wait", "r1", "--json"],
        ["runs", "--once"],
        ["run", "r1", "--once"],
        ["compare", "a", "b", "--once"],
    ):
        assert cli.main(argv) == EXIT_CONFIG, argv
        assert "PRIME_BASE_URL" in capsys.readouterr().err


# --- --timeout: from the process's start, and a hanging poll is cut -------------------------------


def test_the_timeout_counts_from_the_process_start():
    """The interpreter's own start-up is inside ``--timeout``: the start is taken from the process, not the code."""
    code = (
        "import time; first = time.monotonic()\n"
        "from primetui.commands.waiting import process_started\n"
        "print(first - process_started())"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert float(out.stdout) > 0.0  # the process started before its first line of Python ran


def test_a_poll_that_hangs_is_cut_at_the_timeout(local_platform, running_run, tmp_path):
    """The platform never answers: ``--timeout 2`` still ends with exit 2 and its done line, long before the hang."""
    run_id = running_run
    with FaultProxy(local_platform.base_url, rate=1.0, kinds=("stall",), stall_seconds=120) as proxy:
        script = Script(["wait", run_id, "--json", "--timeout", "2"], proxied_env(local_platform, proxy, tmp_path))
        try:
            assert script.finish(limit=60) == 2, script.text()
        finally:
            script.close()
    events = script.events()
    assert events[-1] == {"event": "done", "status": "TIMEOUT", "exit": 2, "timed_out": [run_id]}
    end = [e for e in events if e["event"] == "end"]
    assert end[0]["status"] is None and end[0]["ended"] is False  # nothing was seen, nothing is claimed


# --- --json claims only what it saw ---------------------------------------------------------------


def test_dispatch_json_without_wait_says_dispatched_not_completed(local_platform, tmp_path):
    cfg = long_config(local_platform)  # idle: it is stopped as soon as the command has said it dispatched it
    path = tmp_path / "sft.toml"
    path.write_text(tomlkit.dumps(cfg))
    env = dict(
        script_env(local_platform, tmp_path), PRIME_BASE_URL=local_platform.base_url, PRIME_API_KEY=local_platform.token
    )
    out = primetui_cli(["dispatch", str(path), "--volume", "research", "--json"], env, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    dispatched, done = [json.loads(line) for line in out.stdout.splitlines()]
    run_id = dispatched["run_id"]
    stop_run(local_platform, run_id)
    assert dispatched["event"] == "dispatched"
    assert done == {"event": "done", "status": "DISPATCHED", "exit": 0, "run_id": run_id}


def test_the_headless_deadline_is_a_timeout_too(local_platform, tmp_path):
    """``runs --once`` past PRIMETUI_HEADLESS_DEADLINE exits 2 (timed out), as ``wait --timeout`` does, not 1."""
    with FaultProxy(local_platform.base_url, rate=1.0, kinds=("stall",), stall_seconds=120) as proxy:
        env = dict(proxied_env(local_platform, proxy, tmp_path), PRIMETUI_HEADLESS_DEADLINE="2")
        out = primetui_cli(["runs", "--once"], env, timeout=60)
    assert out.returncode == 2, out.stdout + out.stderr
    assert "gave up after 2 s" in out.stderr and "Traceback" not in out.stderr


def test_a_bug_in_wait_is_70_with_a_report_never_1(tmp_path, monkeypatch, capsys):
    """A failure that is neither the platform nor the network is a bug: its own code and a crash report."""
    from primetui.commands import waiting

    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("PRIMETUI_LOG_DIR", str(tmp_path / "log"))
    monkeypatch.setenv("PRIME_API_KEY", "k")
    monkeypatch.setenv("PRIME_BASE_URL", "http://127.0.0.1:9")

    async def broken(*args, **kwargs):
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(waiting, "wait_runs", broken)
    code = cli.main(["wait", "r1", "--json"])
    out, err = capsys.readouterr()
    assert code == 70, err
    done = json.loads(out.strip().splitlines()[-1])
    assert done["event"] == "done" and done["status"] == "BUG" and done["exit"] == 70
    assert "Traceback" not in err


def test_a_sigterm_while_the_first_poll_hangs_says_so_in_text_too(local_platform, running_run, tmp_path):
    """Without --json: the last lines neither say the run goes on nor that it ended, since nobody saw it."""
    script, run_id = _sigterm_while_the_first_poll_hangs(local_platform, running_run, tmp_path)
    assert script.out[-2:] == [
        f"SIGTERM: stopped following; the status of run {run_id} was not seen yet.",
        f"Follow again with `primetui wait {run_id}`.",
    ], script.text()


def test_a_timeout_before_the_platform_is_known_still_ends_each_run(local_platform, tmp_path):
    """A ``--timeout`` shorter than the start-up: ``done`` came alone, without the ``end`` line of each run
    (seen on a loaded machine with ``--timeout 2``). Now each run has its ``end``, its status never seen."""
    out = primetui_cli(
        ["wait", "r1", "r2", "--json", "--timeout", "0.001"],
        dict(
            script_env(local_platform, tmp_path),
            PRIME_BASE_URL=local_platform.base_url,
            PRIME_API_KEY=local_platform.token,
        ),
        timeout=60,
    )
    assert out.returncode == 2, out.stdout + out.stderr
    events = [json.loads(line) for line in out.stdout.splitlines()]
    assert [(e["event"], e.get("run_id"), e.get("status"), e.get("ended")) for e in events[:-1]] == [
        ("end", "r1", None, False),
        ("end", "r2", None, False),
    ]
    assert events[-1] == {"event": "done", "status": "TIMEOUT", "exit": 2, "timed_out": ["r1", "r2"]}
