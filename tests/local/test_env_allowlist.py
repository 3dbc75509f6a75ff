"""The platform, its trainers and its session shells start from an environment allowlist, as sshd does.

The platform here is started with the user's secrets and session handles in its environment (as a
platform started from a shell would be); none of them may reach a trainer or a session, and
``tmux`` typed in a session must not reach the user's own tmux server.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest

from primetui.local.environ import ACCOUNT, WORKER, allowlisted
from primetui.local.testing import LocalPlatform
from primetui.shell import open_session_connection, open_shell
from tests.api.ssh_helpers import make_key, read_until, wait_phase
from tests.local.conftest import http, wait_status
from tests.local.test_crash_recovery import trainer_pid
from tests.local.test_runs import small_config

pytestmark = pytest.mark.timeout(180)

SECRETS = {
    "PRIME_API_KEY": "hosted-api-key-value",
    "HF_TOKEN": "hf_secret_value",
    "AWS_ACCESS_KEY_ID": "AKIA-secret-value",
    "AWS_SECRET_ACCESS_KEY": "aws-secret-value",
    "GITHUB_TOKEN": "ghp_secret_value",
    "OPENAI_API_KEY": "sk-secret-value",
    "SSH_AUTH_SOCK": "/tmp/ssh-agent-of-the-user.sock",
    "TMUX_PANE": "%7",
    "DBUS_SESSION_BUS_ADDRESS": "unix:path=/run/user/0/bus",
    "LC_SECRET_TOKEN": "lc-secret-value",  # a prefix match that looks like a secret is dropped too
    "PRIMETUI_LOCAL_API_TOKEN": "local-secret-value",
}
SESSION_NAMES = set(ACCOUNT) | {
    "TERM",
    "PWD",
    "VOLUME",
    "HF_ENDPOINT",
    "HF_HUB_DISABLE_TELEMETRY",
    "HF_HUB_DISABLE_UPDATE_CHECK",
    "TMUX_TMPDIR",
    "PRIMETUI_SESSION_ID",
    "PRIMETUI_VOLUME",
    "PRIMETUI_SESSION_MODE",
    "COLORTERM",
}
# What a shell adds on its own when it starts (bash and sh), not taken from the platform.
SHELL_OWN = {"SHLVL", "_", "OLDPWD"}


def _tmux(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["tmux", *args],
        capture_output=True,
        text=True,
        timeout=20,
        check=False,
        env=env or dict(os.environ),
        stdin=subprocess.DEVNULL,
    )


def _environ(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes()
    return dict(item.split("=", 1) for item in raw.decode(errors="replace").split("\0") if "=" in item)


def _gone(pid: int, timeout: float = 30.0) -> bool:
    """Wait until ``pid`` has exited (gone, or a zombie nobody reaped yet)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[0]
        except (OSError, IndexError):
            return True
        if state in (b"Z", b"X"):
            return True
        time.sleep(0.05)
    return False


def _session_processes(session_id: str) -> list[int]:
    """Host pids of live processes started by volume session ``session_id`` (found by the session's
    variable, since a sandboxed process has PID numbers of its own inside)."""
    found = []
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            if _environ(int(entry)).get("PRIMETUI_SESSION_ID") == session_id:
                found.append(int(entry))
        except OSError:
            continue
    return found


def _env_output(text: str) -> dict[str, str]:
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line and not line.startswith((" ", "\t")))


def _assert_no_secret(env: dict[str, str], where: str) -> None:
    for name, value in SECRETS.items():
        assert name not in env, f"{name} reached {where}"
        assert value not in "\n".join(env.values()), f"the value of {name} reached {where}"
    assert not any(k.startswith("TMUX") and k != "TMUX_TMPDIR" for k in env), f"a TMUX variable reached {where}"


@pytest.fixture(scope="module")
def user_tmux(tmp_path_factory):
    """Two tmux servers of "the user": one named by TMUX (as inside tmux), one found through TMUX_TMPDIR."""
    if not _tmux("-V").stdout.startswith("tmux"):
        pytest.skip("tmux is not installed")
    tmp = tmp_path_factory.mktemp("usertmux")
    sock = tmp / "user.sock"
    tmpdir = tmp / "tmpdir"
    tmpdir.mkdir(mode=0o700)
    assert _tmux("-S", str(sock), "new-session", "-d", "-s", "user-own-session").returncode == 0
    env = dict(os.environ, TMUX_TMPDIR=str(tmpdir))
    env.pop("TMUX", None)
    assert _tmux("new-session", "-d", "-s", "user-default-session", env=env).returncode == 0
    default_sock = next(tmpdir.glob("tmux-*/default"))
    try:
        yield {"env": {"TMUX": f"{sock},4242,0", "TMUX_TMPDIR": str(tmpdir)}, "sockets": (sock, default_sock)}
    finally:
        _tmux("-S", str(sock), "kill-server")
        _tmux("-S", str(default_sock), "kill-server")


@pytest.fixture(scope="module")
def leaky_platform(tmp_path_factory, user_tmux):
    """A platform started from a shell that holds the user's secrets and sits inside their tmux."""
    tmp = tmp_path_factory.mktemp("leaky")
    home = tmp / "home"
    key = make_key(home / ".ssh" / "id_ed25519")
    env = {"HOME": str(home), "PRIME_SSH_KEY_PATH": str(key), "LANG": "C.UTF-8", **SECRETS, **user_tmux["env"]}
    lp = LocalPlatform.start(tmp, demo=True, env=env)
    try:
        yield lp, key
    finally:
        lp.stop()
        lp.reap_orphans()


