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


from primetui.local.testing import LocalPlatform

URL_RE = re.compile(r"(http://127\.0\.0\.1:(\d+)/\?token=([A-Za-z0-9_-]+))")
URL_FILE_RE = re.compile(r"is in (\S+) \(not printed: output is not a terminal\)")


def is_waiting_spare(entry: Path) -> bool:
    """Started as a spare (its environment has the marker) and not yet named ``primetui`` by a tab's ``go``."""
    try:
        environ = (entry / "environ").read_bytes().split(b"\0")
        comm = (entry / "comm").read_text().strip()
    except OSError:
        return False
    return b"PRIMETUI_SERVE_SPARE=1" in environ and comm != "primetui"


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

    def _children(self) -> list[Path]:
        """/proc entries of the server's live children (not zombies)."""
        kids = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if int(fields[1]) == self.proc.pid and fields[0] != "Z":
                kids.append(entry)
        return kids

    def app_processes(self) -> list[int]:
        """Pids of the tab app processes: the server's children, less a local platform it started
        and a spare waiting for the next tab (primetui.commands.spare)."""
        kids = []
        for entry in self._children():
            try:
                argv = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if b"local" in argv or is_waiting_spare(entry):  # `serve --local` also starts the local platform
                continue
            kids.append(int(entry.name))
        return kids

    def spares(self) -> list[int]:
        """Pids of the server's children waiting as the next tab's app."""
        return [int(e.name) for e in self._children() if is_waiting_spare(e)]

    def wait_spare_warm(self, timeout: float = 60.0) -> int:
        """A spare that has done its imports: asleep, its CPU time unchanged over 0.3 s; returns its pid."""
        deadline = time.monotonic() + timeout
        last: tuple[int, int] | None = None
        while time.monotonic() < deadline:
            for pid in self.spares():
                try:
                    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
                except OSError:
                    continue
                ticks = int(fields[11]) + int(fields[12])
                if fields[0] == "S" and last == (pid, ticks):
                    return pid
                last = (pid, ticks)
            time.sleep(0.3)
        raise AssertionError(f"no spare finished its imports within {timeout} s (spares: {self.spares()})")

    def wait_processes(self, n: int, timeout: float = 30.0) -> list[int]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = self.app_processes()
            if len(found) == n:
                return found
            time.sleep(0.1)
        raise AssertionError(f"expected {n} app process(es), found {self.app_processes()}")


def seed_run(lp: LocalPlatform, name: str) -> str:
    """A run called ``name`` on the demo volume for the runs list to show; returns its id. It is stored
    ended (``LocalPlatform.insert_runs``: the row dispatch stores), since what these tests read is the
    list's row, and training it would only take a core from the tabs under test."""
    return lp.insert_runs([name], volume="research")[0]


@contextmanager
def serve(lp: LocalPlatform, tmp: Path, *extra: str, keep_local_dir: bool = False) -> Iterator[Served]:
    home = tmp / "home"
    home.mkdir(exist_ok=True)
    env = dict(
        os.environ,
        HOME=str(home),
        PRIME_API_KEY=lp.token,
        PRIME_BASE_URL=lp.base_url,
        PRIMETUI_CONFIG_DIR=str(tmp / "cfg"),
    )
    for key in ("PRIME_API_BASE_URL", "PRIME_CONTEXT", "PRIME_TEAM_ID") + (
        () if keep_local_dir else ("PRIMETUI_LOCAL_DATA_DIR",)
    ):
        env.pop(key, None)
    log = tmp / "serve.log"
    with open(log, "w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "primetui", "serve", "--port", "0", *extra],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
            start_new_session=True,
        )
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
