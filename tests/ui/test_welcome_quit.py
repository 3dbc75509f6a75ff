"""The first-run API-key screen shows how to quit (issue 18 item 18): ctrl+q in its footer and a
Quit button, both ending the app from the key field."""

from __future__ import annotations

import pytest
from textual.widgets import Button
from textual.widgets._footer import FooterKey

from primetui.config.settings import load_settings
from primetui.ui.app import PrimeApp
from primetui.commands.launch import Connector
from tests.waiting import quiet, until

pytestmark = pytest.mark.timeout(60)


def _app(tmp_path, monkeypatch) -> PrimeApp:
    monkeypatch.setenv("HOME", str(tmp_path))
    for var in ("PRIME_API_KEY", "PRIME_BASE_URL", "PRIME_API_BASE_URL", "PRIME_TEAM_ID", "PRIME_CONTEXT"):
        monkeypatch.delenv(var, raising=False)
    settings = load_settings(home=tmp_path)
    return PrimeApp(None, settings, None, connect=Connector(settings, None), poll_scale=0)


async def _welcome(pilot, app) -> None:
    await until(pilot, lambda: type(app.screen).__name__ == "WelcomeScreen", "the welcome screen")
    await quiet(pilot)


@pytest.mark.parametrize("size", [(100, 30), (80, 24)])
async def test_footer_lists_quit_and_ctrl_q_quits_from_the_key_field(tmp_path, monkeypatch, size):
    app = _app(tmp_path, monkeypatch)
    async with app.run_test(size=size) as pilot:
        await _welcome(pilot, app)
        keys = {k.key: k.description for k in app.screen.query(FooterKey)}
        assert keys.get("ctrl+q") == "Quit", keys
        assert app.screen.focused is not None and app.screen.focused.id == "api-key"
        await pilot.press("ctrl+q")
        await until(
            pilot, lambda: app._exit, "the app to be ending (asked from the focused key field)"
        )  # the app is ending (asked from the focused key field)


async def test_quit_button_quits(tmp_path, monkeypatch):
    app = _app(tmp_path, monkeypatch)
    async with app.run_test(size=(100, 30)) as pilot:
        await _welcome(pilot, app)
        assert "Quit" in str(app.screen.query_one("#quit", Button).label)
        app.screen.query_one("#quit", Button).press()
        await until(pilot, lambda: app._exit, "the app to be ending")
