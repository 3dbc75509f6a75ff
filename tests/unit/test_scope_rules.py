"""Scope by id, in process: which owner a volume request names, and a run named with another team is 404.

tests/local/test_scope_by_id.py and test_volume_owners.py prove it over HTTP against the platform;
these call the router dependencies of ``primetui.local.scope`` on Starlette requests built here, so
each rule is exact and a mutation of it fails (docs/testing.md, "Mutation testing").
"""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any
from urllib.parse import urlencode

import pytest
from fastapi import HTTPException
from starlette.requests import Request

from primetui.local import scope as sc
from primetui.local.paths import TEAMS_DIR
from primetui.local.teams import LOCAL_TEAM_ID


def request(
    method: str = "GET", *, body: Any = None, raw: bytes | None = None, query: dict[str, str] | None = None, **path: str
) -> Request:
    data = raw if raw is not None else (b"" if body is None else json.dumps(body).encode())
    sent = False

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if sent:
            return {"type": "http.disconnect"}
        sent = True
        return {"type": "http.request", "body": data, "more_body": False}

    runs = {"run-personal": {"team_id": None}, "run-team": {"team_id": LOCAL_TEAM_ID}}
    app = SimpleNamespace(state=SimpleNamespace(platform=SimpleNamespace(store=SimpleNamespace(get_run=runs.get))))
    scope = {
        "type": "http",
        "method": method,
        "path": "/",
        "headers": [],
        "query_string": urlencode(query or {}).encode(),
        "path_params": path,
        "app": app,
    }
    return Request(scope, receive)


@pytest.mark.parametrize(
    "method,body,query,owner",
    [
        ("GET", None, {}, None),  # nothing named: the personal account
        ("GET", None, {"teamId": LOCAL_TEAM_ID}, LOCAL_TEAM_ID),
        ("DELETE", None, {"teamId": LOCAL_TEAM_ID}, LOCAL_TEAM_ID),
        ("POST", {"teamId": LOCAL_TEAM_ID}, {}, LOCAL_TEAM_ID),
        ("PATCH", {"teamId": LOCAL_TEAM_ID}, {}, LOCAL_TEAM_ID),
        ("PUT", {"teamId": LOCAL_TEAM_ID}, {}, LOCAL_TEAM_ID),
        ("POST", {"teamId": None}, {"teamId": LOCAL_TEAM_ID}, LOCAL_TEAM_ID),  # a null body team: the query's
        ("POST", {"name": "x"}, {"teamId": LOCAL_TEAM_ID}, LOCAL_TEAM_ID),
        ("POST", ["not", "an", "object"], {"teamId": LOCAL_TEAM_ID}, LOCAL_TEAM_ID),
        ("POST", {"teamId": "  "}, {}, None),  # a blank team is the personal account
        ("GET", {"teamId": LOCAL_TEAM_ID}, {}, None),  # a GET's body is not read
    ],
)
async def test_a_volume_request_names_its_owner(
    method: str, body: Any, query: dict[str, str], owner: str | None
) -> None:
    assert await sc.volume_request_scope(request(method, body=body, query=query)) == owner


async def test_a_body_that_is_not_json_falls_back_to_the_query_and_stays_readable() -> None:
    req = request("POST", raw=b"{not json", query={"teamId": LOCAL_TEAM_ID})
    assert await sc.volume_request_scope(req) == LOCAL_TEAM_ID
    assert await req.body() == b"{not json"  # the route's own parser still reads it (and answers 422)


async def test_a_team_the_user_is_not_in_is_403() -> None:
    with pytest.raises(HTTPException) as refused:
        await sc.volume_request_scope(request("POST", body={"teamId": "someone-else"}))
    assert refused.value.status_code == 403


async def test_a_volume_route_addresses_the_volume_of_its_owner() -> None:
    personal = request(name="data")
    await sc.scoped_volume(personal)
    assert sc.volume_key_of(personal) == "data"
    team = request(name="data", query={"teamId": LOCAL_TEAM_ID})
    await sc.scoped_volume(team)
    assert sc.volume_key_of(team) == f"{TEAMS_DIR}/{LOCAL_TEAM_ID}/data"
    unnamed = request()
    await sc.scoped_volume(unnamed)  # a route without {name}: nothing set
    assert not hasattr(unnamed.state, "volume_key")


@pytest.mark.parametrize("key", ["team_id", "teamId"])
async def test_a_run_named_with_another_team_is_404_as_if_missing(key: str) -> None:
    with pytest.raises(HTTPException) as missing:
        await sc.scoped_run(request(run_id="run-personal", query={key: LOCAL_TEAM_ID}))
    assert missing.value.status_code == 404
    assert missing.value.detail == "Run 'run-personal' not found; list your runs with `prime train list`."
    await sc.scoped_run(request(run_id="run-team", query={key: LOCAL_TEAM_ID}))  # its own team: on


async def test_a_run_named_with_no_team_or_not_found_goes_on_to_the_route() -> None:
    await sc.scoped_run(request(run_id="run-team"))  # no team named: every scope of the user
    await sc.scoped_run(request(run_id="run-personal"))
    await sc.scoped_run(request(run_id="no-such-run", query={"team_id": LOCAL_TEAM_ID}))  # the route says 404
    await sc.scoped_run(request(query={"team_id": LOCAL_TEAM_ID}))  # no {run_id}
    with pytest.raises(HTTPException) as personal:  # the personal scope named in the query ("" = personal)
        await sc.scoped_run(request(run_id="run-team", query={"team_id": ""}))
    assert personal.value.status_code == 404
    with pytest.raises(HTTPException):  # team_id wins over teamId
        await sc.scoped_run(request(run_id="run-team", query={"team_id": "", "teamId": LOCAL_TEAM_ID}))


def test_a_missing_volume_says_how_to_find_or_make_one() -> None:
    error = sc.volume_not_found("data")
    assert isinstance(error, HTTPException) and error.status_code == 404
    assert error.detail == (
        "Volume 'data' not found; list your volumes with `prime volumes list` or create it with "
        "`prime volumes create data`."
    )
