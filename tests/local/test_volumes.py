"""Volumes V1-V4 over real HTTP, the bearer token, and a V11 body without its fields (the rest: test_transfers.py)."""

from __future__ import annotations

import os
import stat

import httpx

from primetui.local.testing import LocalPlatform


def test_requests_without_the_token_get_401_with_a_detail(local_platform: LocalPlatform) -> None:
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": f"Basic {local_platform.token}"}):
        reply = httpx.get(local_platform.api_url + "/training/volumes", headers=headers)
        assert reply.status_code == 401
        detail = reply.json()["detail"]
        assert "primetui local serve" in detail and local_platform.token not in detail


def test_token_file_is_private(local_platform: LocalPlatform) -> None:
    mode = stat.S_IMODE(os.stat(local_platform.data_dir / "token").st_mode)
    assert mode == 0o600
    assert (local_platform.data_dir / "token").read_text().strip() == local_platform.token


def test_demo_volume_is_listed_with_the_contract_fields(api: httpx.Client) -> None:
    volumes = {v["name"]: v for v in api.get("/training/volumes").json()["volumes"]}
    research = volumes["research"]
    assert research["status"] == "RUNNING" and research["size"] == "100Gi"
    for key in ("clusterId", "pvcName", "createdAt"):
        assert research[key]


def test_create_expand_delete(local_platform: LocalPlatform, api: httpx.Client) -> None:
    created = api.post("/training/volumes", json={"name": "scratch-a", "size": "10Gi", "warm": True})
    assert created.status_code == 200, created.text
    assert created.json()["status"] == "RUNNING"
    assert (local_platform.data_dir / "volumes" / "scratch-a").is_dir()

    again = api.post("/training/volumes", json={"name": "scratch-a", "size": "10Gi"})
    assert again.status_code == 409 and "already exists" in again.json()["detail"]

    shrink = api.patch("/training/volumes/scratch-a", json={"size": "5Gi"})
    assert shrink.status_code == 400 and "only grow" in shrink.json()["detail"]
    grown = api.patch("/training/volumes/scratch-a", json={"size": "2Ti"})
    assert grown.status_code == 200 and grown.json()["size"] == "2Ti"

    assert api.delete("/training/volumes/scratch-a").status_code == 204
    assert not (local_platform.data_dir / "volumes" / "scratch-a").exists()
    assert "scratch-a" not in {v["name"] for v in api.get("/training/volumes").json()["volumes"]}
    missing = api.delete("/training/volumes/scratch-a")
    assert missing.status_code == 404 and "prime volumes list" in missing.json()["detail"]


def test_default_size_is_5Ti(api: httpx.Client) -> None:
    reply = api.post("/training/volumes", json={"name": "scratch-default"})
    assert reply.status_code == 200 and reply.json()["size"] == "5Ti"
    assert api.delete("/training/volumes/scratch-default").status_code == 204


def test_bad_names_and_sizes_are_422_with_loc(api: httpx.Client) -> None:
    for name in ("Upper", "-lead", "trail-", "has space", "../up", "a" * 64, ""):
        reply = api.post("/training/volumes", json={"name": name, "size": "1Gi"})
        assert reply.status_code == 422, name
        assert reply.json()["detail"][0]["loc"] == ["body", "name"]
    for size in ("100", "1.5Gi", "10GB", "-1Gi", "0Gi", 5):
        reply = api.post("/training/volumes", json={"name": "scratch-size", "size": size})
        assert reply.status_code == 422, size
        item = reply.json()["detail"][0]
        assert item["loc"] == ["body", "size"] and item["msg"]


def test_s3_import_export_refuses_a_body_without_its_fields(api: httpx.Client) -> None:
    reply = api.post("/training/volumes/research/transfers", json={})
    assert reply.status_code == 400 and reply.json()["detail"] == 'direction must be "import" or "export".'


def test_prepare_answers_404_so_the_cli_skips_local_validation(api: httpx.Client) -> None:
    reply = api.post("/training/runs/prepare", json={"mode": "sft", "teamId": None})
    assert reply.status_code == 404


def test_whoami(api: httpx.Client) -> None:
    assert api.get("/user/whoami").json()["data"]["id"]
