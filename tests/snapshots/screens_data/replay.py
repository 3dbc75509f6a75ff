"""Serve the recorded reply set (replies.json) to a real PrimeClient through httpx.MockTransport.

The client, its models and every screen run for real; only the network is replaced by replies
recorded from the local platform, so snapshots are the same on every machine and every day.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import httpx

from primetui.api.client import PrimeClient

DATA = Path(__file__).with_name("replies.json")


def load() -> dict:
    return json.loads(DATA.read_text())


def fixed_clock(data: dict | None = None):
    when = datetime.fromisoformat((data or load())["clock"].replace("Z", "+00:00"))
    return lambda: when


def transport(data: dict | None = None) -> httpx.MockTransport:
    data = data or load()

    def handle(request: httpx.Request) -> httpx.Response:
        path = request.url.path.removeprefix("/api/v1")
        key = f"{request.method} {path}"
        if key in data:
            return httpx.Response(200, json=data[key])
        parts = path.strip("/").split("/")
        if request.method == "GET" and parts[:2] == ["rft", "runs"] and len(parts) >= 3:
            run_id = parts[2]
            if run_id not in data["runs"]:
                return httpx.Response(404, json={"detail": f"Run {run_id} not found"})
            if len(parts) == 3:
                return httpx.Response(200, json={"run": data["runs"][run_id]})
            what = parts[3]
            if what == "metrics":
                rows = data["metrics"].get(run_id, [])
                lo = int(request.url.params.get("min_step", 0))
                return httpx.Response(200, json={"metrics": [r for r in rows if r["step"] >= lo]})
            if what == "checkpoints":
                return httpx.Response(200, json={"checkpoints": data["checkpoints"].get(run_id, [])})
            if what == "logs":
                return httpx.Response(200, json={"logs": data["logs"].get(run_id, "")})
            if what == "env-servers":
                return httpx.Response(200, json={"env_servers": []})
            if what == "progress":
                rows = data["metrics"].get(run_id, [])
                return httpx.Response(
                    200,
                    json={
                        "latestStep": rows[-1]["step"] if rows else 0,
                        "stepsWithSamples": [],
                        "stepsWithDistributions": [],
                    },
                )
        if request.method == "GET" and path.startswith("/training/volumes/") and path.endswith("/sessions"):
            return httpx.Response(200, json={"sessions": []})
        return httpx.Response(404, json={"detail": f"not in the recorded reply set: {key}"})

    return httpx.MockTransport(handle)


def client(data: dict | None = None) -> PrimeClient:
    return PrimeClient("http://127.0.0.1:9", "recorded-replies", transport=transport(data))
