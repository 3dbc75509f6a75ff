"""``primetui serve`` holds: half-sent request heads are closed while the token's page is served, and out of
file descriptors it logs one line, not a traceback per failed accept, and answers again.

Every connection goes to 127.0.0.1, is bounded in number, and is closed by the test.
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


def _start(tmp_path: Path, env: dict[str, str], preexec=None) -> tuple[subprocess.Popen[bytes], Path]:
    log = tmp_path / "serve.log"
    with open(log, "ab") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "primetui", "serve", "--port", "0", "--no-spare"],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            env=dict(os.environ, PRIMETUI_CONFIG_DIR=str(tmp_path / "cfg"), **env),
            start_new_session=True,
            preexec_fn=preexec,
        )
    return proc, log


def _url(log: Path) -> str:
    found = wait_for_sync(lambda: URL_FILE_RE.search(log.read_text(errors="replace")), "serve to write its URL file")
    return Path(found.group(1)).read_text().strip()


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def _closed_by_server(sock: socket.socket) -> bool:
    try:
        while True:
            if not sock.recv(65536):
                return True
    except BlockingIOError:
        return False
    except OSError:
        return True


def test_serve_closes_half_sent_heads_and_serves_the_token_meanwhile(tmp_path: Path) -> None:
    proc, log = _start(tmp_path, {"PRIMETUI_LOCAL_HEAD_TIMEOUT": "2"})
    conns: list[socket.socket] = []
    try:
        url = _url(log)
        port = int(url.split(":")[2].split("/")[0])
        with httpx.Client(timeout=30.0) as client:
            for i in range(600):  # more than the 256 that may wait for a head at once
                sock = socket.create_connection(("127.0.0.1", port), timeout=10)
                conns.append(sock)
                sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
                sock.setblocking(False)
                if i % 200 == 199:
                    assert client.get(url).status_code == 200
            left = set(conns)

            def all_closed() -> bool:
                left.difference_update([s for s in list(left) if _closed_by_server(s)])
                return not left

            wait_for_sync(all_closed, "serve to close every half-sent head", timeout=60)
            assert client.get(url).status_code == 200
        text = log.read_text(errors="replace")
        assert "Traceback" not in text
        assert text.count("no whole request head") <= 2 and text.count("waited longest") <= 2, text[-2000:]
    finally:
        for sock in conns:
            sock.close()
        _stop(proc)


def _few_files() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (100, 100))


def test_serve_out_of_file_descriptors_logs_one_line_and_answers_again(tmp_path: Path) -> None:
    proc, log = _start(tmp_path, {}, _few_files)
    conns: list[socket.socket] = []
    try:
        url = _url(log)
        port = int(url.split(":")[2].split("/")[0])
        for _ in range(130):  # about 80 accepted before its 100 files run out, the rest queued
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            conns.append(sock)
            sock.settimeout(2.0)
            try:
                sock.connect(("127.0.0.1", port))
            except OSError:
                pass  # the server's queue is full: enough
        wait_for_sync(
            lambda: "out of system resource" in log.read_text(errors="replace"), "serve to run out of file descriptors"
        )
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
        _stop(proc)
