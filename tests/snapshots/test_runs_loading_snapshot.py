"""The runs list while the later pages are read (issue 41 #1): the first page drawn, and the line
under the table says how many of the platform's runs are loaded, at 80x24 and 160x48."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from screens_data import replay

from primetui.api.client import PrimeClient
from primetui.config.prefs import Prefs
from primetui.ui.app import PrimeApp
from primetui.ui.themes import shipped_theme_dir
from test_screens import SIZES, settle


def loading_app() -> PrimeApp:
    """The recorded replies, with a first page that says the platform has 334 runs; the later
    pages (100 per request) are never answered, so the list stays at "4 of 334 loaded"."""
    data = replay.load()
    data["GET /rft/runs"] = {**data["GET /rft/runs"], "total": 334, "total_pages": 17}
    recorded = replay.transport(data)

    async def handle(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/rft/runs") and request.url.params.get("limit") != "20":
            await asyncio.Event().wait()  # a later page still on its way
        return await recorded.handle_async_request(request)

    client = PrimeClient("http://127.0.0.1:9", "recorded-replies", transport=httpx.MockTransport(handle))
    return PrimeApp(
        client,
        None,
        Prefs(theme="primetui-dark"),
        clock=replay.fixed_clock(data),
        platform_label="local platform 127.0.0.1:8765",
        poll_scale=0,
        theme_dirs=[shipped_theme_dir()],
    )


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_runs_screen_while_loading(snap_compare, size):
    app = loading_app()

    async def ready(pilot):
        await settle(
            pilot,
            lambda: app.state.runs_loaded and len(app.state.progress) >= 2 and not app.state.runs_complete,
            "the first page drawn, the rest loading",
        )

    assert snap_compare(app, terminal_size=size, run_before=ready)
