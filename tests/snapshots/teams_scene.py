"""The account switcher (ctrl+t, a click on the header, or the palette), with the local platform's own team list.

uv run python -m tests.snapshots.teams_scene docs/img    # writes docs/img/dashboard-teams.svg
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from textual.app import App, ComposeResult
from textual.widgets import Static

from primetui.api.models import Team
from primetui.local.teams import TEAMS
from primetui.ui.screens.teams import TeamSwitchScreen
from primetui.ui.themes import load_themes, shipped_theme_dir
from tests.waiting import quiet, until


class LocalTeams:
    """Answers list_teams with exactly what the local platform serves at /user/teams."""

    team_id = None

    async def list_teams(self) -> list[Team]:
        return [Team.model_validate(t) for t in TEAMS]


class TeamsHost(App):
    def compose(self) -> ComposeResult:
        yield Static("")

    def on_mount(self) -> None:
        themes, _ = load_themes(shipped_theme_dir())
        for theme in themes:
            self.register_theme(theme)
        if "primetui-dark" in self.available_themes:
            self.theme = "primetui-dark"
        self.push_screen(TeamSwitchScreen(LocalTeams(), None))


SIZE = (100, 20)


async def prepare(pilot) -> None:
    await until(
        pilot,
        lambda: isinstance(pilot.app.screen, TeamSwitchScreen) and pilot.app.screen.teams,
        "the team switcher with its teams",
    )
    await quiet(pilot)


async def export(dest: Path) -> None:
    app = TeamsHost()
    async with app.run_test(size=SIZE) as pilot:
        await prepare(pilot)
        app.save_screenshot("dashboard-teams.svg", path=str(dest))


if __name__ == "__main__":
    asyncio.run(export(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/img")))
