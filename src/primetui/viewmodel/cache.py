"""Last-known runs list on disk, so the first frame paints before any network reply arrives.

One small JSON file per platform (keyed by base URL) in the user cache dir
(``PRIMETUI_CACHE_DIR`` overrides). It holds the runs of the first page and their loss
series, never the API key and never run configs. It is shown marked "cached" until the first
live reply replaces it. Any problem reading it just means no cache. The file is written only when the runs or their
losses differ from what it holds (polls of an unchanged list write nothing).
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from primetui.api.plainrun import PlainRun, Run
from primetui.config.fileio import atomic_write

VERSION = 1
MAX_LOSSES = 64


def cache_dir() -> Path | None:
    base = os.environ.get("PRIMETUI_CACHE_DIR")
    if base:
        return Path(base)
    try:
        import platformdirs

        return Path(platformdirs.user_cache_dir("primetui"))
    except Exception:  # noqa: BLE001
        return None


def _path(base_url: str) -> Path | None:
    root = cache_dir()
    if root is None or not base_url:
        return None
    key = hashlib.sha256(base_url.encode()).hexdigest()[:16]
    return root / f"runs-{key}.json"


def _plain(run: Run) -> dict[str, Any]:
    data = run.to_wire() if isinstance(run, PlainRun) else run.model_dump(mode="json", by_alias=True, exclude_none=True)
    for secretish in ("runConfig", "run_config", "evalConfig", "valConfig", "bufferConfig", "teacher"):
        data.pop(secretish, None)
    return data


def save_runs(base_url: str, runs: list[Run], losses: dict[str, list[tuple[int, float]]], saved_at: str) -> None:
    """Write the first page of runs atomically; failures are ignored (a cache is optional)."""
    path = _path(base_url)
    if path is None:
        return
    payload = {
        "version": VERSION,
        "base_url": base_url,
        "saved_at": saved_at,
        "runs": [_plain(r) for r in runs],
        "losses": {k: v[-MAX_LOSSES:] for k, v in losses.items()},
    }
    content = _content(payload)
    if _written.get(path) == content:
        return
    if path not in _written:  # the first save of this process: the file may already hold it
        old = load_runs(base_url)
        if old is not None and _content(old) == content:
            _written[path] = content
            return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, json.dumps(payload), mode=0o600)  # run names and ids are the user's business
    except OSError:
        return
    _written[path] = content


_written: dict[Path, str] = {}
"""What this process last wrote to each cache file (runs and losses): an unchanged list is not written again."""


def _content(payload: dict[str, Any]) -> str:
    """The part of a cache payload that is data (not when it was saved), in one canonical form."""
    return json.dumps({"runs": payload.get("runs"), "losses": payload.get("losses")}, sort_keys=True, default=str)


def load_runs(base_url: str) -> dict[str, Any] | None:
    """The cached payload for this platform, or None."""
    path = _path(base_url)
    if path is None:
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("version") != VERSION or data.get("base_url") != base_url:
        return None
    if not isinstance(data.get("runs"), list):
        return None
    return data


def cached_runs(data: dict[str, Any]) -> list[PlainRun]:
    """The runs of a payload :func:`load_runs` gave (a file on disk: a run without an id is left out)."""
    runs = (PlainRun.from_wire(raw) for raw in data.get("runs") or () if isinstance(raw, dict))
    return [run for run in runs if run is not None]
