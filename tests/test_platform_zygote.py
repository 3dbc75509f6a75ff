"""Local platforms forked from the worker's platform zygote (tests/cli_zygote.py) are the processes a fresh
start makes: the server's own pid in a session of its own, its environment, its open-files limit, its log,
its clean exit on SIGTERM; and a platform whose environment the zygote was not started under starts fresh.

A forked process's ``/proc/<pid>/environ`` still shows the zygote's start: the call's environment is what
the server reads (``os.environ``) and hands its trainers, so it is seen through a knob the server reads.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx

from primetui.local.testing import LocalPlatform
from tests.cli_zygote import PLATFORM_PRELOAD, Forked, Zygote, platform_zygote


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
    monkeypatch.setenv("TZ", "Pacific/Auckland")  # read by the C library as the zygote started: it cannot serve it
    with LocalPlatform.start(tmp_path / "fresh") as lp:
        assert not isinstance(lp.process, Forked)
        assert _environ(lp.pid)["TZ"] == "Pacific/Auckland"
        assert Path(f"/proc/{lp.pid}/stat").read_text().rsplit(")", 1)[1].split()[1] == str(os.getpid())


_TRACES = """
import gc, json, sys, types


def traces(mark):
    def texts(value, depth=0):
        if isinstance(value, str):
            yield value
        elif isinstance(value, (tuple, list, frozenset)) and depth < 3:  # a tuple of strings is not tracked by gc
            for item in value:
                yield from texts(item, depth + 1)

    found = set()
    for o in gc.get_objects():
        if isinstance(o, dict):
            values = [*o.keys(), *o.values()]
        elif isinstance(o, (list, tuple)):
            values = list(o)
        elif isinstance(o, types.FunctionType):  # a default argument taken at import
            values = [o.__defaults__ or (), tuple((o.__kwdefaults__ or {}).values())]
        else:
            continue
        found |= {t for v in values for t in texts(v) if mark in t}
    return sorted(found)


print(json.dumps(traces("zygote-home" + sys.argv[1])))  # built here: the mark is no constant of this code
"""


def test_a_call_keeps_nothing_of_the_zygotes_home(tmp_path: Path, monkeypatch) -> None:
    """HOME may differ from the zygote's (UNREAD): `site` and botocore take folders from it at import, and
    ``_home_again`` sets each again in the call's child, so no string in the child names the zygote's HOME."""
    monkeypatch.setenv("HOME", "/zygote-home-mark")
    zygote = Zygote("platform")  # its own, started under the marked HOME
    try:
        home = tmp_path / "home"
        monkeypatch.setenv("HOME", str(home))
        monkeypatch.setenv("PRIME_SSH_KEY_PATH", str(home / ".ssh" / "id"))
        env = dict(os.environ)
        assert zygote.serves(env)
        done = zygote.run(["-c", _TRACES, "-mark"], env, tmp_path, 120)
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout) == []
        code = (
            "import os, site, botocore.tokens, botocore.credentials, botocore.utils, botocore.loaders;"
            "print(os.path.expanduser('~'), site.getuserbase(), botocore.tokens.SSOTokenProvider._SSO_TOKEN_CACHE_DIR,"
            " botocore.credentials.SSOProvider._SSO_TOKEN_CACHE_DIR, botocore.utils.JSONFileCache()._working_dir,"
            " botocore.loaders.Loader().search_paths[0], os.environ['PRIME_SSH_KEY_PATH'])"
        )
        done = zygote.run(["-c", code], env, tmp_path, 120)
        assert done.returncode == 0, done.stderr
        aws = home / ".aws"
        assert done.stdout.decode().split() == [
            str(home),
            str(home / ".local"),
            str(aws / "sso" / "cache"),
            str(aws / "sso" / "cache"),
            str(aws / "boto" / "cache"),
            str(aws / "models"),
            str(home / ".ssh" / "id"),
        ]
    finally:
        zygote.close()


def test_the_trace_finds_what_the_zygote_itself_kept(tmp_path: Path) -> None:
    """The check above can fail: a fresh process under the marked HOME holds the folders botocore and `site` took."""
    env = {**os.environ, "HOME": "/zygote-home-mark"}
    imports = "import importlib\nfor m in " + repr(PLATFORM_PRELOAD) + ":\n    importlib.import_module(m)\n"
    out = subprocess.run(
        [sys.executable, "-c", imports + _TRACES, "-mark"], env=env, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert set(json.loads(out.stdout)) >= {
        "/zygote-home-mark/.aws/sso/cache",
        "/zygote-home-mark/.aws/boto/cache",
        "/zygote-home-mark/.aws/models",
        "/zygote-home-mark/.local",
    }
