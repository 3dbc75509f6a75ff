"""Serve the recorded RL reply set (replies.json) to a real PrimeClient through httpx.MockTransport.

As ``screens_data/replay.py`` for SFT: the client, its models and every screen run for real; only the
network is replaced by replies recorded from real reverse-text RL runs on the local platform.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import httpx

from primetui.api.client import PrimeClient

DATA = Path(__file__).with_name("replies.json")
HEALTHY, HOT = "rlhealthy000000000000000", "rlhot0000000000000000000"


def load() -> dict:
    return json.loads(DATA.read_text())


def fixed_clock(data: dict | None = None):
    when = datetime.fromisoformat((data or load())["clock"].replace("Z", "+00:00"))
    return lambda: when


def _logs(data: dict, run_id: str, params: httpx.QueryParams) -> str:
    component = params.get("component") or "orchestrator"
    name = f"env-server/{params.get('env_name')}" if component == "env-server" else component
    return data["logs"][run_id].get(name, "")


def transport(data: dict | None = None) -> httpx.MockTransport:
    data = data or load()
    runs = list(data["runs"].values())

    def handle(request: httpx.Request) -> httpx.Response:
        path = request.url.path.removeprefix("/api/v1")
        parts = path.strip("/").split("/")
        if request.method == "GET" and path == "/rft/runs":
            return httpx.Response(
                200, json={"runs": runs, "total": len(runs), "page": 1, "limit": 50, "total_pages": 1}
            )
        if request.method == "GET" and parts[:2] == ["rft", "runs"] and len(parts) >= 3 and parts[2] in data["runs"]:
            run_id = parts[2]
            what = parts[3] if len(parts) > 3 else None
            if what is None:
                return httpx.Response(200, json={"run": data["runs"][run_id]})
            if what == "metrics":
                lo = int(request.url.params.get("min_step", 0))
                return httpx.Response(200, json={"metrics": [r for r in data["metrics"][run_id] if r["step"] >= lo]})
            if what == "logs":
                return httpx.Response(200, json={"logs": _logs(data, run_id, request.url.params)})
            if what == "env-servers":
                return httpx.Response(200, json=data["env_servers"][run_id])
            if what == "checkpoints":
                return httpx.Response(200, json={"checkpoints": []})
        if request.method == "GET" and path == "/training/volumes":
            return httpx.Response(200, json={"volumes": []})
        return httpx.Response(404, json={"detail": f"not in the recorded RL reply set: {request.method} {path}"})

    return httpx.MockTransport(handle)


def client(data: dict | None = None) -> PrimeClient:
    return PrimeClient("http://127.0.0.1:9", "recorded-replies", transport=transport(data))
