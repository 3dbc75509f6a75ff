"""Small file primitives the platform tails: atomic JSON documents and line-flushed JSONL."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

from primetui.config.fileio import write_json_atomic

__all__ = ["JsonlAppender", "finite_row", "read_json", "write_json_atomic"]


def read_json(path: Path) -> Any:
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def finite_row(row: dict[str, Any]) -> dict[str, Any]:
    """Drop non-finite floats, as prime-rl's file monitor does (JSON has no NaN)."""
    return {k: v for k, v in row.items() if not (isinstance(v, float) and not math.isfinite(v))}


class JsonlAppender:
    """Appends one JSON object per line with a single ``write`` on an O_APPEND descriptor.

    Two processes (trainer and orchestrator) append to ``metrics.jsonl``; one ``os.write`` per
    line on an O_APPEND file keeps their lines whole.
    """

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def append(self, row: dict[str, Any]) -> None:
        data = (json.dumps(row, separators=(",", ":")) + "\n").encode()
        os.write(self._fd, data)

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
