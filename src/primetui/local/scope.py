"""Scope by id: a volume, its sessions and transfers, or a run, answers only in the scope that owns it.

Lists already show one scope (``teams``); this makes every route addressed by a volume name or a run
id say 404, as a missing object would, when the object belongs to another scope, so an id learnt in
one scope reads, writes or stops nothing in another.

- Volume routes (V3-V14 and the sessions under them): the official CLI sends the active team as
  ``teamId`` (query for GET/DELETE, body for POST/PATCH) and nothing for the personal account, so an
  absent team means the personal account. Names are unique per owner, as on hosted: the route
  addresses the volume of that name in the caller's scope (``volume_key_of``), so a volume of the
  same name in another scope is neither found nor touched.
- Run routes (R2-R12, T5-T7, usage): the official CLI sends no team at all there (hosted answers by
  membership), so only a request that names a team (``team_id`` or ``teamId`` in the query, as
  primetui's client sends it) is held to that scope; one that names none sees the runs of every
  scope the local user belongs to.
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import Request

from primetui.local.errors import fail
from primetui.local.paths import volume_key
from primetui.local.teams import team_scope

_ABSENT = object()


async def _body_team(request: Request) -> Any:
    """The body's ``teamId`` (``_ABSENT`` when there is no JSON object body); the body stays readable."""
    if request.method not in ("POST", "PATCH", "PUT"):
        return _ABSENT
    raw = await request.body()  # Starlette keeps it, so the route still reads it
    try:
        body = json.loads(raw) if raw else None
    except ValueError:
        return _ABSENT  # the route's own parsing answers 422
    return body.get("teamId") if isinstance(body, dict) else _ABSENT


async def volume_request_scope(request: Request) -> str | None:
    """The scope a volume request names: the body's ``teamId``, else the query's, else personal."""
    team = await _body_team(request)
    if team is _ABSENT or team is None:
        team = request.query_params.get("teamId")
    return team_scope(team)


def volume_not_found(name: str) -> Exception:
    return fail(
        404,
        f"Volume '{name}' not found; list your volumes with `prime volumes list` "
        f"or create it with `prime volumes create {name}`.",
    )


def run_not_found(run_id: str) -> Exception:
    return fail(404, f"Run '{run_id}' not found; list your runs with `prime train list`.")


async def scoped_volume(request: Request) -> None:
    """Router dependency: a route with a ``{name}`` path parameter addresses the caller's scope's volume."""
    name = request.path_params.get("name")
    if name is not None:
        request.state.volume_key = volume_key(await volume_request_scope(request), name)


def volume_key_of(request: Request) -> str:
    """The ``paths.volume_key`` of the volume a ``{name}`` route addresses (set by :func:`scoped_volume`)."""
    return request.state.volume_key


async def scoped_run(request: Request) -> None:
    """Router dependency: a route with a ``{run_id}`` path parameter named with a team sees only that team's runs."""
    run_id = request.path_params.get("run_id")
    if run_id is None:
        return
    named = request.query_params.get("team_id", request.query_params.get("teamId"))
    if named is None:
        return
    row = request.app.state.platform.store.get_run(run_id)
    if row is not None and row["team_id"] != team_scope(named):
        raise run_not_found(run_id)
