"""The real dashboard's shell pane next to a plain tmux pane, in one run (``bench/terminal.py --vs-tmux``).

Both are driven the way a user drives them, through a terminal of their own (a pty this bench
reads, with primetui's screen model standing in for the user's terminal emulator):

- primetui: the real dashboard (``primetui``, the same app ``primetui --local`` opens) on a local
  platform; ``v`` opens the volumes screen, ``o`` a read-write session on the one volume, and
  ``enter`` its shell pane once the session is ready (SSH through the TLS gateway);
- tmux: ``tmux`` (no config, no status line) running ``bash --norc`` in a pane the size of the
  terminal, on the same machine.

In each, the same flood is typed at the prompt: ``seq 1 N`` on the pane's terminal, with a small
key reader beside it (``FLOOD`` below). The reader takes the terminal out of echo and draws each
key it gets on the pane's top row, outside the scroll region ``seq`` scrolls, as ``KEY-<c>-<i>``;
so a key's echo stays on the screen until the next one instead of scrolling off with the flood,
and it travels the same way an echo does (the remote pty, behind whatever output is queued ahead
of it). Measured:

- key -> echo: from writing a key to the terminal until ``KEY-<c>-<i>`` is on the screen the
  program (the dashboard or tmux) has written to its terminal; keys every ``--key-gap`` s while
  ``seq`` runs, one at a time (the next is sent once the last is seen, or after 5 s);
- end of output: from ``seq`` exiting (the reader's ``waitpid`` returns; ``CLOCK_MONOTONIC`` is
  shared by the processes) until the line the reader prints then is on the screen.
"""

from __future__ import annotations

import os
import pty
import shutil
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import threading
import time
from pathlib import Path

FLOOD = r"""
import os, select, subprocess, sys, termios, threading, time
n, tag, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
old = termios.tcgetattr(0)
new = termios.tcgetattr(0)
new[3] &= ~(termios.ECHO | termios.ICANON)
termios.tcsetattr(0, termios.TCSANOW, new)
rows = os.get_terminal_size(1).lines
os.write(1, b"\x1b[H\x1b[2J\x1b[2;%dr\x1b[%d;1H" % (rows, rows))
seq = subprocess.Popen(["seq", "1", str(n)])
done = threading.Event()
def wait():
    seq.wait()
    t = time.monotonic()
    os.write(1, b"\r\nEND-OF-FLOOD-%d\r\n" % (tag * 7))
    with open(out, "w") as f:
        f.write(repr(t))
    done.set()
threading.Thread(target=wait, daemon=True).start()
count = 0
while not done.is_set():
    if select.select([0], [], [], 0.02)[0]:
        for ch in os.read(0, 64).decode():
            count += 1
            os.write(1, ("\x1b7\x1b[1;1H\x1b[2KKEY-%s-%d\x1b8" % (ch, count)).encode())
os.write(1, b"\x1b[r")
termios.tcsetattr(0, termios.TCSANOW, old)
"""

KEYS = "abcdefghijklmnopqrstuvwxyz"
PACED = 0.05  # a tmux flood whose echo p50 is above this: tmux paced its redraws (~100 ms) in it


