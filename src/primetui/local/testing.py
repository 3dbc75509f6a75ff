"""``LocalPlatform``: a real local server in a subprocess, for tests and benchmarks.

    with LocalPlatform.start(tmp_path, demo=True) as lp:
        httpx.get(lp.base_url + "/api/v1/training/volumes", headers=lp.headers)

The server binds 127.0.0.1 on a free port with its own data dir; ``stop()`` (on exit) sends SIGTERM
to its pid and waits; ``kill()`` sends SIGKILL (a crash) and ``restart()`` starts it again on the
same data dir (a new port), which is how crash-recovery tests work.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

from primetui.local.procs import Child, trainer_in, wait_for_ready_file

DEFAULT_TEST_SPEED = "10"
IDLE_PACE = {"PRIMETUI_LOCAL_SLOW_POD": "0", "PRIMETUI_LOCAL_SLOW_SECONDS": "5"}
"""``[env_vars]`` of a run that stays RUNNING at almost no CPU: its only pod sleeps 5 s before each
micro-batch (the trainer's slow-pod knob). Tests that only need a run *running* use it, so its
trainer does not take a core from the rest of the suite."""


Spawner = Callable[[list[str], dict[str, str], int, "int | None"], "Child | None"]
"""Starts ``python -m primetui local serve …`` (argv after the interpreter, the environment, the log file's
descriptor for stdout and stderr, the open-files limit or None) in a new session; None to decline."""

_spawner: Spawner | None = None


def spawn_platforms_with(spawner: Spawner | None) -> None:
    """The test suite's seam: start each platform through ``spawner`` (a process forked from one that has
    imported the server already, tests/cli_zygote.py) instead of a fresh interpreter; None for the default."""
    global _spawner
    _spawner = spawner


class LocalPlatformError(RuntimeError):
    """The server did not come up; the message includes its output."""


@dataclass
class LocalPlatform:
    """A handle on one running ``primetui local serve`` subprocess."""

    data_dir: Path
    demo: bool = False
    env: dict[str, str] = field(default_factory=dict)
    base_url: str = ""
    token: str = ""
    pid: int = 0
    serve_args: tuple[str, ...] = ()
    """Extra ``primetui local serve`` options (``--allow-private-endpoints``)."""
    open_files: int | None = None
    """When set, the server's soft and hard limits on open files (RLIMIT_NOFILE), to test running out."""
    _proc: Child | None = None
    _log_path: Path | None = None

    @classmethod
    def start(
        cls,
        tmp_dir: str | os.PathLike[str],
        demo: bool = False,
        *,
        speed: str | None = DEFAULT_TEST_SPEED,
        env: dict[str, str] | None = None,
        timeout: float = 60.0,
        open_files: int | None = None,
        serve_args: tuple[str, ...] = (),
    ) -> LocalPlatform:
        """Start a server with data dir ``<tmp_dir>/data`` and wait until it serves."""
        extra = dict(env or {})
        if speed is not None:
            extra.setdefault("PRIMETUI_LOCAL_SPEED", speed)
        lp = cls(data_dir=Path(tmp_dir) / "data", demo=demo, env=extra, open_files=open_files, serve_args=serve_args)
        lp._launch(timeout)
        return lp

    @property
    def headers(self) -> dict[str, str]:
        """The Authorization header for this server."""
        return {"Authorization": f"Bearer {self.token}"}

    @property
    def process(self) -> Child | None:
        """The started server's process handle (a ``subprocess.Popen``, or what the spawner returned)."""
        return self._proc

    @property
    def api_url(self) -> str:
        return self.base_url + "/api/v1"

    def _launch(self, timeout: float) -> None:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        ready = self.data_dir.parent / f"ready-{time.monotonic_ns()}.json"
        self._log_path = self.data_dir.parent / "server.log"
        args = [
            "-m",
            "primetui",
            "local",
            "serve",
            "--port",
            "0",
            "--data-dir",
            str(self.data_dir),
            "--ready-file",
            str(ready),
            "--log-file",
            str(self._log_path),
        ]
        if self.demo:
            args.append("--demo")
        args.extend(self.serve_args)
        env = dict(os.environ, **self.env)
        env.pop("PRIMETUI_LOCAL_DATA_DIR", None)
        with open(self._log_path, "ab") as log:
            forked = _spawner(args, env, log.fileno(), self.open_files) if _spawner is not None else None
            proc: Child = forked or subprocess.Popen(
                [sys.executable, *args],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                env=env,
                start_new_session=True,
                preexec_fn=self._limit_open_files,
            )
        self._proc = proc
        info = wait_for_ready_file(ready, proc, timeout)
        if info:
            self.base_url, self.token, self.pid = info["base_url"], info["token"], int(info["pid"])
            return
        if proc.poll() is not None:
            raise LocalPlatformError(f"the local server exited with {proc.returncode}: {self.output()}")
        self.kill()
        raise LocalPlatformError(f"the local server did not become ready within {timeout:.0f}s: {self.output()}")

    def _limit_open_files(self) -> None:
        if self.open_files is not None:
            import resource

            resource.setrlimit(resource.RLIMIT_NOFILE, (self.open_files, self.open_files))

    def output(self) -> str:
        """What the server printed so far (its banner includes the token: test-only data)."""
        try:
            return self._log_path.read_text(encoding="utf-8", errors="replace")[-4000:] if self._log_path else ""
        except OSError:
            return ""

    def stop(self, timeout: float = 30.0) -> int | None:
        """SIGTERM by pid and wait for a clean exit (SIGKILL after ``timeout``). Returns the exit code."""
        proc = self._proc
        if proc is None or proc.poll() is not None:
            return None if proc is None else proc.returncode
        proc.send_signal(signal.SIGTERM)
        try:
            return proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            return proc.wait()

    def kill(self) -> None:
        """SIGKILL the server (a crash): its trainers keep running, orphaned, as they would after a real crash."""
        proc = self._proc
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait()

    def restart(self, timeout: float = 60.0) -> None:
        """Start the server again on the same data dir (after ``stop()`` or ``kill()``)."""
        if self._proc is not None and self._proc.poll() is None:
            self.stop()
        self._launch(timeout)

    def reap_orphans(self) -> None:
        """SIGKILL trainers of this data dir left running by a killed server that was never restarted."""
        import sqlite3

        db_path = self.data_dir / "state.sqlite3"
        if not db_path.exists():
            return
        try:
            db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
            pids = [r[0] for r in db.execute("SELECT pid FROM runs WHERE pid IS NOT NULL")]
            db.close()
        except sqlite3.Error:
            return
        for pid in pids:
            if trainer_in(pid, self.data_dir):
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass

    def insert_runs(
        self, names: list[str], *, status: str = "COMPLETED", volume: str = "bulk", model: str = "Qwen/Qwen3-0.6B"
    ) -> list[str]:
        """Tests only: store ``names`` as ended runs at once, the row dispatch (T4) stores, newest last.

        Many runs (hundreds, thousands) for the runs list, without training each; the server reads
        the same SQLite file (WAL), so they are listed by R1 at once. Returns their ids."""
        from primetui.local.routes_training import LOCAL_GPU_TYPE, new_run_id
        from primetui.local.store import Store

        store = Store(self.data_dir / "state.sqlite3")
        ids: list[str] = []
        try:
            with store.tx():
                for name in names:
                    run_id = new_run_id()
                    config = {"name": name, "model": {"name": model}, "max_steps": 10}
                    store.insert_run(
                        id=run_id,
                        name=name,
                        status=status,
                        config=config,
                        volume=volume,
                        model=model,
                        gpu_type=LOCAL_GPU_TYPE,
                        team_id=None,
                    )
                    ids.append(run_id)
        finally:
            store.close()
        return ids

    def __enter__(self) -> LocalPlatform:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
        self.reap_orphans()

    def client(self, **kwargs: Any) -> Any:
        """An async ``PrimeClient`` on this server (caller closes it)."""
        from primetui.api.client import PrimeClient

        return PrimeClient(self.base_url, self.token, **kwargs)
