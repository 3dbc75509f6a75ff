"""Where the local platform keeps things, and the one helper that keeps client paths inside a volume.

Layout of a data dir::

    <data_dir>/token              bearer token (0600), generated on first start
    <data_dir>/state.sqlite3      the store (WAL)
    <data_dir>/server.json        {"base_url", "token", "pid"} of the server serving this dir
    <data_dir>/last-port          the port the last server took (the launcher asks for it again)
    <data_dir>/models.toml        the local model cache (user-editable)
    <data_dir>/sft.toml           the walkthrough config (demo data)
    <data_dir>/volumes/<name>/    one directory per volume of the personal account
    <data_dir>/volumes/_teams/<teamId>/<name>/   one per volume of a team (names are unique per owner)
    <data_dir>/runs/<runId>/      the platform's per-run dir (config.json, logs/, metrics.jsonl, ...)
"""

from __future__ import annotations

import os
from pathlib import Path

DATA_DIR_ENV = "PRIMETUI_LOCAL_DATA_DIR"
TEAMS_DIR = "_teams"
"""Under ``volumes/``: no volume name starts with ``_``, so team folders never meet a personal volume."""


def volume_key(team_id: str | None, name: str) -> str:
    """The one string naming a volume across owners: its folder under ``volumes/``.

    Hosted keeps volume names unique per owner (the personal account or a team), so a name alone is
    ambiguous; sessions, upload leases, storage metadata and the S3 prefix key on this instead.
    """
    return name if team_id is None else f"{TEAMS_DIR}/{team_id}/{name}"


def split_volume_key(key: str) -> tuple[str | None, str]:
    """(owner team id or None for the personal account, name) of a :func:`volume_key`."""
    parts = key.split("/")
    if len(parts) == 3 and parts[0] == TEAMS_DIR:
        return parts[1], parts[2]
    return None, key


def volume_name_of(key: str) -> str:
    """The name a client knows a volume by, from its :func:`volume_key`."""
    return split_volume_key(key)[1]


class PathEscapeError(ValueError):
    """A client-supplied path would reach outside the directory it must stay in."""


def default_data_dir() -> Path:
    """The data dir used when neither ``--data-dir`` nor ``PRIMETUI_LOCAL_DATA_DIR`` is given."""
    import platformdirs

    return Path(platformdirs.user_data_dir("primetui", appauthor=False)) / "local"


def resolve_data_dir(explicit: str | os.PathLike[str] | None = None) -> Path:
    """``--data-dir`` beats ``PRIMETUI_LOCAL_DATA_DIR`` beats the platform user data dir."""
    chosen = explicit or os.environ.get(DATA_DIR_ENV) or default_data_dir()
    return Path(chosen).expanduser().resolve()


def safe_join(root: str | os.PathLike[str], relative: str) -> Path:
    """Join a client-supplied ``relative`` path onto ``root`` and refuse anything that leaves it.

    ``relative`` may start with ``/`` (treated as the root itself, as volume paths are) and may
    name something that does not exist yet. Refused, with :class:`PathEscapeError`: ``..`` climbing
    above the root, NUL bytes, and any existing symlink on the way that points outside the root
    (the check resolves the deepest existing ancestor, so a symlinked directory cannot smuggle a
    write out). The returned path is absolute and lies inside ``root``.
    """
    if "\x00" in relative:
        raise PathEscapeError("the path contains a NUL byte")
    root_path = Path(root).resolve()
    parts: list[str] = []
    for part in relative.replace("\\", "/").split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if not parts:
                raise PathEscapeError(f"the path {relative!r} climbs above the volume root")
            parts.pop()
            continue
        if len(part.encode("utf-8", "surrogatepass")) > 255:
            raise PathEscapeError("a part of the path is longer than 255 bytes (the file system limit)")
        parts.append(part)
    candidate = root_path.joinpath(*parts)
    # Resolve the deepest part that exists: a symlink anywhere on the way is followed here.
    existing = candidate
    try:
        while not existing.exists() and not existing.is_symlink() and existing != root_path:
            existing = existing.parent
        resolved = existing.resolve()
    except (OSError, RuntimeError) as exc:  # too long in total, a symlink loop, ...
        raise PathEscapeError(f"the path {relative[:80]!r} cannot be used ({type(exc).__name__})") from None
    if resolved != root_path and root_path not in resolved.parents:
        raise PathEscapeError(f"the path {relative!r} leads outside the volume (through a symlink)")
    return candidate


def dir_size_bytes(path: str | os.PathLike[str]) -> int:
    """Bytes of all regular files under ``path`` (symlinks are not followed, so they count as 0)."""
    total = 0
    stack = [Path(path)]
    while stack:
        current = stack.pop()
        try:
            with os.scandir(current) as entries:
                for entry in entries:
                    try:
                        if entry.is_dir(follow_symlinks=False):
                            stack.append(Path(entry.path))
                        elif entry.is_file(follow_symlinks=False):
                            total += entry.stat(follow_symlinks=False).st_size
                    except FileNotFoundError:
                        continue  # removed while we walked (pruned checkpoint): not there, not counted
        except (FileNotFoundError, NotADirectoryError):
            continue
    return total
