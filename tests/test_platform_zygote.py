"""Local platforms forked from the worker's platform zygote (tests/cli_zygote.py) are the processes a fresh
start makes: the server's own pid in a session of its own, its environment, its open-files limit, its log,
its clean exit on SIGTERM; and a platform whose environment the zygote was not started under starts fresh.

A forked process's ``/proc/<pid>/environ`` still shows the zygote's start: the call's environment is what
the server reads (``os.environ``) and hands its trainers, so it is seen through a knob the server reads.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

import httpx

from primetui.local.testing import LocalPlatform
from tests.cli_zygote import Forked, platform_zygote


def _environ(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    return dict(item.decode().split("=", 1) for item in raw if b"=" in item)


def _open_files_limit(pid: int) -> str:
    line = next(x for x in Path(f"/proc/{pid}/limits").read_text().splitlines() if x.startswith("Max open files"))
    return " ".join(line.split()[3:5])


def test_a_forked_platform_is_the_server_process_a_fresh_start_makes(tmp_path: Path) -> None:
    assert platform_zygote() is not None  # the start below goes through the zygote
    lp = LocalPlatform.start(tmp_path, env={"PRIMETUI_LOCAL_RATE_LIMIT": "2"}, open_files=512)
    try:
        assert isinstance(lp.process, Forked)  # which way it started is what this test is about
        assert lp.pid == lp.process.pid  # the ready file's pid: signals reach the server itself
        assert os.getsid(lp.pid) == lp.pid  # a session of its own, as Popen(start_new_session=True)
        assert _open_files_limit(lp.pid) == "512 512"
        with httpx.Client(headers=lp.headers, timeout=30) as c:
            codes = [c.get(lp.api_url + "/training/volumes").status_code for _ in range(3)]
        assert codes == [200, 200, 429]  # the call's PRIMETUI_LOCAL_RATE_LIMIT, not the zygote's environment
        assert lp.base_url in lp.output()  # stdout and stderr go to its log file
    finally:
        code = lp.stop()
    assert code == 0  # SIGTERM by pid: a clean exit, as the zygote's helper reports it


def test_a_platform_killed_by_its_pid_reports_the_signal(tmp_path: Path) -> None:
    with LocalPlatform.start(tmp_path) as lp:  # stopped on the way out if an assert fails first
        assert isinstance(lp.process, Forked)
        lp.kill()
        assert lp.process.returncode == -signal.SIGKILL


def test_a_platform_under_another_environment_starts_fresh(tmp_path: Path, monkeypatch) -> None:
    platform_zygote()  # started under the worker's environment first
    monkeypatch.setenv("HOME", str(tmp_path))  # read at import by site and botocore: the zygote cannot serve it
    with LocalPlatform.start(tmp_path / "fresh") as lp:
        assert not isinstance(lp.process, Forked)
        assert _environ(lp.pid)["HOME"] == str(tmp_path)
        assert Path(f"/proc/{lp.pid}/stat").read_text().rsplit(")", 1)[1].split()[1] == str(os.getpid())
