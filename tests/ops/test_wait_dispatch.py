"""``primetui wait`` and ``primetui dispatch`` against the real local platform, as a CI job runs them."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import httpx
import pytest
import tomlkit

from primetui.local.testing import IDLE_PACE, LocalPlatform
from tests.cli_zygote import python

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]


def env_for(lp: LocalPlatform, tmp: Path) -> dict[str, str]:
    home = tmp / "home"
    home.mkdir(exist_ok=True)
    env = dict(
        os.environ,
        HOME=str(home),
        PRIME_API_KEY=lp.token,
        PRIME_BASE_URL=lp.base_url,
        PRIMETUI_CONFIG_DIR=str(tmp / "cfg"),
        PRIMETUI_LOG_DIR=str(tmp / "log"),
    )
    for key in ("PRIME_API_BASE_URL", "PRIME_CONTEXT", "PRIME_TEAM_ID"):
        env.pop(key, None)
    return env


def primetui(lp: LocalPlatform, tmp: Path, *argv: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    """``python -m primetui *argv`` as a CI job runs it, forked from tests/cli_zygote.py's zygote (the same
    process a fresh one would be, without paying the import of the headless commands each time)."""
    done = python(["-m", "primetui", *argv], env_for(lp, tmp), timeout)
    return subprocess.CompletedProcess(done.args, done.returncode, _text(done.stdout), _text(done.stderr))


def _text(data: bytes) -> str:
    """As ``subprocess.run(text=True)`` decodes: the locale's encoding, universal newlines."""
    return io.TextIOWrapper(io.BytesIO(data)).read()


SMALL_BATCH = {"batch_size": 1, "seq_len": 256}
"""One short sample a step: the runs here must end (or fail) through ``wait``, not train; the walkthrough's
8 x 2,048 tokens cost 0.3 s of CPU a step."""


def config(lp: LocalPlatform, max_steps: int = 3, **data: str) -> dict:
    cfg = tomllib.loads((lp.data_dir / "sft.toml").read_text())
    cfg["max_steps"] = max_steps
    cfg.pop("ckpt", None)
    cfg["data"].update(SMALL_BATCH, **data)
    return cfg


def write(tmp: Path, cfg: dict, name: str = "sft.toml") -> Path:
    path = tmp / name
    path.write_text(tomlkit.dumps(cfg))
    return path


def post_run(lp: LocalPlatform, cfg: dict) -> str:
    reply = httpx.post(
        lp.api_url + "/training/runs",
        headers=lp.headers,
        timeout=30,
        json={"config": cfg, "mode": "sft", "volume": "research"},
    )
    assert reply.status_code == 200, reply.text
    return reply.json()["runId"]


def status_lines(text: str, run_id: str) -> list[str]:
    """wait's status lines for one run ("HH:MM:SS  run <id> (<name>): A → B"), not its progress lines."""
    return [ln for ln in text.splitlines() if re.search(rf"  run {re.escape(run_id)}( \(.*\))?: (?!step )", ln)]


def run_count(lp: LocalPlatform) -> int:
    return httpx.get(lp.api_url + "/rft/runs", headers=lp.headers, params={"limit": 1}, timeout=30).json()["total"]


def test_dispatch_then_wait_is_one_line_and_exits_0(local_platform, tmp_path):
    path = write(tmp_path, config(local_platform))
    out = primetui(
        local_platform, tmp_path, "dispatch", str(path), "--volume", "research", "--wait", "--interval", "0.5"
    )
    assert out.returncode == 0, out.stderr
    run_id = out.stdout.strip()
    assert run_id and "\n" not in run_id, "stdout must hold only the run id"
    assert "pre-flight ok   Volume" in out.stderr and "pre-flight ok   Model" in out.stderr
    assert "1 run(s) COMPLETED" in out.stderr
    # The final state (with an arrow only if wait saw the status change: a short run can end first).
    assert status_lines(out.stderr, run_id)[-1].endswith("COMPLETED"), out.stderr
    run = httpx.get(f"{local_platform.api_url}/rft/runs/{run_id}", headers=local_platform.headers).json()["run"]
    assert run["status"] == "COMPLETED"


def test_wait_on_a_failed_run_exits_1_with_reason_and_error_lines(local_platform, tmp_path):
    # The demo dataset's README is no JSONL file: the trainer starts, logs an ERROR and fails.
    run_id = post_run(local_platform, config(local_platform, name="datasets/reverse-text/README.md"))
    out = primetui(local_platform, tmp_path, "wait", run_id, "--interval", "0.5")
    assert out.returncode == 1, out.stdout + out.stderr
    assert f"run {run_id}: " in out.stdout and "FAILED" in out.stdout
    assert f"run {run_id} is FAILED: README.md line 1 is not valid JSON" in out.stdout
    tail = out.stdout.split("last error lines of trainer:", 1)[1]
    assert " ERROR README.md line 1 is not valid JSON" in tail


