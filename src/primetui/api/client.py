"""`PrimeClient`: the one async client for the Prime platform API.

It speaks the HTTP API exactly as the `prime` CLI 0.18.0 does (contract §1.3, §2): URL =
base_url + `/api/v1` + path, a Bearer key, JSON bodies, the team in a query parameter or in the
body with the per-endpoint spelling (`teamId` or `team_id`), 30 s reads (120 s for create and
resume, which wait on a cold validator), 10 s connects. Every reply passes the wire boundary
(`primetui.api.boundary`): read as a stream under a decoded-size cap, within a deadline for the
whole exchange, depth-checked before it is parsed. Replies are parsed into
`primetui.api.models`; every failure becomes a `primetui.api.errors.PrimeAPIError` subclass whose
`str()` is one actionable sentence without the API key.

    async with PrimeClient(settings.base_url, settings.api_key, settings.team_id) as client:
        runs = await client.list_runs()
"""

from __future__ import annotations

import asyncio
import contextvars
import zlib
import sys
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar
from urllib.parse import quote

from pydantic import BaseModel
from pydantic import ValidationError as PydanticValidationError

from primetui import __version__
from primetui.api._httpx import httpx, shared_ssl_context
from primetui.api import models as m
from primetui.api.boundary import (
    ACCEPT_ENCODING,
    CREATE_REPLY_DEADLINE,
    ERROR_BODY_CAP,
    IN_FLIGHT,
    MAX_LIST_ROWS,
    MAX_PAGES,
    NotedList,
    REPLY_DEADLINE,
    BodyReader,
    ReplyTooLarge,
    TooDeep,
    TooMany,
    UnsupportedEncoding,
    cut,
    loads,
    metric_rows,
    reply_cap,
    reply_deadline,
)
from primetui.api.errors import (
    APITimeoutError,
    BadSettingError,
    MalformedResponseError,
    MissingApiKeyError,
    NotFoundError,
    PrimeAPIError,
    UnreachableError,
    error_from_response,
    redact,
)
from primetui.config.mistakes import key_problem, shown_url, url_problem
from primetui.config.urls import API_PREFIX, normalize_base_url

__all__ = ["CREATE_RUN_TIMEOUT", "DEFAULT_TIMEOUT", "PrimeAPIError", "PrimeClient", "USER_AGENT"]

DEFAULT_TIMEOUT = httpx.Timeout(30.0, connect=10.0)
"""The CLI's client-wide timeout: 30 s to read, 10 s to connect."""

CREATE_RUN_TIMEOUT = httpx.Timeout(120.0, connect=10.0)
"""Create and resume validate through a cold rl-validator (up to 60 s), so they wait longer."""

KEEPALIVE_EXPIRY = 5.0
"""Seconds an idle pooled connection is kept; servers should keep it open longer (the local one: 75 s)."""

IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "DELETE"})
"""Methods retried once, at once, when a pooled connection turns out to be closed."""

USER_AGENT = f"primetui/{__version__} python/{sys.version_info.major}.{sys.version_info.minor}.{sys.version_info.micro}"

ModelT = TypeVar("ModelT", bound=BaseModel)
T = TypeVar("T")


def _seg(value: str) -> str:
    """One URL path segment (names and ids are restricted, but never trust that blindly)."""
    return quote(str(value), safe="")


async def apart(exchange: Coroutine[Any, Any, T]) -> T:
    """Await ``exchange`` in a task with an empty context, cancelled with the caller.

    Every timer of an exchange (the whole-reply deadline, httpx's per-read timeouts) is a loop
    handle that keeps the context it was made in, and asyncio keeps a cancelled handle until its
    time comes: made in the caller's context, a finished 60 s deadline kept whatever that context
    held (a screen's worker, so the closed screen and its documents) for up to a minute more."""
    return await asyncio.get_running_loop().create_task(exchange, context=contextvars.Context())


