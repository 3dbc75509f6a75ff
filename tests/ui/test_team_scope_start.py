"""`primetui --local` starts in the account `prime switch` chose, and the switcher opens on it."""

from __future__ import annotations

import dataclasses
import json

import pytest
from textual.widgets import OptionList

from primetui.api.client import PrimeClient
from primetui.local.teams import LOCAL_TEAM_ID
from primetui.config.settings import load_settings
from primetui.ui.app import PrimeApp
from primetui.commands.launch import Connector
from primetui.ui.screens.teams import TeamSwitchScreen
from tests.waiting import until

pytestmark = pytest.mark.timeout(150)


def _home(tmp_path, monkeypatch, team_id: str | None, team_name: str | None) -> None:
    home = tmp_path / "home"
    (home / ".prime").mkdir(parents=True)
    (home / ".prime" / "config.json").write_text(
        json.dumps({"api_key": "kept", "team_id": team_id, "team_name": team_name, "current_environment": "production"})
    )
    monkeypatch.setenv("HOME", str(home))
    for var in ("PRIME_TEAM_ID", "PRIME_CONTEXT", "PRIME_API_KEY", "PRIME_BASE_URL"):
        monkeypatch.delenv(var, raising=False)


@pytest.mark.parametrize(("team_id", "kept"), [(LOCAL_TEAM_ID, LOCAL_TEAM_ID), ("cm-hosted-team", None)])
def test_local_start_keeps_the_switched_local_team(local_platform, tmp_path, monkeypatch, team_id, kept) -> None:
    _home(tmp_path, monkeypatch, team_id, "Some Team")
    monkeypatch.setattr(
        "primetui.local.launcher.ensure_running", lambda **_: (local_platform.base_url, local_platform.token)
    )
    client, settings, _label = Connector(load_settings(), None).local_sync()
    assert client.team_id == kept and settings.team_id == kept
    assert settings.team_name == ("Some Team" if kept else None)  # the header never names a scope it is not in


async def test_the_switcher_opens_on_the_current_team(local_platform, tmp_path, monkeypatch) -> None:
    _home(tmp_path, monkeypatch, LOCAL_TEAM_ID, "Local Research")
    settings = dataclasses.replace(load_settings(), base_url=local_platform.base_url, api_key=local_platform.token)
    app = PrimeApp(
        PrimeClient(local_platform.base_url, local_platform.token, LOCAL_TEAM_ID),
        settings,
        None,
        poll_scale=0.1,
        platform_label="local test",
    )
    async with app.run_test(size=(120, 36)) as pilot:
        app.action_switch_team()
        await until(
            pilot,
            lambda: (
                isinstance(app.screen, TeamSwitchScreen)
                and app.screen.query(OptionList)
                and app.screen.query_one(OptionList).option_count == 2
            ),
            "the team listed",
        )
        options = app.screen.query_one(OptionList)
        assert options.highlighted == 1
        assert "Local Research" in str(options.get_option_at_index(1).prompt)
