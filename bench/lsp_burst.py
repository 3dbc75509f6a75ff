"""The language server under a burst of changes to a ~5 MB sft.toml (issue 43 finding 6).

Run: ``uv run python -m bench.lsp_burst [--before SRC]``. Opens the file in ``primetui lsp`` over
stdio, waits for its first diagnostics, then sends 5 quick changes (one character each, at the end)
and a hover right after the last one; prints the seconds from the last change to the hover's
reply, to the diagnostics of the last version, and how many diagnostics were published for the
5 changes. Then one more change, and a hover 1 s later, while that change's check runs: the seconds
that hover took. ``--before SRC`` runs another checkout's server (PYTHONPATH=SRC) the same way.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from queue import Queue

from bench.validate import ONLINE_EVAL

URI = "file:///bench/sft.toml"


def big_text(sources: int = 40000) -> str:
    return ONLINE_EVAL + "".join(
        f'\n[[eval.source]]\nname = "env-{i}"\nenv = {{ taskset = {{ id = "org/task-{i}" }} }}\n'
        "num_examples = 32\ngroup_size = 2\n"
        for i in range(sources)
    )


class Server:
    def __init__(self, pythonpath: str | None) -> None:
        env = dict(os.environ, **({"PYTHONPATH": pythonpath} if pythonpath else {}))
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "primetui.commands.cli", "lsp"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        self.inbox: Queue = Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        out = self.proc.stdout
        while True:
            headers = {}
            while (line := out.readline()) not in (b"\r\n", b""):
                name, _, value = line.decode().partition(":")
                headers[name.strip().lower()] = value.strip()
            if not headers:
                return
            self.inbox.put((time.perf_counter(), json.loads(out.read(int(headers["content-length"])))))

    def send(self, **msg) -> None:
        body = json.dumps({"jsonrpc": "2.0", **msg}).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def until(self, cond) -> tuple[float, dict]:
        while True:
            at, msg = self.inbox.get(timeout=600)
            if cond(msg):
                return at, msg


def change(s: Server, version: int, line: int) -> None:
    at = {"line": line, "character": 0}
    s.send(
        method="textDocument/didChange",
        params={
            "textDocument": {"uri": URI, "version": version},
            "contentChanges": [{"range": {"start": at, "end": at}, "text": "#"}],
        },
    )


def hover(s: Server, request: int) -> float:
    """Send a hover on line 1 (``max_steps``); the time its reply came (checked to name the key)."""
    s.send(
        id=request,
        method="textDocument/hover",
        params={"textDocument": {"uri": URI}, "position": {"line": 0, "character": 1}},
    )
    at, reply = s.until(lambda m: m.get("id") == request)
    assert "max_steps" in reply["result"]["contents"]["value"], reply
    return at


def run(pythonpath: str | None) -> tuple[float, float, int, float]:
    text = big_text()
    lines = text.count("\n")
    s = Server(pythonpath)
    s.send(id=1, method="initialize", params={"processId": None, "rootUri": None, "capabilities": {}})
    s.until(lambda m: m.get("id") == 1)
    s.send(method="initialized", params={})
    s.send(
        method="textDocument/didOpen",
        params={"textDocument": {"uri": URI, "languageId": "toml", "version": 1, "text": text}},
    )
    s.until(lambda m: m.get("method") == "textDocument/publishDiagnostics")
    for v in range(2, 7):
        change(s, v, lines)
        time.sleep(0.05)  # typing speed
    last = time.perf_counter()
    after_burst = hover(s, 2) - last
    published = 0
    while True:
        at, msg = s.until(lambda m: m.get("method") == "textDocument/publishDiagnostics")
        published += 1
        if msg["params"].get("version") in (6, None) and published >= (1 if msg["params"].get("version") else 5):
            break
    change(s, 7, lines)
    time.sleep(1.0)  # the check of version 7 starts 0.15 s after the change and runs for seconds
    sent = time.perf_counter()
    during_check = hover(s, 4) - sent
    s.until(lambda m: m.get("method") == "textDocument/publishDiagnostics")
    s.send(id=3, method="shutdown", params={})
    s.until(lambda m: m.get("id") == 3)
    s.send(method="exit", params={})
    s.proc.wait(timeout=60)
    return after_burst, at - last, published, during_check


def main() -> None:
    before = sys.argv[sys.argv.index("--before") + 1] if "--before" in sys.argv else None
    print(f"file: {len(big_text()) / 1e6:.1f} MB; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    for label, path in (("before", before), ("now", None)) if before else (("now", None),):
        hover_s, diags, published, during = run(path)
        print(
            f"{label:>6}: hover {hover_s:.2f} s after the last change; last version's diagnostics {diags:.2f} s; "
            f"{published} publication(s) for 5 changes; a hover during a check {during:.2f} s"
        )


if __name__ == "__main__":
    main()
