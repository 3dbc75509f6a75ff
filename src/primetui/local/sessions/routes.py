"""V5-V8: the volume-session endpoints, mounted by the local platform's app under ``/api/v1``.

The router carries its own lifespan (FastAPI merges it into the app's): it starts the
:class:`SessionManager` (gateway, reaper, recovery of sessions a previous run left live) and keeps
it in ``state.extras["sessions"]``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import APIRouter, FastAPI, Request, Response

from primetui.api.models import CreateSessionRequest, SessionList, VolumeSession, VolumeSessionGateway
from primetui.local.errors import fail
from primetui.local.paths import split_volume_key, volume_name_of
from primetui.local.routes_volumes import get_volume_or_404
from primetui.local.scope import volume_key_of
from primetui.local.sessions.manager import (
    SessionManager,
    SessionNotFound,
    VolumeNotFound,
    WriterConflict,
)
from primetui.local.sessions.store import SessionRecord
from primetui.local.storage.room import ledger_of

EXTRAS_KEY = "sessions"


@asynccontextmanager
async def _lifespan(app: FastAPI) -> AsyncIterator[None]:
    state = app.state.platform

    def volume_size(key: str) -> int | None:
        row = state.store.get_volume(*split_volume_key(key))
        return int(row["size_bytes"]) if row is not None else None

    manager = SessionManager(
        state.data_dir,
        speed=getattr(state, "speed", None),
        volume_size=volume_size,
        hf_endpoint=lambda: getattr(state, "base_url", None),
        room=lambda key: ledger_of(state, key),
    )
    await manager.start()
    state.extras[EXTRAS_KEY] = manager
    try:
        yield
    finally:
        state.extras.pop(EXTRAS_KEY, None)
        await manager.close()


router = APIRouter(lifespan=_lifespan)


def _manager(request: Request) -> SessionManager:
    manager = request.app.state.platform.extras.get(EXTRAS_KEY)
    if manager is None:
        raise fail(503, "Volume sessions are still starting on the local platform; retry in a second.")
    return manager


def to_wire(manager: SessionManager, rec: SessionRecord) -> dict:
    """The V5/V6/V8 body for one session (the endpoint only while it is ready)."""
    gateway = manager.gateway if rec.phase == "ready" and rec.ssh_port is not None else None
    ready = gateway is not None
    model = VolumeSession(
        id=rec.id,
        volume_name=volume_name_of(rec.volume_name),
        status=rec.status,
        read_only=rec.read_only,
        ssh_connection=f"root@{rec.alias}.localhost -p {rec.ssh_port}" if ready else None,
        gateway=VolumeSessionGateway(host="127.0.0.1", port=gateway.port, cert_sha256=gateway.cert_sha256)
        if gateway is not None
        else None,
        host_public_key=manager.host_public_key if ready else None,
        error_message=rec.error_message,
        created_at=rec.created_at,
        phase=rec.phase,
        progress=rec.progress,
    )
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


def _translate(exc: Exception):
    if isinstance(exc, (VolumeNotFound, SessionNotFound)):
        return fail(404, str(exc))
    if isinstance(exc, WriterConflict):
        return fail(409, str(exc))
    return exc


@router.post("/training/volumes/{name}/sessions")
async def create_session(name: str, body: CreateSessionRequest, request: Request) -> dict:
    """V5: open a read-write or read-only session on the volume."""
    manager = _manager(request)
    key = volume_key_of(request)
    get_volume_or_404(request.app.state.platform, key)  # the store says which volumes exist, in which scope
    if not body.read_only:
        from primetui.local.storage.grants import live_upload_lease

        if live_upload_lease(request.app.state.platform, key) is not None:
            raise fail(
                409,
                f"Volume '{name}' has an upload in progress (a direct `prime volumes put` holds its "
                "write lease); open a read-only session, or wait for the upload to finish.",
            )
        from primetui.local.transfers.registry import live_import

        importing = live_import(request.app.state.platform, key)
        if importing:
            raise fail(
                409,
                f"Volume '{name}' has an active read-write S3 import ({importing}); open a read-only "
                f"session, or wait for it to finish (prime volumes transfers list {name} --id {importing}).",
            )
    try:
        rec = manager.create(key, read_only=body.read_only, allow_writable=bool(body.allow_writable))
    except (VolumeNotFound, WriterConflict) as exc:
        raise _translate(exc) from None
    return to_wire(manager, rec)


@router.get("/training/volumes/{name}/sessions/{session_id}")
async def get_session(name: str, session_id: str, request: Request) -> dict:
    """V6: one session (poll it until ``sshConnection`` appears, or until ``phase`` is stopped)."""
    manager = _manager(request)
    try:
        return to_wire(manager, manager.get(volume_key_of(request), session_id))
    except SessionNotFound as exc:
        raise _translate(exc) from None


@router.delete("/training/volumes/{name}/sessions/{session_id}", status_code=204)
async def stop_session(name: str, session_id: str, request: Request) -> Response:
    """V7: stop a session; returns at once, the final sync runs on (watch ``phase`` with V6)."""
    manager = _manager(request)
    try:
        manager.stop(volume_key_of(request), session_id)
    except SessionNotFound as exc:
        raise _translate(exc) from None
    return Response(status_code=204)


@router.get("/training/volumes/{name}/sessions")
async def list_sessions(name: str, request: Request) -> dict:
    """V8: the volume's sessions, newest first."""
    manager = _manager(request)
    get_volume_or_404(request.app.state.platform, volume_key_of(request))
    try:
        records = manager.list(volume_key_of(request))
    except VolumeNotFound as exc:
        raise _translate(exc) from None
    sessions = [VolumeSession.model_validate(to_wire(manager, r)) for r in records]
    return SessionList(sessions=sessions).model_dump(mode="json", by_alias=True, exclude_none=True)
