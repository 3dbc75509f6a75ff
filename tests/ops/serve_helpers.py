"""Start ``primetui serve`` as a subprocess on a local platform, read its URL, count its app processes."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

from primetui.local.testing import LocalPlatform

URL_RE = re.compile(r"(http://127\.0\.0\.1:(\d+)/\?token=([A-Za-z0-9_-]+))")
URL_FILE_RE = re.compile(r"is in (\S+) \(not printed: output is not a terminal\)")


@dataclass
class Served:
    proc: subprocess.Popen[str]
    url: str
    port: int
    token: str
    log: Path
    url_file: Path

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def app_processes(self) -> list[int]:
        """Pids of the tab app processes: the server's children, less a local platform it started."""
        kids = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            fields = stat.rsplit(")", 1)[1].split()
            if int(fields[1]) != self.proc.pid or fields[0] == "Z":
                continue
            try:
                argv = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if b"local" not in argv:  # `serve --local` also starts the local platform, as its child
                kids.append(int(entry.name))
        return kids

    def wait_processes(self, n: int, timeout: float = 30.0) -> list[int]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = self.app_processes()
            if len(found) == n:
                return found
            time.sleep(0.1)
        raise AssertionError(f"expected {n} app process(es), found {self.app_processes()}")


def seed_run(lp: LocalPlatform, name: str) -> str:
    """Dispatch the demo config as a run called ``name`` on the demo volume; returns its id."""
    import tomllib

    config = tomllib.loads((lp.data_dir / "sft.toml").read_text())
    reply = httpx.post(lp.api_url + "/training/runs", headers=lp.headers, timeout=30,
                       json={"config": config, "mode": "sft", "volume": "research", "name": name})
    assert reply.status_code == 200, reply.text
    return reply.json()["runId"]


@contextmanager
def serve(lp: LocalPlatform, tmp: Path, *extra: str, keep_local_dir: bool = False) -> Iterator[Served]:
    home = tmp / "home"
    home.mkdir(exist_ok=True)
    env = dict(os.environ, HOME=str(home), PRIME_API_KEY=lp.token, PRIME_BASE_URL=lp.base_url,
               PRIMETUI_CONFIG_DIR=str(tmp / "cfg"))
    for key in ("PRIME_API_BASE_URL", "PRIME_CONTEXT", "PRIME_TEAM_ID") + (() if keep_local_dir else ("PRIMETUI_LOCAL_DATA_DIR",)):
        env.pop(key, None)
    log = tmp / "serve.log"
    with open(log, "w") as out:
        proc = subprocess.Popen([sys.executable, "-m", "primetui", "serve", "--port", "0", *extra],
                                stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, text=True,
                                env=env, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        named = None
        while time.monotonic() < deadline and proc.poll() is None:
            named = URL_FILE_RE.search(log.read_text())  # the output is a file: the URL is in a file it names
            if named:
                break
            time.sleep(0.1)
        assert named, f"primetui serve named no URL file: {log.read_text()}"
        url_file = Path(named.group(1))
        match = URL_RE.fullmatch(url_file.read_text().strip())
        assert match, f"the URL file holds no URL: {url_file.read_text()!r}"
        yield Served(proc, match.group(1), int(match.group(2)), match.group(3), log, url_file)
    finally:
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGTERM)
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                os.kill(proc.pid, signal.SIGKILL)
                proc.wait(5)
