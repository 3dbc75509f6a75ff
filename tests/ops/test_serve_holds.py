"""``primetui serve`` out of file descriptors: one log line, not a traceback per failed accept, and it answers again.

The server runs with a limit of 100 open files; this test opens 130 connections to it on
127.0.0.1 (bounded, and closed by the test), so its accepts fail with EMFILE.
"""

from __future__ import annotations

import os
import re
import resource
import signal
import socket
import subprocess
import sys
from pathlib import Path

import httpx

from tests.waiting import wait_for_sync

URL_FILE_RE = re.compile(r"is in (\S+) \(not printed: output is not a terminal\)")


def _few_files() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (100, 100))


def test_serve_out_of_file_descriptors_logs_one_line_and_answers_again(tmp_path: Path) -> None:
    log = tmp_path / "serve.log"
    env = dict(os.environ, PRIMETUI_CONFIG_DIR=str(tmp_path / "cfg"))
    with open(log, "ab") as out:
        proc = subprocess.Popen([sys.executable, "-m", "primetui", "serve", "--port", "0", "--no-spare"],
                                stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, env=env,
                                start_new_session=True, preexec_fn=_few_files)
    conns: list[socket.socket] = []
    try:
        found = wait_for_sync(lambda: URL_FILE_RE.search(log.read_text(errors="replace")), "serve to write its URL file")
        url = Path(found.group(1)).read_text().strip()
        port = int(url.split(":")[2].split("/")[0])
        for _ in range(130):  # about 80 accepted before its 100 files run out, the rest queued
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            conns.append(sock)
            sock.settimeout(2.0)
            try:
                sock.connect(("127.0.0.1", port))
            except OSError:
                pass  # the server's queue is full: enough
        wait_for_sync(lambda: "out of system resource" in log.read_text(errors="replace"),
                      "serve to run out of file descriptors")
        for sock in conns:
            sock.close()
        conns.clear()

        def answers() -> bool:
            try:
                return httpx.get(f"http://127.0.0.1:{port}/", timeout=10.0).status_code == 401
            except httpx.HTTPError:
                return False

        wait_for_sync(answers, "serve to answer again (401 without the token)")
        text = log.read_text(errors="replace")
        assert "Traceback" not in text, text[-3000:]
        assert text.count("out of system resource") == 1, text[-3000:]
    finally:
        for sock in conns:
            sock.close()
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
