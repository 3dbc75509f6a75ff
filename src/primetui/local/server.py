"""The FastAPI app of the local platform and the uvicorn runner that binds it to 127.0.0.1 only."""

from __future__ import annotations

import asyncio
import errno
import logging
import signal
import socket
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

from fastapi import Depends, FastAPI, Request
from fastapi.responses import JSONResponse

from primetui.local.auth import token_matches
from primetui.local.errors import fail
from primetui.local.guards import install as install_guards
from primetui.local.scope import scoped_run, scoped_volume
from primetui.local.state import LocalState

if TYPE_CHECKING:
    from primetui.config.logcap import RepeatFilter
    from primetui.local.connwall import Limits

log = logging.getLogger("primetui.local")

API_PREFIX = "/api/v1"
LOOPBACK = "127.0.0.1"
KEEP_ALIVE_SECONDS = 75
"""Idle seconds before the server closes a kept-alive connection (well past the client's pool expiry)."""


UNAUTHORIZED = (
    "Missing or wrong API key: send the token printed by `primetui local serve` "
    "(stored in the file `token` of its data dir) as a Bearer token."
)


def _require_token(request: Request) -> None:
    """Each API router's own check; the request wall (see guards.install) has already made it."""
    state: LocalState = request.app.state.platform
    if not token_matches(request.headers.get("authorization"), state.token):
        raise fail(401, UNAUTHORIZED)


def _session_router():  # pragma: no cover - depends on whether the sessions package has landed
    """The volume-session routes (V5-V8), when that package is present."""
    try:
        from primetui.local.sessions.routes import router
    except ImportError:
        return None
    return router


def create_app(state: LocalState) -> FastAPI:
    """The ASGI app serving the hosted platform's API (see research/prime-cli-contract.md) for ``state``."""
    from primetui.local.routes_misc import router as misc_router
    from primetui.local.routes_rl import router as rl_router
    from primetui.local.routes_runs import router as runs_router
    from primetui.local.routes_training import router as training_router
    from primetui.local.hub.routes import router as hub_router
    from primetui.local.routes_volumes import router as volumes_router
    from primetui.local.storage.routes import router as storage_router
    from primetui.local.storage.s3 import MOUNT as S3_MOUNT
    from primetui.local.storage.s3 import endpoint as s3_endpoint
    from primetui.local.supervisor import Supervisor
    from primetui.local.transfers.routes import router as transfers_router
    from primetui.local.teams import router as teams_router

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        from primetui.local.storage.s3 import clear_staging

        clear_staging(state.data_dir)  # a kill -9 mid-upload left parts no restarted server can complete
        supervisor = state.supervisor or Supervisor(state)
        state.supervisor = supervisor
        await supervisor.start()
        try:
            yield
        finally:
            from primetui.local.transfers.registry import shutdown_transfers

            await shutdown_transfers(state)  # live jobs are cancelled: their threads must not outlive the server
            await supervisor.shutdown()

    app = FastAPI(
        title="primetui local platform",
        docs_url=None,
        redoc_url=None,
        openapi_url=None,
        lifespan=lifespan,
    )
    app.state.platform = state
    auth = [Depends(_require_token)]
    by_volume = [*auth, Depends(scoped_volume)]  # another scope's volume is a 404, as a missing one
    by_run = [*auth, Depends(scoped_run)]
    app.include_router(volumes_router, prefix=API_PREFIX, dependencies=by_volume)
    sessions = _session_router()
    if sessions is not None:
        app.include_router(sessions, prefix=API_PREFIX, dependencies=by_volume)
    app.include_router(storage_router, prefix=API_PREFIX, dependencies=by_volume)
    app.include_router(transfers_router, prefix=API_PREFIX, dependencies=by_volume)
    # SigV4-signed, not bearer: the credentials V9 issued authenticate each request (storage/s3.py).
    app.add_route(
        f"{S3_MOUNT}/{{path:path}}",
        s3_endpoint,
        methods=["GET", "HEAD", "PUT", "POST", "DELETE"],
        include_in_schema=False,
    )
    app.include_router(training_router, prefix=API_PREFIX, dependencies=by_run)
    app.include_router(runs_router, prefix=API_PREFIX, dependencies=by_run)
    app.include_router(rl_router, prefix=API_PREFIX, dependencies=by_run)
    app.include_router(misc_router, prefix=API_PREFIX, dependencies=auth)
    app.include_router(teams_router, prefix=API_PREFIX, dependencies=auth)
    app.include_router(hub_router)  # /hf: bundled datasets for `hf download`; public, like the Hub

    if state.rate_limit:
        _add_rate_limit(app, state.rate_limit)

    # Last, so the wall is outermost: a request without the token is refused before its body is read.
    install_guards(
        app,
        api_prefix=API_PREFIX,
        authorized=lambda header: token_matches(header, state.token),
        unauthorized=UNAUTHORIZED,
    )
    return app


