"""Volume names are unique per owner, as on hosted: a team and the personal account may each have a
``research``, and every volume route, the storage route and dispatch find the one of the caller's scope."""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from primetui.local.state import LocalState
from primetui.local.teams import LOCAL_TEAM_ID
from primetui.local.testing import LocalPlatform
from tests.local.conftest import http, wait_status
from tests.local.test_prime_cli import prime_env, run_all
from tests.waiting import wait_for_sync

TEAM = {"teamId": LOCAL_TEAM_ID}


@pytest.fixture(scope="module")
def owners_platform(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalPlatform]:
    """The module's platform: the team's ``research`` must not outlive a test on the shared one."""
    with LocalPlatform.start(tmp_path_factory.mktemp("owners"), demo=True) as lp:
        yield lp


@pytest.fixture
def demo_platform(owners_platform: LocalPlatform) -> Iterator[LocalPlatform]:
    """The module's platform with no team ``research``, which each test creates; deleted again after it."""
    with http(owners_platform) as api:
        assert "research" not in _sizes(api, **TEAM)
        yield owners_platform
        gone = wait_for_sync(
            lambda: api.delete("/training/volumes/research", params=TEAM).status_code in (204, 404),
            "the team's research deleted (once its last session has stopped)",
        )
        assert gone and "research" not in _sizes(api, **TEAM)


def small_sft_toml(lp: LocalPlatform) -> str:
    """The demo's sft.toml at 2 steps of a small batch: a run that writes its checkpoint, at a fifth of the CPU."""
    text = (lp.data_dir / "sft.toml").read_text()
    for old, new in (
        ("max_steps = 10", "max_steps = 2"),
        ("interval = 10", "interval = 2"),
        ("seq_len = 2048", "seq_len = 256"),
        ("batch_size = 8", "batch_size = 4"),
    ):
        assert old in text, old
        text = text.replace(old, new)
    return text


def _team_dir(lp: LocalPlatform, name: str) -> Path:
    return lp.data_dir / "volumes" / "_teams" / LOCAL_TEAM_ID / name


def _sizes(api: httpx.Client, **params: str) -> dict[str, str]:
    return {v["name"]: v["size"] for v in api.get("/training/volumes", params=params).json()["volumes"]}


def test_a_team_and_the_personal_account_each_have_research(demo_platform: LocalPlatform) -> None:
    with http(demo_platform) as api:
        made = api.post("/training/volumes", json={"name": "research", "size": "1Gi", "warm": True, **TEAM})
        assert made.status_code == 200, made.text
        again = api.post("/training/volumes", json={"name": "research", "size": "1Gi", **TEAM})
        assert again.status_code == 409
        assert "already exists in team 'Local Research'" in again.json()["detail"]
        assert _sizes(api, **TEAM)["research"] == "1Gi" and _sizes(api)["research"] == "100Gi"
        grown = api.patch("/training/volumes/research", json={"size": "2Gi", **TEAM})
        assert grown.status_code == 200 and grown.json()["size"] == "2Gi"
        assert _sizes(api)["research"] == "100Gi"  # the personal one is not touched
        assert _team_dir(demo_platform, "research").is_dir()
        assert (demo_platform.data_dir / "volumes" / "research" / "datasets").is_dir()

        routes = [
            api.post("/training/volumes/research/transfer", json={"mode": "get", "path": "", **scope}).json()
            for scope in ({}, TEAM)
        ]
        assert routes[0]["prefix"] != routes[1]["prefix"]  # credentials of one reach nothing of the other

        session = api.post("/training/volumes/research/sessions", json={"readOnly": True, **TEAM})
        assert session.status_code == 200, session.text
        sid = session.json()["id"]
        assert session.json()["volumeName"] == "research"
        assert api.get("/training/volumes/research/sessions").json()["sessions"] == []
        assert [s["id"] for s in api.get("/training/volumes/research/sessions", params=TEAM).json()["sessions"]] == [
            sid
        ]
        assert api.get(f"/training/volumes/research/sessions/{sid}").status_code == 404
        assert api.delete(f"/training/volumes/research/sessions/{sid}", params=TEAM).status_code == 204
        wait_stopped = api.get(f"/training/volumes/research/sessions/{sid}", params=TEAM)
        assert wait_stopped.status_code == 200

        for name in ("_teams", f"_teams/{LOCAL_TEAM_ID}"):  # the folder that holds team volumes is no volume
            assert api.post(f"/training/volumes/{name}/sessions", json={"readOnly": True}).status_code == 404


