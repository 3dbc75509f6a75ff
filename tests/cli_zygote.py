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

A second zygote per worker does the same for local platforms (:data:`PLATFORM_PRELOAD`, through
``primetui.local.testing.spawn_platforms_with``): a fresh ``primetui local serve`` spends about 1 s of CPU
importing fastapi, uvicorn, asyncssh, boto3 and the platform before it binds its port. The forked server
is its own process in its own session, with the log file as its stdout and stderr; its pid, signals and
exit code are those the harness sees. It serves only a platform whose environment is the worker's own
but for keys no preloaded module reads at import (:data:`UNREAD`, ``PRIMETUI_*``); any other starts
fresh. ``PRIMETUI_PLATFORM_ZYGOTE=0`` starts every platform fresh.
"""

from __future__ import annotations

import importlib
import json
import locale
import os
import resource
import runpy
import select
import signal
import socket
import subprocess
import sys
import tempfile
import types
from pathlib import Path

from tests.local.prime_zygote import (
    _HEADER,
    _INT,
    ForkServer,
    OnePerWorker,
    _exchange,
    _listen,
    _read_exactly,
    _take_call,
)

PRELOAD = (
    "primetui.commands.cli",
    "primetui.commands.headless",
    "primetui.commands.compare",
    "primetui.commands.rl_views",
    "primetui.api.client",
)
"""What every headless command imports (none of them numpy or textual, nor reads the environment at import)."""

PLATFORM_PRELOAD = (
    *PRELOAD,
    "primetui.local.cli",
    "primetui.local.server",
    "primetui.local.state",
    "primetui.local.demo",
    "primetui.local.connwall",
    "primetui.local.cluster",
    "primetui.local.log_windows",
    "primetui.local.supervisor",
    "primetui.local.hub.routes",
    "primetui.local.hub.hf_cli",
    "primetui.local.sessions.keys",
    "primetui.local.sessions.routes",
    "primetui.local.transfers.routes",
    "primetui.config.logcap",
    "primetui.config.settings",
    "uvicorn.protocols.http.h11_impl",
    "uvicorn.lifespan.on",
)
"""What ``primetui local serve`` imports before it serves (none reads a ``PRIMETUI_*`` variable at import)."""
PRELOADS = {"commands": PRELOAD, "platform": PLATFORM_PRELOAD}
UNREAD = frozenset(
    {"PYTEST_CURRENT_TEST", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "HOME", "PRIME_SSH_KEY_PATH"}
)
"""Keys a call's environment may set to its own value: pytest names each test in the first, and the BLAS thread
counts (set in a worker once a test imports the local eval's inference server) are read when numpy loads, which no
preload imports (:func:`_serve` checks). What `site` and botocore take from HOME at import, :func:`_become` sets
again under the call's (:func:`_home_again`); no preload reads PRIME_SSH_KEY_PATH at import. The SSH tests'
platforms set both; ``tests/test_platform_zygote.py`` checks that a call keeps nothing of the zygote's HOME."""

KEPT_HOME = (
    ("botocore.tokens", "SSOTokenProvider", "_SSO_TOKEN_CACHE_DIR", ".aws/sso/cache"),
    ("botocore.credentials", "SSOProvider", "_SSO_TOKEN_CACHE_DIR", ".aws/sso/cache"),
    ("botocore.utils", "JSONFileCache", "CACHE_DIR", ".aws/boto/cache"),
    ("botocore.loaders", "Loader", "CUSTOMER_DATA_PATH", ".aws/models"),
)
"""(module, class, attribute, folder under HOME): the folders botocore's classes take from HOME when imported."""


def _home_again() -> None:
    """Set what the preloads took from the zygote's HOME at import again from the call's (:data:`KEPT_HOME`)."""
    import site

    site.USER_BASE = site.USER_SITE = None  # `site` read HOME at start
    site.getusersitepackages()
    for module, name, attribute, under in KEPT_HOME:
        cls = getattr(sys.modules.get(module), name, None)
        if cls is None:
            continue
        old, new = getattr(cls, attribute), os.path.join(os.path.expanduser("~"), *under.split("/"))
        setattr(cls, attribute, new)
        for method in vars(cls).values():  # a default argument taken from it (JSONFileCache's working_dir)
            if isinstance(method, types.FunctionType) and method.__defaults__:
                method.__defaults__ = tuple(new if d == old else d for d in method.__defaults__)


# ---------------------------------------------------------------- the zygote process (run as a script)


def _become(request: dict, fds: list[int]) -> None:
    """In the call's child: take the caller's stdio, directory and environment (argv is set by the run)."""
    _take_call(request, fds)
    _home_again()
    if request.get("session"):  # as Popen(start_new_session=True): a signal to the worker's group misses it
        os.setsid()
    if request.get("nofile") is not None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (request["nofile"], request["nofile"]))


def _serve(path: str, lifeline: int, ready: int, preload: str) -> dict:
    """The zygote's loop: one forked helper per connection until the test worker goes. Returns only in a call."""
    for name in PRELOADS[preload]:
        importlib.import_module(name)
    if "numpy" in sys.modules:  # UNREAD's thread counts would then have been read by the zygote
        raise SystemExit(f"the {preload} preload imports numpy: take the BLAS thread counts out of UNREAD")
    return _listen(path, lifeline, ready, _become)


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