class Outer:
    """A program on a pty of ``cols`` x ``rows``; what it writes feeds a screen model (the user's terminal)."""

    def __init__(self, argv: list[str], env: dict[str, str], cols: int = 120, rows: int = 40) -> None:
        from primetui.shell.term import Terminal

        self.term = Terminal(cols, rows, scrollback=0)
        self.lock = threading.Lock()
        self.watches: dict[str, float | None] = {}  # token -> when it was first on the screen
        self.last_read = 0.0
        self.nbytes = 0
        pid, fd = pty.fork()
        if pid == 0:
            try:
                os.execve(argv[0], argv, dict(env, TERM="xterm-256color", COLUMNS=str(cols), LINES=str(rows)))
            finally:
                os._exit(127)
        self.pid, self.fd = pid, fd
        import fcntl

        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        while True:
            try:
                data = os.read(self.fd, 1 << 16)
            except OSError:
                return
            if not data:
                return
            now = time.monotonic()
            with self.lock:
                self.last_read = now
                self.nbytes += len(data)
                self.term.feed(data)
                replies = self.term.take_replies()
                pending = [t for t, seen in self.watches.items() if seen is None]
                if pending:
                    screen = "\n".join(self.term.display())
                    for token in pending:
                        if token in screen:
                            self.watches[token] = now
            if replies:
                os.write(self.fd, replies.encode())

    def text(self) -> str:
        with self.lock:
            return "\n".join(self.term.display())

    def send(self, data: str) -> None:
        os.write(self.fd, data.encode())

    def wait_for(self, what: str, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if what in self.text():
                return
            time.sleep(0.02)
        raise RuntimeError(f"timed out waiting for {what!r}; the screen:\n{self.text()}")

    def expect(self, token: str) -> None:
        """Watch for ``token`` from now on (checked on every read)."""
        with self.lock:
            self.watches[token] = time.monotonic() if token in "\n".join(self.term.display()) else None

    def seen(self, token: str) -> float | None:
        with self.lock:
            return self.watches.get(token)

    def close(self) -> None:
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.kill(self.pid, sig)
            except ProcessLookupError:
                break
            deadline = time.monotonic() + 3
            while time.monotonic() < deadline:
                if os.waitpid(self.pid, os.WNOHANG) != (0, 0):
                    break
                time.sleep(0.05)
            else:
                continue
            break
        try:
            os.close(self.fd)
        except OSError:
            pass


def flood_once(outer: Outer, script: Path, n: int, tag: int, key_gap: float, tmp: Path) -> tuple[list[float], float]:
    """Type the flood at the prompt, send keys while it runs; (key -> echo seconds, end -> drawn seconds)."""
    out = tmp / f"end-{tag}"
    out.unlink(missing_ok=True)
    end_token = f"END-OF-FLOOD-{tag * 7}"
    outer.expect(end_token)  # from the start: the end may be drawn while a key is still awaited
    outer.send(f"{sys.executable} {script} {n} {tag} {out}\r")
    time.sleep(0.5)  # the flood is under way
    latencies: list[float] = []
    i = 0
    while not out.exists():
        ch = KEYS[i % len(KEYS)]
        i += 1
        token = f"KEY-{ch}-{i}"
        outer.expect(token)
        sent = time.monotonic()
        outer.send(ch)
        while outer.seen(token) is None and time.monotonic() - sent < 5 and not out.exists():
            time.sleep(0.001)
        while outer.seen(token) is None and time.monotonic() - sent < 5 and outer.seen(end_token) is None:
            time.sleep(0.001)  # seq ended: the key counts if the reader took it before it stopped
        seen = outer.seen(token)
        if seen is not None:
            latencies.append(seen - sent)
        elif not out.exists():
            latencies.append(float("inf"))
        time.sleep(key_gap)
    deadline = time.monotonic() + 30
    while outer.seen(end_token) is None and time.monotonic() < deadline:
        time.sleep(0.001)
    end = float(out.read_text())
    seen = outer.seen(end_token)
    # Keys still in flight when seq ended: their echo came after the flood, not during it.
    return latencies, (seen - end) if seen is not None else float("inf")


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, int(round(len(xs) * p)) - 1))]


def fmt_ms(x: float) -> str:
    return "never" if x == float("inf") else f"{x * 1000:.1f}"


