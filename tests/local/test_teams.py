"""Teams: /user/teams and members as the prime CLI reads them, `prime teams list` / `prime switch`,
and volumes and runs scoped by the team the endpoints send."""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx

from primetui.local.teams import LOCAL_TEAM_ID
from primetui.local.testing import LocalPlatform
from tests.local.conftest import wait_status, walkthrough_config
from tests.local.test_prime_cli import prime_env, run_all


def test_prime_teams_list_and_switch_work_against_the_local_platform(
    local_platform: LocalPlatform, tmp_path: Path
) -> None:
    env = prime_env(local_platform, tmp_path / "home")
    (listed,) = run_all(env, tmp_path, ["teams", "list", "-o", "json"])
    assert listed.returncode == 0, listed.stdout + listed.stderr
    teams = json.loads(listed.stdout)
    assert teams["total_count"] == 1
    assert teams["teams"][0] == {
        "teamId": LOCAL_TEAM_ID,
        "name": "Local Research",
        "slug": "local-research",
        "role": "ADMIN",
        "createdAt": "2026-09-28T20:00:00.000Z",
    }
    (switched,) = run_all(env, tmp_path, ["switch", "local-research"])
    assert switched.returncode == 0, switched.stdout + switched.stderr
    assert "Switched to team 'Local Research'." in switched.stdout
    config = json.loads((tmp_path / "home" / ".prime" / "config.json").read_text())
    assert (config["team_id"], config["team_name"], config["team_role"]) == (LOCAL_TEAM_ID, "Local Research", "ADMIN")
    (members,) = run_all(env, tmp_path, ["teams", "members", "-o", "json"])
    assert members.returncode == 0, members.stdout + members.stderr
    assert [m["userId"] for m in json.loads(members.stdout)["members"]] == ["local-user"]
    (volumes,) = run_all(env, tmp_path, ["volumes", "list"])  # the team has no volumes: research is personal
    assert volumes.returncode == 0 and not re.search(r"research\s+100Gi", volumes.stdout), volumes.stdout
    (back,) = run_all(env, tmp_path, ["switch", "personal"])
    assert back.returncode == 0 and "Switched to personal account." in back.stdout
    assert json.loads((tmp_path / "home" / ".prime" / "config.json").read_text())["team_id"] is None


def test_volumes_and_runs_are_scoped_by_team(local_platform: LocalPlatform, api: httpx.Client) -> None:
    team = {"teamId": LOCAL_TEAM_ID}
    made = api.post("/training/volumes", json={"name": "team-scoped", "size": "1Gi", "warm": False, **team})
    assert made.status_code == 200, made.text
    team_vols = [v["name"] for v in api.get("/training/volumes", params=team).json()["volumes"]]
    personal_vols = [v["name"] for v in api.get("/training/volumes").json()["volumes"]]
    assert "team-scoped" in team_vols and "research" not in team_vols
    assert "research" in personal_vols and "team-scoped" not in personal_vols

    config = walkthrough_config(local_platform, max_steps=1, data={"type": "fake", "batch_size": 2, "seq_len": 64})
    config["data"].pop("name", None)
    body = {"config": config, "mode": "sft", "volume": "research", **team}
    refused = api.post("/training/runs", json=body)  # the personal volume is not the team's
    assert refused.status_code == 404 and "Volume 'research' not found" in refused.json()["detail"]
    reply = api.post("/training/runs", json={**body, "volume": "team-scoped"})
    assert reply.status_code == 200, reply.text
    run_id = reply.json()["runId"]
    assert wait_status(api, run_id)["status"] == "COMPLETED"
    team_runs = [r["id"] for r in api.get("/rft/runs", params={"team_id": LOCAL_TEAM_ID, "limit": 100}).json()["runs"]]
    personal_runs = [r["id"] for r in api.get("/rft/runs", params={"limit": 100}).json()["runs"]]
    assert run_id in team_runs and run_id not in personal_runs


def test_an_unknown_team_is_one_sentence(local_platform: LocalPlatform, api: httpx.Client) -> None:
    reply = api.get("/training/volumes", params={"teamId": "not-mine"})
    assert reply.status_code == 403
    assert reply.json()["detail"] == (
        "Team 'not-mine' is not one of your teams; list them with `prime teams list`, "
        "or switch to your personal account with `prime switch personal`."
    )
    assert api.get("/teams/not-mine/members").status_code == 404
    assert api.get("/user/teams", params={"limit": 0}).status_code == 400
