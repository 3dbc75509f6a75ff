"""The first screen's local-platform choice on the base install (without primetui[local])."""

from __future__ import annotations

from primetui.config.settings import load_settings
from primetui.ui.app import PrimeApp
from primetui.commands.launch import Connector
from tests.waiting import until


async def test_ctrl_l_without_the_extra_shows_the_command_that_adds_it(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("PRIMETUI_LOCAL_DATA_DIR", str(tmp_path / "local"))
    for var in ("PRIME_API_KEY", "PRIME_BASE_URL", "PRIME_API_BASE_URL", "PRIME_TEAM_ID", "PRIME_CONTEXT"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr("primetui.local.extra.missing", lambda: ["pyarrow"])
    settings = load_settings(home=tmp_path)
    app = PrimeApp(None, settings, None, connect=Connector(settings, None), poll_scale=0)
    async with app.run_test(size=(140, 30)) as pilot:
        await until(pilot, lambda: type(app.screen).__name__ == "WelcomeScreen", "welcome")
        await pilot.press("ctrl+l")
        error = app.screen.query_one("#welcome-error")
        await until(pilot, lambda: "primetui[local]" in str(error.content), "the install command shown inline")
        text = str(error.content)
        assert text.startswith("The local platform needs pyarrow, which this install leaves out; add them with: ")
        assert "Unexpected problem" not in text
        assert type(app.screen).__name__ == "WelcomeScreen"
    assert not (tmp_path / "local" / "server.json").exists()