def _dashboard_pane(stack, tmp: Path, home: Path, key_path: Path, base_env: dict[str, str], src: str) -> Outer:
    """The real dashboard on a local platform of its own (both run ``src``), its shell pane open."""
    import httpx

    from primetui.local.testing import LocalPlatform

    lp = stack.enter_context(
        LocalPlatform.start(
            tmp, demo=False, env={"HOME": str(home), "PRIME_SSH_KEY_PATH": str(key_path), "PYTHONPATH": src}
        )
    )
    with httpx.Client(base_url=lp.api_url, headers=lp.headers, timeout=30) as c:
        c.post("/training/volumes", json={"name": "bench", "size": "10Gi", "warm": False}).raise_for_status()
    cfg = tmp / "home"
    app_env = dict(
        base_env,
        PYTHONPATH=src,
        PRIME_BASE_URL=lp.base_url,
        PRIME_API_KEY=lp.token,
        PRIME_DISABLE_VERSION_CHECK="1",
        PRIMETUI_CONFIG_DIR=str(cfg / "cfg"),
        PRIMETUI_CACHE_DIR=str(cfg / "cache"),
    )
    app = Outer([sys.executable, "-m", "primetui"], app_env)
    stack.callback(app.close)
    app.wait_for("v Volumes", timeout=60)
    time.sleep(0.5)
    app.send("v")
    app.wait_for("bench  10Gi", timeout=60)
    time.sleep(1.0)
    app.send("o")
    app.wait_for(" ready ", timeout=120)
    time.sleep(1.0)
    app.send("\r")
    app.wait_for("Leave shell", timeout=60)
    time.sleep(2.0)  # the shell's first prompt
    return app


