"""Small file helpers shared by the settings and preferences modules (stdlib only, no UI imports)."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any


def atomic_write_text(path: Path, text: str, *, prefix: str, suffix: str = "", mode: int | None = None) -> None:
    """Write ``text`` to ``path`` via a temporary file in the same directory and ``os.replace``.

    ``mode`` (e.g. ``0o600``) is set on the temporary file before anything is written to it. The
    directory must exist; on any failure the temporary file is removed and the error re-raised.
    """
    fd, tmp = tempfile.mkstemp(prefix=prefix, suffix=suffix, dir=path.parent)
    try:
        if mode is not None:
            os.fchmod(fd, mode)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def write_json_atomic(path: Path, data: Any, mode: int = 0o600) -> None:
    """Write ``data`` as JSON so a reader sees either the old or the new file, never half of one.

    Creates the parent directory when needed; the file gets ``mode`` (default ``0o600``).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, json.dumps(data), prefix=f".{path.name}.", suffix=".tmp", mode=mode)
