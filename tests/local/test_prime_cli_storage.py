"""The official `prime volumes ls/du/cat/put/get` against the local platform's direct storage route:
no session opened or left behind, and a run dispatched right after a put starts."""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx

from primetui.local.testing import LocalPlatform
from tests.local.conftest import wait_status
from tests.local.test_prime_cli import prime_env, run_all


def _sessions(api: httpx.Client, volume: str = "research") -> list[dict]:
    return api.get(f"/training/volumes/{volume}/sessions").json()["sessions"]


def test_seed_put_ls_du_cat_get_go_direct(local_platform: LocalPlatform, api: httpx.Client, tmp_path: Path) -> None:
    env = prime_env(local_platform, tmp_path / "home")
    before = len(_sessions(api))
    data = tmp_path / "my-data"
    (data / "nested").mkdir(parents=True)
    (data / "empty").mkdir()
    (data / "train.jsonl").write_text('{"prompt": "abc", "completion": "cba"}\n' * 50)
    (data / "nested" / "notes.txt").write_text("notes\n")

    (put,) = run_all(env, tmp_path, ["volumes", "put", "research", "my-data", "datasets/"])
    assert put.returncode == 0, put.stdout + put.stderr
    assert "Uploading to research: 3 files" in put.stdout
    volume = local_platform.data_dir / "volumes" / "research" / "datasets" / "my-data"
    assert (volume / "train.jsonl").read_bytes() == (data / "train.jsonl").read_bytes()
    assert (volume / "empty").is_dir() and (volume / "nested" / "notes.txt").read_text() == "notes\n"
    assert (volume / "train.jsonl").stat().st_mtime_ns // 1000 == (data / "train.jsonl").stat().st_mtime_ns // 1000

    ls, du, cat = run_all(
        env,
        tmp_path,
        ["volumes", "ls", "research", "datasets/my-data", "-R", "-o", "json"],
        ["volumes", "du", "research", "datasets/my-data/", "-o", "json"],
        ["volumes", "cat", "research", "datasets/my-data/nested/notes.txt"],
    )
    assert ls.returncode == 0, ls.stdout + ls.stderr
    listed = {e["path"]: e["type"] for e in json.loads(ls.stdout)}
    assert listed == {
        "datasets/my-data/empty/": "directory",
        "datasets/my-data/nested/": "directory",
        "datasets/my-data/nested/notes.txt": "file",
        "datasets/my-data/train.jsonl": "file",
    }
    assert du.returncode == 0, du.stdout + du.stderr
    usage = json.loads(du.stdout)
    assert usage["bytes"] == (data / "train.jsonl").stat().st_size + 6 and usage["capacity"] == "100Gi"
    assert cat.returncode == 0 and cat.stdout == "notes\n", cat.stderr

    (get,) = run_all(env, tmp_path, ["volumes", "get", "research", "datasets/my-data/", "back/"])
    assert get.returncode == 0, get.stdout + get.stderr
    assert (tmp_path / "back" / "train.jsonl").read_bytes() == (data / "train.jsonl").read_bytes()
    assert (tmp_path / "back" / "empty").is_dir()

    assert len(_sessions(api)) == before  # nothing went through a session

    (dispatched,) = run_all(env, local_platform.data_dir, ["train", "sft.toml", "--volume", "research", "-y"])
    assert dispatched.returncode == 0, dispatched.stdout + dispatched.stderr
    run_id = re.search(r"Dispatched hosted run ([a-z0-9]{24})", dispatched.stdout).group(1)
    assert wait_status(api, run_id, {"RUNNING", "COMPLETED"})["status"] in ("RUNNING", "COMPLETED")


def test_put_into_runs_is_refused_and_a_missing_file_says_so(local_platform: LocalPlatform, tmp_path: Path) -> None:
    env = prime_env(local_platform, tmp_path / "home")
    (tmp_path / "f.txt").write_text("x")
    put, cat = run_all(
        env,
        tmp_path,
        ["volumes", "put", "research", "f.txt", "runs/"],
        ["volumes", "cat", "research", "datasets/nope.txt"],
    )
    assert put.returncode == 2 and "runs/ holds run outputs and is read-only; put elsewhere." in put.stdout + put.stderr
    assert cat.returncode == 1 and "NoSuchKey" in cat.stderr
