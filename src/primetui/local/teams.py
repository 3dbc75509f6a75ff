"""Teams on the local platform: the personal account plus one team, as the prime CLI reads them.

``GET /user/teams?offset&limit`` -> ``{"data": [{teamId, name, slug, role, createdAt}], "total_count"}``
and ``GET /teams/{id}/members`` -> ``{"data": [{userId, userName, userEmail, role, joinedAt}]}``
(prime_cli commands/teams.py). The endpoints send the active team as ``teamId`` (volumes, T4 body)
or ``team_id`` (R1, T1, T2); an absent team means the personal account. Volumes and runs carry the
scope they were created in, and lists show only that scope's; a team id that is not one of the
user's teams is refused with one sentence.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from primetui.local.errors import fail
from primetui.local.state import LOCAL_USER_ID, LOCAL_USER_NAME

LOCAL_TEAM_ID = "local-team-research"
TEAMS: tuple[dict[str, str], ...] = (
    {
        "teamId": LOCAL_TEAM_ID,
        "name": "Local Research",
        "slug": "local-research",
        "role": "ADMIN",
        "createdAt": "2026-09-28T20:00:00.000Z",
    },
)
MEMBERS: dict[str, tuple[dict[str, str], ...]] = {
    LOCAL_TEAM_ID: (
        {
            "userId": LOCAL_USER_ID,
            "userName": LOCAL_USER_NAME,
            "userEmail": "local@127.0.0.1",
            "role": "ADMIN",
            "joinedAt": "2026-09-28T20:00:00.000Z",
        },
    ),
}

router = APIRouter()


def team_scope(value: Any) -> str | None:
    """The scope a request names: None for the personal account, else a known team id (403 otherwise)."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if not isinstance(value, str) or value.strip() not in MEMBERS:
        shown = value if isinstance(value, str) else type(value).__name__
        raise fail(
            403,
            f"Team '{shown[:80]}' is not one of your teams; list them with `prime teams list`, "
            "or switch to your personal account with `prime switch personal`.",
        )
    return value.strip()


def query_scope(request: Request, spelling: str) -> str | None:
    return team_scope(request.query_params.get(spelling))


def scope_name(team_id: str | None) -> str:
    if team_id is None:
        return "your personal account"
    team = next((t for t in TEAMS if t["teamId"] == team_id), None)
    return f"team '{team['name']}'" if team else f"team {team_id}"


@router.get("/user/teams")
async def list_teams(offset: int = 0, limit: int = 100) -> dict[str, Any]:
    if offset < 0 or not 1 <= limit <= 100:
        raise fail(400, "offset must be 0 or more and limit between 1 and 100.")
    return {"data": [dict(t) for t in TEAMS[offset : offset + limit]], "total_count": len(TEAMS)}


@router.get("/teams/{team_id}/members")
async def list_members(team_id: str) -> dict[str, Any]:
    members = MEMBERS.get(team_id)
    if members is None:
        raise fail(404, f"Team '{team_id[:80]}' not found; list your teams with `prime teams list`.")
    return {"data": [dict(m) for m in members]}
