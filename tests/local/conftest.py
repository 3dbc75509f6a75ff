"""Helpers for the local platform's tests: a plain httpx client on the shared server, and a run waiter."""

from __future__ import annotations

import time
import tomllib
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from primetui.api._httpx import shared_ssl_context
from primetui.local.testing import LocalPlatform

TERMINAL = {"COMPLETED", "FAILED", "STOPPED", "PAUSED"}


def http(lp: LocalPlatform) -> httpx.Client:
    # the product's one TLS context: a client makes its own otherwise (30 ms of CPU, plain HTTP or not)
    return httpx.Client(base_url=lp.api_url, headers=lp.headers, timeout=30.0, verify=shared_ssl_context())


@pytest.fixture
def api(local_platform: LocalPlatform) -> Iterator[httpx.Client]:
    with http(local_platform) as c:
        yield c


def walkthrough_config(lp: LocalPlatform, **overrides: Any) -> dict[str, Any]:
    """The demo sft.toml as the CLI sends it, with top-level/section overrides merged in."""
    config = tomllib.loads((lp.data_dir / "sft.toml").read_text())
    for key, value in overrides.items():
        if isinstance(value, dict) and isinstance(config.get(key), dict):
            config[key].update(value)
        elif value is None:
            config.pop(key, None)
        else:
            config[key] = value
    return config


def dispatch(c: httpx.Client, config: dict[str, Any], volume: str | None = "research") -> str:
    body: dict[str, Any] = {"config": config, "mode": "sft"}
    if volume:
        body["volume"] = volume
    reply = c.post("/training/runs", json=body)
    assert reply.status_code == 200, reply.text
    return reply.json()["runId"]


def wait_status(
    c: httpx.Client, run_id: str, statuses: set[str] | None = None, timeout: float = 120.0, step: int | None = None
) -> dict[str, Any]:
    """Poll R2 until the run reaches one of ``statuses`` (default: terminal) or a metrics ``step``."""
    wanted = statuses or TERMINAL
    deadline = time.monotonic() + timeout
    run: dict[str, Any] = {}
    while time.monotonic() < deadline:
        run = c.get(f"/rft/runs/{run_id}").json()["run"]
        if step is not None:
            rows = c.get(f"/rft/runs/{run_id}/metrics", params={"min_step": step}).json()["metrics"]
            if rows:
                return run
        elif run["status"] in wanted:
            return run
        if run["status"] in TERMINAL and run["status"] not in wanted:
            raise AssertionError(f"run {run_id} ended {run['status']}: {run.get('errorMessage')}")
        time.sleep(0.1)
    raise AssertionError(f"run {run_id} still {run.get('status')} after {timeout}s")
