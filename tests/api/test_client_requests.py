"""Every PrimeClient method sends exactly what the `prime` CLI 0.18.0 sends (contract §2).

Wire examples marked [observed] in shared/research/prime-cli-contract.md are asserted verbatim:
method, path, query (including the per-endpoint team spelling `teamId` vs `team_id`) and body.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
import respx

from primetui.api import models as m
from primetui.api.client import CREATE_RUN_TIMEOUT, PrimeClient

BASE = "http://127.0.0.1:9"
API = BASE + "/api/v1"
KEY = "pk-test-0123456789"

RUN = {
    "id": "kqeggj5dl7k85bc0mk1i4y5i",
    "userId": "u1",
    "status": "RUNNING",
    "createdAt": "2026-01-01T00:00:00Z",
    "updatedAt": "2026-01-01T00:01:00Z",
}
VOLUME = {"name": "research", "status": "RUNNING", "clusterId": "c1", "pvcName": "pvc-1", "size": "100Gi"}
SESSION = {"id": "vs_1", "volumeName": "research", "status": "RUNNING", "readOnly": False}
CREATED = {"runId": "kqeggj5dl7k85bc0mk1i4y5i", "tokenValue": "tok-secret"}
USAGE = {"run_id": "r1", "training": {}, "inference": {}, "pricing": {}}
SEED_CONFIG = {
    "max_steps": 10,
    "ckpt": {"interval": 10, "keep_last": 1},
    "model": {"name": "PrimeIntellect/Qwen3-0.6B-Reverse-Text-SFT"},
    "data": {"name": "datasets/reverse-text", "type": "sft", "seq_len": 2048, "batch_size": 8},
    "optim": {"lr": 2e-05},
    "deployment": {"type": "single_node", "num_train_gpus": 1, "gpus_per_node": 1},
    "renderer": {"name": "prime-qwen3"},
}

# (call, method, path, query, body, reply, team?)
CASES: list[tuple[str, Any, str, str, dict[str, str], Any, Any, bool]] = [
    ("V1", lambda c: c.list_volumes(), "GET", "/training/volumes", {}, None, {"volumes": [VOLUME]}, False),
    ("V1 team", lambda c: c.list_volumes(), "GET", "/training/volumes", {"teamId": "t1"}, None, {"volumes": []}, True),
    (
        "V2",
        lambda c: c.create_volume("newvol", "100Gi"),
        "POST",
        "/training/volumes",
        {},
        {"name": "newvol", "size": "100Gi", "warm": True},
        VOLUME,
        False,
    ),
    (
        "V2 team",
        lambda c: c.create_volume("newvol", "100Gi", warm=False),
        "POST",
        "/training/volumes",
        {},
        {"name": "newvol", "size": "100Gi", "warm": False, "teamId": "t1"},
        VOLUME,
        True,
    ),
    (
        "V3",
        lambda c: c.expand_volume("research", "200Gi"),
        "PATCH",
        "/training/volumes/research",
        {},
        {"size": "200Gi"},
        VOLUME,
        False,
    ),
    (
        "V3 team",
        lambda c: c.expand_volume("research", "200Gi"),
        "PATCH",
        "/training/volumes/research",
        {},
        {"size": "200Gi", "teamId": "t1"},
        VOLUME,
        True,
    ),
    ("V4", lambda c: c.delete_volume("research"), "DELETE", "/training/volumes/research", {}, None, 204, False),
    (
        "V4 team",
        lambda c: c.delete_volume("research"),
        "DELETE",
        "/training/volumes/research",
        {"teamId": "t1"},
        None,
        204,
        True,
    ),
    (
        "V5 rw",
        lambda c: c.create_session("research"),
        "POST",
        "/training/volumes/research/sessions",
        {},
        {"readOnly": False},
        SESSION,
        False,
    ),
    (
        "V5 get",
        lambda c: c.create_session("research", read_only=True, allow_writable=True),
        "POST",
        "/training/volumes/research/sessions",
        {},
        {"readOnly": True, "allowWritable": True},
        SESSION,
        False,
    ),
    (
        "V5 team",
        lambda c: c.create_session("research", read_only=True),
        "POST",
        "/training/volumes/research/sessions",
        {},
        {"readOnly": True, "teamId": "t1"},
        SESSION,
        True,
    ),
    (
        "V6",
        lambda c: c.get_session("research", "vs_1"),
        "GET",
        "/training/volumes/research/sessions/vs_1",
        {"teamId": "t1"},
        None,
        SESSION,
        True,
    ),
    (
        "V7",
        lambda c: c.stop_session("research", "vs_1"),
        "DELETE",
        "/training/volumes/research/sessions/vs_1",
        {},
        None,
        204,
        False,
    ),
    (
        "V8",
        lambda c: c.list_sessions("research"),
        "GET",
        "/training/volumes/research/sessions",
        {"teamId": "t1"},
        None,
        {"sessions": [SESSION]},
        True,
    ),
    (
        "T1",
        lambda c: c.list_models(),
        "GET",
        "/training/available-fft-models",
        {"team_id": "t1"},
        None,
        {"models": []},
        True,
    ),
    (
        "T2",
        lambda c: c.list_gpu_types(),
        "GET",
        "/training/available-gpu-types",
        {"team_id": "t1"},
        None,
        {"gpuTypes": ["H200_141GB"]},
        True,
    ),
    (
        "T4 seed",
        lambda c: c.create_run(SEED_CONFIG, volume="research"),
        "POST",
        "/training/runs",
        {},
        {"config": SEED_CONFIG, "mode": "sft", "volume": "research"},
        CREATED,
        False,
    ),
    (
        "T4 full",
        lambda c: c.create_run(
            SEED_CONFIG,
            name="n",
            image_tag="v1",
            wandb_api_key="w",
            hf_token="h",
            gpu_type="H200_141GB",
            volume="research",
            resume_from="old",
        ),
        "POST",
        "/training/runs",
        {},
        {
            "config": SEED_CONFIG,
            "mode": "sft",
            "name": "n",
            "teamId": "t1",
            "imageTag": "v1",
            "wandbApiKey": "w",
            "hfToken": "h",
            "gpuType": "H200_141GB",
            "volume": "research",
            "resumeFrom": "old",
        },
        CREATED,
        True,
    ),
    (
        "T4 rl",
        lambda c: c.create_run({"a": 1}, mode=None),
        "POST",
        "/training/runs",
        {},
        {"config": {"a": 1}},
        CREATED,
        False,
    ),
    ("T5", lambda c: c.pause_run("r1"), "POST", "/training/runs/r1/pause", {}, None, {"status": "PAUSING"}, True),
    ("T6 empty", lambda c: c.resume_run("r1"), "POST", "/training/runs/r1/resume", {}, {}, CREATED, False),
    (
        "T6",
        lambda c: c.resume_run("r1", gpu_type="H100_80GB", wandb_api_key="w"),
        "POST",
        "/training/runs/r1/resume",
        {},
        {"gpuType": "H100_80GB", "wandbApiKey": "w"},
        CREATED,
        True,
    ),
    (
        "R1",
        lambda c: c.list_runs(),
        "GET",
        "/rft/runs",
        {"page": "1", "limit": "20"},
        None,
        {"runs": [RUN], "total": 1, "page": 1, "limit": 20, "total_pages": 1},
        False,
    ),
    (
        "R1 team mine",
        lambda c: c.list_runs(page=2, limit=5, mine=True),
        "GET",
        "/rft/runs",
        {"page": "2", "limit": "5", "team_id": "t1", "mine": "true"},
        None,
        {"runs": []},
        True,
    ),
    ("R2", lambda c: c.get_run("r1"), "GET", "/rft/runs/r1", {}, None, {"run": RUN}, True),
    ("R3", lambda c: c.stop_run("r1"), "PUT", "/rft/runs/r1/stop", {}, None, {"run": RUN}, False),
    ("R4", lambda c: c.delete_run("r1"), "DELETE", "/rft/runs/r1", {}, None, {}, False),
    ("R5", lambda c: c.restart_run("r1"), "PUT", "/rft/runs/r1/restart", {}, None, {"run": RUN}, False),
    ("R6", lambda c: c.list_checkpoints("r1"), "GET", "/rft/runs/r1/checkpoints", {}, None, {"checkpoints": []}, True),
    (
        "R6 filter",
        lambda c: c.list_checkpoints("r1", status="READY"),
        "GET",
        "/rft/runs/r1/checkpoints",
        {"status_filter": "READY"},
        None,
        {"checkpoints": []},
        False,
    ),
    (
        "R7 default",
        lambda c: c.get_logs("r1"),
        "GET",
        "/rft/runs/r1/logs",
        {"tail_lines": "1000"},
        None,
        {"logs": "a\nb"},
        True,
    ),
    (
        "R7 observed",
        lambda c: c.get_logs("r1", component="trainer", level="info", since_seconds=3600, search="Step"),
        "GET",
        "/rft/runs/r1/logs",
        {"tail_lines": "1000", "search": "Step", "level": "INFO", "since_seconds": "3600", "component": "trainer"},
        None,
        {"logs": ""},
        False,
    ),
    (
        "R7 env",
        lambda c: c.get_logs(
            "r1", 200, component="env-server", env_name="reverse-text", pod_index=1, search="x", regex=True
        ),
        "GET",
        "/rft/runs/r1/logs",
        {
            "tail_lines": "200",
            "search": "x",
            "regex": "true",
            "component": "env-server",
            "pod_index": "1",
            "env_name": "reverse-text",
        },
        None,
        {"logs": ""},
        False,
    ),
    (
        "R7 orchestrator omitted",
        lambda c: c.get_logs("r1", 5, component="orchestrator"),
        "GET",
        "/rft/runs/r1/logs",
        {"tail_lines": "5"},
        None,
        {"logs": ""},
        False,
    ),
    (
        "R8",
        lambda c: c.list_env_servers("r1"),
        "GET",
        "/rft/runs/r1/env-servers",
        {},
        None,
        {"env_servers": [{"env_name": "rt", "env_index": 0, "pod_name": "p", "status": "Running"}]},
        True,
    ),
    (
        "R10",
        lambda c: c.get_metrics("r1"),
        "GET",
        "/rft/runs/r1/metrics",
        {},
        None,
        {"metrics": [{"step": 1, "loss/mean": 1.108}]},
        False,
    ),
    (
        "R10 window",
        lambda c: c.get_metrics("r1", min_step=10, max_step=50, limit=7),
        "GET",
        "/rft/runs/r1/metrics",
        {"min_step": "10", "max_step": "50", "limit": "7"},
        None,
        {"metrics": []},
        False,
    ),
    (
        "R12",
        lambda c: c.get_progress("r1"),
        "GET",
        "/rft/runs/r1/progress",
        {},
        None,
        {"latestStep": 3, "stepsWithSamples": [], "stepsWithDistributions": [], "lastUpdatedAt": None},
        False,
    ),
    ("B1", lambda c: c.get_usage("r1"), "GET", "/billing/runs/r1/usage", {}, None, USAGE, True),
    ("whoami", lambda c: c.whoami(), "GET", "/user/whoami", {}, None, {"data": {"id": "u1"}}, False),
]


@pytest.mark.parametrize(
    "call,method,path,query,body,reply,team",
    [c[1:] for c in CASES],
    ids=[c[0] for c in CASES],
)
async def test_request_matches_cli(call, method, path, query, body, reply, team):
    with respx.mock(assert_all_called=True) as mock:
        response = httpx.Response(204) if reply == 204 else httpx.Response(200, json=reply)
        route = mock.route(method=method, url__startswith=API + path).mock(return_value=response)
        async with PrimeClient(BASE + "/api/v1/", KEY, "t1" if team else None) as client:
            await call(client)
    request = route.calls.last.request
    assert request.method == method
    assert request.url.path == "/api/v1" + path
    assert dict(request.url.params) == query
    assert request.headers["Authorization"] == f"Bearer {KEY}"
    assert request.headers["Content-Type"] == "application/json"
    assert request.headers["User-Agent"].startswith("primetui/")
    if body is None:
        assert request.content == b""
    else:
        assert json.loads(request.content) == body


async def test_replies_are_parsed_into_models():
    with respx.mock() as mock:
        mock.get(API + "/rft/runs/r1").respond(json={"run": {**RUN, "status": "CREATING", "loss": "sft", "new": 1}})
        mock.get(API + "/training/volumes").respond(json={"volumes": [VOLUME]})
        mock.post(API + "/training/runs").respond(json={**CREATED, "onDemand": True, "pricePerGpuHour": 2.5})
        async with PrimeClient(BASE, KEY) as client:
            run = await client.get_run("r1")
            vols = await client.list_volumes()
            created = await client.create_run(SEED_CONFIG)
    assert run.status == "CREATING" and run.is_sft and not run.is_terminal
    assert vols[0].status_label == "CREATED"
    assert created.run_id == CREATED["runId"] and created.on_demand and created.price_per_gpu_hour == 2.5
    assert "tok-secret" not in repr(created)


async def test_create_and_resume_wait_120_seconds_others_30():
    seen: dict[str, Any] = {}

    def record(request: httpx.Request) -> httpx.Response:
        seen[request.url.path] = request.extensions["timeout"]
        if request.url.path.endswith("/runs/r1"):
            return httpx.Response(200, json={"run": RUN})
        return httpx.Response(200, json=CREATED)

    with respx.mock() as mock:
        mock.route().mock(side_effect=record)
        async with PrimeClient(BASE, KEY) as client:
            await client.create_run(SEED_CONFIG)
            await client.resume_run("r0")
            await client.get_run("r1")
    assert seen["/api/v1/training/runs"]["read"] == CREATE_RUN_TIMEOUT.read == 120
    assert seen["/api/v1/training/runs/r0/resume"]["read"] == 120
    assert seen["/api/v1/rft/runs/r1"] == {"connect": 10.0, "read": 30.0, "write": 30.0, "pool": 30.0}


async def test_models_404_reads_as_empty_list():
    with respx.mock() as mock:
        mock.get(API + "/training/available-fft-models").respond(404, json={"detail": "Not Found"})
        async with PrimeClient(BASE, KEY) as client:
            reply = await client.list_models()
    assert reply.models == [] and reply.on_demand_beta_access is None


async def test_base_url_normalisation_and_no_team_param_when_blank():
    with respx.mock() as mock:
        route = mock.get(API + "/training/volumes").respond(json={"volumes": []})
        async with PrimeClient("  http://127.0.0.1:9/api/v1// ", KEY, team_id="  ") as client:
            assert client.base_url == BASE
            await client.list_volumes()
    assert route.calls.last.request.url == httpx.URL(API + "/training/volumes")


async def test_path_segments_are_escaped():
    with respx.mock() as mock:
        route = mock.get(url__startswith=API + "/rft/runs/").respond(json={"run": RUN})
        async with PrimeClient(BASE, KEY) as client:
            await client.get_run("a/b?c")
    assert route.calls.last.request.url.raw_path == b"/api/v1/rft/runs/a%2Fb%3Fc"


async def test_tail_lines_out_of_range_is_refused_before_sending():
    async with PrimeClient(BASE, KEY) as client:
        with pytest.raises(ValueError):
            await client.get_logs("r1", 5001)


def test_repr_masks_key():
    client = PrimeClient(BASE, KEY)
    assert KEY not in repr(client) and "***" in repr(client)
    assert m.CreateRunRequest(config={}, wandb_api_key="wandb-secret").__repr__().find("wandb-secret") == -1
