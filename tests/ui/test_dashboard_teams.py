"""Pilot: switching between the personal account and a team from the header and the palette,
written back as `prime switch` does, with the volumes list following the scope."""

from __future__ import annotations

import json

import pytest
from tests.waiting import until
from dash_helpers import notifications, palette_offers, record_notifications
from textual.widgets import DataTable, OptionList

from primetui.api.client import PrimeClient
from primetui.local.teams import LOCAL_TEAM_ID
from primetui.config.settings import load_settings
from primetui.ui.app import PrimeApp
from primetui.ui.screens.teams import TeamSwitchScreen
from primetui.ui.screens.volumes import VolumesScreen
from primetui.ui.widgets import StatusBar

pytestmark = pytest.mark.timeout(150)


def make_app(lp, settings) -> PrimeApp:
    return record_notifications(
        PrimeApp(PrimeClient(lp.base_url, lp.token), settings, None, poll_scale=0.1, platform_label="local test")
    )


def volume_rows(app) -> list[str]:
    return [str(k.value) for k in app.screen.query_one("#volumes-table", DataTable).rows]


async def choose(pilot, app, label: str) -> None:
    await until(pilot, lambda: app.screen.query(OptionList), "the account list")
    await until(pilot, lambda: app.screen.teams, "the teams listed (their arrival moves the highlight)")
    options = app.screen.query_one(OptionList)
    await until(
        pilot,
        lambda: any(label in str(options.get_option_at_index(i).prompt) for i in range(options.option_count)),
        f"option {label}",
    )
    index = next(i for i in range(options.option_count) if label in str(options.get_option_at_index(i).prompt))
    options.highlighted = index
    await pilot.press("enter")


async def test_switch_from_the_header_writes_back_and_rescopes_the_volumes(local_platform, tmp_path, monkeypatch):
    home = tmp_path / "home"
    (home / ".prime").mkdir(parents=True)
    (home / ".prime" / "config.json").write_text(json.dumps({"api_key": "kept", "current_environment": "production"}))
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("PRIME_BASE_URL", local_platform.base_url)
    monkeypatch.delenv("PRIME_TEAM_ID", raising=False)
    monkeypatch.delenv("PRIME_CONTEXT", raising=False)
    settings = load_settings()
    app = make_app(local_platform, settings)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("v")
        await until(pilot, lambda: isinstance(app.screen, VolumesScreen) and "research" in volume_rows(app), "volumes")
        assert "team personal" in str(app.screen.query_one(StatusBar).render())
        await pilot.click(StatusBar)
        await until(pilot, lambda: isinstance(app.screen, TeamSwitchScreen), "account switcher")
        await choose(pilot, app, "Local Research")
        await until(pilot, lambda: app.team_label == "Local Research", "team chosen")
        await until(
            pilot,
            lambda: isinstance(app.screen, VolumesScreen) and "research" not in volume_rows(app),
            "the team's volumes (the personal 'research' is gone)",
        )
        await until(
            pilot,
            lambda: "team Local Research" in str(app.screen.query_one(StatusBar).render()),
            "the header to name the team (it redraws on its next tick)",
        )
        assert app.client.team_id == LOCAL_TEAM_ID
        saved = json.loads((home / ".prime" / "config.json").read_text())
        assert (saved["team_id"], saved["team_name"], saved["team_role"]) == (LOCAL_TEAM_ID, "Local Research", "ADMIN")
        assert saved["api_key"] == "kept"  # every other field stays
        assert any("Switched to team 'Local Research'" in n for n in notifications(app))

        app.action_command_palette()
        await until(pilot, lambda: type(app.screen).__name__ == "CommandPalette", "the command palette")
        await pilot.press(*"Switch account")
        await palette_offers(pilot, "Switch account")
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, TeamSwitchScreen), "switcher from the palette")
        await choose(pilot, app, "Personal")
        await until(
            pilot,
            lambda: (
                app.team_label == "personal"
                and isinstance(app.screen, VolumesScreen)
                and "research" in volume_rows(app)
            ),
            "back to personal",
        )
        assert json.loads((home / ".prime" / "config.json").read_text())["team_id"] is None


async def test_prime_team_id_in_the_environment_refuses_the_switch(local_platform, tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("PRIME_BASE_URL", local_platform.base_url)
    monkeypatch.setenv("PRIME_TEAM_ID", LOCAL_TEAM_ID)
    app = make_app(local_platform, load_settings())
    async with app.run_test(size=(120, 36)) as pilot:
        app.action_switch_team()
        await until(pilot, lambda: isinstance(app.screen, TeamSwitchScreen), "switcher")
        await choose(pilot, app, "Personal")
        await until(pilot, lambda: any("PRIME_TEAM_ID is set" in n for n in notifications(app)), "refusal")
        assert not (tmp_path / ".prime" / "config.json").exists()


async def test_a_key_pressed_before_the_teams_come_keeps_the_highlight_where_the_user_put_it(local_platform):
    """A full CI run: in a team, the switcher opened on Personal alone; the teams then came and moved
    the highlight to the current team, so the enter meant for Personal kept the team."""
    from textual.app import App
    import asyncio

    release = asyncio.Event()

    class SlowTeams(PrimeClient):
        async def list_teams(self):  # type: ignore[override]
            await release.wait()  # the teams come only when the test says
            return await super().list_teams()

    chosen: list[object] = []

    class Host(App):
        def on_mount(self) -> None:
            client = SlowTeams(local_platform.base_url, local_platform.token)
            self.push_screen(TeamSwitchScreen(client, LOCAL_TEAM_ID), chosen.append)

    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, TeamSwitchScreen), "the switcher")
        screen = app.screen
        await pilot.press("home")  # the user is on Personal, the only account listed yet
        release.set()
        await until(pilot, lambda: screen.teams, "the teams listed")
        await until(pilot, lambda: screen.query_one(OptionList).option_count == 1 + len(screen.teams), "their rows")
        assert screen.query_one(OptionList).highlighted == 0  # still Personal
        await pilot.press("enter")
        await until(pilot, lambda: chosen, "the choice")
        assert chosen == [(None, None, None)]  # the personal account
