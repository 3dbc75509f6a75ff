"""The monitor when the platform is unreachable: one clear sentence in each pane, no crash."""

from __future__ import annotations

import socket

from primetui.api.client import PrimeClient
from primetui.ui.monitor import ChartsPane, LogsPane
from tests.runs import wire_run
from tests.waiting import until
from tests.ui.monitor_helpers import PaneApp, screen_text


def _dead_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()  # nothing listens here now
    return port


async def test_a_dead_platform_is_reported_in_the_log_and_chart_status_lines():
    client = PrimeClient(f"http://127.0.0.1:{_dead_port()}", "token", timeout=2.0)
    run = wire_run(id="gone", status="RUNNING", runConfig={})

    class Both(PaneApp):
        def compose(self):
            yield LogsPane(client, run)
            yield ChartsPane(client, run)

    app = Both(lambda: None)
    async with app.run_test(size=(140, 40)) as pilot:
        logs = app.query_one(LogsPane)
        charts = app.query_one(ChartsPane)
        await until(
            pilot, lambda: logs.tabs["trainer"].feed_note.startswith("retrying"), "the log retry note", timeout=30
        )
        await until(pilot, lambda: bool(charts.feed_state), "the chart error note", timeout=30)
        # the notes drawn: both status lines and the empty view (a note set is drawn on the next refresh)
        await until(
            pilot,
            lambda: (
                "retrying: Cannot reach http://127.0.0.1" in screen_text(app)
                and screen_text(app).count("Cannot reach http://127.0.0.1") >= 2
            ),
            "both notes on screen",
            timeout=30,
        )
        text = screen_text(app)
        assert "retrying: Cannot reach http://127.0.0.1" in text  # the log tab's status line
        assert "No log lines yet: retrying: Cannot reach" in text  # and the empty view itself
        assert text.count("Cannot reach http://127.0.0.1") >= 2  # and the charts' status line
        logs.stop_feed()
        charts.stop_feed()
    await client.aclose()