class Zygote(ForkServer):
    """A process that has imported the headless commands (or the platform); :meth:`run` forks it into one call's
    process."""

    def __init__(self, preload: str = "commands") -> None:
        root = str(Path(__file__).resolve().parents[1])
        self.env = dict(os.environ)
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")])))
        super().__init__(__file__, Path(tempfile.mkdtemp(prefix="primetui-zygote-")), env, "primetui", preload)

    def run(
        self, args: list[str], env: dict[str, str], cwd: Path, timeout: float
    ) -> subprocess.CompletedProcess[bytes]:
        """``python *args`` (``-c CODE …`` or ``-m primetui …``) in a child, stdin empty, output captured as bytes."""
        body = {"args": args, "env": env, "cwd": str(cwd)}
        code, out, err = _exchange(self.path, body, timeout, [sys.executable, *args])
        return subprocess.CompletedProcess([sys.executable, *args], code, out, err)

    def popen(self, args: list[str], env: dict[str, str], cwd: Path) -> Forked:
        """``python *args`` started in a child and left running: its output read as it comes, signals by pid."""
        return Forked(self.path, {"args": args, "env": env, "cwd": str(cwd)}, [sys.executable, *args])

    def serves(self, env: dict[str, str]) -> bool:
        """``env`` is the worker's environment (when this zygote started) but for keys no preloaded module reads at
        import (:data:`UNREAD`, and ``PRIMETUI_*``)."""
        keys = {k for k in set(env) | set(self.env) if not k.startswith("PRIMETUI_") and k not in UNREAD}
        return all(env.get(k) == self.env.get(k) for k in keys)


class Forked:
    """A call forked from the zygote, running: the part of ``subprocess.Popen`` a script driver uses (``pid``,
    ``stdout`` and ``stderr`` as text, ``poll``, ``wait``, ``send_signal``, ``kill``, ``returncode``). Its exit
    code comes from the zygote's helper, which waits for it (the call is the helper's child, not ours).
    With ``output``, both go to that descriptor (a log file) and ``stdout``/``stderr`` are None."""

    def __init__(self, path: str, body: dict, argv: list[str], output: int | None = None) -> None:
        self.args = argv
        out_r, out_w = os.pipe() if output is None else (-1, os.dup(output))
        err_r, err_w = os.pipe() if output is None else (-1, os.dup(output))
        null = os.open(os.devnull, os.O_RDONLY)
        self._conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self._conn.connect(path)
            data = json.dumps(body).encode()
            socket.send_fds(self._conn, [_HEADER.pack(len(data)) + data], [null, out_w, err_w])
        finally:
            for fd in (null, out_w, err_w):
                os.close(fd)
        (self.pid,) = _INT.unpack(_read_exactly(self._conn, _INT.size))
        encoding = locale.getpreferredencoding(False)
        self.stdout = None if output is not None else open(out_r, encoding=encoding)  # noqa: SIM115 - read by a thread
        self.stderr = None if output is not None else open(err_r, encoding=encoding)  # noqa: SIM115
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None and select.select([self._conn], [], [], 0)[0]:
            self._reap()
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None:
            if not select.select([self._conn], [], [], timeout)[0]:
                raise subprocess.TimeoutExpired(self.args, timeout or 0.0)
            self._reap()
        assert self.returncode is not None
        return self.returncode

    def _reap(self) -> None:
        (self.returncode,) = _INT.unpack(_read_exactly(self._conn, _INT.size))
        self._conn.close()

    def send_signal(self, signum: int) -> None:
        if self.returncode is None:
            os.kill(self.pid, signum)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


zygote = OnePerWorker(Zygote, "PRIMETUI_CLI_ZYGOTE")
"""This worker's primetui zygote, started on first use; None when PRIMETUI_CLI_ZYGOTE=0."""

platform_zygote = OnePerWorker(lambda: Zygote("platform"), "PRIMETUI_PLATFORM_ZYGOTE")
"""This worker's zygote of local platforms, started on first use; None when PRIMETUI_PLATFORM_ZYGOTE=0."""


def spawn_platform(args: list[str], env: dict[str, str], output: int, nofile: int | None) -> Forked | None:
    """``python *args`` (``-m primetui local serve …``) forked from the platform zygote in a new session, its
    output to ``output``; None (start it fresh) when the zygote is off or does not serve ``env``
    (``primetui.local.testing.spawn_platforms_with``)."""
    z = platform_zygote()
    if z is None or not z.serves(env):
        return None
    body = {"args": args, "env": env, "cwd": os.getcwd(), "session": True, "nofile": nofile}
    return Forked(z.path, body, [sys.executable, *args], output=output)


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


def primetui_cli(args: list[str], env: dict[str, str], timeout: float = 180) -> subprocess.CompletedProcess[str]:
    """``python -m primetui *args`` as a user's shell runs it, in ``env`` (through this worker's zygote), with
    the output read as text."""
    done = python(["-m", "primetui", *args], env, timeout)
    return subprocess.CompletedProcess(done.args, done.returncode, done.stdout.decode(), done.stderr.decode())


def headless(args: list[str], home: Path, timeout: float = 180, **env: str) -> subprocess.CompletedProcess[str]:
    """``primetui *args`` as a new user runs it against a platform given in ``env`` (``PRIME_BASE_URL``,
    ``PRIME_API_KEY``): none of the worker's ``PRIME*`` variables, ``home`` as HOME, its config under it."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("PRIME")}
    return primetui_cli(args, {**base, "HOME": str(home), "PRIMETUI_CONFIG_DIR": str(home / "cfg"), **env}, timeout)


if __name__ == "__main__":
    _root = str(Path(__file__).resolve().parents[1])  # on PYTHONPATH for the imports above; a call's own sys.path
    sys.path[:] = [sys.path[0], *(p for p in sys.path[1:] if p != _root)]  # has only what its python would put
    _run_call(_serve(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]))
