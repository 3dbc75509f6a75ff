"""The header names where the local platform serves now (issue 41, finding 11): after a restart on another
port the dashboard's client followed it, but the header kept the old address."""

from __future__ import annotations

import pytest

from primetui.commands.launch import Connector
from primetui.local.testing import LocalPlatform
from primetui.ui.app import PrimeApp
from primetui.ui.widgets import StatusBar
from tests.waiting import until

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]


def host(url: str) -> str:
    return url.split("://", 1)[-1]


async def test_the_header_shows_the_new_address_after_a_restart_on_another_port(tmp_path, monkeypatch):
    with LocalPlatform.start(tmp_path, demo=True) as lp:
        monkeypatch.setenv("PRIMETUI_LOCAL_DATA_DIR", str(lp.data_dir))
        client, settings, label = Connector(None, None).local_sync()  # what `primetui --local` does
        old = lp.base_url
        app = PrimeApp(client, settings, None, platform_label=label, poll_scale=0.1)
        async with app.run_test(size=(120, 30)) as pilot:
            bar = app.screen.query_one(StatusBar)
            await until(pilot, lambda: f"local platform {host(old)}" in str(bar.render()), "the first address")
            lp.stop()  # by pid
            lp.restart()
            assert lp.base_url != old, "the restart took the same port: nothing tests the header"
            await until(
                pilot,
                lambda: f"local platform {host(lp.base_url)}" in str(bar.render()),
                "the new address in the header, once the next poll has followed the platform",
            )
            assert host(old) not in str(bar.render())
