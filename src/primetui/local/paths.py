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
import unicodedata
from dataclasses import dataclass
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


PROTECTED_TOP = ("runs",)
"""Top-level names with a rule of their own (``runs/`` is read-only to writers): a look-alike is refused."""
MAX_NAME_BYTES = 255
MOUNT_POINT = "volume"


@dataclass(frozen=True)
class VolumePath:
    """A client path decided once (:func:`resolve_volume_path`): what every scope check runs on.

    ``rel`` is canonical and volume-relative: ``/``-separated, no empty, ``.`` or ``..`` part, no
    leading or trailing ``/``, the client's parts in NFC and existing symlinks on the way followed,
    so it names the place the file system will touch ("" is the root). ``path`` is the absolute
    path under the (resolved) root. ``directory`` is True when the client wrote a
    trailing separator (an S3 ``dir/`` marker, an rsync-style "contents of").
    """

    rel: str
    path: Path
    directory: bool = False

    @property
    def key(self) -> str:
        """``rel`` as an S3 key: with the trailing ``/`` the client wrote (none for the root)."""
        return self.rel + "/" if self.directory and self.rel else self.rel

    @property
    def top(self) -> str:
        return self.rel.split("/", 1)[0]


def looks_like(part: str, name: str) -> bool:
    """``part`` reads as ``name`` once compatibility forms and case are folded (``ｒｕｎｓ``, ``Runs``, ``runs``)."""
    return unicodedata.normalize("NFKC", part).casefold() == name


def in_runs(rel: str) -> bool:
    """``rel`` (a resolved ``VolumePath.rel``) lies in ``runs/`` or in a top-level look-alike of it.

    The lexical check refuses a path that starts with a look-alike, but a symlink on the way
    (``datasets/up`` -> ``..``) can still land on one: on a case-insensitive file system ``Runs`` is
    ``runs`` itself, so a writer is kept out of every folder that reads as ``runs``."""
    return looks_like(rel.split("/", 1)[0], PROTECTED_TOP[0])


def _shown(raw: str) -> str:
    return repr(raw[:80])


def canonical_parts(raw: str | bytes, *, mount: bool = False) -> tuple[list[str], bool]:
    """The lexical half of :func:`resolve_volume_path`: (canonical parts, trailing separator).

    The input is taken as the route received it, decoded once by that route's protocol and never
    again: a ``%`` here is a literal character. Order, so that no check ever sees a raw form:
    UTF-8 (bytes must decode strictly), control characters refused (in a key; a session's
    names may hold them), ``\\`` made a ``/``, NFC, split,
    then per part: empty and ``.`` dropped, ``..`` pops (climbing above the root is refused, except
    in ``mount`` form, where ``/`` is the root of a POSIX file system and ``/..`` is ``/``), parts
    whose compatibility form (NFKC) is ``.``, ``..`` or holds a separator are refused, and so is a
    top-level look-alike of a protected name (``ｒｕｎｓ``, ``Runs``). ``mount``: the path is as seen
    inside a session, where ``/volume`` (or ``volume``) names the root.
    """
    if isinstance(raw, bytes):
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise PathEscapeError("the path is not UTF-8; volume paths are UTF-8 names") from None
    if "\x00" in raw:
        raise PathEscapeError("the path contains a NUL byte")
    for ch in raw:
        # A session's names are its own files on a POSIX file system: a control there is a legal name
        # (the getter shows it neutralised) and cannot move a path. A key never holds one.
        if unicodedata.category(ch) == "Cs" or (not mount and unicodedata.category(ch) == "Cc"):
            raise PathEscapeError(f"the path {_shown(raw)} contains a control character or a lone surrogate")
    text = unicodedata.normalize("NFC", raw.replace("\\", "/"))
    parts: list[str] = []
    for part in text.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if parts:
                parts.pop()
            elif not mount:
                raise PathEscapeError(f"the path {_shown(raw)} climbs above the volume root")
            continue
        compat = unicodedata.normalize("NFKC", part)
        if compat != part and (compat in (".", "..") or "/" in compat or "\\" in compat):
            raise PathEscapeError(
                f"the path {_shown(raw)} has a part that reads as {compat!r} (a look-alike of a dot or a separator)"
            )
        if len(part.encode("utf-8")) > MAX_NAME_BYTES:
            raise PathEscapeError("a part of the path is longer than 255 bytes (the file system limit)")
        parts.append(part)
    if mount and parts and parts[0] == MOUNT_POINT:
        parts = parts[1:]
    if parts:
        for name in PROTECTED_TOP:
            if looks_like(parts[0], name) and parts[0] != name:
                raise PathEscapeError(
                    f"the path {_shown(raw)} starts with a look-alike of {name}/; write {name} exactly"
                )
    trailing = bool(parts) and text.rstrip("/") != text
    return parts, trailing


def resolve_volume_path(
    root: str | os.PathLike[str], raw: str | bytes, *, follow_last: bool = True, mount: bool = False
) -> VolumePath:
    """The one decision on a client path: a key, a path or a name from any route, onto the volume at ``root``.

    Lexically canonical first (:func:`canonical_parts`), then resolved on disk: every existing
    symlink on the way is followed (the last one too unless ``follow_last`` is False, for operations
    on a link itself: lstat, remove, rename, readlink), and the result must stay inside ``root``.
    Refusals raise :class:`PathEscapeError` with one sentence. Scope rules (a grant's prefix,
    ``runs/`` for writers) run on the returned ``rel``, never on the raw string.
    """
    parts, trailing = canonical_parts(raw, mount=mount)
    shown = _shown(raw.decode("utf-8") if isinstance(raw, bytes) else raw)  # it decoded above
    root_path = Path(root).resolve()
    head, last = (parts[:-1], parts[-1]) if parts and not follow_last else (parts, None)

    def inside(path: Path) -> bool:
        return path == root_path or root_path in path.parents

    try:
        real = Path(os.path.realpath(root_path.joinpath(*head)))
        link_target = None
        if last is not None:
            probe = real / last
            if probe.is_symlink():  # the link itself is the object, but it may not lead out either
                link_target = Path(os.path.realpath(probe))
            real = probe
    except (OSError, RuntimeError) as exc:  # too long in total, a symlink loop, ...
        raise PathEscapeError(f"the path {shown} cannot be used ({type(exc).__name__})") from None
    if not inside(real) or (link_target is not None and not inside(link_target)):
        raise PathEscapeError(f"the path {shown} leads outside the volume (through a symlink)")
    rel = real.relative_to(root_path).as_posix()
    return VolumePath("" if rel == "." else rel, real, trailing)


def safe_join(root: str | os.PathLike[str], relative: str) -> Path:
    """Join a client-supplied ``relative`` path onto ``root`` and refuse anything that leaves it.

    :func:`resolve_volume_path` with the last component kept as named (so a symlink there is the
    link); ``relative`` may start with ``/`` and may name something that does not exist yet.
    """
    return resolve_volume_path(root, relative, follow_last=False).path


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
