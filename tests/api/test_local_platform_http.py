"""PrimeClient and the followers against the real local platform over real HTTP (127.0.0.1)."""

from __future__ import annotations

import asyncio
import tomllib
import uuid

import pytest

from primetui.api import errors as e
from primetui.api import followers as f
from primetui.api.client import PrimeClient
from primetui.api.models import TERMINAL_RUN_STATUSES


def _small_config(local_platform, max_steps: int = 6) -> dict:
    config = tomllib.loads((local_platform.data_dir / "sft.toml").read_text())
    config["max_steps"] = max_steps
    config["data"].update(batch_size=4, seq_len=256)
    config["optim"] = {"lr": 2e-3}
    config.pop("ckpt", None)
    return config


async def test_volume_lifecycle(client):
    name = f"api-{uuid.uuid4().hex[:8]}"
    created = await client.create_volume(name, "10Gi", warm=False)
    assert created.name == name and created.size == "10Gi"
    assert name in [v.name for v in await client.list_volumes()]
    expanded = await client.expand_volume(name, "20Gi")
    assert expanded.size == "20Gi"
    with pytest.raises(e.PrimeAPIError) as info:
        await client.expand_volume(name, "5Gi")  # volumes cannot shrink
    assert isinstance(info.value, (e.RequestRejectedError, e.ValidationError, e.ConflictError))
    assert "\n" not in str(info.value)
    assert await client.list_sessions(name) == []
    await client.delete_volume(name)
    assert name not in [v.name for v in await client.list_volumes()]


async def test_catalogue_reads(client):
    models = await client.list_models()
    assert "PrimeIntellect/Qwen3-0.6B-Reverse-Text-SFT" in [m.name for m in models.models]
    gpus = await client.list_gpu_types()
    assert gpus.gpu_types
    page = await client.list_runs(limit=5)
    assert page.page == 1 and page.limit == 5 and page.total is not None
    assert (await client.whoami()).id


async def test_errors_over_real_http(client, local_platform):
    with pytest.raises(e.NotFoundError) as info:
        await client.get_run("does-not-exist")
    assert not info.value.not_started and "HTTP 404" in str(info.value)
    wrong = "pk-wrong-token-0123456789"
    async with PrimeClient(local_platform.base_url, wrong) as bad:
        with pytest.raises(e.UnauthorizedError) as info:
            await bad.list_volumes()
    assert wrong not in str(info.value) and "prime login" in str(info.value)
    config = _small_config(local_platform)
    config["data"]["seq_len"] = "long"
    with pytest.raises(e.PrimeAPIError) as info:
        await client.create_run(config, volume="research")
    assert "seq_len" in str(info.value) and "\n" not in str(info.value)


async def test_followers_track_a_real_run_to_completion(client, local_platform):
    created = await client.create_run(_small_config(local_platform), volume="research", name="api-followers")
    run_id = created.run_id
    watcher = f.RunWatcher(client, run_id, interval=0.2)
    logs = f.LogFollower(client, run_id, "trainer", interval=0.2, waiting_interval=0.2, watcher=watcher)
    metrics = f.MetricsFollower(client, run_id, interval=0.2, watcher=watcher, late_every=3)
    statuses: list[str] = []
    lines: list[str] = []
    rows: list[dict] = []
    gaps: list[f.LogGap] = []

    async def watch():
        async for ev in watcher:
            if isinstance(ev, f.RunUpdate) and ev.status_changed:
                statuses.append(ev.run.status)

    async def follow_logs():
        async for ev in logs:
            if isinstance(ev, f.LogLines):
                lines.extend(ev.lines)
            elif isinstance(ev, f.LogGap):
                gaps.append(ev)

    async def follow_metrics():
        async for ev in metrics:
            if isinstance(ev, f.MetricRows):
                rows.extend(ev.rows)

    await asyncio.wait_for(asyncio.gather(watch(), follow_logs(), follow_metrics()), timeout=150)

    assert statuses[-1] == "COMPLETED" and statuses[-1] in TERMINAL_RUN_STATUSES
    assert watcher.done and logs.done and metrics.done
    assert logs.state == metrics.state == watcher.state == "stopped"
    # metrics: every step exactly once (late rows only add keys the step did not have)
    steps = [r["step"] for r in rows if "loss/mean" in r]
    assert steps == list(range(1, 7))
    # logs: what the follower assembled is exactly the platform's full log, no gap, no repeat
    full = (await client.get_logs(run_id, 5000, component="trainer")).lines()
    assert not gaps
    assert lines == full and any("Step 6" in ln for ln in lines)
    assert logs.last_success is not None and logs.error is None


async def _watch_until(client, run_id, done) -> f.RunUpdate:
    """Follow the run with a RunWatcher until `done(update)`; returns that update."""
    watcher = f.RunWatcher(client, run_id, interval=0.2)

    async def loop():
        async for ev in watcher:
            if isinstance(ev, f.RunUpdate) and done(ev):
                watcher.stop()
                return ev
        raise AssertionError(f"run {run_id} ended as {watcher.status} first")

    return await asyncio.wait_for(loop(), timeout=120)


async def test_controls_through_the_client(client, local_platform):
    config = _small_config(local_platform, max_steps=100000)
    config["ckpt"] = {"interval": 1000}
    run_id = (await client.create_run(config, volume="research", name="api-controls")).run_id
    await _watch_until(client, run_id, lambda u: u.run.status == "RUNNING" and (u.step or 0) >= 2)

    paused = await client.pause_run(run_id)
    assert paused.status in {"PAUSING", "PAUSED"}
    update = await _watch_until(client, run_id, lambda u: u.run.status == "PAUSED")
    assert update.run.is_terminal and update.run.completed_at
    checkpoints = await client.list_checkpoints(run_id)
    assert checkpoints and checkpoints[-1].rft_run_id == run_id
    assert await client.list_checkpoints(run_id, status="READY") == [c for c in checkpoints if c.status == "READY"]

    assert (await client.pause_run(run_id)).status == "PAUSED"  # idempotent

    resumed = await client.resume_run(run_id)
    assert resumed.run_id != run_id
    await _watch_until(client, resumed.run_id, lambda u: u.run.status == "RUNNING")
    stopped = await client.stop_run(resumed.run_id)
    assert stopped.id == resumed.run_id
    await _watch_until(client, resumed.run_id, lambda u: u.run.status == "STOPPED")
    with pytest.raises(e.ConflictError) as info:
        await client.pause_run(resumed.run_id)  # only RUNNING runs can be paused
    assert str(info.value).startswith(f"Run {resumed.run_id} is STOPPED; only RUNNING runs can be paused (HTTP 409); ")

    usage = await client.get_usage(run_id)
    assert usage.run_id == run_id and usage.training.tokens == 0
    progress = await client.get_progress(run_id)
    assert progress.latest_step == checkpoints[-1].step
    assert await client.list_env_servers(run_id) == []

    await client.delete_run(resumed.run_id)
    with pytest.raises(e.NotFoundError):
        await client.get_run(resumed.run_id)
