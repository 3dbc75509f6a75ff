"""A pause or stop sent while a restart is under way is refused with a reason or carried out, never
accepted and then dropped by the restart's respawn."""

from __future__ import annotations

import asyncio

import httpx

from primetui.local.testing import LocalPlatform
from tests.local.conftest import dispatch, http, wait_status, walkthrough_config


async def _restart_then(
    lp: LocalPlatform, run_id: str, method: str, path: str
) -> tuple[httpx.Response, httpx.Response]:
    async with httpx.AsyncClient(base_url=lp.api_url, headers=lp.headers, timeout=60) as c:
        restart = asyncio.create_task(c.put(f"/rft/runs/{run_id}/restart"))
        # The restart holds its request until the old trainer has exited: once its connection is
        # open and the request on its way, the second request lands while the restart is under way.
        while not c._transport._pool.connections:  # noqa: SLF001
            await asyncio.sleep(0)
        await asyncio.sleep(0.01)
        other = await c.request(method, path)
        return await restart, other


def _running_run(lp: LocalPlatform, api: httpx.Client) -> str:
    config = walkthrough_config(lp, max_steps=100000, data={"batch_size": 4, "seq_len": 256}, ckpt={"interval": 2})
    run_id = dispatch(api, config)
    wait_status(api, run_id, {"RUNNING"})
    return run_id


def test_a_pause_during_a_restart_is_refused_with_a_reason_or_honoured(local_platform: LocalPlatform) -> None:
    with http(local_platform) as api:
        run_id = _running_run(local_platform, api)
        restart, pause = asyncio.run(_restart_then(local_platform, run_id, "POST", f"/training/runs/{run_id}/pause"))
        if pause.status_code == 200:
            # Accepted (it reached the platform before the restart did): it is carried out.
            assert wait_status(api, run_id, {"PAUSED"}, timeout=60)["status"] == "PAUSED"
            return
        assert pause.status_code == 409, pause.text
        detail = pause.json()["detail"]
        assert detail.endswith(".") and run_id in detail
        assert "restarting" in detail or "only RUNNING" in detail, detail
        assert restart.status_code == 200, restart.text
        assert wait_status(api, run_id, {"RUNNING"})["status"] == "RUNNING"  # restarted, not paused
        api.put(f"/rft/runs/{run_id}/stop")
        assert wait_status(api, run_id)["status"] == "STOPPED"


def test_a_stop_during_a_restart_ends_the_run(local_platform: LocalPlatform) -> None:
    with http(local_platform) as api:
        run_id = _running_run(local_platform, api)
        restart, stop = asyncio.run(_restart_then(local_platform, run_id, "PUT", f"/rft/runs/{run_id}/stop"))
        assert stop.status_code == 200, stop.text
        assert wait_status(api, run_id, timeout=60)["status"] == "STOPPED", restart.text