def _add_rate_limit(app: FastAPI, per_minute: int) -> None:
    """429 with Retry-After once a client passes ``per_minute`` API requests in a rolling minute."""
    from primetui.local.ratelimit import RateLimiter, client_key, limited_detail, retry_after_header

    limiter = RateLimiter(per_minute)

    @app.middleware("http")
    async def _rate_limit(request: Request, call_next):  # type: ignore[no-untyped-def]
        if request.url.path.startswith(API_PREFIX):
            wait = limiter.check(
                client_key(request.headers.get("authorization"), request.client.host if request.client else None)
            )
            if wait is not None:
                return JSONResponse(
                    status_code=429,
                    content={"detail": limited_detail(per_minute, wait)},
                    headers={"Retry-After": retry_after_header(wait)},
                )
        return await call_next(request)


def bind_socket(port: int | None) -> socket.socket:
    """A listening TCP socket on 127.0.0.1 (``port`` None or 0: a free port). Raises OSError with a clear text."""
    from primetui.local.connwall import listening_socket

    sock = listening_socket()  # its accepts pause once they run out of file descriptors (see connwall)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((LOOPBACK, port or 0))
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise OSError(
                exc.errno,
                f"Port {port} on {LOOPBACK} is already in use; pick another with --port, "
                "or leave --port out to get a free one.",
            ) from exc
        raise
    sock.listen(128)
    sock.set_inheritable(False)
    return sock


REPORT_EVERY = 60.0
"""Seconds between the lines that count log records left out (see primetui.config.logcap.RepeatFilter)."""


async def _report_repeats(repeats: RepeatFilter) -> None:
    while True:
        await asyncio.sleep(REPORT_EVERY)
        repeats.report(log)


async def serve(
    state: LocalState,
    sock: socket.socket,
    on_ready: Callable[[str], None],
    limits: Limits | None = None,
    repeats: RepeatFilter | None = None,
) -> None:
    """Serve until SIGTERM/SIGINT; ``on_ready(base_url)`` runs once the socket accepts requests.

    Connections meet the connection wall (``primetui.local.connwall``) with ``limits``; ``repeats``,
    when given, gets its pending counts written once a minute.
    """
    import uvicorn

    from primetui.local.connwall import ConnectionWall, Limits
    from primetui.local.connwall_http import protocol_class

    host, port = sock.getsockname()[:2]
    state.base_url = f"http://{host}:{port}"
    app = create_app(state)
    wall = ConnectionWall(limits or Limits(), trusts=lambda header: token_matches(header, state.token))
    # Keep-alive outlives every client pool's expiry (httpx drops idle connections after 5 s), so a
    # client never reuses a connection the server is closing at that very moment. No websocket
    # route exists, so no upgrade is offered (the connection wall follows h11 connections only).
    config = uvicorn.Config(
        app,
        log_level="warning",
        access_log=False,
        lifespan="on",
        timeout_graceful_shutdown=5,
        timeout_keep_alive=KEEP_ALIVE_SECONDS,
        http=protocol_class(wall),
        ws="none",
    )
    server = uvicorn.Server(config)
    # uvicorn re-raises a captured signal after its graceful shutdown; make that a no-op so the
    # process exits normally (status 0) once everything has been stopped and flushed.
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: None)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started:
        if task.done():
            await task  # surfaces the startup error
            return
        await asyncio.sleep(0.02)
    on_ready(state.base_url)
    reporter = asyncio.create_task(_report_repeats(repeats)) if repeats is not None else None
    try:
        await task
    finally:
        if reporter is not None:
            reporter.cancel()