def test_wait_times_out_with_2_then_a_stopped_run_exits_1(local_platform, tmp_path):
    cfg = config(local_platform, max_steps=100000)
    cfg["env_vars"] = dict(IDLE_PACE)  # it only has to outlast the timeout: no trainer taking a core meanwhile
    run_id = post_run(local_platform, cfg)
    try:
        out = primetui(local_platform, tmp_path, "wait", run_id, "--timeout", "3", "--interval", "0.5")
        assert out.returncode == 2, out.stdout + out.stderr
        assert f"timed out: run {run_id} is still" in out.stdout
    finally:
        httpx.put(f"{local_platform.api_url}/rft/runs/{run_id}/stop", headers=local_platform.headers, timeout=30)
    out = primetui(local_platform, tmp_path, "wait", run_id, "--json", "--interval", "0.5")
    assert out.returncode == 1, out.stdout + out.stderr
    events = [json.loads(line) for line in out.stdout.splitlines()]
    assert events[-1] == {"event": "done", "status": "FAILED", "exit": 1, "timed_out": []}
    end = next(e for e in events if e["event"] == "end")
    assert end["run_id"] == run_id and end["status"] == "STOPPED"


def test_wait_on_several_runs_and_an_unknown_one(local_platform, tmp_path):
    a = post_run(local_platform, config(local_platform, max_steps=2))
    b = post_run(local_platform, config(local_platform, max_steps=3))
    out = primetui(local_platform, tmp_path, "wait", a, b, "--interval", "0.5")
    assert out.returncode == 0, out.stdout + out.stderr
    # A short run may end before wait's first poll: then its only status line is "COMPLETED", with
    # no arrow. What wait must report is each run's final state.
    for run_id in (a, b):
        assert status_lines(out.stdout, run_id)[-1].endswith("COMPLETED"), out.stdout
    assert "2 run(s) COMPLETED" in out.stdout
    assert f"run {a}: step 2/2" in out.stdout  # plain progress line: stdout is not a terminal
    out = primetui(local_platform, tmp_path, "wait", a, "no-such-run", "--interval", "0.5")
    assert out.returncode == 1
    assert "run no-such-run is UNREACHABLE" in out.stdout
    assert "Traceback" not in out.stdout + out.stderr


def test_dispatch_refuses_with_the_validate_diagnostics_and_dispatches_nothing(local_platform, tmp_path):
    before = run_count(local_platform)
    bad = config(local_platform)
    bad["max_steps"] = "many"
    path = write(tmp_path, bad)
    out = primetui(local_platform, tmp_path, "dispatch", str(path), "--volume", "research")
    assert out.returncode == 3, out.stderr
    assert out.stdout == ""
    assert f"{path}:" in out.stderr and ": error: " in out.stderr  # file:line:col: level: message
    assert "pre-flight FAIL Config" in out.stderr and "nothing was dispatched" in out.stderr
    out = primetui(
        local_platform,
        tmp_path,
        "dispatch",
        str(write(tmp_path, config(local_platform), "ok.toml")),
        "--volume",
        "nowhere",
    )
    assert out.returncode == 3 and "no volume named 'nowhere'" in out.stderr and "research" in out.stderr
    assert run_count(local_platform) == before


def test_on_event_hook_gets_each_status_change_as_json(local_platform, tmp_path):
    sink = tmp_path / "events.jsonl"
    hook = f"{sys.executable} -c \"import sys; open({str(sink)!r}, 'a').write(sys.stdin.read())\""
    run_id = post_run(local_platform, config(local_platform, max_steps=2))
    out = primetui(local_platform, tmp_path, "wait", run_id, "--interval", "0.5", "--on-event", hook)
    assert out.returncode == 0, out.stdout + out.stderr
    events = [json.loads(line) for line in sink.read_text().splitlines()]
    assert events[-1]["kind"] == "status" and events[-1]["status"] == "COMPLETED"
    assert all(e["run_id"] == run_id for e in events)
    out = primetui(local_platform, tmp_path, "wait", run_id, "--on-event", "/nonexistent/hook")
    assert out.returncode == 0
    assert out.stderr.count("could not start") == 1
    assert "could not start" in (tmp_path / "log" / "notify.log").read_text()


def test_wait_and_dispatch_do_not_import_the_ui_toolkit(local_platform, tmp_path):
    run_id = post_run(local_platform, config(local_platform, max_steps=1))
    code = (
        "import sys\nfrom primetui.commands.cli import main\n"
        f"rc = main(['wait', {run_id!r}, '--interval', '0.5'])\n"
        f"main(['dispatch', {str(tmp_path / 'missing.toml')!r}, '--volume', 'research'])\n"
        "print(rc, sorted({m.split('.')[0] for m in sys.modules} & {'textual', 'rich'}))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env_for(local_platform, tmp_path)
    )
    assert out.stdout.strip().splitlines()[-1] == "0 []", out.stdout + out.stderr
