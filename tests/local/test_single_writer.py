"""The single-writer rule: a run on a volume with a live read-write session waits (PENDING, with a
queueReason) until the session has stopped and synced; volumes in use cannot be deleted."""

from __future__ import annotations

import time

import httpx

from primetui.local.testing import LocalPlatform
from tests.local.conftest import dispatch, wait_status, walkthrough_config


def fake_config(lp: LocalPlatform, steps: int = 3) -> dict:
    config = walkthrough_config(lp, max_steps=steps)
    config["data"] = {"type": "fake", "batch_size": 2, "seq_len": 64}
    config.pop("ckpt")
    return config


def test_run_waits_for_the_read_write_session_then_starts(local_platform: LocalPlatform, api: httpx.Client) -> None:
    assert api.post("/training/volumes", json={"name": "writer", "size": "1Gi"}).status_code == 200
    session = api.post("/training/volumes/writer/sessions", json={"readOnly": False})
    assert session.status_code == 200, session.text
    sid = session.json()["id"]

    run_id = dispatch(api, fake_config(local_platform), volume="writer")
    deadline = time.monotonic() + 30
    run = api.get(f"/rft/runs/{run_id}").json()["run"]
    while not run.get("queueReason"):
        assert time.monotonic() < deadline, run
        time.sleep(0.1)
        run = api.get(f"/rft/runs/{run_id}").json()["run"]
    assert run["status"] == "PENDING"
    assert sid in run["queueReason"] and f"prime volumes stop writer {sid}" in run["queueReason"]
    # A run dispatched later on a free volume starts: the scheduler (oldest first) has passed over
    # the waiting run again since, and left it waiting.
    later = dispatch(api, fake_config(local_platform), volume="research")
    wait_status(api, later, {"CREATING", "RUNNING", "COMPLETED"})
    assert api.get(f"/rft/runs/{run_id}").json()["run"]["status"] == "PENDING"

    logs = api.get(f"/rft/runs/{run_id}/logs")
    assert logs.status_code == 404 and logs.json()["detail"] == "Logs are not available yet (run is PENDING)."

    busy = api.delete("/training/volumes/writer")
    assert busy.status_code == 409 and run_id in busy.json()["detail"]

    assert api.delete(f"/training/volumes/writer/sessions/{sid}").status_code == 204
    run = wait_status(api, run_id)
    assert run["status"] == "COMPLETED", run.get("errorMessage")
    assert "queueReason" not in run
    assert api.delete("/training/volumes/writer").status_code == 204


def test_a_live_session_blocks_volume_deletion(api: httpx.Client) -> None:
    assert api.post("/training/volumes", json={"name": "reader", "size": "1Gi"}).status_code == 200
    sid = api.post("/training/volumes/reader/sessions", json={"readOnly": True}).json()["id"]
    busy = api.delete("/training/volumes/reader")
    assert busy.status_code == 409
    assert f"prime volumes stop reader {sid}" in busy.json()["detail"]
    assert api.delete(f"/training/volumes/reader/sessions/{sid}").status_code == 204
    deadline = time.monotonic() + 30
    while api.delete("/training/volumes/reader").status_code == 409:
        assert time.monotonic() < deadline
        time.sleep(0.1)
    assert "reader" not in {v["name"] for v in api.get("/training/volumes").json()["volumes"]}
