"""Runs of the official `prime` CLI without paying its import each time: a forking zygote.

A fresh `prime` process spends about 2 s of CPU importing the CLI before it parses its arguments. The
zygote is one process per test worker that imports `prime_cli.main` once and then, for each call,
forks a child that becomes the call's process: the caller's argv, environment, working directory and
stdin/stdout/stderr (passed over a Unix socket), then the console script's own `sys.exit(run())`, so
the CLI's parser and commands run exactly as in a fresh process and the exit code comes back as
`subprocess` would give it.

What a fresh import would have read differently is made equal in the child: the import reads `HOME`
in three places (`ConfigModel.ssh_key_path`'s default, `Config.DEFAULT_SSH_KEY_PATH`, and `site`'s
user base; the preloaded boto3 in four more: botocore's cache and model dirs) and the working
directory in two (`rich._IMPORT_CWD`, and `multiprocessing.process.ORIGINAL_DIR` under boto3); the
child recomputes them under its own. Everything else the import reads
from the environment (rich's consoles read COLUMNS, NO_COLOR, TERM and friends) must match the
zygote's own: a call whose environment differs from the zygote's in any other key than
:data:`CALL_KEYS` runs as a plain subprocess instead. ``tests/local/test_prime_zygote.py`` proves both
(no trace of the zygote's HOME, URL or key in the child; the same bytes and exit code as a fresh process).

``PRIMETUI_PRIME_ZYGOTE=0`` runs every call as a fresh process (to compare the two ways).
"""

from __future__ import annotations

import atexit
import gc
import io
import json
import os
import select
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from typing import Generic, TypeVar
from pathlib import Path

PRIME = str(Path(sys.executable).with_name("prime"))
# The environment every prime_env call sets alike: the zygote imports the CLI under these.
CONSTANT = {"PRIME_DISABLE_VERSION_CHECK": "1", "COLUMNS": "200", "NO_COLOR": "1"}
# Keys a call may set to its own value: the CLI reads none of them at import (HOME's three reads are redone). The
# BLAS thread counts are read when numpy loads, which the CLI's import does not load (_serve checks);
# a worker gets them once a test imports the local eval's inference server, whose import sets them.
CALL_KEYS = frozenset(
    {
        "HOME",
        "PRIME_BASE_URL",
        "PRIME_API_KEY",
        "PRIME_SSH_KEY_PATH",
        "AWS_ACCESS_KEY_ID",
        "AWS_SECRET_ACCESS_KEY",
        "PYTEST_CURRENT_TEST",
        "OPENBLAS_NUM_THREADS",
        "OMP_NUM_THREADS",
        "MKL_NUM_THREADS",
    }
)
# Without the zygote, ~/.prime/config.json is written by the CLI's config.py loaded alone (not its whole package).
_WRITE_CONFIG = """
import importlib.util
from pathlib import Path
path = Path(importlib.util.find_spec("prime_cli").submodule_search_locations[0]) / "core" / "config.py"
spec = importlib.util.spec_from_file_location("prime_cli_core_config", path)
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
module.Config()
"""
Z = TypeVar("Z", bound="ForkServer")
_HEADER = struct.Struct("!I")
_INT = struct.Struct("!i")


# ---------------------------------------------------------------- the zygote process (run as a script)


def _redo_import_reads() -> None:
    """Recompute, under the child's HOME and directory, what the CLI's import computed from the zygote's."""
    import site

    import rich

    from prime_cli.core import config

    from pydantic.fields import FieldInfo

    key = str(Path.home() / ".ssh" / "id_rsa")
    config.Config.DEFAULT_SSH_KEY_PATH = key
    # `ssh_key_path: str = key` in the class body, as pydantic builds it, then its validator and serializer again
    config.ConfigModel.__pydantic_fields__["ssh_key_path"] = FieldInfo.from_annotated_attribute(str, key)
    config.ConfigModel.model_rebuild(force=True)
    site.USER_BASE = site.USER_SITE = None
    site.getusersitepackages()
    rich._IMPORT_CWD = os.path.abspath(os.getcwd())  # where rich's tracebacks resolve relative file names
    _redo_boto_reads()


def _redo_boto_reads() -> None:
    """botocore's import keeps four paths under HOME (class attributes, a default argument); multiprocessing the
    working directory."""
    from botocore import credentials, loaders, tokens, utils

    cache = utils.JSONFileCache.CACHE_DIR = os.path.expanduser(os.path.join("~", ".aws", "boto", "cache"))
    utils.JSONFileCache.__init__.__defaults__ = (cache, None)
    sso = os.path.expanduser(os.path.join("~", ".aws", "sso", "cache"))
    tokens.SSOTokenProvider._SSO_TOKEN_CACHE_DIR = credentials.SSOProvider._SSO_TOKEN_CACHE_DIR = sso
    loaders.Loader.CUSTOMER_DATA_PATH = os.path.join(os.path.expanduser("~"), ".aws", "models")
    import multiprocessing.process  # imported by boto3.s3.transfer: it notes the working directory

    multiprocessing.process.ORIGINAL_DIR = os.path.abspath(os.getcwd())


