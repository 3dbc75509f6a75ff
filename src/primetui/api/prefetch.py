"""The first page of runs (R1), read with the standard library while the UI toolkit loads.

The dashboard's first useful frame is the runs list. Importing httpx, pydantic and the wire
models costs about as much CPU as the rest of the start, so :func:`start` sends that one GET in
a thread from plain ``http.client`` as soon as the settings are known, and the first
``list_runs`` of the dashboard takes its reply (see ``primetui.commands.launch.LazyClient``).

The reply is only used when it is exactly what :class:`primetui.api.models.RLRunPage` would
accept without coercion; it is then given as the dict ``RLRunPage.model_dump(by_alias=True,
exclude_none=True)`` would give (unknown keys dropped, defaults filled in). Anything else (an
HTTP error, a redirect, a proxy in the environment, a value pydantic would convert or reject,
a slow reply) gives None, and the real client asks again and reports whatever it finds, exactly
as without this.
"""

from __future__ import annotations

import os
import threading
import time
from concurrent.futures import Future
from typing import Any
from urllib.parse import urlencode, urlsplit

from primetui import __version__
from primetui.api.boundary import DEFAULT_REPLY_CAP, loads
from primetui.config.urls import API_PREFIX, normalize_base_url

# camelCase wire name -> accepted Python type(s) of RLRun (primetui.api.models); required first.
REQUIRED = {"id": str, "userId": str, "status": str, "createdAt": str, "updatedAt": str}
OPTIONAL: dict[str, Any] = {
    "name": str,
    "teamId": str,
    "rftClusterId": str,
    "primeClusterId": str,
    "kind": str,
    "rolloutsPerExample": int,
    "seqLen": int,
    "maxSteps": int,
    "maxTokens": int,
    "batchSize": int,
    "loss": str,
    "teacher": dict,
    "baseModel": str,
    "environments": list,
    "runConfig": dict,
    "evalConfig": dict,
    "valConfig": dict,
    "bufferConfig": dict,
    "learningRate": float,
    "loraAlpha": int,
    "maxInflightRollouts": int,
    "oversamplingFactor": float,
    "maxAsyncLevel": int,
    "volumeName": str,
    "gpuCount": int,
    "wandbEntity": str,
    "wandbProject": str,
    "wandbRunName": str,
    "runsAhead": int,
    "queueReason": str,
    "notice": str,
    "startedAt": str,
    "completedAt": str,
    "errorMessage": str,
    "failureAnalysis": dict,
    "sourceCommit": str,
}
DEFAULTS: dict[str, Any] = {"loss": "rl", "environments": []}
PAGE_KEYS = {"total": int, "page": int, "limit": int, "total_pages": int}
TIMEOUT = 10.0
RUNS_PAGE_SIZE = 20
"""Runs per page of the dashboard's runs list."""
PROXY_VARS = ("http_proxy", "https_proxy", "all_proxy")


def _exact(value: Any, kind: Any) -> bool:
    return type(value) is kind  # bool is not int, int is not float: pydantic would convert those


def _snake(camel: str) -> str:
    return "".join("_" + c.lower() if c.isupper() else c for c in camel)


def _run(raw: Any) -> dict[str, Any] | None:
    if not isinstance(raw, dict):
        return None
    if "teacherConfig" in raw and "teacher" not in raw:
        raw = {**raw, "teacher": raw["teacherConfig"]}
    out: dict[str, Any] = {}
    for key, kind in REQUIRED.items():
        if not _exact(raw.get(key), kind):
            return None
        out[key] = raw[key]
    for key, kind in OPTIONAL.items():
        if _snake(key) in raw and _snake(key) != key:
            return None  # the Python spelling: pydantic's populate_by_name rules, leave them to it
        value = raw.get(key)
        if value is None:
            value = DEFAULTS.get(key)
            if value is None:
                continue
            value = list(value) if isinstance(value, list) else value
        elif not _exact(value, kind) or (kind is list and not all(type(v) is dict for v in value)):
            return None  # environments is a list of objects
        out[key] = value
    for key in ("cluster_id", "clusterId"):
        if key in raw:
            return None
    return out


