"""Switch account: the personal account or one of the user's teams (as ``prime switch`` offers them).

Opened from the header (click ``team …``), the palette ("Switch account") or ``ctrl+t``. It lists
``GET /user/teams``; choosing one sets the client's scope, writes the choice back the way
``prime switch`` does (``primetui.config.switch``) and reloads the screen, whose header then names the
scope its runs and volumes belong to.
"""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.reactive import var
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList, Static
from textual.widgets.option_list import Option

from primetui.monitor_core.escapes import neutralise
from primetui.ui.safe import plain
from primetui.ui.styles import tcss

PERSONAL = "__personal__"


class TeamSwitchScreen(ModalScreen[tuple[str | None, str | None, str | None] | None]):
    """Returns (team_id, team_name, team_role) — (None, None, None) for personal — or None if cancelled."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="teams.cancel")]
    CSS_PATH = tcss("dialogs.tcss")

    note: var[str] = var("Loading your teams…", init=False)
    """The line under the list: loading, how to choose, or why the teams could not be listed."""

    def __init__(self, client: Any, current: str | None) -> None:
        super().__init__()
        self.client = client
        self.current = current
        self.teams: list[Any] = []
        self.keys_seen = False
        """A key was pressed in the dialog: the teams, when they come, leave the highlight where it is."""

    def watch_note(self, note: str) -> None:
        self.query_one("#teams-note", Static).update(note)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Switch account", classes="teams-title")
            yield OptionList(self._personal_option(), id="teams-list")
            yield Static(self.note, id="teams-note", markup=False)

    def _personal_option(self) -> Option:
        return Option("Personal" + ("  (current)" if self.current is None else ""), id=PERSONAL)

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()
        self.run_worker(self._load(), exit_on_error=False)

    async def _load(self) -> None:
        try:
            self.teams = await self.client.list_teams()
        except Exception as exc:  # noqa: BLE001 - one sentence, the personal account stays offered
            self.note = neutralise(f"Could not list your teams ({exc}); the personal account is still offered.")
            return
        options = self.query_one(OptionList)
        current_row = None
        for index, team in enumerate(self.teams):
            slug = f"slug: {team.slug}, " if team.slug else ""
            mark = "  (current)" if team.team_id == self.current else ""
            options.add_option(
                Option(
                    plain(f"{team.name or team.team_id} ({slug}role: {(team.role or 'member').lower()}){mark}"),
                    id=str(index),
                )
            )
            if team.team_id == self.current:
                current_row = index + 1  # row 0 is Personal
        if current_row is not None and not self.keys_seen:
            # open on the account you are in, so enter keeps it; not once a key was pressed (an arrow
            # or enter on Personal before the teams came would otherwise act on another account)
            options.highlighted = current_row
        self.note = (
            "enter switches; runs and volumes then show that account's. esc cancels."
            if self.teams
            else "You belong to no team; only the personal account is offered."
        )

    def on_key(self, event: Any) -> None:
        self.keys_seen = True  # every key passes here on its way to the list's bindings

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option.id == PERSONAL:
            self.dismiss((None, None, None))
            return
        team = self.teams[int(event.option.id or 0)]
        self.dismiss((team.team_id, team.name or None, team.role or None))

    def action_cancel(self) -> None:
        self.dismiss(None)


def apply_switch(app: Any, choice: tuple[str | None, str | None, str | None] | None) -> None:
    """Make the chosen scope the app's: client, settings, header, write-back, and a reload."""
    import dataclasses

    from primetui.config.settings import Settings, SettingsError
    from primetui.config.switch import scope_label, switch_team

    if choice is None or app.client is None:
        return
    team_id, team_name, team_role = choice
    settings = app.settings
    written: tuple = ()
    if isinstance(settings, Settings):
        try:
            written = switch_team(settings, team_id, team_name, team_role).written
        except SettingsError as exc:
            app.notify(str(exc), severity="error", timeout=8)
            return
        app.settings = dataclasses.replace(settings, team_id=team_id, team_name=team_name if team_id else None)
    app.client.team_id = team_id
    app.team_label = scope_label(team_id, team_name)  # a reactive: every header names the team now
    where = "saved to " + ", ".join(str(p) for p in written) if written else "for this session"
    who = f"team '{team_name or team_id}'" if team_id else "personal account"
    app.notify(neutralise(f"Switched to {who} ({where})."), timeout=5)
    app.state.runs = []
    app.state.volumes = []
    app.action_refresh()
