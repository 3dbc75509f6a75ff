"""primetui's own PrimeClient against the local server: both sides share primetui.api.models, so every
reply must parse, and errors must surface as PrimeAPIError with the server's sentence."""

from __future__ import annotations

import asyncio
import math

import pytest

from primetui.api.errors import PrimeAPIError
from primetui.local.testing import LocalPlatform
from primetui.local.trainer.testing import online_eval_block
from tests.local.test_runs import small_config


async def wait_done(client, run_id: str, timeout: float = 120.0):
    for _ in range(int(timeout / 0.1)):
        run = await client.get_run(run_id)
        if run.is_terminal:
            return run
        await asyncio.sleep(0.1)
    raise AssertionError(f"run {run_id} did not finish")


async def test_every_reply_parses_with_the_shared_models(client, local_platform: LocalPlatform) -> None:
    volumes = await client.list_volumes()
    assert "research" in [v.name for v in volumes]
    models = await client.list_models()
    assert models.models[0].clusters[0].gpu_type == "local-cpu"
    assert (await client.list_gpu_types()).gpu_types == ["local-cpu"]
    assert (await client.whoami()).id

    created = await client.create_run(
        small_config(local_platform, max_steps=4, ckpt={"interval": 2}), volume="research"
    )
    run = await wait_done(client, created.run_id)
    assert run.status == "COMPLETED" and run.is_sft and run.started_at and run.completed_at
    metrics = await client.get_metrics(created.run_id)
    rows = metrics.metrics if hasattr(metrics, "metrics") else metrics
    assert [r["step"] for r in rows] == [1, 2, 3, 4]
    assert all(math.isfinite(r["loss/mean"]) for r in rows)
    assert [c.step for c in await client.list_checkpoints(created.run_id)] == [2, 4]
    assert "Step 4 |" in (await client.get_logs(created.run_id, tail_lines=50)).logs
    assert (await client.get_progress(created.run_id)).latest_step == 4
    usage = await client.get_usage(created.run_id)
    assert usage.training.tokens == 0 and usage.total_cost_usd == 0
    page = await client.list_runs(limit=1)
    assert page.runs[0].id == created.run_id and page.total_pages == page.total

    with pytest.raises(PrimeAPIError) as caught:
        await client.get_run("does-not-exist")
    assert "prime train list" in str(caught.value)


async def test_online_eval_run_lists_env_servers_and_per_component_logs(client, local_platform: LocalPlatform) -> None:
    config = small_config(local_platform, max_steps=6, lr=3e-3)
    config.update(online_eval_block(interval=3))
    created = await client.create_run(config, volume="research")
    run = await wait_done(client, created.run_id)
    assert run.status == "COMPLETED", run.error_message
    assert run.has_online_evals
    servers = await client.list_env_servers(created.run_id)
    assert [(s.env_name, s.env_index) for s in servers] == [("reverse-text", 0)] and servers[0].pod_name
    default = (await client.get_logs(created.run_id)).logs  # orchestrator, as on the hosted platform
    assert "Eval reverse-text | Step 6" in default
    assert "Step 6 |" in (await client.get_logs(created.run_id, component="trainer")).logs
    assert (await client.get_logs(created.run_id, component="inference")).logs
    env_logs = await client.get_logs(created.run_id, component="env-server", env_name="reverse-text")
    assert "Scored" in env_logs.logs
    rows = (await client.get_metrics(created.run_id)).metrics
    assert any("eval/reverse-text/reward/mean" in r for r in rows)
