"""Runs of `primetui`'s headless commands without paying their import each time: a forking zygote.

A fresh ``primetui runs --once`` spends about 1 s of its 1.2 s of CPU importing httpx, pydantic and the
API models before it asks the platform anything. The fuzz tests run dozens of them (tests/ui/test_wire_fuzz.py,
test_rl_wire_fuzz.py, tests/e2e/test_hostile_text.py). This zygote, one process per test worker, imports
the headless commands once (:data:`PRELOAD`); for each call it forks a child that becomes the call's
process, as tests/local/prime_zygote.py does for `prime`: the caller's stdin/stdout/stderr (passed over a
Unix socket), environment (all of it: none of :data:`PRELOAD` reads the environment at import), working
directory and argv, then the same ``python -c CODE`` or ``python -m primetui`` a fresh process would run.
The child's exit code (or the signal that ended it, negative) comes back as ``subprocess`` gives it; it is
a process of its own, so a crash, its memory and its exit handlers are its own.

``tests/test_cli_zygote.py`` proves a call gives the same bytes and exit code as a fresh process.
``PRIMETUI_CLI_ZYGOTE=0`` runs every call as a fresh process (to compare the two ways).
"""

from __future__ import annotations

import atexit
import importlib
import json
import os
import runpy
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from tests.local.prime_zygote import _HEADER, _INT, _drain, _read_exactly, _recv_request

PRELOAD = (
    "primetui.commands.cli",
    "primetui.commands.headless",
    "primetui.commands.compare",
    "primetui.commands.rl_views",
    "primetui.api.client",
)
"""What every headless command imports (none of them numpy or textual, nor reads the environment at import)."""


# ---------------------------------------------------------------- the zygote process (run as a script)


def _become(request: dict, fds: list[int]) -> None:
    """In the call's child: take the caller's stdio, directory, environment and argv."""
    import site

    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    site.USER_BASE = site.USER_SITE = None  # `site` read HOME at start: read it again under the call's
    site.getusersitepackages()


def _handle(conn: socket.socket) -> dict:
    """In a per-call helper: fork the call's child, report its pid and exit code. Returns only in the child."""
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    request, fds = _recv_request(conn)
    pid = os.fork()
    if pid == 0:
        conn.close()
        _become(request, fds)
        return request
    for fd in fds:
        os.close(fd)
    conn.sendall(_INT.pack(pid))
    _, status = os.waitpid(pid, 0)
    conn.sendall(_INT.pack(os.waitstatus_to_exitcode(status)))
    os._exit(0)


def _reap(_signum: int, _frame: object) -> None:
    """Wait for finished helpers (so their CPU time counts in the zygote's, and so the worker's, children)."""
    try:
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass
    except ChildProcessError:
        pass


def _serve(path: str, lifeline: int, ready: int) -> dict:
    """The zygote's loop: one forked helper per connection until the test worker goes. Returns only in a call."""
    for name in PRELOAD:
        importlib.import_module(name)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen(64)
    signal.signal(signal.SIGCHLD, _reap)
    os.write(ready, b"ready\n")
    os.close(ready)
    while True:
        readable, _, _ = select.select([server, lifeline], [], [])
        if lifeline in readable:  # the worker closed its end (or died): nothing more to serve
            os._exit(0)
        conn, _ = server.accept()
        sys.stdout.flush()
        sys.stderr.flush()
        if os.fork() == 0:
            server.close()
            os.close(lifeline)
            return _handle(conn)
        conn.close()


def _run_call(job: dict) -> None:
    """``python -c CODE ARGS`` or ``python -m primetui ARGS``, in the call's child, as the interpreter runs them."""
    args = list(job["args"])
    if args[0] == "-c":
        sys.argv = ["-c", *args[2:]]
        sys.path[0] = ""
        exec(compile(args[1], "<string>", "exec"), {"__name__": "__main__", "__builtins__": __builtins__})
    else:
        sys.argv = [args[1], *args[2:]]  # runpy puts the module's file in argv[0]
        sys.path[0] = os.getcwd()
        runpy.run_module(args[1], run_name="__main__", alter_sys=True)


