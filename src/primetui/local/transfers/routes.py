"""V11-V14: S3 import and export of a volume (contract §2.1), as background jobs (:mod:`.registry`)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Body, Request, Response

from primetui.local.errors import fail
from primetui.local.paths import PathEscapeError, in_runs, resolve_volume_path, volume_name_of
from primetui.local.routes_volumes import get_volume_or_404
from primetui.local.scope import volume_key_of
from primetui.local.storage.grants import RUNS_READ_ONLY, clean_path, live_upload_lease
from primetui.local.session_hooks import live_read_write_session
from primetui.local.transfers import reach, s3io
from primetui.local.transfers.registry import live_import, transfers_of

router = APIRouter()
BODY_SHAPE = (
    'The body must be a JSON object: {"direction": "import" or "export", "path", "url": "s3://bucket/prefix", '
    '"credentials": {"accessKeyId", "secretAccessKey", "sessionToken"}, "region"?, "endpointUrl"?}.'
)


def _secret(credentials: object) -> s3io.Secret:
    if not isinstance(credentials, dict):
        raise fail(
            400,
            "credentials must be an object with accessKeyId and secretAccessKey (and sessionToken for "
            "temporary credentials).",
        )
    access, secret, token = (credentials.get(k) for k in ("accessKeyId", "secretAccessKey", "sessionToken"))
    for label, value in (("accessKeyId", access), ("secretAccessKey", secret)):
        if not isinstance(value, str) or not value.strip() or len(value) > 4096:
            raise fail(400, f"credentials.{label} is missing: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY.")
    if token is not None and (not isinstance(token, str) or len(token) > 8192):
        raise fail(400, "credentials.sessionToken must be a string (AWS_SESSION_TOKEN) or null.")
    assert isinstance(access, str) and isinstance(secret, str)  # the loop above refused anything else
    return s3io.Secret(access.strip(), secret.strip(), token or None)


def _hold_conflict(state: Any, key: str, name: str) -> None:
    """An import is the volume's one writer: refused while another writer holds it (as V5 read-write is)."""
    session = live_read_write_session(state, key)
    if session:
        raise fail(
            409,
            f"Volume '{name}' has an active read-write session ({session}); stop it "
            f"(prime volumes stop {name} {session}) before importing into it.",
        )
    if live_upload_lease(state, key) is not None:
        raise fail(
            409,
            f"Volume '{name}' has an upload in progress (a direct `prime volumes put` holds its write "
            "lease); wait for it to finish, then start the import.",
        )
    other = live_import(state, key)
    if other:
        raise fail(
            409,
            f"Volume '{name}' has an import in progress ({other}); wait for it to finish or cancel it "
            f"with `prime volumes transfers cancel {name} {other}`.",
        )


@router.post("/training/volumes/{name}/transfers")
async def create_transfer(request: Request, name: str, body: Any = Body(None)) -> dict[str, Any]:
    """V11: start an import (S3 -> volume path) or an export (volume path -> S3); returns at once."""
    state = request.app.state.platform
    key = volume_key_of(request)
    row = get_volume_or_404(state, key)
    if not isinstance(body, dict):
        raise fail(400, BODY_SHAPE)
    direction = body.get("direction")
    if direction not in ("import", "export"):
        raise fail(400, 'direction must be "import" or "export".')
    path = clean_path(body.get("path", ""))
    if direction == "import" and in_runs(path):
        raise fail(400, RUNS_READ_ONLY.replace("put elsewhere", "import elsewhere"))
    try:
        target = reach.parse_s3_url(body.get("url"))
        region = reach.clean_region(body.get("region"))
        secret = _secret(body.get("credentials"))
        endpoint = reach.clean_endpoint(body.get("endpointUrl"), transfers_of(state).allow_private)
    except reach.Refused as exc:
        raise fail(400, str(exc)) from None
    if row["status"] != "RUNNING":
        raise fail(409, f"Volume '{name}' is not ready (status {row['status']}); wait for it to be RUNNING.")
    if direction == "import":
        _hold_conflict(state, key, name)
    else:
        _export_source(state, key, name, path)
    return transfers_of(state).start(key, direction, path, body["url"].strip(), target, region, endpoint, secret)


def _export_source(state: Any, key: str, name: str, path: str) -> None:
    try:
        source = resolve_volume_path(state.volume_dir(key), path)
    except PathEscapeError as exc:
        raise fail(400, f"path '{path[:120]}' is not a volume path: {exc}.") from None
    if not source.path.is_dir():
        raise fail(
            404,
            f"'{path or '/'}' is not a folder on volume '{name}'; export copies a folder's contents "
            f"(list them with `prime volumes ls {name}`).",
        )


@router.get("/training/volumes/{name}/transfers")
async def list_transfers(request: Request, name: str) -> dict[str, Any]:
    """V12: the volume's transfers, newest first, finished ones included."""
    state = request.app.state.platform
    key = volume_key_of(request)
    get_volume_or_404(state, key)
    transfers = transfers_of(state)
    return {"transfers": [transfers.wire_of(row) for row in transfers.rows.list(key)]}


def _row_or_404(state: Any, key: str, transfer_id: str) -> Any:
    row = transfers_of(state).rows.get(key, transfer_id)
    if row is None:
        name = volume_name_of(key)
        raise fail(
            404,
            f"Transfer '{transfer_id[:80]}' not found on volume '{name}'; list them with "
            f"`prime volumes transfers list {name}`.",
        )
    return row


@router.get("/training/volumes/{name}/transfers/{transfer_id}")
async def get_transfer(request: Request, name: str, transfer_id: str) -> dict[str, Any]:
    """V13: one transfer, with live progress while it runs."""
    state = request.app.state.platform
    key = volume_key_of(request)
    get_volume_or_404(state, key)
    return transfers_of(state).wire_of(_row_or_404(state, key, transfer_id))


@router.delete("/training/volumes/{name}/transfers/{transfer_id}", status_code=204)
async def cancel_transfer(request: Request, name: str, transfer_id: str) -> Response:
    """V14: cancel (idempotent); the row stays ``cancelled`` and the files already copied stay."""
    state = request.app.state.platform
    key = volume_key_of(request)
    get_volume_or_404(state, key)
    _row_or_404(state, key, transfer_id)
    await transfers_of(state).cancel(transfer_id)
    return Response(status_code=204)
