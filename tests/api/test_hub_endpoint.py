"""The local platform's Hub endpoint over real HTTP, and huggingface_hub's own client against it."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import httpx
import pytest
import respx

from primetui.api import models as m
from primetui.local.hub import registry
from primetui.viewmodel.fmt import DASH
from primetui.viewmodel.volume_view import volume_usage

REPO = "willcb/R1-reverse-wikipedia-paragraphs-v1-1000"
SHARD = "data/train-00000-of-00001.parquet"
BUNDLED = Path(__file__).parents[2] / "src/primetui/local/datasets/reverse-text"


def test_routes_hf_download_uses(local_platform):
    with httpx.Client(base_url=local_platform.base_url, timeout=30) as c:  # no token: public, like the Hub
        info = c.get(f"/api/datasets/{REPO}/revision/main").json()
        assert info["id"] == REPO and len(info["sha"]) == 40
        assert sorted(s["rfilename"] for s in info["siblings"]) == ["README.md", SHARD]
        tree = c.get(f"/api/datasets/{REPO}/tree/{info['sha']}", params={"recursive": "true"}).json()
        files = {e["path"]: e for e in tree if e["type"] == "file"}
        data = (BUNDLED / SHARD).read_bytes()
        assert files[SHARD]["size"] == len(data) and files[SHARD]["lfs"]["oid"] == hashlib.sha256(data).hexdigest()
        assert "lfs" not in files["README.md"]
        assert [e["path"] for e in c.get(f"/api/datasets/{REPO}/tree/main").json()] == ["data", "README.md"]
        head = c.head(f"/datasets/{REPO}/resolve/main/{SHARD}")
        assert head.status_code == 200
        assert head.headers["x-repo-commit"] == info["sha"]
        assert head.headers["x-linked-etag"] == f'"{hashlib.sha256(data).hexdigest()}"'
        assert int(head.headers["content-length"]) == len(data)
        assert c.get(f"/datasets/{REPO}/resolve/{info['sha']}/{SHARD}").content == data
        part = c.get(f"/datasets/{REPO}/resolve/main/{SHARD}", headers={"Range": "bytes=10-19"})
        assert part.status_code == 206 and part.content == data[10:20]  # an interrupted download resumes

        missing = c.get("/api/datasets/nobody/nothing/revision/main")
        assert missing.status_code == 404 and missing.headers["x-error-code"] == "RepoNotFound"
        assert "serves only its bundled datasets" in missing.json()["error"]
        assert c.head("/datasets/nobody/nothing/resolve/main/x.parquet").headers["x-error-code"] == "RepoNotFound"
        assert c.get(f"/api/datasets/{REPO}/revision/v2").headers["x-error-code"] == "RevisionNotFound"
        assert c.head(f"/datasets/{REPO}/resolve/main/nope.txt").headers["x-error-code"] == "EntryNotFound"
        # the platform API is still guarded and untouched by the Hub routes
        assert c.get("/api/v1/training/volumes").status_code == 401


def test_a_hub_file_path_is_decoded_once_and_decided_by_the_path_rule(local_platform):
    with httpx.Client(base_url=local_platform.base_url, timeout=30) as c:
        resolve = f"{local_platform.base_url}/datasets/{REPO}/resolve/main/"
        assert c.head(resolve + "data%5Ctrain-00000-of-00001.parquet").status_code == 200  # '\\' is a separator
        assert c.head(resolve + "data//./" + SHARD.split("/")[1]).status_code == 200
        for refused in (
            "%252e%252e%252fREADME.md",  # decoded once: the literal name '%2e%2e%2fREADME.md'
            "data/..%2F..%2FREADME.md",
            "README.md%00",
            "%EF%BC%8E%EF%BC%8E/README.md",
        ):
            reply = c.get(resolve + refused)
            assert reply.status_code == 404 and reply.headers["x-error-code"] == "EntryNotFound", refused
        tree = c.get(f"/api/datasets/{REPO}/tree/main/data%5C")
        assert [e["path"] for e in tree.json()] == [SHARD]


def test_huggingface_hub_client_downloads_offline(local_platform, tmp_path, monkeypatch):
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import RepositoryNotFoundError

    out = snapshot_download(REPO, repo_type="dataset", local_dir=tmp_path / "rt", endpoint=local_platform.base_url)
    assert (Path(out) / SHARD).read_bytes() == (BUNDLED / SHARD).read_bytes()
    with pytest.raises(RepositoryNotFoundError) as err:
        snapshot_download(
            "nobody/nothing", repo_type="dataset", local_dir=tmp_path / "x", endpoint=local_platform.base_url
        )
    assert "serves only its bundled datasets" in (err.value.server_message or "")


def test_a_new_folder_with_a_manifest_is_discovered(tmp_path):
    folder = tmp_path / "intellect-3-sft-10k"
    (folder / "data").mkdir(parents=True)
    (folder / "manifest.json").write_text(
        json.dumps({"repo_id": "PrimeIntellect/INTELLECT-3-SFT-10K", "repo_type": "dataset"})
    )
    (folder / "README.md").write_text("stand-in\n")
    (folder / "data" / "train-00000-of-00001.parquet").write_bytes(b"PAR1")
    (tmp_path / "no-manifest").mkdir()
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "manifest.json").write_text("{")
    found = registry.discover(tmp_path)
    assert list(found) == [("dataset", "PrimeIntellect/INTELLECT-3-SFT-10K")]
    repo = found[("dataset", "PrimeIntellect/INTELLECT-3-SFT-10K")]
    assert [f.path for f in repo.files] == ["README.md", "data/train-00000-of-00001.parquet"]
    assert registry.by_slug("reverse-text").repo_id == REPO  # the shipped one, through importlib.resources


async def test_passthrough_asks_the_real_hub_and_says_when_it_cannot(monkeypatch):
    from fastapi import FastAPI

    from primetui.local.hub import routes

    app = FastAPI()
    app.include_router(routes.router)
    monkeypatch.setenv(routes.PASSTHROUGH_ENV, "1")
    transport = httpx.ASGITransport(app=app)
    with respx.mock(assert_all_called=True) as hub:
        hub.get("https://huggingface.co/api/datasets/someone/else/revision/main").respond(
            200, json={"id": "someone/else", "sha": "a" * 40, "siblings": []}
        )
        hub.head("https://huggingface.co/datasets/someone/else/resolve/main/f.txt").mock(
            side_effect=httpx.ConnectError("down")
        )
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as c:
            reply = await c.get("/api/datasets/someone/else/revision/main")
            assert reply.status_code == 200 and reply.json()["id"] == "someone/else"
            down = await c.head("/datasets/someone/else/resolve/main/f.txt")
            assert down.status_code == 502
            bundled = await c.get(f"/api/datasets/{REPO}/revision/main")  # bundled repos never leave the machine
            assert bundled.json()["id"] == REPO


async def test_volumes_say_how_much_is_used_and_free(fresh_platform):
    async with fresh_platform.client() as api:
        await api.create_volume("usage", "1Gi")
        (fresh_platform.data_dir / "volumes" / "usage" / "f.bin").write_bytes(b"x" * 3 * 1024 * 1024)
        [volume] = [v for v in await api.list_volumes() if v.name == "usage"]
    assert volume.used_bytes == 3 * 1024 * 1024
    assert volume_usage(volume) == "3.0 MiB used, 1021.0 MiB free"
    hosted = m.Volume(name="hosted", status="RUNNING", cluster_id="c", pvc_name="p", size="100Gi")
    assert volume_usage(hosted) == DASH  # the hosted API does not say