def runs_page(reply: Any) -> dict[str, Any] | None:
    """``reply`` (decoded JSON) as the wire models would dump it, or None if they might differ."""
    if not isinstance(reply, dict) or "totalPages" in reply:
        return None
    raw_runs = reply.get("runs", [])
    if not isinstance(raw_runs, list):
        return None
    runs = [_run(r) for r in raw_runs]
    if any(r is None for r in runs):
        return None
    page: dict[str, Any] = {"runs": runs}
    for key, kind in PAGE_KEYS.items():
        value = reply.get(key)
        if value is None:
            continue
        if not _exact(value, kind):
            return None
        page[key] = value
    return page


def _read_capped(response: Any, deadline: float) -> bytes | None:
    """The body, or None past the wire boundary's cap or the deadline for the whole reply."""
    parts: list[bytes] = []
    size = 0
    while True:
        if time.monotonic() > deadline:
            return None
        chunk = response.read1(64 * 1024)
        if not chunk:
            return b"".join(parts)
        size += len(chunk)
        if size > DEFAULT_REPLY_CAP:
            return None
        parts.append(chunk)


def _proxied(env: dict[str, str]) -> bool:
    return any(env.get(name) or env.get(name.upper()) for name in PROXY_VARS)


def fetch_runs_page(
    base_url: str, api_key: str, *, team_id: str | None = None, page: int = 1, limit: int = 20
) -> dict[str, Any] | None:
    """One R1 GET with ``http.client``; the normalised page, or None (see the module docstring)."""
    import http.client

    if not api_key or _proxied(dict(os.environ)):
        return None
    params: dict[str, Any] = {"page": page, "limit": limit}
    if team_id and team_id.strip():
        params["team_id"] = team_id.strip()
    headers = {
        "Authorization": f"Bearer {api_key}",
        "User-Agent": f"primetui/{__version__}",
        "Accept": "application/json",
        "Accept-Encoding": "identity",
    }
    try:
        url = urlsplit(normalize_base_url(base_url) + API_PREFIX + "/rft/runs")  # a broken URL: the client says why
        if url.scheme == "https":
            import ssl

            import certifi

            context = ssl.create_default_context(cafile=certifi.where())
            conn: Any = http.client.HTTPSConnection(url.hostname or "", url.port, timeout=TIMEOUT, context=context)
        elif url.scheme == "http":
            conn = http.client.HTTPConnection(url.hostname or "", url.port, timeout=TIMEOUT)
        else:
            return None
        try:
            conn.request("GET", f"{url.path}?{urlencode(params)}", headers=headers)
            response = conn.getresponse()
            if response.status != 200 or response.getheader("Content-Encoding", "identity") != "identity":
                return None
            body = _read_capped(response, time.monotonic() + TIMEOUT)
        finally:
            conn.close()
        page_of_runs = runs_page(loads(body)) if body is not None else None
        if page_of_runs is not None and len(page_of_runs["runs"]) > limit:
            return None  # longer than asked: the real client cuts it and says so
        return page_of_runs
    except Exception:  # noqa: BLE001 - any problem: the real client asks again and reports it
        return None


class RunsPrefetch:
    """The first page of runs, fetched in a daemon thread from the moment it is created."""

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        team_id: str | None = None,
        page: int = 1,
        limit: int = RUNS_PAGE_SIZE,
        max_age: float = 10.0,
    ) -> None:
        self.page = page
        self.limit = limit
        self.max_age = max_age
        self.future: Future[dict[str, Any] | None] = Future()
        self._started = time.monotonic()
        self._args = (base_url, api_key)
        self._team_id = team_id
        threading.Thread(target=self._work, name="primetui-runs-prefetch", daemon=True).start()

    def _work(self) -> None:
        try:
            self.future.set_result(
                fetch_runs_page(*self._args, team_id=self._team_id, page=self.page, limit=self.limit)
            )
        except BaseException as exc:  # noqa: BLE001 - never raised to anyone: a None is enough
            self.future.set_result(None)
            del exc

    def fresh(self) -> bool:
        """Still young enough to stand for a live reply."""
        return time.monotonic() - self._started <= self.max_age