def test_prime_in_team_scope_creates_and_uses_the_teams_research(demo_platform: LocalPlatform, tmp_path: Path) -> None:
    lp = demo_platform
    personal_env = prime_env(lp, tmp_path / "personal")
    team_env = prime_env(lp, tmp_path / "team")
    (switched,) = run_all(team_env, tmp_path, ["switch", "local-research"])
    assert switched.returncode == 0, switched.stdout + switched.stderr
    (tmp_path / "sft.toml").write_text(small_sft_toml(lp))

    (first,) = run_all(team_env, tmp_path, ["train", "sft.toml", "--volume", "research", "-y"])
    out = " ".join((first.stdout + first.stderr).split())
    assert first.returncode == 0, out
    assert "Volume 'research' doesn't exist, creating it" in out  # in the team: the personal one is not its
    assert "409" not in out and "already exists" not in out
    first_id = re.search(r"Dispatched hosted run ([a-z0-9]{24})", first.stdout).group(1)
    assert _team_dir(lp, "research").is_dir()
    with http(lp) as api:
        assert set(_sizes(api, **TEAM)) == {"research"}
        # the team's new volume holds no dataset: the run does not read the personal one's
        failed = wait_status(api, first_id)
        assert failed["status"] == "FAILED", failed

    personal_data, team_data = tmp_path / "p" / "reverse-text", tmp_path / "t" / "reverse-text"
    personal_data.mkdir(parents=True)
    (personal_data / "owner.txt").write_text("personal\n")
    shutil.copytree(lp.data_dir / "volumes" / "research" / "datasets" / "reverse-text", team_data)
    (team_data / "owner.txt").write_text("team\n")
    put_personal, put_team = (
        run_all(personal_env, tmp_path / "p", ["volumes", "put", "research", "reverse-text", "datasets/"])[0],
        run_all(team_env, tmp_path / "t", ["volumes", "put", "research", "reverse-text", "datasets/"])[0],
    )
    assert put_personal.returncode == 0, put_personal.stdout + put_personal.stderr
    assert put_team.returncode == 0, put_team.stdout + put_team.stderr
    assert (_team_dir(lp, "research") / "datasets" / "reverse-text" / "owner.txt").read_text() == "team\n"
    assert (
        lp.data_dir / "volumes" / "research" / "datasets" / "reverse-text" / "owner.txt"
    ).read_text() == "personal\n"

    (cat_personal,) = run_all(personal_env, tmp_path, ["volumes", "cat", "research", "datasets/reverse-text/owner.txt"])
    cat_team, ls_team = run_all(
        team_env,
        tmp_path,
        ["volumes", "cat", "research", "datasets/reverse-text/owner.txt"],
        ["volumes", "ls", "research", "datasets/reverse-text", "-R", "-o", "json"],
    )
    assert (cat_personal.stdout, cat_team.stdout) == ("personal\n", "team\n"), cat_personal.stderr + cat_team.stderr
    listed = {e["path"] for e in json.loads(ls_team.stdout)}
    assert "datasets/reverse-text/data/train-00000-of-00001.parquet" in listed
    (get_team,) = run_all(
        team_env, tmp_path, ["volumes", "get", "research", "datasets/reverse-text/owner.txt", "got.txt"]
    )
    assert get_team.returncode == 0 and (tmp_path / "got.txt").read_text() == "team\n", (
        get_team.stdout + get_team.stderr
    )

    (second,) = run_all(team_env, tmp_path, ["train", "sft.toml", "--volume", "research", "-y"])
    assert second.returncode == 0, second.stdout + second.stderr
    run_id = re.search(r"Dispatched hosted run ([a-z0-9]{24})", second.stdout).group(1)
    with http(lp) as api:
        assert wait_status(api, run_id)["status"] == "COMPLETED"
        checkpoints = api.get(f"/rft/runs/{run_id}/checkpoints").json()["checkpoints"]
    assert checkpoints, "the run wrote no checkpoint"
    assert (_team_dir(lp, "research") / "runs" / run_id).is_dir()  # /volume was the team's
    assert not (lp.data_dir / "volumes" / "research" / "runs" / run_id).exists()


