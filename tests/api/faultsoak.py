"""The fault soak: the dashboard's followers on a live run, through the fault proxy, counted against the server.

Shared by the CI test (tests/api/test_fault_soak.py, well under 60 s) and the soak bench
(bench/soak.py, 10 minutes by default). One real run trains on the local platform while a
``LogFlood`` adds numbered lines to its trainer log; a ``RunWatcher``, a ``MetricsFollower`` and
the dashboard's ``LogFollower`` (as ``ui/monitor/feed.py`` configures it) follow it through a
``FaultProxy`` that faults a share of all requests. At the end the run is stopped, the followers
make their final fetch, and the lines they assembled are compared with the server's own log,
read straight from its database.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
import tomllib
from dataclasses import dataclass, field
from typing import Any

import httpx

from primetui.api import followers as f
from primetui.api.client import PrimeClient
from primetui.local.logflood import LogFlood
from tests.api.faultproxy import KINDS, FaultProxy
from tests.waiting import wait_for


@dataclass
class SoakResult:
    seconds: float = 0.0
    fault_rate: float = 0.0
    crashes: int = 0
    """Polls that failed in a way the client does not classify, or follower tasks that raised."""
    server_lines: int = 0
    shown_lines: int = 0
    lost: int = 0
    duplicated: int = 0
    gaps: list[str] = field(default_factory=list)
    flood_written: int = 0
    requests: int = 0
    requests_per_minute: float = 0.0
    faults: dict[str, int] = field(default_factory=dict)
    max_age: float = 0.0
    """Longest staleness of the log follower seen while faults were on (what the header shows)."""
    final_fetch_ok: bool = False
    stopped_reason: str = ""
    run_id: str = ""
    errors_seen: dict[str, int] = field(default_factory=dict)

    def lines(self) -> list[str]:
        per_kind = ", ".join(f"{k} {v}" for k, v in sorted(self.faults.items()))
        return [
            f"soak {self.seconds:.0f} s at {self.fault_rate:.0%} faulted requests ({per_kind})",
            f"crashes: {self.crashes}",
            f"log lines: server {self.server_lines}, shown {self.shown_lines}, lost {self.lost}, "
            f"duplicated {self.duplicated}, gap markers {len(self.gaps)} {self.gaps or ''}",
            f"final fetch succeeded: {self.final_fetch_ok} ({self.stopped_reason})",
            f"requests: {self.requests} ({self.requests_per_minute:.0f}/min); "
            f"longest staleness while faulted: {self.max_age:.1f} s",
        ]


def small_config(lp: Any, max_steps: int) -> dict:
    config = tomllib.loads((lp.data_dir / "sft.toml").read_text())
    config["max_steps"] = max_steps
    config["data"].update(batch_size=4, seq_len=256)
    config["optim"] = {"lr": 2e-3}
    config.pop("ckpt", None)
    return config


def server_log(lp: Any, run_id: str, component: str = "trainer") -> list[str]:
    """The server's own log of ``component``, every line, from its database (read-only)."""
    db = sqlite3.connect(f"file:{lp.data_dir / 'state.sqlite3'}?mode=ro", uri=True, timeout=10)
    try:
        rows = db.execute(
            "SELECT line FROM log_lines WHERE run_id = ? AND component = ? ORDER BY seq", (run_id, component)
        ).fetchall()
    finally:
        db.close()
    return [r[0] for r in rows]


