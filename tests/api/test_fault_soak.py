"""Faults never lose lines silently (issue 17.4): followers and dashboard through the fault proxy."""

from __future__ import annotations


import httpx

from primetui.api import followers as f
from primetui.api.client import PrimeClient
from primetui.local.testing import IDLE_PACE
from tests.api.faultproxy import FaultProxy
from tests.api.faultsoak import server_log, small_config, soak
from tests.waiting import eventually


async def test_followers_lose_nothing_through_half_faulted_requests(local_platform):
    # The run stays RUNNING at almost no CPU: the flood writes the lines the followers must not lose.
    result = await soak(local_platform, seconds=15, rate=0.5, flood_rate=150, seed=3, env_vars=IDLE_PACE)
    print("\n".join(result.lines()))
    assert result.crashes == 0, result.errors_seen
    assert (
        sum(result.faults.values()) > 10 and len(result.faults) >= 6
    )  # the faults really happened (fewer polls on a busy machine: backoff)
    assert result.flood_written > 1500
    assert result.final_fetch_ok and "STOPPED" in result.stopped_reason
    assert result.duplicated == 0 and result.lost == 0 and not result.gaps
    assert result.shown_lines == result.server_lines
    assert result.max_age > 0.5  # the follower's staleness grew while its polls failed
    assert result.requests_per_minute < 900  # backoff holds: 3 followers at 0.5-1 s intervals


async def test_an_outage_backs_off_and_a_flaky_platform_is_retried_within_seconds(local_platform):
    # A run of its own: the test must not depend on which tests ran before it on this platform.
    async with PrimeClient(local_platform.base_url, local_platform.token) as direct:
        run_id = (await direct.create_run(small_config(local_platform, 2), volume="research", name="outage")).run_id
    with FaultProxy(local_platform.base_url, rate=1.0, kinds=("5xx", "html", "empty", "malformed")) as proxy:
        client = PrimeClient(proxy.base_url, local_platform.token, timeout=httpx.Timeout(2.0))
        watcher = f.RunWatcher(client, run_id, interval=0.5, track_step=False)
        # The follower's own schedule, read poll by poll (the delays are what it would sleep): the
        # same on any machine, where counting requests in 8 s of wall time was not.
        for k in range(7):
            await watcher.poll()
            assert watcher.state == f.FollowerState.RETRYING  # malformed and empty replies are transient
            ceiling = min(watcher.transient_backoff, 0.5 * 2**k)  # 0.5, 1, 2, 4 s...: not every interval
            assert ceiling / 2 <= watcher.next_delay <= ceiling, (k, watcher.next_delay)
        assert proxy.requests == 7  # one request per poll: the backoff is the follower's, not retries inside it
        proxy.rate = 0.0
        await watcher.poll()
        assert watcher.error is None and watcher.last_success is not None and watcher.failures == 0
        await client.aclose()


async def _terminal(client: PrimeClient, run_id: str) -> bool:
    return (await client.get_run(run_id)).is_terminal


async def test_final_fetch_after_the_run_ended_is_retried_until_it_succeeds(local_platform):
    """The run is terminal; the final fetch meets an empty 200, a cut body and a reset before it succeeds."""
    async with PrimeClient(local_platform.base_url, local_platform.token) as direct:
        run_id = (
            await direct.create_run(small_config(local_platform, 5), volume="research", name="final-fetch")
        ).run_id
        await eventually(lambda: _terminal(direct, run_id), f"run {run_id} to end")
    full = server_log(local_platform, run_id)  # complete: the platform ingests the last lines before the final status
    for kind in ("empty", "cut", "malformed", "reset", "html"):
        with FaultProxy(local_platform.base_url, rate=1.0, kinds=(kind,)) as proxy:
            client = PrimeClient(proxy.base_url, local_platform.token, timeout=httpx.Timeout(2.0))
            logs = f.LogFollower(client, run_id, "trainer", interval=0.1, backlog_lines=f.MAX_TAIL_LINES)
            logs.notify_status("COMPLETED")
            events = await logs.poll()
            assert not logs.done and logs.state == f.FollowerState.RETRYING, (kind, events)
            assert not [e for e in events if isinstance(e, f.LogLines)]
            proxy.rate = 0.0
            events = await logs.poll()
            lines = [ln for e in events if isinstance(e, f.LogLines) for ln in e.lines]
            assert logs.done and logs.final_fetch_ok and lines == full, kind
            await client.aclose()


async def test_the_dashboard_fills_and_shows_staleness_through_faults(local_platform):
    from primetui.ui.app import PrimeApp
    from primetui.ui.monitor import LogsPane
    from primetui.ui.screens.run import RunScreen
    from primetui.ui.screens.runs import RunsScreen
    from tests.waiting import until

    async with PrimeClient(local_platform.base_url, local_platform.token) as direct:
        run_id = (
            await direct.create_run(small_config(local_platform, 12), volume="research", name="fault-dash")
        ).run_id
    with FaultProxy(local_platform.base_url, rate=0.5, seed=11, hang_seconds=3.0, stall_seconds=1.0) as proxy:
        client = PrimeClient(proxy.base_url, local_platform.token, timeout=httpx.Timeout(2.0, connect=2.0))
        app = PrimeApp(client, None, None, poll_scale=1.0, platform_label="local via fault proxy")
        async with app.run_test(size=(160, 48)) as pilot:
            await until(
                pilot,
                lambda: isinstance(app.screen, RunsScreen) and app.state.runs_loaded,
                "the runs list through half-faulted requests",
            )
            proxy.rate = 1.0  # an outage: the header says so while it lasts
            await until(
                pilot,
                lambda: "unreachable" in app.state.connection.describe(app.state.now())[1],
                "staleness in the header",
            )
            proxy.rate = 0.5
            app.open_run(run_id)
            await until(
                pilot, lambda: isinstance(app.screen, RunScreen) and app.screen.query(LogsPane), "the run screen"
            )
            pane = app.screen.query_one(LogsPane)
            await pilot.press("3")  # the logs tab
            await until(
                pilot,
                lambda: any(isinstance(fl, f.LogFollower) for fl in pane.followers),
                "the log follower",
            )
            follower = next(fl for fl in pane.followers if isinstance(fl, f.LogFollower))
            # A bound on a hang. Each failed poll doubles the wait before the next (up to 20 s), and under
            # load a 2 s timeout fails more than half the requests: a fresh-clone run at four workers
            # ran past 120 s once, its run COMPLETED 1.2 s after it was created.
            await until(pilot, lambda: follower.done, "the trainer log's final fetch", timeout=200)
            # The follower's lines reach the pane through the app's message pump, after the follower is done.
            await until(
                pilot,
                lambda: "trainer" in pane.stores and len(pane.stores["trainer"]) >= follower.lines_received,
                "the pane to hold every line the follower received",
            )
            shown = pane.stores["trainer"].all_text()
            full = server_log(local_platform, run_id)
            assert follower.final_fetch_ok and follower.gaps == 0
            assert len(shown) == len(full) == follower.lines_received
        await client.aclose()