def _recv_request(conn: socket.socket) -> tuple[dict, list[int]]:
    data, fds, _flags, _addr = socket.recv_fds(conn, 1 << 16, 3)
    (size,) = _HEADER.unpack_from(data)
    while len(data) < _HEADER.size + size:
        more = conn.recv(1 << 16)
        if not more:
            raise EOFError("the caller hung up mid-request")
        data += more
    return json.loads(data[_HEADER.size :]), fds


def _take_call(request: dict, fds: list[int]) -> None:
    """In the call's child: take the caller's stdio, directory and environment (shared with tests/cli_zygote.py)."""
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])


def _become(request: dict, fds: list[int]) -> None:
    """In the call's child: take the caller's stdio, directory, environment and argv."""
    _take_call(request, fds)
    sys.argv = list(request["argv"])
    sys.orig_argv = [sys.executable, *sys.argv]
    _redo_import_reads()


def _handle(conn: socket.socket, become: Callable[[dict, list[int]], None]) -> dict:
    """In a per-call helper: fork the call's child, report its pid and its exit code. Returns only in the child,
    which ``become`` has made the call's process (shared with tests/cli_zygote.py)."""
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    request, fds = _recv_request(conn)
    pid = os.fork()
    if pid == 0:
        conn.close()
        become(request, fds)
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
    """The zygote's loop: one forked helper per connection until the test worker goes.

    Returns only in a call's child."""
    import prime_cli.main  # noqa: F401 - the import every call would otherwise pay

    # ... and what `prime volumes put/get/cat/ls` import inside the command (0.2 s of CPU a call): boto3's
    # import reads HOME four times (botocore's cache and model dirs), which the child recomputes.
    import boto3.exceptions  # noqa: F401
    import boto3.s3.transfer  # noqa: F401
    import botocore.config  # noqa: F401
    import botocore.credentials  # noqa: F401
    import botocore.session  # noqa: F401

    if "numpy" in sys.modules:  # CALL_KEYS' thread counts would then have been read by the zygote
        raise SystemExit("the prime CLI's import loads numpy: take the BLAS thread counts out of CALL_KEYS")
    return _listen(path, lifeline, ready, _become)


def _listen(path: str, lifeline: int, ready: int, become: Callable[[dict, list[int]], None]) -> dict:
    """Listen on ``path``, say ready, then fork a helper per call (shared with tests/cli_zygote.py)."""
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen(64)
    signal.signal(signal.SIGCHLD, _reap)
    # What the imports made goes to the collector's permanent generation: a call's collections then skip it
    # instead of walking (and so copying, page by page) the whole inherited heap; half a call's CPU.
    gc.freeze()
    os.write(ready, b"ready\n")
    os.close(ready)
    return _accept_loop(server, lifeline, become)


def _accept_loop(server: socket.socket, lifeline: int, become: Callable[[dict, list[int]], None]) -> dict:
    """One forked helper per connection until the worker goes (its ``lifeline`` closes). Returns only in a call's
    child (shared with tests/cli_zygote.py)."""
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
            return _handle(conn, become)
        conn.close()


# ---------------------------------------------------------------- the caller's side