class PrimeClient:
    """Async client for the Prime platform API (one method per endpoint of the contract)."""

    def __init__(
        self,
        base_url: str,
        api_key: str | None,
        team_id: str | None = None,
        timeout: float | httpx.Timeout = DEFAULT_TIMEOUT,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        rediscover: Callable[[], tuple[str, str] | None] | None = None,
    ) -> None:
        """``rediscover`` (the local platform's clients) names where the platform serves now,
        ``(base_url, api_key)`` or None; it is asked when a connection is refused, so a client
        follows a platform that was restarted on another port."""
        self.base_url = normalize_base_url(base_url)
        self.team_id = team_id.strip() if team_id and team_id.strip() else None
        self._api_key = api_key or ""
        self._bad_setting = self._setting_problem()
        if not isinstance(timeout, httpx.Timeout):
            timeout = httpx.Timeout(timeout, connect=min(10.0, float(timeout)))
        self._timeout = timeout
        self._in_flight = asyncio.Semaphore(IN_FLIGHT)
        self._transport = transport
        self._rediscover = rediscover
        self.on_moved: Callable[[str, str], None] | None = None
        """Told ``(old base URL, new base URL)`` when the client followed the platform elsewhere (the header's
        address)."""
        self._http = self._new_http()

    def _setting_problem(self) -> str | None:
        """Why no request can be sent with this key and base URL (one sentence), or None.

        Checked before httpx sees them: its errors quote a header's value (the key) and a port
        past 65535 or an unclosed ``[`` end in an exception no error class explains."""
        problem = key_problem(self._api_key) if self._api_key else None
        if problem:
            return (
                f"The API key {problem}, so no request was sent; set PRIME_API_KEY (or api_key in "
                "~/.prime/config.json) to the key alone."
            )
        problem = url_problem(self.base_url)
        if problem:
            return (
                f"The base URL {problem}, so no request was sent; fix PRIME_BASE_URL (or base_url in "
                "~/.prime/config.json)."
            )
        return None

    def _new_http(self) -> httpx.AsyncClient:
        headers = {"Content-Type": "application/json", "User-Agent": USER_AGENT, "Accept-Encoding": ACCEPT_ENCODING}
        if self._api_key and not self._bad_setting:
            headers["Authorization"] = f"Bearer {self._api_key}"
        return httpx.AsyncClient(
            base_url="" if self._bad_setting else self.base_url + API_PREFIX,
            headers=headers,
            timeout=self._timeout,
            follow_redirects=True,
            transport=self._transport,
            verify=shared_ssl_context(),
            limits=httpx.Limits(keepalive_expiry=KEEPALIVE_EXPIRY),
        )

    def __repr__(self) -> str:
        return f"PrimeClient(base_url={self.base_url!r}, team_id={self.team_id!r}, api_key=***)"

    async def __aenter__(self) -> PrimeClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the underlying connection pool."""
        await self._http.aclose()

    @property
    def has_api_key(self) -> bool:
        """True when requests carry an API key."""
        return bool(self._api_key)

    # ---------------------------------------------------------------------------------------
    # transport
    # ---------------------------------------------------------------------------------------

    def _team_param(self, spelling: str) -> dict[str, str] | None:
        return {spelling: self.team_id} if self.team_id else None

    async def request(
        self,
        method: str,
        path: str,
        *,
        params: dict[str, Any] | None = None,
        json_body: dict[str, Any] | None = None,
        timeout: httpx.Timeout | None = None,
        deadline: float | None = None,
    ) -> dict[str, Any]:
        """Send one request and return its JSON object (204/empty -> {}), or raise a typed error."""
        if not self._api_key:
            raise MissingApiKeyError(
                "No API key is configured; run `prime login`, set PRIME_API_KEY, or save a key in primetui's settings.",
                method=method,
                path=path,
            )
        if self._bad_setting:
            which = "API key" if self._bad_setting.startswith("The API key") else "base URL"
            raise BadSettingError(self._bad_setting, setting=which, method=method, path=path)
        if not path.startswith("/"):
            path = "/" + path
        url = self.base_url + API_PREFIX + path
        kwargs: dict[str, Any] = {}
        if params:
            kwargs["params"] = params
        if json_body is not None:
            kwargs["json"] = json_body
        if timeout is not None:
            kwargs["timeout"] = timeout
        limit = reply_deadline(deadline if deadline is not None else REPLY_DEADLINE)
        try:
            status, reason, headers, content = await apart(self._within(limit, method, path, kwargs))
        except (TimeoutError, httpx.TimeoutException) as exc:
            if isinstance(exc, httpx.ConnectTimeout):
                raise UnreachableError(
                    f"Cannot connect to {self.base_url} (no answer within "
                    f"{(timeout or self._timeout).connect or 10:g} s); check your network and that the "
                    "base URL (PRIME_BASE_URL or ~/.prime/config.json) is right.",
                    method=method,
                    path=path,
                ) from exc
            if isinstance(exc, TimeoutError):  # the whole reply's deadline, however it trickled
                what, within = "did not finish answering", limit
            else:
                what, within = "did not answer", (timeout or self._timeout).read or limit
            raise APITimeoutError(
                f"{self.base_url} {what} {method} {path} within {within:g} s; check your network and retry.",
                method=method,
                path=path,
            ) from exc
        except ReplyTooLarge as exc:
            raise self._malformed(
                method, path, f"{exc}, the limit for this request; primetui stopped reading it"
            ) from exc
        except UnsupportedEncoding as exc:
            raise self._malformed(
                method, path, f"it is sent in the {str(exc)[:40]!r} encoding, which primetui did not ask for"
            ) from exc
        except zlib.error as exc:
            raise self._malformed(method, path, "its compressed body is broken") from exc
        except (httpx.UnsupportedProtocol, httpx.InvalidURL) as exc:
            raise BadSettingError(
                f"The base URL {shown_url(self.base_url)[:80]!r} is not a valid http(s) URL; fix PRIME_BASE_URL "
                "or base_url in ~/.prime/config.json.",
                setting="base URL",
                method=method,
                path=path,
            ) from exc
        except httpx.HTTPError as exc:
            reason_text = redact(_transport_reason(exc), [self._api_key])
            raise UnreachableError(
                f"Cannot reach {self.base_url} ({reason_text}); check that the platform is running "
                "and the base URL (PRIME_BASE_URL or ~/.prime/config.json) is right.",
                method=method,
                path=path,
            ) from exc

        if status >= 400:
            raise error_from_response(
                status,
                content.decode("utf-8", "replace"),
                method=method,
                url=url,
                reason=reason,
                retry_after=headers.get("Retry-After"),
                secrets=[self._api_key],
            )
        if status == 204:
            return {}
        if not content.strip():
            if method == "GET":
                # A read always has a JSON object to say; an empty 200 is a cut or broken reply, not
                # "nothing new" (reading it as an empty log window or metrics page loses lines).
                raise self._malformed(method, path, "the reply is empty")
            return {}
        try:
            data = loads(content)
        except (TooDeep, TooMany) as exc:
            raise self._malformed(method, path, str(exc)) from exc
        except ValueError as exc:
            raise self._malformed(method, path, "the reply is not JSON") from exc
        if not isinstance(data, dict):
            raise self._malformed(method, path, f"the reply is a JSON {type(data).__name__}, not an object")
        return data

    async def _within(
        self, limit: float, method: str, path: str, kwargs: dict[str, Any]
    ) -> tuple[int, str, httpx.Headers, bytes]:
        async with self._in_flight, asyncio.timeout(limit):  # the deadline starts with the turn
            return await self._send(method, path, kwargs)

    async def _send(self, method: str, path: str, kwargs: dict[str, Any]) -> tuple[int, str, httpx.Headers, bytes]:
        """One exchange; refused at connect, it goes again to where ``rediscover`` says the platform is now."""
        try:
            return await self._send_here(method, path, kwargs)
        except (httpx.ConnectError, httpx.ConnectTimeout):
            if not await self._follow_platform():
                raise
        return await self._send_here(method, path, kwargs)

    async def _follow_platform(self) -> bool:
        """True when the platform now serves elsewhere and this client moved there."""
        if self._rediscover is None:
            return False
        found = await asyncio.to_thread(self._rediscover)
        if not found:
            return False
        base_url, api_key = normalize_base_url(found[0]), found[1]
        if (base_url, api_key) == (self.base_url, self._api_key):
            return False
        old, old_url, self.base_url, self._api_key = self._http, self.base_url, base_url, api_key
        self._bad_setting = self._setting_problem()
        self._http = self._new_http()
        await old.aclose()
        if self.on_moved is not None:
            self.on_moved(old_url, base_url)
        return True

    async def _send_here(self, method: str, path: str, kwargs: dict[str, Any]) -> tuple[int, str, httpx.Headers, bytes]:
        """One exchange; an idempotent one is retried once, at once, when the connection dropped.

        A pooled keep-alive connection the server closed a moment before reuse fails with
        "Server disconnected without sending a response" (or a reset) without the request having
        been served; GET and DELETE can safely be sent again on a fresh connection.
        """
        try:
            return await self._exchange(method, path, kwargs)
        except (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError):
            if method not in IDEMPOTENT_METHODS:
                raise
        return await self._exchange(method, path, kwargs)

    async def _exchange(self, method: str, path: str, kwargs: dict[str, Any]) -> tuple[int, str, httpx.Headers, bytes]:
        """Status, reason, headers and the decoded body, read as a stream under the route's cap."""
        async with self._http.stream(method, path, **kwargs) as response:
            error = response.status_code >= 400
            cap = ERROR_BODY_CAP if error else reply_cap(path)
            reader: BodyReader | None = None
            try:
                if response.is_stream_consumed:  # a transport that answered with a body in memory (tests)
                    reader = BodyReader("identity", cap)  # httpx has decoded it already
                    reader.feed(response.content)
                else:
                    reader = BodyReader(response.headers.get("Content-Encoding", ""), cap)
                    async for chunk in response.aiter_raw():
                        reader.feed(chunk)
                body = reader.body()
            except (ReplyTooLarge, zlib.error, UnsupportedEncoding):
                if not error:
                    raise
                body = reader.partial() if reader is not None else b""  # an error's detail: its start says enough
            return response.status_code, response.reason_phrase, response.headers, body

    def _malformed(self, method: str, path: str, why: str) -> MalformedResponseError:
        return MalformedResponseError(
            f"The reply to {method} {path} from {self.base_url} is not what primetui expects "
            f"({redact(why, [self._api_key])}); check that the base URL points at the Prime API.",
            method=method,
            path=path,
        )

    def _parse(self, model: type[ModelT], data: Any, method: str, path: str) -> ModelT:
        try:
            return model.model_validate(data)
        except PydanticValidationError as exc:
            errors = exc.errors()
            first: dict[str, Any] = dict(errors[0]) if errors else {}
            loc = ".".join(str(p) for p in first.get("loc", ())) or model.__name__
            raise self._malformed(method, path, f"{loc}: {first.get('msg', 'invalid')}") from exc

    async def _get(self, model: type[ModelT], path: str, **kw: Any) -> ModelT:
        return self._parse(model, await self.request("GET", path, **kw), "GET", path)

    async def _get_list(
        self, model: type[ModelT], path: str, key: str, what: str, **kw: Any
    ) -> tuple[ModelT, list[str]]:
        """A list reply with its list cut to ``MAX_LIST_ROWS`` (the note says so) before it is parsed."""
        data = await self.request("GET", path, **kw)
        note = None
        if isinstance(data.get(key), list):
            data[key], note = cut(data[key], MAX_LIST_ROWS, what)
        return self._parse(model, data, "GET", path), [note] if note else []

    @staticmethod
    def _body(model: BaseModel) -> dict[str, Any]:
        return model.model_dump(mode="json", by_alias=True, exclude_none=True)

    # ---------------------------------------------------------------------------------------
    # §2.1 volumes (V1-V8): team as `teamId`
    # ---------------------------------------------------------------------------------------

    async def list_volumes(self) -> list[m.Volume]:
        """V1 `GET /training/volumes`."""
        page, notes = await self._get_list(
            m.VolumeList, "/training/volumes", "volumes", "volumes", params=self._team_param("teamId")
        )
        return NotedList(page.volumes, notes)

    async def create_volume(
        self, name: str, size: str = "5Ti", *, warm: bool = True, cluster: str | None = None
    ) -> m.Volume:
        """V2 `POST /training/volumes`; `warm` starts a background read-only session."""
        body = m.CreateVolumeRequest(name=name, size=size, warm=warm, team_id=self.team_id, cluster=cluster)
        path = "/training/volumes"
        data = await self.request("POST", path, json_body=self._body(body))
        return self._parse(m.Volume, data, "POST", path)

    async def expand_volume(self, name: str, size: str) -> m.Volume:
        """V3 `PATCH /training/volumes/{name}`: raise the size cap."""
        body = m.ExpandVolumeRequest(size=size, team_id=self.team_id)
        path = f"/training/volumes/{_seg(name)}"
        data = await self.request("PATCH", path, json_body=self._body(body))
        return self._parse(m.Volume, data, "PATCH", path)

    async def delete_volume(self, name: str) -> None:
        """V4 `DELETE /training/volumes/{name}`: delete a volume and everything on it."""
        await self.request("DELETE", f"/training/volumes/{_seg(name)}", params=self._team_param("teamId"))

    async def create_session(
        self, name: str, *, read_only: bool = False, allow_writable: bool = False
    ) -> m.VolumeSession:
        """V5 `POST /training/volumes/{name}/sessions` (read-write by default, like `prime volumes ssh`)."""
        body = m.CreateSessionRequest(
            read_only=read_only, allow_writable=True if allow_writable else None, team_id=self.team_id
        )
        path = f"/training/volumes/{_seg(name)}/sessions"
        data = await self.request("POST", path, json_body=self._body(body))
        return self._parse(m.VolumeSession, data, "POST", path)

    async def get_session(self, name: str, session_id: str) -> m.VolumeSession:
        """V6 `GET /training/volumes/{name}/sessions/{id}`."""
        return await self._get(
            m.VolumeSession,
            f"/training/volumes/{_seg(name)}/sessions/{_seg(session_id)}",
            params=self._team_param("teamId"),
        )

    async def stop_session(self, name: str, session_id: str) -> None:
        """V7 `DELETE /training/volumes/{name}/sessions/{id}`; returns before the final sync ends."""
        await self.request(
            "DELETE",
            f"/training/volumes/{_seg(name)}/sessions/{_seg(session_id)}",
            params=self._team_param("teamId"),
        )

    async def list_sessions(self, name: str) -> list[m.VolumeSession]:
        """V8 `GET /training/volumes/{name}/sessions`: the caller's sessions, newest first."""
        page, notes = await self._get_list(
            m.SessionList,
            f"/training/volumes/{_seg(name)}/sessions",
            "sessions",
            "sessions",
            params=self._team_param("teamId"),
        )
        return NotedList(page.sessions, notes)

    async def route_transfer(
        self, name: str, mode: str, path: str = "", entries: list[str] | None = None, lease_id: str | None = None
    ) -> m.VolumeTransferRoute:
        """V9 `POST /training/volumes/{name}/transfer`: where a get or put of ``path`` goes
        (a 404 means the platform has no direct route: use a session)."""
        body: dict[str, Any] = {"mode": mode, "path": path}
        if entries is not None:
            body["entries"] = entries
        if lease_id:
            body["leaseId"] = lease_id
        if self.team_id:
            body["teamId"] = self.team_id
        route = f"/training/volumes/{_seg(name)}/transfer"
        return self._parse(m.VolumeTransferRoute, await self.request("POST", route, json_body=body), "POST", route)

    async def start_volume_transfer(
        self,
        name: str,
        direction: str,
        path: str,
        url: str,
        credentials: dict[str, Any],
        region: str | None = None,
        endpoint_url: str | None = None,
    ) -> m.VolumeTransfer:
        """V11 `POST /training/volumes/{name}/transfers`: start an S3 import or export; returns at once.

        ``credentials`` (``accessKeyId``, ``secretAccessKey``, ``sessionToken``) travel in this body only."""
        body: dict[str, Any] = {"direction": direction, "path": path, "url": url, "credentials": credentials}
        if region:
            body["region"] = region
        if endpoint_url:
            body["endpointUrl"] = endpoint_url
        if self.team_id:
            body["teamId"] = self.team_id
        route = f"/training/volumes/{_seg(name)}/transfers"
        return self._parse(m.VolumeTransfer, await self.request("POST", route, json_body=body), "POST", route)

    async def list_volume_transfers(self, name: str) -> list[m.VolumeTransfer]:
        """V12 `GET /training/volumes/{name}/transfers`: the volume's transfers, newest first."""
        page, notes = await self._get_list(
            m.VolumeTransferList,
            f"/training/volumes/{_seg(name)}/transfers",
            "transfers",
            "transfers",
            params=self._team_param("teamId"),
        )
        return NotedList(page.transfers, notes)

    async def get_volume_transfer(self, name: str, transfer_id: str) -> m.VolumeTransfer:
        """V13 `GET /training/volumes/{name}/transfers/{id}`."""
        return await self._get(
            m.VolumeTransfer,
            f"/training/volumes/{_seg(name)}/transfers/{_seg(transfer_id)}",
            params=self._team_param("teamId"),
        )

    async def cancel_volume_transfer(self, name: str, transfer_id: str) -> None:
        """V14 `DELETE /training/volumes/{name}/transfers/{id}`: idempotent; the row stays cancelled."""
        await self.request(
            "DELETE", f"/training/volumes/{_seg(name)}/transfers/{_seg(transfer_id)}", params=self._team_param("teamId")
        )

    async def release_transfer(self, name: str, lease_id: str) -> None:
        """V10 `POST /training/volumes/{name}/transfer/release`: end a direct put's upload lease."""
        body: dict[str, Any] = {"leaseId": lease_id}
        if self.team_id:
            body["teamId"] = self.team_id
        await self.request("POST", f"/training/volumes/{_seg(name)}/transfer/release", json_body=body)

    # ---------------------------------------------------------------------------------------
    # §2.2 dedicated training (T1, T2: `team_id`; T4-T6)
    # ---------------------------------------------------------------------------------------

    async def list_models(self) -> m.AvailableFFTModelsResponse:
        """T1 `GET /training/available-fft-models`; a 404 (older platform) reads as empty."""
        try:
            reply, _notes = await self._get_list(
                m.AvailableFFTModelsResponse,
                "/training/available-fft-models",
                "models",
                "models",
                params=self._team_param("team_id"),
            )
            return reply
        except NotFoundError:
            return m.AvailableFFTModelsResponse()

    async def list_gpu_types(self) -> m.AvailableGpuTypesResponse:
        """T2 `GET /training/available-gpu-types`."""
        return await self._get(
            m.AvailableGpuTypesResponse,
            "/training/available-gpu-types",
            params=self._team_param("team_id"),
        )

    async def create_run(
        self,
        config: dict[str, Any] | m.CreateRunRequest,
        *,
        mode: str | None = "sft",
        name: str | None = None,
        image_tag: str | None = None,
        wandb_api_key: str | None = None,
        hf_token: str | None = None,
        gpu_type: str | None = None,
        volume: str | None = None,
        resume_from: str | None = None,
        source_ref: str | None = None,
        normalized_config: dict[str, Any] | None = None,
    ) -> m.HostedTrainingRunResponse:
        """T4 `POST /training/runs` (120 s read timeout): dispatch a run.

        Pass the sft.toml table as `config` (or a ready `CreateRunRequest`); `mode` is `sft` by
        default and omitted when None (RL). The client's team goes in the body as `teamId`.
        """
        if isinstance(config, m.CreateRunRequest):
            body = config
            if body.team_id is None and self.team_id:
                body = body.model_copy(update={"team_id": self.team_id})
        else:
            body = m.CreateRunRequest(
                config=config,
                mode=mode,
                name=name,
                team_id=self.team_id,
                image_tag=image_tag,
                wandb_api_key=wandb_api_key,
                hf_token=hf_token,
                gpu_type=gpu_type,
                volume=volume,
                resume_from=resume_from,
                source_ref=source_ref,
                normalized_config=normalized_config,
            )
        path = "/training/runs"
        data = await self.request(
            "POST", path, json_body=self._body(body), timeout=CREATE_RUN_TIMEOUT, deadline=CREATE_REPLY_DEADLINE
        )
        return self._parse(m.HostedTrainingRunResponse, data, "POST", path)

    async def pause_run(self, run_id: str) -> m.PauseRunResponse:
        """T5 `POST /training/runs/{id}/pause` (no body): pause at a checkpoint, release GPUs."""
        path = f"/training/runs/{_seg(run_id)}/pause"
        return self._parse(m.PauseRunResponse, await self.request("POST", path), "POST", path)

    async def resume_run(
        self,
        run_id: str,
        *,
        gpu_type: str | None = None,
        image_tag: str | None = None,
        wandb_api_key: str | None = None,
        hf_token: str | None = None,
    ) -> m.HostedTrainingRunResponse:
        """T6 `POST /training/runs/{id}/resume` (120 s): continue a PAUSED run as a NEW run."""
        body = m.ResumeRunRequest(
            gpu_type=gpu_type, image_tag=image_tag, wandb_api_key=wandb_api_key, hf_token=hf_token
        )
        path = f"/training/runs/{_seg(run_id)}/resume"
        data = await self.request(
            "POST", path, json_body=self._body(body), timeout=CREATE_RUN_TIMEOUT, deadline=CREATE_REPLY_DEADLINE
        )
        return self._parse(m.HostedTrainingRunResponse, data, "POST", path)

    # ---------------------------------------------------------------------------------------
    # §2.3 run reads and controls (/rft/runs; R1 team as `team_id`)
    # ---------------------------------------------------------------------------------------

    async def list_runs(self, *, page: int = 1, limit: int = 20, mine: bool = False) -> m.RLRunPage:
        """R1 `GET /rft/runs`: one page of runs."""
        params: dict[str, Any] = {"page": page, "limit": limit}
        if self.team_id:
            params["team_id"] = self.team_id
        if mine:
            params["mine"] = "true"
        reply = await self.request("GET", "/rft/runs", params=params)
        runs = reply.get("runs")
        note = None
        if isinstance(runs, list):
            reply["runs"], note = cut(runs, limit, "runs")
        result = self._parse(m.RLRunPage, reply, "GET", "/rft/runs")
        if note:
            result.notes.append(note)
        return result

    async def _run_envelope(self, method: str, path: str) -> m.RLRun:
        data = await self.request(method, path)
        return self._parse(m.RunEnvelope, data, method, path).run

    async def get_run(self, run_id: str) -> m.RLRun:
        """R2 `GET /rft/runs/{id}`."""
        return await self._run_envelope("GET", f"/rft/runs/{_seg(run_id)}")

    async def stop_run(self, run_id: str) -> m.RLRun:
        """R3 `PUT /rft/runs/{id}/stop`."""
        return await self._run_envelope("PUT", f"/rft/runs/{_seg(run_id)}/stop")

    async def delete_run(self, run_id: str) -> None:
        """R4 `DELETE /rft/runs/{id}`."""
        await self.request("DELETE", f"/rft/runs/{_seg(run_id)}")

    async def restart_run(self, run_id: str) -> m.RLRun:
        """R5 `PUT /rft/runs/{id}/restart`: restart a RUNNING run from its latest checkpoint."""
        return await self._run_envelope("PUT", f"/rft/runs/{_seg(run_id)}/restart")

    async def list_checkpoints(self, run_id: str, status: str | None = None) -> list[m.RLCheckpoint]:
        """R6 `GET /rft/runs/{id}/checkpoints`, optionally filtered by status (READY, ...)."""
        params = {"status_filter": status} if status else None
        page, notes = await self._get_list(
            m.CheckpointList, f"/rft/runs/{_seg(run_id)}/checkpoints", "checkpoints", "checkpoints", params=params
        )
        return NotedList(page.checkpoints, notes)

    async def get_logs(
        self,
        run_id: str,
        tail_lines: int = 1000,
        *,
        component: str | None = None,
        pod_index: int | None = None,
        env_name: str | None = None,
        search: str | None = None,
        regex: bool = False,
        level: str | None = None,
        since_seconds: int | None = None,
    ) -> m.LogsResponse:
        """R7 `GET /rft/runs/{id}/logs`: the last `tail_lines` (1..5000) lines of one component.

        `component` None or `orchestrator` is the server default and is not sent, as in the CLI.
        """
        if not 1 <= tail_lines <= 5000:
            raise ValueError("tail_lines must be between 1 and 5000")
        params: dict[str, Any] = {"tail_lines": tail_lines}
        if search:
            params["search"] = search
        if regex:
            params["regex"] = "true"
        if level:
            params["level"] = level.upper()
        if since_seconds is not None:
            params["since_seconds"] = since_seconds
        if component and component != m.LogComponent.ORCHESTRATOR:
            params["component"] = component
        if pod_index is not None:
            params["pod_index"] = pod_index
        if env_name:
            params["env_name"] = env_name
        path = f"/rft/runs/{_seg(run_id)}/logs"
        data = await self.request("GET", path, params=params)
        if not isinstance(data.get("logs"), str):
            # Without its `logs` string the reply says nothing about the log; it is not an empty window.
            raise self._malformed("GET", path, "the reply has no logs string")
        lines = data["logs"].splitlines()
        note = None
        if len(lines) > tail_lines:  # a tail: the last lines are the ones asked for
            note = (
                f"the platform sent {len(lines):,} log lines for a window of {tail_lines}; showing the last "
                f"{tail_lines}"
            )
            data["logs"] = "\n".join(lines[-tail_lines:])
        result = self._parse(m.LogsResponse, data, "GET", path)
        if note:
            result.notes.append(note)
        return result

    async def list_env_servers(self, run_id: str) -> list[m.EnvServer]:
        """R8 `GET /rft/runs/{id}/env-servers` (snake_case reply)."""
        page, notes = await self._get_list(
            m.EnvServerList, f"/rft/runs/{_seg(run_id)}/env-servers", "env_servers", "env servers"
        )
        return NotedList(page.env_servers, notes)

    async def get_metrics(
        self,
        run_id: str,
        *,
        min_step: int | None = None,
        max_step: int | None = None,
        limit: int | None = None,
    ) -> m.MetricsResponse:
        """R10 `GET /rft/runs/{id}/metrics` (steps inclusive)."""
        params: dict[str, Any] = {}
        if min_step is not None:
            params["min_step"] = min_step
        if max_step is not None:
            params["max_step"] = max_step
        if limit is not None:
            params["limit"] = limit
        path = f"/rft/runs/{_seg(run_id)}/metrics"
        data = await self.request("GET", path, params=params or None)
        raw = data.get("metrics", [])
        if not isinstance(raw, list):
            raise self._malformed("GET", path, "metrics: the reply has no list of rows")
        raw, cut_note = cut(raw, limit, "metric rows")
        rows, notes = metric_rows(raw)
        result = m.MetricsResponse.model_construct(metrics=rows)
        result.notes.extend(([cut_note] if cut_note else []) + notes)
        return result

    async def get_progress(self, run_id: str) -> m.Progress:
        """R12 `GET /rft/runs/{id}/progress`."""
        return await self._get(m.Progress, f"/rft/runs/{_seg(run_id)}/progress")

    async def get_samples(self, run_id: str, step: int, *, page: int = 1, limit: int = 100) -> Any:
        """R11 `GET /rft/runs/{id}/samples?step&page&limit`: one page of a step's rollouts (`api.rl.SamplesPage`)."""
        from primetui.api import rl

        path = f"/rft/runs/{_seg(run_id)}/samples"
        data = await self.request("GET", path, params={"step": step, "page": page, "limit": limit})
        raw = data.get("samples", [])
        if not isinstance(raw, list):
            raise self._malformed("GET", path, "samples: the reply has no list of rows")
        raw, cut_note = cut(raw, limit, "samples")
        samples, notes = rl.sample_rows(raw, step)
        counts = {
            key: data.get(key) if isinstance(data.get(key), int) and not isinstance(data.get(key), bool) else None
            for key in ("total", "page", "limit", "total_pages")
        }
        run = data.get("run_id")
        result = rl.SamplesPage.model_construct(run_id=run if isinstance(run, str) else None, samples=samples, **counts)
        result.notes.extend(([cut_note] if cut_note else []) + notes)
        return result

    async def get_distribution(self, run_id: str, kind: str, step: int | None = None) -> Any:
        """R13 `GET /rft/runs/{id}/distributions?type&step`: one histogram (`api.rl.Distribution`); no step: the
        latest."""
        from primetui.api import rl

        params: dict[str, Any] = {"type": kind}
        if step is not None:
            params["step"] = step
        data = await self.request("GET", f"/rft/runs/{_seg(run_id)}/distributions", params=params)
        return rl.distribution_of(data, kind, step)

    # ---------------------------------------------------------------------------------------
    # B1 billing, whoami
    # ---------------------------------------------------------------------------------------

    async def get_usage(self, run_id: str) -> m.RunUsage:
        """B1 `GET /billing/runs/{id}/usage` (token-based; 0 for SFT)."""
        return await self._get(m.RunUsage, f"/billing/runs/{_seg(run_id)}/usage")

    async def list_teams(self) -> list[m.Team]:
        """`GET /user/teams?offset&limit`, every page, as `prime teams list` / `prime switch` read it."""
        teams: list[m.Team] = []
        for _ in range(MAX_PAGES):  # a platform whose total never comes cannot keep us reading
            reply = await self.request("GET", "/user/teams", params={"offset": len(teams), "limit": 100})
            data = reply.get("data")
            batch: list[Any] = data if isinstance(data, list) else []
            batch, _note = cut(batch, 100, "teams")
            teams += [self._parse(m.Team, t, "GET", "/user/teams") for t in batch if isinstance(t, dict)]
            total = reply.get("total_count")
            if not batch or not isinstance(total, int) or len(teams) >= min(total, MAX_LIST_ROWS):
                break
        return teams[:MAX_LIST_ROWS]

    async def whoami(self) -> m.WhoAmI:
        """`GET /user/whoami`: the key's user (a cheap way to test a key)."""
        reply = await self._get(m.WhoAmIResponse, "/user/whoami", params=self._team_param("teamId"))
        return reply.data


def _transport_reason(exc: httpx.HTTPError) -> str:
    """A short, human reason for a transport failure; never a header's value (h11 quotes it whole)."""
    text = str(exc).strip()
    low = text.lower()
    if isinstance(exc, httpx.LocalProtocolError) or "header" in low:
        return "a request header is not valid (its value is not shown)"
    if "connection refused" in low or "errno 111" in low or "all connection attempts failed" in low:
        return "connection refused"
    if "name or service not known" in low or "nodename nor servname" in low or "name resolution" in low:
        return "host name not found"
    if "certificate" in low or "ssl" in low:
        return "TLS handshake failed"
    if isinstance(exc, httpx.RemoteProtocolError):
        return "the server closed the connection"
    return text.splitlines()[0][:120] if text else type(exc).__name__