async def test_a_session_shell_gets_the_allowlist_and_its_own_tmux(leaky_platform, user_tmux):
    lp, key = leaky_platform
    async with lp.client() as api:
        s = await api.create_session("research", read_only=True)
        s = await wait_phase(api, "research", s.id, {"ready", "failed"})
        assert s.phase == "ready", s.error_message
        session = await open_session_connection(s, key)
        conn = session.conn  # asyncssh's own run(): text, exit status, an optional pty
        try:
            env = _env_output((await conn.run("env", check=True)).stdout)
            _assert_no_secret(env, "a session command")
            assert set(env) - SHELL_OWN <= SESSION_NAMES, (
                f"not on the allowlist: {set(env) - SHELL_OWN - SESSION_NAMES}"
            )
            for name in ("HOME", "PATH", "TERM", "LANG", "VOLUME", "HF_ENDPOINT"):
                assert env.get(name), f"{name} is missing from the session"
            assert env["HF_ENDPOINT"] == lp.base_url

            # A command on a pty, and the interactive login shell: the same environment.
            shell_env = _env_output((await conn.run("env", term_type="xterm", check=True)).stdout.replace("\r", ""))
            _assert_no_secret(shell_env, "a command on a pty")
            login = await open_shell(session, "xterm", 200, 50)
            login.write(b"env; echo ENV-DONE-$((6*7))\r")
            typed = (await read_until(login, b"ENV-DONE-42\r\n")).decode(errors="replace").replace("\r", "")
            # An interactive bash turns bracketed paste off (ESC [ ? 2004 l) right before the
            # command's output, which lands on the first line: drop terminal sequences first.
            login_env = _env_output(re.sub(r"\x1b\[[0-?]*[ -/]*[@-~]", "", typed))
            assert login_env.get("VOLUME") and login_env.get("TMUX_TMPDIR"), typed[-500:]
            _assert_no_secret(login_env, "the login shell")

            # `tmux` in the session reaches neither of the user's servers, only one of its own.
            listed = await conn.run("tmux ls 2>&1; echo rc=$?")
            assert "user-own-session" not in listed.stdout and "user-default-session" not in listed.stdout, (
                listed.stdout
            )
            made = await conn.run(
                "tmux new-session -d -s inside-the-session && tmux ls && tmux display -p '#{pid} #{socket_path}'"
            )
            assert made.exit_status == 0, made.stderr
            assert "inside-the-session" in made.stdout and "user-own-session" not in made.stdout
            socket_path = made.stdout.strip().splitlines()[-1].split(" ", 1)[1]
            assert socket_path.startswith(env["TMUX_TMPDIR"]), socket_path
            assert (Path(env["TMUX_TMPDIR"]).stat().st_mode & 0o777) == 0o700
        finally:
            await session.close()
        await api.stop_session("research", s.id)
        await wait_phase(api, "research", s.id, {"stopped"})
    # The session's own tmux server left its terminal session; stopping the session still ends it
    # (in a sandbox, it ends with the command that started it), and nothing else of the session is left.
    left = _session_processes(s.id)
    assert all(_gone(pid) for pid in left), f"processes of the session outlived it: {left}"
    assert not Path(env["TMUX_TMPDIR"]).exists()
    for sock in user_tmux["sockets"]:  # and the user's own servers are untouched
        assert _tmux("-S", str(sock), "ls").returncode == 0


def test_a_trainer_gets_the_worker_allowlist(leaky_platform):
    lp, _ = leaky_platform
    with http(lp) as api:
        run = api.post(
            "/training/runs", json={"config": small_config(lp, max_steps=100000), "mode": "sft", "volume": "research"}
        )
        assert run.status_code == 200, run.text
        run_id = run.json()["runId"]
        wait_status(api, run_id, {"RUNNING"})
        env = _environ(trainer_pid(lp, run_id))
        api.put(f"/rft/runs/{run_id}/stop")
        wait_status(api, run_id, {"STOPPED", "COMPLETED", "FAILED"})
    _assert_no_secret(env, "a trainer")
    extra = {k for k in env if k not in WORKER and not k.startswith("LC_")}
    assert extra <= {"PYTHONUNBUFFERED"}, f"not on the allowlist: {extra}"
    assert env["HOME"] and env["PATH"]


def test_primetui_local_starts_the_platform_with_the_allowlist(tmp_path, monkeypatch):
    from primetui.local.launcher import ensure_running

    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("TMUX", "/tmp/tmux-0/default,1,0")
    monkeypatch.setenv("PRIMETUI_LOCAL_SPEED", "50")  # the platform's own settings still get through
    data = tmp_path / "data"
    ensure_running(data_dir=data, demo=False)
    pid = int(json.loads((data / "server.json").read_text())["pid"])
    try:
        env = _environ(pid)
    finally:
        os.kill(pid, signal.SIGTERM)
    _assert_no_secret(env, "the background platform")
    assert env.get("PRIMETUI_LOCAL_SPEED") == "50" and env.get("HOME")
    assert _gone(pid)


def test_allowlisted_keeps_named_and_prefixed_names_but_not_secret_looking_ones():
    source = {
        "HOME": "/h",
        "PATH": "/bin",
        "LC_ALL": "C",
        "LC_API_KEY": "x",
        "PRIMETUI_LOCAL_SPEED": "2",
        "PRIMETUI_LOCAL_SECRET": "y",
        "AWS_SECRET_ACCESS_KEY": "z",
        "SSH_AUTH_SOCK": "/s",
    }
    got = allowlisted(("HOME", "PATH"), ("LC_", "PRIMETUI_LOCAL_"), source)
    assert got == {"HOME": "/h", "PATH": "/bin", "LC_ALL": "C", "PRIMETUI_LOCAL_SPEED": "2"}
