"""Scope holds by id as well as by list: another scope's volume, session or run is a 404, as a missing one."""

from __future__ import annotations

import subprocess
from pathlib import Path

import httpx

from primetui.local.launcher import local_team
from primetui.local.teams import LOCAL_TEAM_ID
from primetui.local.testing import LocalPlatform
from tests.local.conftest import dispatch, wait_status, walkthrough_config

TEAM = {"teamId": LOCAL_TEAM_ID}


def _fake_config(lp: LocalPlatform) -> dict:
    config = walkthrough_config(lp, max_steps=1, data={"type": "fake", "batch_size": 2, "seq_len": 64})
    config["data"].pop("name", None)
    return config


def test_another_scopes_volume_is_not_found_by_name(local_platform: LocalPlatform, api: httpx.Client) -> None:
    made = api.post("/training/volumes", json={"name": "scoped-team", "size": "1Gi", "warm": False, **TEAM})
    assert made.status_code == 200, made.text
    # personal -> team volume: session, expand, delete, sessions list all answer as for a missing volume
    for reply in (
        api.post("/training/volumes/scoped-team/sessions", json={"readOnly": False}),
        api.patch("/training/volumes/scoped-team", json={"size": "2Gi"}),
        api.get("/training/volumes/scoped-team/sessions"),
        api.delete("/training/volumes/scoped-team"),
    ):
        assert reply.status_code == 404, reply.text
        assert "Volume 'scoped-team' not found" in reply.json()["detail"]
    # team -> personal volume
    opened = api.post("/training/volumes/research/sessions", json={"readOnly": True, **TEAM})
    assert opened.status_code == 404 and "Volume 'research' not found" in opened.json()["detail"]
    # and in its own scope it answers
    own = api.get("/training/volumes/scoped-team/sessions", params=TEAM)
    assert own.status_code == 200, own.text
    assert api.delete("/training/volumes/scoped-team", params=TEAM).status_code == 204


def test_a_session_of_another_scope_cannot_be_read_or_stopped(local_platform: LocalPlatform, api: httpx.Client) -> None:
    session = api.post("/training/volumes/research/sessions", json={"readOnly": True})
    assert session.status_code == 200, session.text
    sid = session.json()["id"]
    peek = api.get(f"/training/volumes/research/sessions/{sid}", params=TEAM)
    stop = api.delete(f"/training/volumes/research/sessions/{sid}", params=TEAM)
    assert peek.status_code == 404 and stop.status_code == 404
    assert api.get(f"/training/volumes/research/sessions/{sid}").json()["status"] != "STOPPED"
    assert api.delete(f"/training/volumes/research/sessions/{sid}").status_code == 204


def test_a_run_named_with_another_scope_is_not_found(local_platform: LocalPlatform, api: httpx.Client) -> None:
    run_id = dispatch(api, _fake_config(local_platform), volume=None)  # personal
    assert wait_status(api, run_id)["status"] == "COMPLETED"
    for path in ("", "/logs?tail_lines=10", "/metrics", "/checkpoints", "/progress"):
        url = f"/rft/runs/{run_id}{path}"
        sep = "&" if "?" in url else "?"
        reply = api.get(f"{url}{sep}team_id={LOCAL_TEAM_ID}")
        assert reply.status_code == 404, (path, reply.text)
        assert f"Run '{run_id}' not found" in reply.json()["detail"]
    assert api.put(f"/rft/runs/{run_id}/stop", params={"team_id": LOCAL_TEAM_ID}).status_code == 404
    # named in its own scope, or (like the official CLI) in none, it answers
    assert api.get(f"/rft/runs/{run_id}").status_code == 200


def test_local_team_keeps_a_local_team_and_drops_a_hosted_one() -> None:
    assert local_team(LOCAL_TEAM_ID) == LOCAL_TEAM_ID
    assert local_team("cm-hosted-team-id") is None and local_team(None) is None


def test_prime_volumes_put_from_personal_does_not_reach_a_team_volume(
    local_platform: LocalPlatform, api: httpx.Client, tmp_path: Path
) -> None:
    from tests.local.test_prime_cli import prime_env, run_all

    made = api.post("/training/volumes", json={"name": "teamput", "size": "1Gi", "warm": False, **TEAM})
    assert made.status_code == 200, made.text
    (tmp_path / "f.txt").write_text("hello\n")
    env = prime_env(local_platform, tmp_path / "home")
    (tmp_path / "home" / ".ssh").mkdir()
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(tmp_path / "home" / ".ssh" / "id_rsa")], check=True
    )  # the key `prime volumes` looks for, so the refusal is the volume's, not the key's
    (put,) = run_all(env, tmp_path, ["volumes", "put", "teamput", "f.txt", "/"])
    assert put.returncode != 0, put.stdout + put.stderr
    assert "Volume 'teamput' not found" in " ".join((put.stdout + put.stderr).split())
    assert not (local_platform.data_dir / "volumes" / "teamput" / "f.txt").exists()
    assert api.get("/training/volumes/teamput/sessions", params=TEAM).json()["sessions"] == []