class ForkServer:
    """A zygote process started from ``script`` in ``directory`` (its socket, log and home); shared with
    tests/cli_zygote.py. It lives until :meth:`close` or the end of the test worker (its lifeline closes)."""

    def __init__(self, script: str, directory: Path, env: dict[str, str], name: str, *extra: str) -> None:
        self.dir = directory
        self.path = str(directory / "sock")
        life_r, self._lifeline = os.pipe()
        ready_r, ready_w = os.pipe()
        with open(directory / "log", "wb") as log:
            self.proc = subprocess.Popen(
                [sys.executable, script, self.path, str(life_r), str(ready_w), *extra],
                env=env,
                cwd=directory,
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
            if not poller.poll(120_000) or not os.read(ready_r, 16):  # a bound on a hang: an import takes 1-2 s of CPU
                raise RuntimeError(f"the {name} zygote did not start: {(directory / 'log').read_text()[-2000:]}")
        finally:
            os.close(ready_r)

    def close(self) -> None:
        if self.proc.poll() is None:
            os.close(self._lifeline)
            self.proc.wait(timeout=30)
        shutil.rmtree(self.dir, ignore_errors=True)


class Zygote(ForkServer):
    """A process that has imported the CLI; :meth:`run` forks it into one call's process."""

    def __init__(self, **env: str) -> None:
        directory = Path(tempfile.mkdtemp(prefix="prime-zygote-"))
        home = directory / "home"
        home.mkdir()
        self.env = dict(os.environ, HOME=str(home), **CONSTANT, **env)
        super().__init__(__file__, directory, self.env, "prime")

    def serves(self, env: dict[str, str]) -> bool:
        """A call's environment differs from the zygote's only in keys the CLI does not read at import."""
        keys = (set(env) | set(self.env)) - CALL_KEYS
        return all(env.get(k) == self.env.get(k) for k in keys)

    def run(
        self, argv: list[str], env: dict[str, str], cwd: Path, timeout: float, **job: str | bool
    ) -> subprocess.CompletedProcess[str]:
        """Run ``argv`` in a child (or the zygote's other ``job``: ``config``, ``scan``) as a fresh process would."""
        body = {"argv": argv, "env": env, "cwd": str(cwd), **job}
        code, out, err = _exchange(self.path, body, timeout, argv)
        return subprocess.CompletedProcess(argv, code, _as_text(out), _as_text(err))


def _exchange(path: str, body: dict, timeout: float, argv: list[str]) -> tuple[int, bytes, bytes]:
    """Send one call to the zygote at ``path`` with an empty stdin and two pipes for its output; its exit code and
    output (shared with tests/cli_zygote.py). Past ``timeout`` the call's process is killed."""
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    null = os.open(os.devnull, os.O_RDONLY)
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(path)
        data = json.dumps(body).encode()
        socket.send_fds(conn, [_HEADER.pack(len(data)) + data], [null, out_w, err_w])
    finally:
        for fd in (null, out_w, err_w):
            os.close(fd)
    try:
        (pid,) = _INT.unpack(_read_exactly(conn, _INT.size))
        outputs = _drain([out_r, err_r], time.monotonic() + timeout)
        if outputs is None:
            os.kill(pid, signal.SIGKILL)
            raise subprocess.TimeoutExpired(argv, timeout)
        (code,) = _INT.unpack(_read_exactly(conn, _INT.size))
    finally:
        conn.close()
        for fd in (out_r, err_r):
            os.close(fd)
    return code, outputs[0], outputs[1]


def _read_exactly(conn: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        more = conn.recv(size - len(data))
        if not more:
            raise EOFError("the prime zygote's helper hung up")
        data += more
    return data


def _drain(fds: list[int], deadline: float) -> list[bytes] | None:
    """Read each pipe to its end (both at once, as `communicate` does); None past the deadline.

    A poll, not select(): a test process may hold more than 1,024 descriptors (an S3 server, a platform)."""
    chunks: dict[int, list[bytes]] = {fd: [] for fd in fds}
    poller = select.poll()
    for fd in fds:
        poller.register(fd, select.POLLIN)
    left = set(fds)
    while left:
        wait = deadline - time.monotonic()
        if wait <= 0:
            return None
        for fd, _event in poller.poll(wait * 1000):
            data = os.read(fd, 1 << 16)
            if data:
                chunks[fd].append(data)
            else:
                poller.unregister(fd)
                left.discard(fd)
    return [b"".join(chunks[fd]) for fd in fds]


def _as_text(data: bytes) -> str:
    """Decode as `subprocess.run(text=True)` does: the locale's encoding, universal newlines."""
    return io.TextIOWrapper(io.BytesIO(data)).read()


class OnePerWorker(Generic[Z]):
    """This worker's zygote, started by ``make`` on first use; None while the environment sets ``switch`` to 0
    (shared with tests/cli_zygote.py)."""

    def __init__(self, make: Callable[[], Z], switch: str) -> None:
        self._make, self._switch = make, switch
        self._lock = threading.Lock()
        self._made: Z | None = None

    def __call__(self) -> Z | None:
        if os.environ.get(self._switch) == "0":
            return None
        with self._lock:
            if self._made is None:
                self._made = self._make()
            return self._made


zygote = OnePerWorker(Zygote, "PRIMETUI_PRIME_ZYGOTE")
"""This worker's `prime` zygote, started on first use; None when PRIMETUI_PRIME_ZYGOTE=0."""


def prime(args: list[str], env: dict[str, str], cwd: Path, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    """`prime --plain *args` as a fresh process would run it, stdin empty, output captured as text."""
    argv = [PRIME, "--plain", *args]
    z = zygote()
    if z is not None and z.serves(env):
        return z.run(argv, env, cwd, timeout)
    return subprocess.run(
        argv, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL
    )


def write_config(env: dict[str, str]) -> None:
    """Write ~/.prime/config.json under ``env``'s HOME with the CLI's own Config, as its first run would."""
    z = zygote()
    if z is not None and z.serves(env):
        done = z.run([PRIME], env, Path(env["HOME"]), 60, config=True)
        assert done.returncode == 0, done.stderr
        return
    subprocess.run([sys.executable, "-c", _WRITE_CONFIG], env=env, check=True, timeout=60)


def _scan(needle: str) -> list[str]:
    """Every string held by a live object that contains ``needle`` (the request that names it aside)."""
    hits = []
    for holder in gc.get_objects():
        for value in gc.get_referents(holder):
            if isinstance(value, str) and value is not needle and needle in value:
                hits.append(f"{type(holder).__name__}: {value[:200]}")
    return hits


if __name__ == "__main__":
    sys.path[0] = str(Path(PRIME).parent)  # as for the console script, whose folder heads sys.path
    job = _serve(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
    if job.get("scan"):
        gc.unfreeze()  # gc.get_objects() lists no frozen object: the scan must see what the imports made too
        print(json.dumps(_scan(job["scan"])))
        sys.exit(0)
    if job.get("config"):
        from prime_cli.core.config import Config

        Config()
        sys.exit(0)
    from prime_cli.main import run

    sys.exit(run())
