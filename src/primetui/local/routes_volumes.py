"""Volumes V1-V4 (V9/V10 live in ``storage``, the S3 transfers V11-V14 in ``transfers``).

A volume is a directory ``<data_dir>/volumes/<key>/`` (``paths.volume_key``: the name, under
``_teams/<teamId>/`` for a team's); its size cap is the ``size`` string the
client chose (``100Gi``, ``5Ti``) and its use is measured on disk.
"""

from __future__ import annotations

import asyncio
import re
import shutil
from typing import Any

from fastapi import APIRouter, Body, Request, Response

from primetui.api.models import Volume, VolumeList, VolumeStatus
from primetui.local.errors import fail, invalid
from primetui.local.models_cache import LOCAL_CLUSTER_ID, LOCAL_CLUSTER_NAME
from primetui.local.paths import split_volume_key, volume_key
from primetui.local.scope import volume_key_of, volume_not_found
from primetui.local.session_hooks import live_session
from primetui.local.state import LOCAL_USER_ID, LOCAL_USER_NAME, LocalState
from primetui.local.teams import query_scope, scope_name, team_scope

router = APIRouter()

NAME_RE = re.compile(r"[a-z]([a-z0-9-]{0,61}[a-z0-9])?")  # always fullmatch: `$` would let a trailing newline in
SIZE_RE = re.compile(r"([1-9][0-9]{0,6})(Mi|Gi|Ti)")
MAX_SIZE_BYTES = 1024**5  # 1 Pi: above it a size is a typo (and 9999999Ti would not fit SQLite's integers)
UNIT_BYTES = {"Mi": 1024**2, "Gi": 1024**3, "Ti": 1024**4}
DEFAULT_SIZE = "5Ti"


def parse_size(size: str) -> int:
    """``100Gi`` -> bytes; raises ValueError for anything else."""
    match = SIZE_RE.fullmatch(size.strip())
    if not match:
        raise ValueError(size)
    size_bytes = int(match.group(1)) * UNIT_BYTES[match.group(2)]
    if size_bytes > MAX_SIZE_BYTES:
        raise ValueError(size)
    return size_bytes


def _platform(request: Request) -> LocalState:
    return request.app.state.platform


def volume_wire(row: Any, used_bytes: int | None = None) -> dict[str, Any]:
    """A volume row as the wire ``Volume`` object (``usedBytes``: a local extension)."""
    return Volume(
        used_bytes=used_bytes,
        name=row["name"],
        status=row["status"],
        cluster_id=LOCAL_CLUSTER_ID,
        cluster=LOCAL_CLUSTER_NAME,
        pvc_name=f"local-volume-{row['name']}",
        size=row["size"],
        created_by=LOCAL_USER_ID,
        created_by_name=LOCAL_USER_NAME,
        created_at=row["created_at"],
    ).model_dump(mode="json", by_alias=True, exclude_none=True)


def get_volume_or_404(state: LocalState, key: str) -> Any:
    """The row of the volume of ``key`` (its owner and name); 404 when that owner has no such volume."""
    row = state.store.get_volume(*split_volume_key(key))
    if row is None:
        raise volume_not_found(split_volume_key(key)[1])
    return row


def _size_or_422(size: Any) -> tuple[str, int]:
    if not isinstance(size, str):
        raise invalid([(("body", "size"), "Input should be a valid string", "string_type")])
    try:
        return size.strip(), parse_size(size)
    except ValueError:
        raise invalid(
            [
                (
                    ("body", "size"),
                    f"Size '{size[:40]}' is not valid: use a whole number followed by Gi or Ti (Mi for tiny test "
                    f"volumes), "
                    "at most 1024Ti, e.g. 100Gi or 5Ti",
                    "value_error",
                )
            ]
        ) from None


def create_volume_dir(state: LocalState, name: str, size: str, size_bytes: int, team_id: str | None = None) -> Any:
    """Create the directory and the row (in the personal account, or ``team_id``'s); V2 and the demo seeding."""
    folder = state.volume_dir(volume_key(team_id, name))
    existed = folder.exists()
    folder.mkdir(parents=True, exist_ok=True)
    try:
        state.store.insert_volume(team_id, name, size, size_bytes, VolumeStatus.RUNNING)
    except BaseException:
        if not existed:  # a failed create leaves no orphan folder behind
            shutil.rmtree(folder, ignore_errors=True)
        raise
    return state.store.get_volume(team_id, name)


@router.get("/training/volumes")
async def list_volumes(request: Request) -> dict[str, Any]:
    """V1: every volume, oldest first."""
    state = _platform(request)
    rows = state.store.list_volumes(query_scope(request, "teamId"))
    volumes = [
        Volume.model_validate(volume_wire(row, volume_usage(state, volume_key(row["team_id"], row["name"]))))
        for row in rows
    ]
    return VolumeList(volumes=volumes).model_dump(mode="json", by_alias=True, exclude_none=True)


