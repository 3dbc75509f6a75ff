"""Trainers forked from one process that has already imported them, instead of a fresh interpreter each.

A trainer's interpreter spends about a quarter of a CPU second importing numpy and the trainer before it
reads its config: a run's start waits for it, and a platform that trains many runs pays it for each. The
supervisor starts this module once, the first time it starts a trainer (``python -m
primetui.local.trainer.forks``, its own session, working in ``/``, with the environment every trainer gets);
it imports the trainer and waits on a socket. For each run it forks a child that becomes the trainer as
``python -m primetui.local.trainer --run-dir RUN_DIR`` would: a new session, the run dir as its working
directory, ``/dev/null`` as stdin, the run's ``process.out`` as stdout and stderr, no other descriptor, the
request's environment, then the trainer's own ``main``. The server reaps its children and sends each exit
status back, so the supervisor's handle (:class:`ForkedTrainer`) answers ``poll`` as a ``Popen`` does.

Kept out: pyarrow (imported by SFT runs only) starts a thread at import, and a process with a second thread
must not fork; each SFT child imports it for itself. A trainer outlives the server as it outlives the
platform: its own session, adopted after a restart by its working directory
(:func:`primetui.local.procs.trainer_in`).

``PRIMETUI_LOCAL_TRAINER_FORKS=0`` starts every trainer as a fresh interpreter; so does a request whose environment
differs from the server's (it was imported under that one), and any failure of the server.
"""

from __future__ import annotations

import json
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from primetui.local.procs import pid_alive

MODULE = "primetui.local.trainer.forks"
ENABLED_ENV = "PRIMETUI_LOCAL_TRAINER_FORKS"
THREADS_ENV = "PRIMETUI_TRAINER_THREADS"
START_SECONDS = 60.0
"""How long the first start waits for the server to import the trainer (a loaded laptop)."""


def enabled() -> bool:
    return os.environ.get(ENABLED_ENV, "1") != "0"


# the server (its own process) ----------------------------------------------------------------------


def _become_trainer(request: dict[str, Any]) -> None:
    """In the forked child: become ``python -m primetui.local.trainer --run-dir RUN_DIR``, then exit."""
    code = 1
    try:
        # Imported by this server already, which pinned its BLAS threads before numpy loaded.
        from primetui.local.trainer.__main__ import OUTPUT, main, pin_blas_threads

        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        os.setsid()
        run_dir = request["run_dir"]
        os.chdir(run_dir)
        null = os.open(os.devnull, os.O_RDONLY)
        out = os.open(Path(run_dir) / OUTPUT, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        os.dup2(null, 0)
        os.dup2(out, 1)
        os.dup2(out, 2)
        os.closerange(3, os.sysconf("SC_OPEN_MAX"))
        os.environ.clear()
        os.environ.update(request["env"])
        pin_blas_threads()  # what the trainer's import set in a fresh interpreter
        sys.argv = [sys.executable, "-m", "primetui.local.trainer", "--run-dir", run_dir]
        code = main(sys.argv[3:])
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:  # noqa: BLE001 - a fresh interpreter would print the traceback and exit 1
        import traceback

        traceback.print_exc()
        code = 1
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # noqa: BLE001 - a closed stream: nothing left to flush
                pass
        os._exit(code)


def serve(sock: socket.socket) -> None:
    """Answer each request line ``{"run_dir", "env"}`` with ``{"pid"}`` (or ``{"error"}``), and send
    ``{"exit": pid, "code": c}`` as each child ends; return when the supervisor closes its end."""
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_r, False)
    os.set_blocking(wake_w, False)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.set_wakeup_fd(wake_w)
    pending = b""
    while True:
        ready, _, _ = select.select([sock.fileno(), wake_r], [], [])
        if wake_r in ready:
            try:
                os.read(wake_r, 512)
            except BlockingIOError:
                pass
        _reap(sock)
        if sock.fileno() not in ready:
            continue
        data = sock.recv(65536)
        if not data:
            return
        pending += data
        while b"\n" in pending:
            line, pending = pending.split(b"\n", 1)
            request = json.loads(line)
            try:
                pid = os.fork()
            except OSError as exc:
                _send(sock, {"error": str(exc)})
                continue
            if pid == 0:
                sock.close()
                _become_trainer(request)
            _send(sock, {"pid": pid})


def _reap(sock: socket.socket) -> None:
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        _send(sock, {"exit": pid, "code": os.waitstatus_to_exitcode(status)})


def _send(sock: socket.socket, message: dict[str, Any]) -> None:
    sock.sendall(json.dumps(message).encode() + b"\n")


def _main() -> None:
    sock = socket.socket(fileno=int(sys.argv[1]))
    # What every trainer imports before it reads its config: numpy, the SFT and the RL trainer. The trainer's
    # entry first: it pins BLAS to one thread before numpy loads, so this process holds no thread when it forks.
    from primetui.local.trainer.__main__ import pin_blas_threads

    pin_blas_threads()
    import numpy  # noqa: F401
    import primetui.local.trainer.loop  # noqa: F401
    import primetui.local.trainer.rl.run  # noqa: F401

    _send(sock, {"ready": os.getpid()})
    serve(sock)