async def soak(
    lp: Any,
    *,
    seconds: float,
    rate: float,
    flood_rate: float = 100.0,
    seed: int = 1,
    kinds: tuple[str, ...] = KINDS,
    interval: float = 0.5,
    timeout: float = 2.0,
    env_vars: dict[str, str] | None = None,
) -> SoakResult:
    """Run the soak for about ``seconds`` of faults; see the module docstring. ``env_vars`` go to the run's
    ``[env_vars]`` (the CI test's ``IDLE_PACE``: the flood writes the lines, the trainer need not take a core)."""
    result = SoakResult(fault_rate=rate)
    config = small_config(lp, 1_000_000)
    if env_vars:
        config["env_vars"] = dict(env_vars)
    async with PrimeClient(lp.base_url, lp.token) as direct:
        run_id = (await direct.create_run(config, volume="research", name="fault-soak")).run_id
        result.run_id = run_id
        deadline = time.monotonic() + 120
        while (await direct.get_run(run_id)).status != "RUNNING":
            if time.monotonic() > deadline:
                raise AssertionError("the soak run did not start")
            await asyncio.sleep(0.2)
        # Faults start once the log follower has its first window: before it, a run of failed
        # polls could leave the follower's first window to come after more than 5000 lines, and the
        # older ones would be outside any window by design (a backlog is the last 5000 lines).
        proxy = FaultProxy(
            lp.base_url, rate=0.0, kinds=kinds, seed=seed, hang_seconds=timeout * 2, stall_seconds=timeout * 0.75
        ).start()
        flood = LogFlood(lp.data_dir / "runs" / run_id, rate=flood_rate, tag="soak").start()
        client = PrimeClient(proxy.base_url, lp.token, timeout=httpx.Timeout(timeout, connect=timeout))
        watcher = f.RunWatcher(client, run_id, interval=interval * 2, track_step=False)
        logs = f.LogFollower(
            client,
            run_id,
            "trainer",
            interval=interval,
            waiting_interval=interval,
            backlog_lines=f.MAX_TAIL_LINES,
            catch_up=True,
            watcher=watcher,
        )
        metrics = f.MetricsFollower(client, run_id, interval=interval * 2, watcher=watcher)
        shown: list[str] = []
        stopped: list[str] = []

        def note(event: f.FollowerEvent) -> None:
            if isinstance(event, f.PollFailed):
                name = type(event.error).__name__
                result.errors_seen[name] = result.errors_seen.get(name, 0) + 1
                if isinstance(event.error, f.UnexpectedPollError):
                    result.crashes += 1

        async def follow_logs() -> None:
            async for event in logs:
                note(event)
                if isinstance(event, f.LogLines):
                    shown.extend(event.lines)
                elif isinstance(event, f.LogGap):
                    result.gaps.append(event.reason)
                elif isinstance(event, f.Stopped):
                    stopped.append(event.reason)

        async def follow(follower: Any) -> None:
            async for event in follower:
                note(event)

        async def sample_age() -> None:
            while not logs.done:
                age = logs.age()
                if age is not None and proxy.rate > 0:
                    result.max_age = max(result.max_age, age)
                await asyncio.sleep(0.1)

        tasks = [asyncio.create_task(c) for c in (follow_logs(), follow(watcher), follow(metrics), sample_age())]
        await wait_for(lambda: shown, "the log follower's first window")
        proxy.rate = rate
        started = time.monotonic()
        await asyncio.sleep(seconds)
        flood.stop()
        result.flood_written = flood.written
        await direct.stop_run(run_id)
        done, pending = await asyncio.wait(tasks, timeout=120)
        for task in pending:
            task.cancel()
        result.crashes += sum(1 for t in done if t.exception() is not None) + len(pending)
        result.seconds = time.monotonic() - started
        proxy.stop()
        await client.aclose()
    full = server_log(lp, run_id)
    result.server_lines = len(full)
    result.shown_lines = len(shown)
    result.duplicated = len(shown) - len(set(shown))
    result.lost = len(set(full) - set(shown))
    if shown != full and not result.lost and not result.duplicated:
        result.lost = sum(1 for a, b in zip(shown, full) if a != b)  # same lines, out of order
    result.requests = proxy.requests
    result.requests_per_minute = proxy.requests_per_minute()
    result.faults = dict(proxy.faults)
    result.final_fetch_ok = logs.final_fetch_ok
    result.stopped_reason = stopped[-1] if stopped else "not stopped"
    return result