@router.post("/training/volumes")
async def create_volume(request: Request, body: dict[str, Any] = Body(...)) -> dict[str, Any]:
    """V2: create a volume (the directory exists, and the volume is RUNNING, when this returns)."""
    state = _platform(request)
    name = body.get("name")
    if not isinstance(name, str) or not name:
        raise invalid(
            [
                (
                    ("body", "name"),
                    "Field required" if name is None else "Input should be a valid string",
                    "missing" if name is None else "string_type",
                )
            ]
        )
    if not NAME_RE.fullmatch(name):
        raise invalid(
            [
                (
                    ("body", "name"),
                    f"Volume name '{name[:80]}' is not valid: use 1-63 lowercase letters, digits and hyphens, "
                    "starting with a letter and not ending with a hyphen",
                    "value_error",
                )
            ]
        )
    size, size_bytes = _size_or_422(body.get("size", DEFAULT_SIZE))
    team = team_scope(body.get("teamId"))
    if state.store.get_volume(team, name) is not None:  # names are unique per owner, as on hosted
        raise fail(
            409,
            f"A volume named '{name}' already exists in {scope_name(team)}; pick another name or use the existing one.",
        )
    row = create_volume_dir(state, name, size, size_bytes, team)
    return volume_wire(row, 0)


@router.patch("/training/volumes/{name}")
async def expand_volume(request: Request, name: str, body: dict[str, Any] = Body(...)) -> dict[str, Any]:
    """V3: raise the size cap; volumes never shrink."""
    state = _platform(request)
    key = volume_key_of(request)
    row = get_volume_or_404(state, key)
    size, size_bytes = _size_or_422(body.get("size"))
    if size_bytes <= row["size_bytes"]:
        raise fail(
            400,
            f"Volume '{name}' is already {row['size']}; volumes can only grow, "
            f"so pass a size larger than {row['size']}.",
        )
    state.store.update_volume(row["team_id"], name, size=size, size_bytes=size_bytes)
    return volume_wire(state.store.get_volume(row["team_id"], name), volume_usage(state, key))


@router.delete("/training/volumes/{name}", status_code=204)
async def delete_volume(request: Request, name: str) -> Response:
    """V4: delete the volume and everything on it; refused while a session or an active run uses it."""
    state = _platform(request)
    key = volume_key_of(request)
    row = get_volume_or_404(state, key)
    team = row["team_id"]
    runs = state.store.active_runs_on_volume(team, name)
    if runs:
        run = runs[0]
        raise fail(
            409,
            f"Volume '{name}' is in use by run {run['id']} ({run['status']}); "
            f"stop it first with `prime train stop {run['id']}`, then delete the volume.",
        )
    from primetui.local.storage.grants import live_upload_lease

    if live_upload_lease(state, key) is not None:
        raise fail(
            409,
            f"Volume '{name}' has an upload in progress (`prime volumes put`); let it finish, then delete the volume.",
        )
    from primetui.local.transfers.registry import live_transfer

    transfer = live_transfer(state, key)
    if transfer:
        raise fail(
            409,
            f"Volume '{name}' has a transfer in progress ({transfer}); wait for it to finish or cancel it "
            f"with `prime volumes transfers cancel {name} {transfer}`, then delete the volume.",
        )
    session = live_session(state, key)
    if session:
        raise fail(
            409,
            f"Volume '{name}' has a live session {session}; stop it first with "
            f"`prime volumes stop {name} {session}`, then delete the volume.",
        )
    if row["status"] != VolumeStatus.TERMINATING:
        state.store.update_volume(team, name, status=VolumeStatus.TERMINATING)
    try:
        await asyncio.to_thread(shutil.rmtree, state.volume_dir(key), ignore_errors=False)
    except FileNotFoundError:
        pass
    except OSError as exc:
        state.store.update_volume(team, name, status=VolumeStatus.TOMBSTONED)
        raise fail(
            500,
            f"Volume '{name}' could not be removed from disk ({exc.strerror}); "
            "fix the permissions under the data dir and delete it again.",
        ) from exc
    state.store.delete_volume(team, name)
    from primetui.local.storage.meta import forget_volume

    forget_volume(state.store.db, key)
    from primetui.local.transfers.registry import transfers_of

    transfers_of(state).rows.forget_volume(key)
    return Response(status_code=204)


def volume_usage(state: LocalState, key: str) -> int:
    """Bytes stored on the volume of ``key`` right now (measured on disk)."""
    from primetui.local.paths import dir_size_bytes

    return dir_size_bytes(state.volume_dir(key))
