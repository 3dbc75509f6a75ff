"""Helpers for the dashboard's Pilot tests: build the app on a real local platform, wait for state."""

from __future__ import annotations

import asyncio
import io
import tomllib
from pathlib import Path
from typing import Any


from primetui.api.client import PrimeClient
from primetui.local.testing import IDLE_PACE
from primetui.ui.app import PrimeApp


def make_app(lp: Any, tmp_path: Path | None = None, **kw: Any) -> PrimeApp:
    """A dashboard on ``lp`` (a LocalPlatform) with fast polling and no user theme/keymap files."""
    client = PrimeClient(lp.base_url, lp.token)
    kw.setdefault("poll_scale", 0.1)
    kw.setdefault("platform_label", "local test")
    return record_notifications(PrimeApp(client, None, kw.pop("prefs", None), **kw))


def record_notifications(app: PrimeApp) -> PrimeApp:
    """Keep every toast's text: a toast expires after seconds, and on a loaded machine a wait can
    look only after it is gone."""
    real = app.notify
    app.notified = []  # type: ignore[attr-defined]

    def notify(message: str, *args: Any, **kwargs: Any) -> None:
        app.notified.append(str(message))  # type: ignore[attr-defined]
        return real(message, *args, **kwargs)

    app.notify = notify  # type: ignore[method-assign]
    return app


def notifications(app: PrimeApp) -> list[str]:
    """Every toast the app showed so far (recorded by :func:`record_notifications`), else the ones still up."""
    recorded = getattr(app, "notified", None)
    return list(recorded) if recorded is not None else [str(n.message) for n in app._notifications]


def screen_text(app: PrimeApp) -> str:
    """All text currently visible in Static/DataTable widgets of the active screen (for asserts)."""
    from textual.widgets import DataTable, Static

    import io

    from rich.console import Console

    console = Console(width=240, file=io.StringIO(), color_system=None)
    parts: list[str] = []
    for w in app.screen.query(Static):
        content = w.content
        if isinstance(content, str):
            parts.append(content)
        else:
            with console.capture() as cap:
                console.print(content)
            parts.append(cap.get())
    for t in app.screen.query(DataTable):
        for row_key in t.rows:
            parts.append(" ".join(str(c) for c in t.get_row(row_key)))
    return "\n".join(parts)


async def dispatch_walkthrough(lp: Any, max_steps: int | None = None, **changes: Any) -> str:
    """Dispatch the demo sft.toml (the seed walkthrough) through the API; return the run id."""
    cfg = tomllib.loads((Path(lp.data_dir) / "sft.toml").read_text())
    if max_steps is not None:
        cfg["max_steps"] = max_steps
    cfg.update(changes)
    async with PrimeClient(lp.base_url, lp.token) as c:
        reply = await c.create_run(cfg, mode="sft", volume="research")
    return reply.run_id


async def dispatch_idle_run(lp: Any) -> str:
    """Dispatch a walkthrough run that stays RUNNING for hours at almost no CPU
    (``primetui.local.testing.IDLE_PACE``); the caller stops it."""
    return await dispatch_walkthrough(lp, max_steps=100_000, env_vars=dict(IDLE_PACE))


PACED = {"PRIMETUI_LOCAL_SLOW_POD": "0", "PRIMETUI_LOCAL_SLOW_SECONDS": "0.1"}
"""``[env_vars]`` of a run that trains at a walking pace: its only pod sleeps 0.1 s before each micro-batch."""
PACED_DATA = {"name": "datasets/reverse-text", "type": "sft", "seq_len": 256, "batch_size": 4}
"""Four micro-batches of 256 tokens a step: about 0.4 s a step, a few per cent of a core."""


async def dispatch_paced_run(lp: Any, name: str | None = None, max_steps: int = 100_000) -> str:
    """Dispatch a walkthrough run that keeps RUNNING and logs a step about every 0.4 s at a few per cent
    of a core, and answers a pause or a restart within a step: for tests that watch a run progress or act
    on it while it runs (the caller stops it). A run that trained flat out took a whole core for as long
    as the test lasted."""
    changes: dict[str, Any] = {"data": dict(PACED_DATA), "env_vars": dict(PACED)}
    if name is not None:
        changes["name"] = name
    return await dispatch_walkthrough(lp, max_steps=max_steps, **changes)


async def wait_status(lp: Any, run_id: str, statuses: set[str], limit: float = 60.0) -> str:
    async with PrimeClient(lp.base_url, lp.token) as c:
        loop = asyncio.get_running_loop()
        end = loop.time() + limit
        while True:
            run = await c.get_run(run_id)
            if run.status in statuses:
                return run.status
            if loop.time() > end:
                raise AssertionError(f"run {run_id} stayed {run.status}, wanted {statuses}")
            await asyncio.sleep(0.1)


async def dispatch_lr_sweep(
    lp: Any,
    tmp_path: Path,
    lrs: list[str],
    prefix: str,
    *,
    max_steps: int,
    data: dict[str, Any] | None = None,
    limit: float = 60.0,
) -> list[tuple[str, str]]:
    """(run id, name) of a learning-rate sweep over ``lrs`` of the platform's ``sft.toml`` (``max_steps`` steps,
    no checkpoints, ``data`` merged into its ``[data]``), dispatched as ``prefix`` and each waited for until
    COMPLETED."""
    import tomlkit

    from primetui.sft.dispatching import Dispatched, dispatch_sweep

    cfg = tomllib.loads((Path(lp.data_dir) / "sft.toml").read_text())
    cfg["max_steps"] = max_steps
    cfg.pop("ckpt", None)
    cfg["data"].update(data or {})
    path = tmp_path / "sft.toml"
    path.write_text(tomlkit.dumps(cfg))
    async with PrimeClient(lp.base_url, lp.token) as client:
        result = await dispatch_sweep(client, path, "research", [f"optim.lr={','.join(lrs)}"], prefix, io.StringIO())
    assert isinstance(result, Dispatched) and result.stopped is None, result
    for run_id, _ in result.runs:
        assert await wait_status(lp, run_id, {"COMPLETED"}, limit=limit) == "COMPLETED"
    return result.runs


async def palette_offers(pilot: Any, text: str) -> None:
    """Wait until the open command palette lists an option containing ``text`` (its search runs in workers)."""
    from textual.command import CommandList

    from tests.waiting import until

    def offered() -> bool:
        lists = pilot.app.screen.query(CommandList)
        if not lists:
            return False
        options = lists.first()
        return any(text in str(options.get_option_at_index(i).prompt) for i in range(options.option_count))

    await until(pilot, offered, f"the command palette to offer {text!r}")
