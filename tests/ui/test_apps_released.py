"""A dashboard that has exited is released, with its client and the client's shared followers.

The hub of shared followers used to sit in a module-level weak map keyed by the client. The hub,
the map's value, holds its client, so the weak key never died: every client ever followed stayed
alive, and with it the app its callbacks name (18 dashboards alive after 20 tests in one process,
each with its screens and their render caches). Checked with weak references after a collection.
"""

from __future__ import annotations

import weakref

from tests.memory import released, report_alive
from tests.waiting import until, wait_for
from dash_helpers import make_app

from primetui.api.hub import hub_for


async def _run_and_exit(local_platform) -> list[weakref.ref]:
    """A dashboard that loads the runs list (followed through its client's hub), then exits."""
    app = make_app(local_platform)
    async with app.run_test(size=(120, 36)) as pilot:
        await until(pilot, lambda: app.state.runs_loaded, "the runs list, followed through the client's hub")
        return [weakref.ref(app), weakref.ref(app.client), weakref.ref(hub_for(app.client))]


async def test_an_exited_dashboard_and_its_client_are_released(local_platform):
    refs = await _run_and_exit(local_platform)
    try:
        await wait_for(
            lambda: released(refs), "the exited dashboard, its client and its hub to be released", timeout=30
        )
    except AssertionError:
        raise AssertionError(f"still alive: {report_alive(refs)}") from None