def run(n: int, repeat: int, key_gap: float, src: str, other_src: str | None = None) -> None:
    """``other_src``: also a dashboard running another checkout's code (app and platform), in turn."""
    import contextlib

    from ptyapp import ssh_key_home

    load0 = os.getloadavg()
    print(
        f"pane vs tmux: seq 1 {n} with keys every {key_gap * 1000:.0f} ms, {repeat} floods each, alternating; "
        f"load average {' '.join(f'{x:.2f}' for x in load0)}"
    )
    names = ["primetui", *(["before"] if other_src else []), "tmux"]
    results: dict[str, dict[str, list]] = {k: {"echo": [], "end": [], "floods": []} for k in names}
    with tempfile.TemporaryDirectory() as tmp_s, contextlib.ExitStack() as stack:
        tmp = Path(tmp_s)
        script = tmp / "flood.py"
        script.write_text(FLOOD)
        home, key_path = ssh_key_home(tmp)
        base_env = {k: v for k, v in os.environ.items() if not k.startswith(("PRIME", "TMUX", "PYTHONPATH"))}
        base_env.update(HOME=str(home), PRIME_SSH_KEY_PATH=str(key_path))
        outers: dict[str, Outer] = {}
        for name, side_src in (("primetui", src), ("before", other_src)):
            if side_src:
                (tmp / name).mkdir()
                outers[name] = _dashboard_pane(stack, tmp / name, home, key_path, base_env, side_src)
        sock = f"pvt{os.getpid()}"
        # No status line: the pane is the whole terminal, so tmux scrolls it with plain line feeds,
        # which this bench's screen model takes in bulk (it must not be what slows tmux down).
        outers["tmux"] = tmux = Outer(
            [
                shutil.which("tmux") or "tmux",
                "-L",
                sock,
                "-f",
                "/dev/null",
                "new-session",
                "-s",
                "b",
                "bash --norc --noprofile",
                ";",
                "set",
                "-g",
                "status",
                "off",
            ],
            dict(base_env, PS1="$ "),
        )
        stack.callback(subprocess.run, ["tmux", "-L", sock, "kill-server"], capture_output=True)
        stack.callback(tmux.close)
        for outer in outers.values():
            outer.send("echo READY-$((40+2))\r")
            outer.wait_for("READY-42", timeout=60)
        time.sleep(1.0)
        tag = 1
        for round_ in range(repeat):
            for name in names:
                outer = outers[name]
                written = outer.nbytes
                lat, end = flood_once(outer, script, n, tag, key_gap, tmp)
                written = outer.nbytes - written
                tag += 1
                results[name]["echo"].extend(lat)
                results[name]["floods"].append(lat)
                results[name]["end"].append(end)
                print(
                    f"  {name:8s} flood {round_ + 1}: {len(lat)} keys, echo p50 "
                    f"{fmt_ms(statistics.median(lat)) if lat else '-'} ms, "
                    f"max {fmt_ms(max(lat)) if lat else '-'} ms; end of output drawn {fmt_ms(end)} ms after seq "
                    f"exited; "
                    f"it wrote {written / 1e6:.1f} MB to its terminal",
                    flush=True,
                )
                time.sleep(0.5)
                # ctrl+u first: a key sent as the reader ended went to the prompt
                outer.send(f"\x15clear; echo READY-$(({tag}+1000))\r")
                outer.wait_for(f"READY-{tag + 1000}", timeout=60)
                time.sleep(0.5)
    load1 = os.getloadavg()
    columns = {
        "primetui": "primetui pane (SSH, local platform)",
        "before": f"before ({other_src})",
        "tmux": "tmux pane (bash)",
    }
    print(
        f"\n| seq 1 {n}, keys every {key_gap * 1000:.0f} ms during the flood | "
        + " | ".join(columns[k] for k in names)
        + " | primetui / tmux |"
    )
    print("|---|" + "---:|" * (len(names) + 1))
    for label, f in (
        ("key -> echo p50 (ms)", lambda r: statistics.median(r["echo"])),
        ("key -> echo p95 (ms)", lambda r: pct(r["echo"], 0.95)),
        ("key -> echo max (ms)", lambda r: max(r["echo"])),
        ("end of output drawn after seq exits, p50 (ms)", lambda r: statistics.median(r["end"])),
        ("end of output drawn after seq exits, max (ms)", lambda r: max(r["end"])),
    ):
        values = {k: f(results[k]) for k in names}
        a, b = values["primetui"], values["tmux"]
        ratio = f"x{a / b:.2f}" if b and a != float("inf") else "-"
        print(f"| {label} | " + " | ".join(fmt_ms(values[k]) for k in names) + f" | {ratio} |")
    # tmux paces its redraws in some floods (~100 ms an echo, every key): its p95 over all keys then
    # says more about that than about a fast terminal. The same figure over the floods it did not pace:
    unpaced = [f for f in results["tmux"]["floods"] if f and statistics.median(f) < PACED]
    if unpaced:
        t95 = pct([x for f in unpaced for x in f], 0.95)
        a95 = pct(results["primetui"]["echo"], 0.95)
        print(
            f"| key -> echo p95, tmux only in the floods it did not pace (p50 under {PACED * 1000:.0f} ms: "
            f"{len(unpaced)} of {len(results['tmux']['floods'])}) (ms) | {fmt_ms(a95)} | "
            + ("- | " if other_src else "")
            + f"{fmt_ms(t95)} | x{a95 / t95:.2f} |"
        )
    fast = [x for x in results["tmux"]["echo"] if x < PACED]
    if fast:
        t95, a95 = pct(fast, 0.95), pct(results["primetui"]["echo"], 0.95)
        print(
            f"| key -> echo p95, tmux only its keys echoed under {PACED * 1000:.0f} ms "
            f"({len(fast)} of {len(results['tmux']['echo'])}) (ms) | {fmt_ms(a95)} | "
            + ("- | " if other_src else "")
            + f"{fmt_ms(t95)} | x{a95 / t95:.2f} |"
        )
    print(
        "| keys / floods | "
        + " | ".join(f"{len(results[k]['echo'])} / {len(results[k]['end'])}" for k in names)
        + " | |"
    )
    print(
        f"load average {' '.join(f'{x:.2f}' for x in load0)} at the start, {' '.join(f'{x:.2f}' for x in load1)} at "
        f"the end "
        f"({os.cpu_count()} cores)"
    )
