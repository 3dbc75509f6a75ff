"""The platform's rules for volume paths (prime CLI 0.18.0, commands/volumes.py:514-779).

A remote path is volume-relative: a leading ``/`` means the root, a trailing ``/`` means "into this
directory", ``..`` may not climb above the root, and only ``[A-Za-z0-9._@%+=,:-]`` may appear in a
name (the CLI passes paths to rsync/scp unquoted). A name is at most 255 bytes and a whole path
1024. ``runs/`` holds run outputs and is read-only for put; a root put writes at most 256
top-level names. Messages match the CLI's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from primetui.shell.errors import RemotePathError

SAFE_SEGMENT = re.compile(r"[A-Za-z0-9._@%+=,:-]+")
MAX_SEGMENT, MAX_KEY = 255, 1024
ROOT_PUT_MAX_ENTRIES = 256
MOUNT = "/volume"
RUNS_READ_ONLY = "runs/ holds run outputs and is read-only; put elsewhere."


@dataclass(frozen=True)
class RemotePath:
    """A checked volume path: ``rel`` has no leading or trailing slash ('' is the root)."""

    rel: str
    into: bool

    @property
    def remote(self) -> str:
        """The path on the session (the volume is mounted at /volume)."""
        return MOUNT + ("/" + self.rel if self.rel else "")

    def child(self, name: str) -> RemotePath:
        return RemotePath(f"{self.rel}/{name}" if self.rel else name, False)


def check_length(rel: str, shown: str | None = None) -> None:
    """Refuse a name over 255 bytes or a path over 1024 bytes (UTF-8)."""
    if not rel:
        return
    seg = max(len(s.encode("utf-8", "surrogateescape")) for s in rel.split("/"))
    key = len(rel.encode("utf-8", "surrogateescape"))
    if seg > MAX_SEGMENT:
        why = f"a name is {seg} bytes (at most {MAX_SEGMENT})"
    elif key > MAX_KEY:
        why = f"the full path is {key} bytes (at most {MAX_KEY})"
    else:
        return
    raise RemotePathError(f"Path too long: {shown or rel}: {why}. Nothing was copied.")


def remote_path(path: str) -> RemotePath:
    """Normalise and check a volume path as ``prime volumes put/get`` do."""
    parts: list[str] = []
    for part in path.split("/"):
        if part == "..":
            if not parts:
                raise RemotePathError(f"Invalid remote path {path!r}: '..' climbs above the volume root.")
            parts.pop()
        elif part not in ("", "."):
            parts.append(part)
    if not all(SAFE_SEGMENT.fullmatch(p) for p in parts):
        raise RemotePathError(
            f"Invalid remote path {path!r}: use letters, digits and ._-@%+=,: only "
            "(no spaces or shell characters). For other names, use the shell."
        )
    rel = "/".join(parts)
    check_length(rel, path)
    into = path.endswith("/") or path.rsplit("/", 1)[-1] in (".", "..") or not parts
    return RemotePath(rel, into)


def check_put_names(target: RemotePath, top_names: list[str]) -> None:
    """Refuse a put that writes under runs/ or too many names into the root."""
    first = target.rel.split("/", 1)[0] if target.rel else None
    names = [first] if first else top_names
    if "runs" in names:
        raise RemotePathError(RUNS_READ_ONLY)
    if not target.rel and len(top_names) > ROOT_PUT_MAX_ENTRIES:
        raise RemotePathError(
            f"A put to the volume root writes at most {ROOT_PUT_MAX_ENTRIES} top-level names; "
            f"this one writes {len(top_names)}. Put into a subdirectory instead."
        )
