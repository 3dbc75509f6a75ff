"""A closed run screen leaves no follower of its own behind: its log streams and its checkpoints
stop being polled, its log stores let go of their spill files, and its Config tab's documents are
released (each used to stay alive through its tree-sitter cycle: see ``primetui.ui.code_view``).

Checked through the hub's public list of what it follows (``FollowerHub.live_keys``), on a live run
of the real local platform, with the Logs tab open (every log stream followed) before the close.
"""

from __future__ import annotations

import weakref

import pytest
from dash_helpers import dispatch_idle_run, make_app, wait_status
from tests.memory import released, report_alive
from tests.waiting import until

from primetui.api.client import PrimeClient
from primetui.api.hub import hub_for
from primetui.ui.monitor import LogsPane
from primetui.ui.screens.run import RunScreen

pytestmark = [pytest.mark.timeout(180), pytest.mark.slow]


def _own(keys: list, run_id: str) -> list:
    """The hub keys of ``run_id`` that only a run screen follows: its log streams and checkpoints."""
    flat = [k[0] if isinstance(k, tuple) and k and isinstance(k[0], tuple) else k for k in keys]
    return [k for k in flat if isinstance(k, tuple) and k[0] in ("logs", "checkpoints") and k[1] == run_id]


async def test_closing_a_run_screen_stops_its_log_and_checkpoint_followers(local_platform):
    run_id = await dispatch_idle_run(local_platform)
    await wait_status(local_platform, run_id, {"RUNNING"})
    app = make_app(local_platform)
    hub = hub_for(app.client)
    documents: list[weakref.ref] = []
    try:
        async with app.run_test(size=(160, 48)) as pilot:
            await until(pilot, lambda: app.state.runs_loaded, "the runs list")
            for _ in range(2):  # a second open finds nothing left over from the first
                app.open_run(run_id)
                await until(
                    pilot,
                    lambda: (
                        isinstance(app.screen, RunScreen) and app.screen.run is not None and app.screen.monitor_mounted
                    ),
                    "the run screen with its monitor tabs",
                )
                await pilot.press("3")
                await until(
                    pilot,
                    lambda: (
                        any(k[0] == "logs" for k in _own(hub.live_keys(), run_id))
                        and any(k[0] == "checkpoints" for k in _own(hub.live_keys(), run_id))
                    ),
                    "its log streams and checkpoints followed",
                )
                stores = list(app.screen.query_one(LogsPane).stores.values())  # the stores only: they hold no screen
                documents.append(weakref.ref(app.screen.query_one("#run-config").document))
                await pilot.press("escape")
                await until(pilot, lambda: not isinstance(app.screen, RunScreen), "the run screen closed")
                await until(
                    pilot,
                    lambda: _own(hub.live_keys(), run_id) == [],
                    "no log or checkpoint follower of the closed screen left",
                )
                assert all(store.closed for store in stores)
            try:
                await until(
                    pilot, lambda: released(documents), "the closed screens' Config documents released", timeout=30
                )
            except AssertionError as exc:
                raise AssertionError(f"{exc}; held by: {report_alive(documents)}") from None
    finally:
        async with PrimeClient(local_platform.base_url, local_platform.token) as client:
            await client.stop_run(run_id)
