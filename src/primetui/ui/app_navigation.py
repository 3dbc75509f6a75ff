"""Moving around the dashboard: the screens' keys, a run's and a volume's screens, help, refresh, team, theme.

A mixin of :class:`primetui.ui.app.PrimeApp`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from textual.app import App

from primetui.ui.screens.runs import RunsScreen
from primetui.ui.screens.volumes import VolumesScreen

if TYPE_CHECKING:
    from primetui.ui.screens.run import RunScreen


class Navigation(App):
    """The app-wide actions that show a screen."""

    client: Any

    def action_show(self, mode: str) -> None:
        if self.client is None:
            return
        if self.current_mode != mode:
            self.switch_mode(mode)
        # The key of a screen always shows that screen's list (k9s-like), also when you left it
        # from a run: its detail screens are closed; an editor or a dialog is never closed here.
        self._pop_details(cast(type, self.MODES[mode]))  # PrimeApp's modes are screen classes

    def open_run(self, run_id: str, *, jump_to_anomaly: bool = False) -> None:
        from primetui.ui.screens.run import RunScreen

        if self.current_mode != "runs":
            self.switch_mode("runs")
        if isinstance(self.screen, RunScreen) and self.screen.run_id == run_id:
            return
        # One run screen at a time, on top of the runs list: esc from it goes back to the list.
        self._pop_details(RunsScreen, keep=1)
        if self._is_detail(self.screen, RunsScreen):
            self.switch_screen(
                RunScreen(run_id, jump_to_anomaly=jump_to_anomaly)
            )  # replaces the top (a pop and a push in one tick race)
        else:
            self.push_screen(RunScreen(run_id, jump_to_anomaly=jump_to_anomaly))

    @staticmethod
    def _is_detail(screen: Any, base: type) -> bool:
        from primetui.ui.screens.base import DashboardScreen

        return isinstance(screen, DashboardScreen) and not isinstance(screen, base)

    def _pop_details(self, base: type, keep: int = 0) -> None:
        """Close the dashboard detail screens above ``base`` (not editors or dialogs), all but ``keep``."""
        stack = self.screen_stack
        while (
            len(stack) > 1 + keep
            and self._is_detail(stack[-1], base)
            and all(self._is_detail(s, base) for s in stack[-1 - keep :])
        ):
            self.pop_screen()
            stack = self.screen_stack

    def open_volume(self, name: str) -> None:
        self.switch_mode("volumes")
        screen = self.screen
        if isinstance(screen, VolumesScreen):
            screen.selected = name  # a reactive: its row, sessions and size helper are shown

    def act_on_run(self, run_id: str, action: str) -> None:
        self.open_run(run_id)
        self.call_after_refresh(lambda: cast("RunScreen", self.screen).act(action))  # open_run showed it

    def volume_action(self, name: str, action: str) -> None:
        self.open_volume(name)
        screen = self.screen
        if isinstance(screen, VolumesScreen):
            {
                "open_rw": lambda: screen.action_open_session(False),
                "open_ro": lambda: screen.action_open_session(True),
                "delete": screen.action_delete,
            }[action]()

    def action_help(self) -> None:
        from primetui.ui.screens.help import HelpScreen

        if type(self.screen).__name__ == "HelpScreen":
            return
        self.push_screen(HelpScreen(self.screen))

    def action_refresh(self) -> None:
        poll = getattr(self.screen, "poll", None)
        if callable(poll) and self.client is not None:
            if hasattr(self.screen, "final_fetch_done"):
                self.screen.final_fetch_done = False
                cast("RunScreen", self.screen).terminal_polls = 0  # the one screen with final_fetch_done
            poll()
            self.notify("Refreshing…", timeout=1.5)

    def action_switch_team(self) -> None:
        """Personal account or a team (header click, palette, ctrl+t): see ui/screens/teams.py."""
        from primetui.ui.screens.teams import TeamSwitchScreen, apply_switch

        if self.client is None or type(self.screen).__name__ == "TeamSwitchScreen":
            return
        current = getattr(self.client, "team_id", None)
        self.push_screen(TeamSwitchScreen(self.client, current), lambda choice: apply_switch(self, choice))

    def action_next_theme(self) -> None:
        names = [n for n in ("primetui-dark", "primetui-light", "primetui-ansi") if n in self.available_themes]
        if not names:
            return
        self.theme = names[(names.index(self.theme) + 1) % len(names)] if self.theme in names else names[0]
        self.notify(f"Theme: {self.theme}", timeout=2)
