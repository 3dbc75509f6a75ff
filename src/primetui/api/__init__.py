"""primetui.api: the platform client (`PrimeClient`), its wire models, errors and followers.

UI-free and quick to import; the names below load their module on first use.
"""

from __future__ import annotations

import importlib
from typing import Any

_LAZY = {
    "PrimeClient": "primetui.api.client",
    "PrimeAPIError": "primetui.api.errors",
    "RunWatcher": "primetui.api.followers",
    "MetricsFollower": "primetui.api.followers",
    "LogFollower": "primetui.api.followers",
}

__all__ = list(_LAZY)


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'primetui.api' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
