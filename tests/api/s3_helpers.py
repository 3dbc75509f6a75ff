"""A stand-in S3 endpoint for the direct storage route's tests: a handler class served on 127.0.0.1,
and a ``VolumeStorage`` on it."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import SimpleNamespace

from primetui.api.volume_storage import VolumeStorage


@contextmanager
def s3_storage(handler: type[BaseHTTPRequestHandler], prefix: str) -> Iterator[VolumeStorage]:
    """A ``VolumeStorage`` on bucket ``b`` under ``prefix``, answered by ``handler``; the server is shut down after."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)  # a quick shutdown
    thread.start()
    route = SimpleNamespace(
        endpoint=f"http://127.0.0.1:{server.server_port}/s3",
        bucket="b",
        prefix=prefix,
        access_key_id="k",
        secret_access_key="s",
        session_token="t",
    )
    try:
        with VolumeStorage(route) as s:
            yield s
    finally:
        server.shutdown()
        thread.join()
        server.server_close()