# the supervisor's side ----------------------------------------------------------------------------


class ForkServer:
    """The supervisor's handle on the server: started on first use, replaced by fresh interpreters when it fails."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._sock: socket.socket | None = None
        self._env: dict[str, str] | None = None
        self._buffer = b""
        self.exits: dict[int, int] = {}
        self.failed = False
        """True once the server could not start or stopped answering: every later trainer starts fresh."""

    @property
    def alive(self) -> bool:
        return self._sock is not None

    def spawn(self, run_dir: Path, env: dict[str, str]) -> ForkedTrainer | None:
        """A trainer for ``run_dir`` forked by the server, or None (start it fresh) when forks are off,
        ``env`` is not the server's, or the server fails."""
        if self.failed or not enabled() or env.get(THREADS_ENV, "1") != "1":
            return None  # a server with more BLAS threads than one would fork with threads running
        with self._lock:
            try:
                if self._sock is None:
                    self._start(env)
                if env != self._env or self._sock is None:
                    return None
                _send(self._sock, {"run_dir": str(run_dir), "env": env})
                reply = self._read_until(lambda m: "pid" in m or "error" in m, START_SECONDS)
            except (OSError, ValueError):
                self._fail()
                return None
            if reply is None or "pid" not in reply:
                if reply is None:
                    self._fail()
                return None
            return ForkedTrainer(self, int(reply["pid"]))

    def _start(self, env: dict[str, str]) -> None:
        ours, theirs = socket.socketpair()
        try:
            self._proc = subprocess.Popen(
                [sys.executable, "-m", MODULE, str(theirs.fileno())],
                cwd="/",
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                env=env,
                start_new_session=True,
                pass_fds=(theirs.fileno(),),
            )
        finally:
            theirs.close()
        self._sock, self._env = ours, dict(env)
        if self._read_until(lambda m: "ready" in m, START_SECONDS) is None:
            raise OSError("the trainer fork server did not start")

    def _read_until(self, wanted: Any, timeout: float) -> dict[str, Any] | None:
        """Read messages (recording exits) until one is ``wanted``; None on EOF or timeout."""
        deadline = time.monotonic() + timeout
        while True:
            message = self._next(max(0.0, deadline - time.monotonic()))
            if message is None:
                return None
            if wanted(message):
                return message

    def _next(self, timeout: float) -> dict[str, Any] | None:
        sock = self._sock
        while sock is not None:
            if b"\n" in self._buffer:
                line, self._buffer = self._buffer.split(b"\n", 1)
                message = json.loads(line)
                if "exit" in message:
                    self.exits[int(message["exit"])] = int(message["code"])
                    continue
                return message
            ready, _, _ = select.select([sock], [], [], timeout)
            if not ready:
                return None
            data = sock.recv(65536)
            if not data:
                self._fail()
                return None
            self._buffer += data
        return None

    def collect(self) -> None:
        """Record the exits the server has sent so far (never blocks)."""
        with self._lock:
            try:
                while self._sock is not None and self._next(0.0) is not None:
                    pass
            except (OSError, ValueError):
                self._fail()

    def _fail(self) -> None:
        self.failed = True
        if self._sock is not None:
            self._sock.close()
            self._sock = None
        if self._proc is not None and self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait(timeout=5)

    def close(self) -> None:
        """Stop the server (its children, in their own sessions, run on)."""
        with self._lock:
            if self._sock is not None:
                self._sock.close()
                self._sock = None
            if self._proc is not None:
                try:
                    self._proc.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    self._proc.kill()
                    self._proc.wait(timeout=5)


class ForkedTrainer:
    """A forked trainer, answered as a ``subprocess.Popen``: its exit status comes from the server."""

    def __init__(self, server: ForkServer, pid: int) -> None:
        self.server = server
        self.pid = pid
        self.returncode: int | None = None

    @property
    def lost(self) -> bool:
        """The server stopped before it sent this trainer's exit: follow it by its pid, as an adopted one."""
        return self.returncode is None and not self.server.alive and self.pid not in self.server.exits

    def poll(self) -> int | None:
        if self.returncode is None:
            self.server.collect()
            self.returncode = self.server.exits.pop(self.pid, None)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if self.lost and not pid_alive(self.pid):
                raise subprocess.TimeoutExpired(f"trainer {self.pid}", timeout or 0.0)
            if deadline is not None and time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(f"trainer {self.pid}", timeout or 0.0)
            time.sleep(0.05)
        return self.returncode  # type: ignore[return-value]  # poll() set it

    def send_signal(self, sig: int) -> None:
        if self.poll() is None:
            try:
                os.kill(self.pid, sig)
            except ProcessLookupError:
                pass

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


if __name__ == "__main__":
    _main()