def _old_data_dir(data_dir: Path) -> None:
    """A data dir as the platform wrote it while volume names were unique across owners."""
    (data_dir / "volumes" / "research" / "datasets").mkdir(parents=True)
    (data_dir / "volumes" / "teamvol" / "runs" / "run-a" / "checkpoints" / "step_1").mkdir(parents=True)
    (data_dir / "volumes" / "teamvol" / "notes.txt").write_text("team notes\n")
    db = sqlite3.connect(data_dir / "state.sqlite3")
    db.executescript("""
        CREATE TABLE volumes (name TEXT PRIMARY KEY, size TEXT NOT NULL, size_bytes INTEGER NOT NULL,
            status TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL, team_id TEXT);
        CREATE TABLE checkpoints (run_id TEXT NOT NULL, step INTEGER NOT NULL, path TEXT NOT NULL,
            size_bytes INTEGER NOT NULL, created_at REAL NOT NULL, PRIMARY KEY (run_id, step));
        CREATE TABLE storage_objects (volume TEXT NOT NULL, key TEXT NOT NULL, size INTEGER NOT NULL,
            mtime_ns INTEGER NOT NULL, etag TEXT NOT NULL, metadata TEXT NOT NULL, PRIMARY KEY (volume, key));
    """)
    db.execute("INSERT INTO volumes VALUES ('research', '100Gi', 1, 'RUNNING', 'a', 'a', NULL)")
    db.execute("INSERT INTO volumes VALUES ('teamvol', '1Gi', 1, 'RUNNING', 'b', 'b', ?)", (LOCAL_TEAM_ID,))
    step = (data_dir / "volumes" / "teamvol" / "runs" / "run-a" / "checkpoints" / "step_1").resolve()
    db.execute("INSERT INTO checkpoints VALUES ('run-a', 1, ?, 0, 0)", (str(step),))
    db.execute("INSERT INTO storage_objects VALUES ('teamvol', 'notes.txt', 11, 0, '\"e\"', '{}')")
    db.commit()
    db.close()


def test_an_old_data_dir_moves_team_volumes_under_their_owner(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    _old_data_dir(data_dir)
    state = LocalState.open(data_dir)
    try:
        store = state.store
        assert store.get_volume(None, "research")["size"] == "100Gi"
        assert store.get_volume(LOCAL_TEAM_ID, "teamvol")["size"] == "1Gi"
        assert store.get_volume(None, "teamvol") is None
        moved = data_dir / "volumes" / "_teams" / LOCAL_TEAM_ID / "teamvol"
        assert (moved / "notes.txt").read_text() == "team notes\n"
        assert not (data_dir / "volumes" / "teamvol").exists()
        assert (data_dir / "volumes" / "research" / "datasets").is_dir()
        (path,) = [r["path"] for r in store.list_checkpoints("run-a")]
        assert Path(path) == (moved / "runs" / "run-a" / "checkpoints" / "step_1").resolve() and Path(path).is_dir()
        meta = store.db.execute("SELECT volume FROM storage_objects").fetchall()
        assert [r["volume"] for r in meta] == [f"_teams/{LOCAL_TEAM_ID}/teamvol"]
        store.insert_volume(LOCAL_TEAM_ID, "research", "1Gi", 1, "RUNNING")  # now a team may have one too
        with pytest.raises(sqlite3.IntegrityError):
            store.insert_volume(LOCAL_TEAM_ID, "research", "1Gi", 1, "RUNNING")
    finally:
        state.store.close()
    LocalState.open(data_dir).store.close()  # opening again migrates nothing twice


def test_a_failed_move_leaves_the_old_data_dir_as_it_was(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data_dir = tmp_path / "data"
    _old_data_dir(data_dir)
    (data_dir / "volumes" / "secondvol").mkdir()
    db = sqlite3.connect(data_dir / "state.sqlite3")
    db.execute("INSERT INTO volumes VALUES ('secondvol', '1Gi', 1, 'RUNNING', 'c', 'c', ?)", (LOCAL_TEAM_ID,))
    db.commit()
    db.close()
    import os

    real_rename = os.rename
    calls: list[str] = []

    def rename_once(src: object, dst: object) -> None:
        calls.append(str(src))
        if len(calls) == 2:
            raise OSError(13, "Permission denied")
        real_rename(src, dst)

    monkeypatch.setattr("primetui.local.store.os.rename", rename_once)
    with pytest.raises(OSError):
        LocalState.open(data_dir)
    monkeypatch.setattr("primetui.local.store.os.rename", real_rename)
    assert (data_dir / "volumes" / "teamvol" / "notes.txt").is_file() and (data_dir / "volumes" / "secondvol").is_dir()
    db = sqlite3.connect(data_dir / "state.sqlite3")
    pk = {row[1]: row[5] for row in db.execute("PRAGMA table_info(volumes)")}
    db.close()
    assert pk["name"] == 1  # the old table, untouched
    state = LocalState.open(data_dir)  # and the next open migrates it
    try:
        assert state.store.get_volume(LOCAL_TEAM_ID, "secondvol") is not None
        assert (data_dir / "volumes" / "_teams" / LOCAL_TEAM_ID / "secondvol").is_dir()
    finally:
        state.store.close()
