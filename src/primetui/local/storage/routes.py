"""V9 ``/transfer`` and V10 ``/transfer/release``: the volume's direct storage route.

V9 answers ``via: "r2"`` with credentials for the S3 endpoint in :mod:`.s3` (a get: read-only,
an hour; a put: read-write on its destination, 15 minutes, holding the volume's upload lease), or
``via: "session"`` with the caller's live read-write session for a put, which is then the volume's
one writer. A put while another put holds the lease is a 409; so is a read-write session or a run
start while a lease is live (``grants.live_upload_lease``). Reads always go direct: they see the volume as
of the last sync, as the CLI's docs say of hosted.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from fastapi import APIRouter, Body, Request, Response

from primetui.local.errors import fail
from primetui.local.paths import in_runs, volume_name_of
from primetui.local.routes_volumes import get_volume_or_404
from primetui.local.scope import volume_key_of
from primetui.local.state import LocalState
from primetui.local.storage.grants import RUNS_READ_ONLY, clean_entries, clean_path
from primetui.local.storage.s3 import BUCKET, MOUNT, storage_of

router = APIRouter()


def _live_writer_session(request: Request, volume: str) -> dict[str, Any] | None:
    manager = request.app.state.platform.extras.get("sessions")
    if manager is None:
        return None
    rec = manager.live_read_write(volume)
    if rec is None:
        return None
    if rec.phase not in ("creating", "staging", "ready"):  # its final sync is writing the volume back
        raise fail(
            409,
            f"Volume '{volume_name_of(volume)}' is finishing a read-write session's final sync ({rec.id}, "
            f"{rec.phase}); wait for it to stop, then rerun the put.",
        )
    from primetui.local.sessions.routes import to_wire

    return to_wire(manager, rec)


def _iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


@router.post("/training/volumes/{name}/transfer")
async def transfer_route(request: Request, name: str, body: Any = Body(None)) -> dict[str, Any]:
    """V9: where a get or put of ``path`` goes."""
    state: LocalState = request.app.state.platform
    key = volume_key_of(request)
    row = get_volume_or_404(state, key)
    if not isinstance(body, dict):
        raise fail(400, 'The body must be a JSON object: {"mode": "get" or "put", "path": "<volume path>"}.')
    mode = body.get("mode")
    if mode not in ("get", "put"):
        raise fail(400, 'mode must be "get" or "put".')
    if row["status"] != "RUNNING":
        raise fail(409, f"Volume '{name}' is not ready (status {row['status']}); wait for it to be RUNNING.")
    base = clean_path(body.get("path", ""))
    entries = clean_entries(body.get("entries"))
    lease_id = body.get("leaseId")
    if lease_id is not None and not isinstance(lease_id, str):
        raise fail(400, "leaseId must be the string a put's route returned.")
    if mode == "put":
        if in_runs(base) or (not base and entries is not None and any(in_runs(e) for e in entries)):
            raise fail(400, RUNS_READ_ONLY)
        if not base and entries is None:
            raise fail(400, "A put to the volume root must name the top-level entries it writes (entries).")
        from primetui.local.transfers.registry import live_import

        importing = live_import(state, key)
        if importing:
            raise fail(
                409,
                f"Volume '{name}' has an S3 import in progress ({importing}); wait for it to finish, "
                "then rerun the put.",
            )
        session = _live_writer_session(request, key)
        if session is not None:
            return {"via": "session", "session": session}
    else:
        entries = None
    grant = storage_of(state).grants.issue(key, mode, base, entries, lease_id)
    reply: dict[str, Any] = {  # the prefix is opaque to the CLI: the volume's key keeps owners apart
        "via": "r2",
        "endpoint": state.base_url + MOUNT,
        "bucket": BUCKET,
        "prefix": f"{key}/",
        "accessKeyId": grant.access_key,
        "secretAccessKey": grant.secret,
        "sessionToken": grant.token,
        "expiresAt": _iso(grant.expires),
    }
    if grant.lease is not None:
        reply["leaseId"] = grant.lease.id
    return reply


@router.post("/training/volumes/{name}/transfer/release", status_code=204)
async def release_route(request: Request, name: str, body: Any = Body(None)) -> Response:
    """V10: end a direct put's lease (idempotent); its unfinished multipart uploads go with it."""
    state: LocalState = request.app.state.platform
    key = volume_key_of(request)
    get_volume_or_404(state, key)
    lease_id = body.get("leaseId") if isinstance(body, dict) else None
    if not isinstance(lease_id, str) or not lease_id:
        raise fail(400, "leaseId is required: the one the put's route returned.")
    storage = storage_of(state)
    live = storage.grants.live_lease(key)
    if live is not None and live.id == lease_id:
        storage.drop_uploads(key)
    storage.grants.release(key, lease_id)
    return Response(status_code=204)
