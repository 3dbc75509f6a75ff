"""Shared plumbing of the eval processes: a loopback JSON HTTP server, a client, readiness files."""

from __future__ import annotations

import json
import os
import re
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

from primetui.local.trainer.files import write_json_atomic

Handler = Callable[[dict[str, Any]], tuple[int, Any]]


def env_log_name(env_name: str) -> str:
    """``env-server-<name>.log``, with characters a file name cannot hold replaced by ``_``."""
    return "env-server-" + re.sub(r"[^A-Za-z0-9._-]", "_", env_name) + ".log"


def ready_file(run_dir: Path, key: str) -> Path:
    return run_dir / "evals" / f"{key}.ready.json"


def serve_json(routes: dict[tuple[str, str], Handler], on_error: Callable[[str], None]) -> ThreadingHTTPServer:
    """Start a threaded HTTP server on 127.0.0.1 (free port) routing (method, path) to handlers.

    A handler gets the JSON body (POST) or the query parameters (GET) and returns (status, body).
    """

    class _Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _dispatch(self, method: str) -> None:
            url = urlparse(self.path)
            handler = routes.get((method, url.path))
            if handler is None:
                self._reply(404, {"detail": f"no route {method} {url.path}"})
                return
            try:
                if method == "POST":
                    length = int(self.headers.get("Content-Length") or 0)
                    payload = json.loads(self.rfile.read(length) or b"{}")
                else:
                    payload = {k: v[-1] for k, v in parse_qs(url.query).items()}
                status, body = handler(payload)
            except (ValueError, KeyError, TypeError) as exc:
                status, body = 400, {"detail": f"bad request: {exc}"}
            except Exception as exc:  # noqa: BLE001 - report, keep serving
                on_error(f"{method} {url.path} failed: {type(exc).__name__}: {exc}")
                status, body = 500, {"detail": str(exc)}
            self._reply(status, body)

        def _reply(self, status: int, body: Any) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:  # noqa: N802 - http.server naming
            self._dispatch("GET")

        def do_POST(self) -> None:  # noqa: N802
            self._dispatch("POST")

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet access log
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def announce_ready(run_dir: Path, key: str, port: int) -> None:
    write_json_atomic(
        ready_file(run_dir, key), {"port": port, "pid": os.getpid(), "base_url": f"http://127.0.0.1:{port}"}
    )


def watch_parent() -> None:
    """Exit when the trainer that started this process is gone (a SIGKILLed trainer leaves no orphans)."""
    parent = os.getppid()

    def _watch() -> None:
        while True:
            time.sleep(0.5)
            if os.getppid() != parent:
                os._exit(0)

    threading.Thread(target=_watch, daemon=True).start()


def request_json(url: str, body: Any | None = None, timeout: float = 60.0) -> Any:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(
        url, data=data, method="GET" if body is None else "POST", headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(req, timeout=timeout) as resp:  # noqa: S310 - loopback only
        return json.loads(resp.read())


HTTPError = (urllib.error.URLError, ConnectionError, TimeoutError, OSError)
