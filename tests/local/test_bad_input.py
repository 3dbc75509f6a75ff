"""Bad input gets a clear 4xx from the local platform, never a 500, and no error body names a server path."""

from __future__ import annotations

import json
import shutil

import httpx
import pytest
from tests.local.conftest import wait_status, walkthrough_config

from primetui.local.testing import LocalPlatform


def _no_server_path(reply: httpx.Response, lp: LocalPlatform) -> None:
    assert str(lp.data_dir) not in reply.text and str(lp.data_dir.resolve()) not in reply.text, reply.text


@pytest.mark.parametrize(
    "path,params",
    [
        ("/rft/runs", {"page": str(10**21)}),
        ("/rft/runs", {"limit": str(-(10**30))}),
        ("/rft/runs/any/metrics", {"min_step": str(10**21)}),
        ("/rft/runs/any/logs", {"pod_index": str(10**21)}),
    ],
)
def test_numbers_too_big_for_sqlite_get_422(
    api: httpx.Client, local_platform: LocalPlatform, path: str, params: dict
) -> None:
    reply = api.get(path, params=params)
    assert reply.status_code == 422, reply.text
    assert reply.json()["detail"][0]["loc"] == ["query", next(iter(params))]


def test_volume_size_too_big_gets_422_and_no_folder(api: httpx.Client, local_platform: LocalPlatform) -> None:
    reply = api.post("/training/volumes", json={"name": "huge-vol", "size": "9999999Ti"})
    assert reply.status_code == 422, reply.text
    assert not (local_platform.data_dir / "volumes" / "huge-vol").exists()


def test_volume_name_with_a_trailing_newline_is_refused_and_leaves_no_folder(
    api: httpx.Client, local_platform: LocalPlatform
) -> None:
    reply = api.post("/training/volumes", json={"name": "newline-vol\n", "size": "1Gi"})
    assert reply.status_code == 422, reply.text
    assert not any(p.name.startswith("newline-vol") for p in (local_platform.data_dir / "volumes").iterdir())


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_json_bodies_with_nan_or_infinity_get_422(
    api: httpx.Client, local_platform: LocalPlatform, constant: str
) -> None:
    config = json.dumps(walkthrough_config(local_platform))
    body = '{"mode": "sft", "volume": "research", "config": ' + config[:-1] + f', "learning_rate": {constant}' + "}}"
    reply = api.post("/training/runs", content=body, headers={"content-type": "application/json"})
    assert reply.status_code == 422, reply.text
    for path, text in (
        ("/training/volumes/research/sessions", '{"readOnly": %s}'),  # was a 500
        ("/training/volumes", '{"name": "nan-vol", "size": "1Gi", "warm": %s}'),
    ):  # was accepted
        reply = api.post(path, content=text % constant, headers={"content-type": "application/json"})
        assert reply.status_code == 422, reply.text
    assert not (local_platform.data_dir / "volumes" / "nan-vol").exists()


@pytest.mark.parametrize("steps", [0, -5])
def test_max_steps_of_zero_or_below_is_refused(api: httpx.Client, local_platform: LocalPlatform, steps: int) -> None:
    reply = api.post(
        "/training/runs",
        json={"mode": "sft", "volume": "research", "config": walkthrough_config(local_platform, max_steps=steps)},
    )
    assert reply.status_code == 422, reply.text
    assert "max_steps" in json.dumps(reply.json()["detail"])


def test_data_name_part_over_255_bytes_gets_400_naming_no_server_path(
    api: httpx.Client, local_platform: LocalPlatform
) -> None:
    config = walkthrough_config(local_platform, data={"name": "datasets/" + "x" * 300})
    reply = api.post("/training/runs", json={"mode": "sft", "volume": "research", "config": config})
    assert reply.status_code == 400, reply.text
    assert "255 bytes" in reply.json()["detail"]
    _no_server_path(reply, local_platform)


def test_a_422_does_not_echo_a_megabyte_back(api: httpx.Client, local_platform: LocalPlatform) -> None:
    big = "a" * 60_000  # as long as these routes' 64 KiB body cap lets through (longer is a 413: test_request_wall)
    for reply in (
        api.post("/training/volumes", json={"name": big, "size": "1Gi"}),
        api.patch("/training/volumes/research", json={"size": big}),
        api.post("/training/volumes", json={"name": "ok-name", "size": big}),
    ):
        assert reply.status_code == 422, reply.text[:300]
        assert len(reply.content) < 5_000


def test_401_names_no_server_path(local_platform: LocalPlatform) -> None:
    reply = httpx.get(local_platform.api_url + "/training/volumes")
    assert reply.status_code == 401
    _no_server_path(reply, local_platform)


def test_a_runs_symlink_in_the_volume_cannot_send_checkpoints_outside(
    api: httpx.Client, local_platform: LocalPlatform, tmp_path
) -> None:
    assert api.post("/training/volumes", json={"name": "linked-vol", "size": "10Gi"}).status_code == 200
    volume = local_platform.data_dir / "volumes" / "linked-vol"
    shutil.copytree(local_platform.data_dir / "volumes" / "research" / "datasets", volume / "datasets")
    outside = tmp_path / "outside"
    outside.mkdir()
    (volume / "runs").symlink_to(outside)
    reply = api.post(
        "/training/runs",
        json={"mode": "sft", "volume": "linked-vol", "config": walkthrough_config(local_platform, max_steps=2)},
    )
    assert reply.status_code == 200, reply.text
    run = wait_status(api, reply.json()["runId"], {"FAILED", "COMPLETED"}, timeout=120)
    assert list(outside.iterdir()) == [], "the trainer wrote outside the data dir"
    assert run["status"] == "FAILED"
    assert str(local_platform.data_dir) not in (run.get("errorMessage") or "")
    assert api.delete("/training/volumes/linked-vol").status_code in (204, 409)
