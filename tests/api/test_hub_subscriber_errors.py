"""A hub subscriber that raises is reported, never swallowed (issue 38, deliverable 1).

The hub calls a plain callback (a command's, a test's) itself: what it raises, or what an async
callback's task raises, is logged with its traceback the first time and counted every time, and
the other subscribers keep their feed. Against the real local platform, over HTTP.
"""

from __future__ import annotations

import logging

from primetui.api import hub as hub_module
from primetui.api.hub import SUBSCRIBER_ERRORS, FollowerHub
from tests.waiting import wait_for


def _reports(caplog, name: str) -> list[logging.LogRecord]:
    return [
        r
        for r in caplog.records
        if r.name == "primetui.api.hub" and r.levelno == logging.ERROR and name in r.getMessage()
    ]


async def test_a_raising_callback_is_logged_with_its_traceback_once_and_counted(client, caplog):
    caplog.set_level(logging.DEBUG, logger="primetui.api.hub")
    SUBSCRIBER_ERRORS.clear()
    hub = FollowerHub(client)
    healthy: list[object] = []

    def broken_volumes_view(result: object) -> None:
        raise KeyError("volumes")

    broken = hub.resource(("volumes",), client.list_volumes, broken_volumes_view, interval=0.05)
    fine = hub.resource(("volumes",), client.list_volumes, healthy.append, interval=0.05)
    site = (
        "test_a_raising_callback_is_logged_with_its_traceback_once_and_counted.<locals>.broken_volumes_view: KeyError"
    )
    await wait_for(lambda: SUBSCRIBER_ERRORS[site] >= 3, "the broken subscriber failing three polls")
    assert len(healthy) >= 2  # the other subscriber kept its feed
    [record] = _reports(caplog, "broken_volumes_view")  # the traceback once, not once per poll
    assert record.exc_info is not None and record.exc_info[0] is KeyError
    assert "in broken_volumes_view" in caplog.text and "KeyError: 'volumes'" in caplog.text
    broken.close()
    fine.close()


async def test_an_async_callbacks_exception_is_retrieved_and_reported(client, caplog):
    caplog.set_level(logging.ERROR, logger="primetui.api.hub")
    SUBSCRIBER_ERRORS.clear()
    hub = FollowerHub(client)

    async def async_view(result: object) -> None:
        raise ValueError("a bug after an await")

    sub = hub.resource(("volumes", "async"), client.list_volumes, async_view, interval=0.05)
    await wait_for(lambda: _reports(caplog, "async_view"), "the async subscriber's report")
    [record] = _reports(caplog, "async_view")
    assert record.exc_info is not None and record.exc_info[0] is ValueError
    sub.close()
    await wait_for(lambda: not hub_module._IN_FLIGHT, "the subscriber tasks to finish")
