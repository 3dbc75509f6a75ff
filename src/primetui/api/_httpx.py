"""httpx, imported without its command-line tool.

`httpx/__init__.py` imports `httpx._main` (the `httpx` CLI), which imports click, pygments and rich
whenever they are installed, as they are next to Textual. That would break the core's promise of
never loading the UI toolkit and cost a large share of the client's import time. primetui never uses
that CLI, so a stand-in module is registered first; calling its `main` loads the real one.
"""

from __future__ import annotations

import ssl
import sys
import types
from typing import Any

if "httpx" not in sys.modules and "httpx._main" not in sys.modules:
    _stub = types.ModuleType("httpx._main")

    def main(*args: Any, **kwargs: Any) -> Any:
        """Run the real httpx command line (loads click/rich only now)."""
        del sys.modules["httpx._main"]
        import importlib

        return importlib.import_module("httpx._main").main(*args, **kwargs)

    _stub.main = main  # type: ignore[attr-defined]
    sys.modules["httpx._main"] = _stub

import httpx  # noqa: E402

__all__ = ["httpx", "shared_ssl_context"]

_ssl_context: ssl.SSLContext | None = None


def shared_ssl_context() -> ssl.SSLContext:
    """One verified TLS context per process, for every client: building one loads the CA bundle (about
    30 ms of CPU here), and an httpx client builds one whenever it is made, plain-HTTP URLs included."""
    global _ssl_context
    if _ssl_context is None:
        _ssl_context = httpx.create_ssl_context()
    return _ssl_context
