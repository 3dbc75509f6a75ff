"""PrimeClient sends byte-for-byte the requests the official `prime` CLI 0.18.0 client code sends.

Both clients run against the same respx mock: the CLI's own HostedTrainingClient / RLClient /
BillingClient (sync httpx) and our async PrimeClient. Method, path, query, JSON body, auth and
content type must match; only the User-Agent differs (ours is `primetui/<version>`).
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
import respx

from primetui.api.client import PrimeClient

core = pytest.importorskip("prime_cli.core")
training = pytest.importorskip("prime_cli.api.training")
rl = pytest.importorskip("prime_cli.api.rl")
billing = pytest.importorskip("prime_cli.api.billing")

BASE = "http://127.0.0.1:9"
KEY = "pk-parity-0123456789"
RUN = {
    "id": "r1",
    "userId": "u",
    "status": "RUNNING",
    "createdAt": "2026-01-01T00:00:00Z",
    "updatedAt": "2026-01-01T00:00:00Z",
}
VOLUME = {"name": "research", "status": "RUNNING", "clusterId": "c", "pvcName": "p"}
SESSION = {"id": "vs_1", "volumeName": "research", "status": "RUNNING", "readOnly": False}
CREATED = {"runId": "r2", "tokenValue": "t"}
CONFIG = {"max_steps": 10, "data": {"name": "datasets/reverse-text", "type": "sft"}}


def _reply(request: httpx.Request) -> httpx.Response:
    path = request.url.path
    if path.endswith("/usage"):
        body: Any = {"run_id": "r1", "training": {}, "inference": {}, "pricing": {}}
    elif path.endswith("/transfer"):
        body = {"via": "r2"}
    elif path.endswith("/release"):
        return httpx.Response(204)
    elif "/sessions" in path:
        body = {"sessions": [SESSION]} if request.method == "GET" and path.endswith("/sessions") else SESSION
    elif path.endswith("/training/volumes") and request.method == "GET":
        body = {"volumes": [VOLUME]}
    elif "/training/volumes" in path:
        body = VOLUME
    elif path.endswith(("/training/runs", "/resume")):
        body = CREATED
    elif path.endswith("/pause"):
        body = {"status": "PAUSING"}
    elif path.endswith("/rft/runs"):
        body = {"runs": [RUN], "total": 1, "page": 1, "limit": 20, "total_pages": 1}
    else:
        body = {
            "run": RUN,
            "logs": "",
            "metrics": [],
            "checkpoints": [],
            "env_servers": [],
            "gpuTypes": [],
            "models": [],
        }
    return httpx.Response(200, json=body)


# (name, CLI call, our call) — both with the same team configured or not
CASES = [
    ("V1", lambda h, r, b: h.list_volumes("t1"), lambda c: c.list_volumes()),
    (
        "V2",
        lambda h, r, b: h.create_volume("v", "100Gi", team_id="t1", warm=False),
        lambda c: c.create_volume("v", "100Gi", warm=False),
    ),
    (
        "V3",
        lambda h, r, b: h.expand_volume("research", "200Gi", team_id="t1"),
        lambda c: c.expand_volume("research", "200Gi"),
    ),
    ("V4", lambda h, r, b: h.delete_volume("research", team_id="t1"), lambda c: c.delete_volume("research")),
    (
        "V5 rw",
        lambda h, r, b: h.create_volume_session("research", read_only=False, team_id="t1"),
        lambda c: c.create_session("research"),
    ),
    (
        "V5 get",
        lambda h, r, b: h.create_volume_session("research", read_only=True, allow_writable=True, team_id="t1"),
        lambda c: c.create_session("research", read_only=True, allow_writable=True),
    ),
    (
        "V6",
        lambda h, r, b: h.get_volume_session("research", "vs_1", team_id="t1"),
        lambda c: c.get_session("research", "vs_1"),
    ),
    (
        "V7",
        lambda h, r, b: h.stop_volume_session("research", "vs_1", team_id="t1"),
        lambda c: c.stop_session("research", "vs_1"),
    ),
    ("V8", lambda h, r, b: h.list_volume_sessions("research", team_id="t1"), lambda c: c.list_sessions("research")),
    (
        "V9 get",
        lambda h, r, b: h.route_volume_transfer("research", "get", "", team_id="t1"),
        lambda c: c.route_transfer("research", "get", ""),
    ),
    (
        "V9 put",
        lambda h, r, b: h.route_volume_transfer("research", "put", "", ["data"], team_id="t1", lease_id="l1"),
        lambda c: c.route_transfer("research", "put", "", ["data"], lease_id="l1"),
    ),
    (
        "V10",
        lambda h, r, b: h.release_volume_transfer("research", "l1", team_id="t1"),
        lambda c: c.release_transfer("research", "l1"),
    ),
    ("T1", lambda h, r, b: h.get_available_fft("t1"), lambda c: c.list_models()),
    ("T2", lambda h, r, b: h.list_available_gpu_types("t1"), lambda c: c.list_gpu_types()),
    (
        "T4",
        lambda h, r, b: h.create_run(
            training.build_payload_from_toml(CONFIG, mode="sft", team_id="t1", volume="research")
        ),
        lambda c: c.create_run(CONFIG, volume="research"),
    ),
    ("T5", lambda h, r, b: h.pause_run("r1"), lambda c: c.pause_run("r1")),
    (
        "T6",
        lambda h, r, b: h.resume_run("r1", {"gpuType": "H100_80GB"}),
        lambda c: c.resume_run("r1", gpu_type="H100_80GB"),
    ),
    (
        "R1",
        lambda h, r, b: r.list_runs("t1", mine=True, page=2, limit=5),
        lambda c: c.list_runs(page=2, limit=5, mine=True),
    ),
    ("R2", lambda h, r, b: r.get_run("r1"), lambda c: c.get_run("r1")),
    ("R3", lambda h, r, b: r.stop_run("r1"), lambda c: c.stop_run("r1")),
    ("R4", lambda h, r, b: r.delete_run("r1"), lambda c: c.delete_run("r1")),
    ("R5", lambda h, r, b: r.restart_run("r1"), lambda c: c.restart_run("r1")),
    ("R6", lambda h, r, b: r.list_checkpoints("r1", "READY"), lambda c: c.list_checkpoints("r1", status="READY")),
    (
        "R7",
        lambda h, r, b: r.get_logs(
            "r1",
            300,
            search="Step",
            regex=True,
            level="INFO",
            since_seconds=3600,
            component="env-server",
            pod_index=1,
            env_name="rt",
        ),
        lambda c: c.get_logs(
            "r1",
            300,
            search="Step",
            regex=True,
            level="INFO",
            since_seconds=3600,
            component="env-server",
            pod_index=1,
            env_name="rt",
        ),
    ),
    ("R8", lambda h, r, b: r.list_env_servers("r1"), lambda c: c.list_env_servers("r1")),
    (
        "R10",
        lambda h, r, b: r.get_metrics("r1", 3, 9, 50),
        lambda c: c.get_metrics("r1", min_step=3, max_step=9, limit=50),
    ),
    ("R12", lambda h, r, b: r.get_progress("r1"), lambda c: c.get_progress("r1")),
    ("B1", lambda h, r, b: b.get_run_usage("r1"), lambda c: c.get_usage("r1")),
]


def _seen(request: httpx.Request) -> tuple:
    body = json.loads(request.content) if request.content else None
    return (
        request.method,
        request.url.path,
        sorted(request.url.params.multi_items()),
        body,
        request.headers.get("Authorization"),
        request.headers.get("Content-Type"),
    )


@pytest.fixture(scope="module")
def cli_clients(tmp_path_factory):
    """The CLI's own clients, built once (each builds an httpx client and reads ~/.prime)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HOME", str(tmp_path_factory.mktemp("prime-home")))
        mp.setenv("PRIME_BASE_URL", BASE)
        mp.setenv("PRIME_DISABLE_VERSION_CHECK", "1")
        for var in ("PRIME_API_KEY", "PRIME_TEAM_ID", "PRIME_CONTEXT", "PRIME_API_BASE_URL"):
            mp.delenv(var, raising=False)
        api = core.APIClient(api_key=KEY)
    yield training.HostedTrainingClient(api), rl.RLClient(api), billing.BillingClient(api)
    api.client.close()


@pytest.mark.parametrize("name,cli_call,our_call", CASES, ids=[c[0] for c in CASES])
async def test_same_request_as_the_prime_cli(name, cli_call, our_call, cli_clients):
    with respx.mock(assert_all_called=False) as mock:
        route = mock.route(url__startswith=BASE).mock(side_effect=_reply)
        cli_call(*cli_clients)
        async with PrimeClient(BASE, KEY, team_id="t1") as client:
            await our_call(client)
    assert len(route.calls) == 2
    theirs, ours = (_seen(call.request) for call in route.calls)
    assert ours == theirs
