"""Crash-safe drafts of the editor buffer, one per edited file, under the user data dir.

The editor writes the buffer here at most one second after each change (atomic replace), so a
crash or ``kill -9`` loses at most about a second of typing; a clean save or an explicit discard
deletes the draft. On the next open a draft that differs from the file is offered back.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

from primetui.config.fileio import atomic_write


def drafts_dir() -> Path:
    """``$PRIMETUI_DRAFTS_DIR`` or ``<user data dir>/primetui/drafts``."""
    env = os.environ.get("PRIMETUI_DRAFTS_DIR")
    if env:
        return Path(env)
    from platformdirs import user_data_dir

    return Path(user_data_dir("primetui")) / "drafts"


@dataclass(frozen=True)
class Draft:
    path: Path  # the file the draft belongs to
    text: str
    saved_at: float


class DraftStore:
    """Read, write and drop the draft of one file."""

    def __init__(self, target: Path, root: Path | None = None) -> None:
        self.target = target.expanduser().resolve()
        key = hashlib.sha256(str(self.target).encode()).hexdigest()[:24]
        self.root = root or drafts_dir()
        self.file = self.root / f"{key}.json"

    def write(self, text: str) -> None:
        """Atomically store ``text`` (raises OSError when the data dir is not writable)."""
        self.root.mkdir(parents=True, exist_ok=True)
        payload = json.dumps({"path": str(self.target), "saved_at": time.time(), "text": text}, ensure_ascii=False)
        atomic_write(self.file, payload)

    def read(self) -> Draft | None:
        """The stored draft, or None (a corrupt draft file reads as none)."""
        try:
            data = json.loads(self.file.read_text(encoding="utf-8"))
            return Draft(Path(data["path"]), str(data["text"]), float(data.get("saved_at", 0)))
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def drop(self) -> None:
        try:
            self.file.unlink()
        except OSError:
            pass