# ---------------------------------------------------------------- the caller's side


class Zygote:
    """A process that has imported the headless commands; :meth:`run` forks it into one call's process."""

    def __init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="primetui-zygote-"))
        self.path = str(self.dir / "sock")
        life_r, self._lifeline = os.pipe()
        ready_r, ready_w = os.pipe()
        root = str(Path(__file__).resolve().parents[1])
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")])))
        with open(self.dir / "log", "wb") as log:
            self.proc = subprocess.Popen(
                [sys.executable, __file__, self.path, str(life_r), str(ready_w)],
                env=env,
                cwd=self.dir,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                pass_fds=(life_r, ready_w),
            )
        os.close(life_r)
        os.close(ready_w)
        atexit.register(self.close)
        try:
            poller = select.poll()
            poller.register(ready_r, select.POLLIN)
            if not poller.poll(120_000) or not os.read(ready_r, 16):  # a bound on a hang: the import takes ~1 s of CPU
                raise RuntimeError(f"the primetui zygote did not start: {(self.dir / 'log').read_text()[-2000:]}")
        finally:
            os.close(ready_r)

    def close(self) -> None:
        if self.proc.poll() is None:
            os.close(self._lifeline)
            self.proc.wait(timeout=30)
        shutil.rmtree(self.dir, ignore_errors=True)

    def run(
        self, args: list[str], env: dict[str, str], cwd: Path, timeout: float
    ) -> subprocess.CompletedProcess[bytes]:
        """``python *args`` (``-c CODE …`` or ``-m primetui …``) in a child, stdin empty, output captured as bytes."""
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        null = os.open(os.devnull, os.O_RDONLY)
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            conn.connect(self.path)
            body = json.dumps({"args": args, "env": env, "cwd": str(cwd)}).encode()
            socket.send_fds(conn, [_HEADER.pack(len(body)) + body], [null, out_w, err_w])
        finally:
            for fd in (null, out_w, err_w):
                os.close(fd)
        try:
            (pid,) = _INT.unpack(_read_exactly(conn, _INT.size))
            outputs = _drain([out_r, err_r], time.monotonic() + timeout)
            if outputs is None:
                os.kill(pid, signal.SIGKILL)
                raise subprocess.TimeoutExpired([sys.executable, *args], timeout)
            (code,) = _INT.unpack(_read_exactly(conn, _INT.size))
        finally:
            conn.close()
            for fd in (out_r, err_r):
                os.close(fd)
        return subprocess.CompletedProcess([sys.executable, *args], code, outputs[0], outputs[1])


_lock = threading.Lock()
_zygote: Zygote | None = None


def zygote() -> Zygote | None:
    """This worker's zygote, started on first use; None when PRIMETUI_CLI_ZYGOTE=0."""
    global _zygote
    if os.environ.get("PRIMETUI_CLI_ZYGOTE") == "0":
        return None
    with _lock:
        if _zygote is None:
            _zygote = Zygote()
        return _zygote


def python(
    args: list[str], env: dict[str, str], timeout: float, cwd: Path | None = None
) -> subprocess.CompletedProcess[bytes]:
    """``python *args`` as a fresh process would run it (``-c CODE …`` or ``-m primetui …``), output as bytes."""
    assert args[0] == "-c" or args[:2] == ["-m", "primetui"], args
    z = zygote()
    where = Path.cwd() if cwd is None else cwd
    if z is not None:
        return z.run(args, env, where, timeout)
    return subprocess.run(
        [sys.executable, *args], env=env, cwd=where, capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL
    )


if __name__ == "__main__":
    _root = str(Path(__file__).resolve().parents[1])  # on PYTHONPATH for the imports above; a call's own sys.path
    sys.path[:] = [sys.path[0], *(p for p in sys.path[1:] if p != _root)]  # has only what its python would put
    _run_call(_serve(sys.argv[1], int(sys.argv[2]), int(sys.argv[3])))
