"""Drive ``primetui wait``/``dispatch`` as a CI script does: a subprocess, its output read as it comes,
signals by pid, and waits on what the output says (never on time)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
import tomllib
from collections.abc import Callable
from pathlib import Path

import httpx

from primetui.local.testing import IDLE_PACE, LocalPlatform
from tests.cli_zygote import Forked, zygote

HOOK_WRAPPER = """#!/bin/sh
echo $$ >> "$1"
cat >> "$2"
sleep 300 &
echo $! >> "$1"
wait
"""
"""A wrapper-script hook that hangs, and whose child outlives it unless its process group is killed."""


def script_env(lp: LocalPlatform, tmp: Path, hook_timeout: float | None = None) -> dict[str, str]:
    """A user with no prime config, whose --local data dir is ``lp``'s."""
    home = tmp / "home"
    home.mkdir(exist_ok=True)
    cfg = tmp / "cfg"
    cfg.mkdir(exist_ok=True)
    if hook_timeout is not None:
        (cfg / "config.toml").write_text(f"[notify]\nhook_timeout = {hook_timeout}\n")
    env = dict(
        os.environ,
        HOME=str(home),
        PRIMETUI_CONFIG_DIR=str(cfg),
        PRIMETUI_LOG_DIR=str(tmp / "log"),
        PRIMETUI_LOCAL_DATA_DIR=str(lp.data_dir),
        PYTHONUNBUFFERED="1",
    )
    for key in ("PRIME_API_KEY", "PRIME_BASE_URL", "PRIME_API_BASE_URL", "PRIME_CONTEXT", "PRIME_TEAM_ID"):
        env.pop(key, None)
    return env


def hanging_hook(tmp: Path) -> tuple[str, Path, Path]:
    """(the --on-event command, the file its pids go to, the file its events go to)."""
    script = tmp / "hook.sh"
    script.write_text(HOOK_WRAPPER)
    script.chmod(0o755)
    return f"{script} {tmp / 'hook.pids'} {tmp / 'hook.events'}", tmp / "hook.pids", tmp / "hook.events"


def running(pid: int) -> bool:
    """True while ``pid`` is a live process (a zombie has ended; init reaps it)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def until_gone(pid: int, what: str, limit: float = 60.0) -> None:
    """Wait until ``pid`` has no /proc entry at all: ended and reaped (a zombie still has one)."""
    end = time.monotonic() + limit
    while Path(f"/proc/{pid}").exists():
        if time.monotonic() > end:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
            raise AssertionError(f"{what}: pid {pid} is still there (state {state})")
        time.sleep(0.05)


class Script:
    """One ``primetui`` subprocess whose stdout and stderr are collected line by line as they come."""

    def __init__(self, argv: list[str], env: dict[str, str]) -> None:
        z = zygote()  # forked from tests/cli_zygote.py's zygote: the process a fresh one would be, without its imports
        self.proc: subprocess.Popen[str] | Forked
        if z is not None:
            self.proc = z.popen(["-m", "primetui", *argv], env, Path.cwd())
        else:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "primetui", *argv],
                env=env,
                text=True,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
            )
        self.out: list[str] = []
        self.err: list[str] = []
        self._cond = threading.Condition()
        self._readers = [
            threading.Thread(target=self._read, args=(s, b), daemon=True)
            for s, b in ((self.proc.stdout, self.out), (self.proc.stderr, self.err))
        ]
        for t in self._readers:
            t.start()

    def _read(self, stream, into: list[str]) -> None:  # noqa: ANN001
        for line in stream:
            with self._cond:
                into.append(line.rstrip("\n"))
                self._cond.notify_all()
        with self._cond:
            self._cond.notify_all()

    def until(self, what: str, check: Callable[[], bool], limit: float = 120.0) -> None:
        """Wait until ``check()`` holds (the output shows something); fail naming ``what``."""
        end = time.monotonic() + limit
        with self._cond:
            while not check():
                if self.proc.poll() is not None and not any(t.is_alive() for t in self._readers):
                    if check():
                        return
                    raise AssertionError(f"the command ended ({self.proc.returncode}) before {what}:\n{self.text()}")
                if not self._cond.wait(timeout=max(0.0, end - time.monotonic())) and time.monotonic() >= end:
                    raise AssertionError(f"gave up waiting for {what}:\n{self.text()}")

    def events(self) -> list[dict]:
        return [json.loads(line) for line in list(self.out)]

    def saw(self, event: str, **fields: object) -> bool:
        return any(e.get("event") == event and all(e.get(k) == v for k, v in fields.items()) for e in self.events())

    def finish(self, limit: float = 60.0) -> int:
        code = self.proc.wait(timeout=limit)
        for t in self._readers:
            t.join(timeout=limit)
        return code

    def text(self) -> str:
        return "stdout:\n" + "\n".join(self.out) + "\nstderr:\n" + "\n".join(self.err)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


STEP_PACE = {"PRIMETUI_LOCAL_SLOW_POD": "0", "PRIMETUI_LOCAL_SLOW_SECONDS": "1"}
"""``[env_vars]`` of a run that takes a step about every second at a few percent of a core (with a batch
of one micro-batch, ``long_config(paced=True)``): for tests that wait on progress, not only on RUNNING."""


def long_config(lp: LocalPlatform, *, paced: bool = False) -> dict:
    """The walkthrough config, long enough to stay RUNNING for the whole of a test or a bench. Idle
    (``IDLE_PACE``: its trainer sleeps rather than take a core) or, ``paced``, a step a second."""
    cfg = tomllib.loads((lp.data_dir / "sft.toml").read_text())
    cfg["max_steps"] = 100000
    cfg.pop("ckpt", None)
    cfg["env_vars"] = {**cfg.get("env_vars", {}), **(STEP_PACE if paced else IDLE_PACE)}
    if paced:
        cfg["data"]["batch_size"] = 1  # one micro-batch a step: one sleep, and little to compute
    return cfg


def long_run(lp: LocalPlatform, *, paced: bool = False) -> str:
    """A run of ``long_config`` (its id); the caller stops it."""
    cfg = long_config(lp, paced=paced)
    reply = httpx.post(
        lp.api_url + "/training/runs",
        headers=lp.headers,
        timeout=30,
        json={"config": cfg, "mode": "sft", "volume": "research"},
    )
    assert reply.status_code == 200, reply.text
    return reply.json()["runId"]
