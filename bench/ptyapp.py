"""A program in a pty of its own: every byte it writes to the terminal is counted and drawn on a pyte screen.

    with PtyApp([exe, "runs"], env, cols=120, rows=35) as app:
        app.wait_for(lambda screen: run_id in screen)
        window = app.measure(30)        # bytes written, writes, CPU seconds over 30 s

The screen (pyte) lets a caller wait for what a user would see; the counts are the app's own output
as the terminal receives it. CPU is user + system time of the process from /proc/PID/stat.
"""

from __future__ import annotations

import fcntl
import os
import pty
import signal
import struct
import termios
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path


def cpu_seconds(pid: int) -> float:
    """User + system CPU time so far of a live process (all its threads), from /proc."""
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass
class Window:
    seconds: float
    bytes: int
    writes: int
    cpu: float
    reads: list[tuple[float, int]]

    def per_30s(self, value: float) -> float:
        return value * 30.0 / self.seconds


class PtyApp:
    """Run ``argv`` on a fresh pty of ``cols`` x ``rows`` (TERM=xterm-256color) and read all it writes."""

    def __init__(self, argv: list[str], env: dict[str, str], *, cols: int = 120, rows: int = 35) -> None:
        import pyte

        self.screen = pyte.Screen(cols, rows)
        self._stream = pyte.ByteStream(self.screen)
        self._lock = threading.Lock()
        self.reads: list[tuple[float, int]] = []
        self.raw: list[bytes] = []
        """Every read, as read (to see what was repainted)."""
        self.after_feed: Callable[[float, pyte.Screen], None] | None = None
        """Called in the reader thread after each read is drawn (its time, the screen), under the lock."""
        pid, fd = pty.fork()
        if pid == 0:  # the child: its stdin/stdout/stderr are the pty's slave side
            try:
                os.execve(argv[0], argv, dict(env, TERM="xterm-256color", COLUMNS=str(cols), LINES=str(rows)))
            finally:
                os._exit(127)
        self.pid, self.fd = pid, fd
        self.closing = False
        """Set by ``close``: the reader stops, so it never reads the fd number once another file reuses it."""
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        os.kill(pid, signal.SIGWINCH)
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while True:
            try:
                data = os.read(self.fd, 1 << 16)
            except OSError:
                return
            if not data:
                return
            with self._lock:
                self.reads.append((time.monotonic(), len(data)))
                self.raw.append(data)
                self._stream.feed(data)
                if self.after_feed is not None:
                    self.after_feed(self.reads[-1][0], self.screen)

    def text(self) -> str:
        with self._lock:
            return "\n".join(self.screen.display)

    def send(self, keys: str | bytes) -> None:
        os.write(self.fd, keys.encode() if isinstance(keys, str) else keys)

    def wait_for(self, what: Callable[[str], bool], timeout: float = 60.0, label: str = "the screen") -> str:
        """Poll the drawn screen until ``what(text)`` holds (a condition a user would see)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            text = self.text()
            if what(text):
                return text
            if not self.alive():
                raise RuntimeError(f"the program exited while waiting for {label}:\n{text}")
            time.sleep(0.05)
        raise RuntimeError(f"timed out waiting for {label}:\n{self.text()}")

    def wait_quiet(self, quiet: float = 2.0, timeout: float = 60.0) -> None:
        """Until nothing has been written for ``quiet`` seconds (the first paints and loads are over)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                last = self.reads[-1][0] if self.reads else 0.0
            if time.monotonic() - last >= quiet:
                return
            time.sleep(0.1)

    def measure(self, seconds: float, during: Callable[[], None] | None = None) -> Window:
        """Bytes, writes and CPU over the next ``seconds``; ``during`` runs right after the window opens."""
        with self._lock:
            start_index = len(self.reads)
        cpu0, t0 = cpu_seconds(self.pid), time.monotonic()
        if during:
            during()
        time.sleep(max(0.0, seconds - (time.monotonic() - t0)))
        cpu1, t1 = cpu_seconds(self.pid), time.monotonic()
        with self._lock:
            reads = [r for r in self.reads[start_index:] if r[0] <= t1]
        return Window(t1 - t0, sum(n for _, n in reads), len(reads), cpu1 - cpu0, reads)

    def alive(self) -> bool:
        try:
            return os.waitpid(self.pid, os.WNOHANG) == (0, 0)
        except ChildProcessError:
            return False

    def close(self) -> None:
        self.closing = True
        if self.alive():
            os.kill(self.pid, signal.SIGTERM)
            deadline = time.monotonic() + 5
            while self.alive() and time.monotonic() < deadline:
                time.sleep(0.05)
            if self.alive():
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
        # The reader ends (EIO once the child is gone, or ``closing``) before the fd is closed: a thread
        # still reading the number after close could read whatever file is opened next under it.
        self._reader.join(timeout=2)
        try:
            os.close(self.fd)
        except OSError:
            pass

    def __enter__(self) -> PtyApp:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def ssh_key_home(tmp: Path) -> tuple[Path, Path]:
    """A HOME under ``tmp`` holding a fresh ed25519 key pair for `prime volumes ssh`: (home, private key)."""
    import asyncssh

    home = tmp / "home"
    key_path = home / ".ssh" / "id_ed25519"
    key_path.parent.mkdir(parents=True)
    key = asyncssh.generate_private_key("ssh-ed25519")
    key_path.write_bytes(key.export_private_key())
    os.chmod(key_path, 0o600)
    Path(str(key_path) + ".pub").write_bytes(key.export_public_key())
    return home, key_path
