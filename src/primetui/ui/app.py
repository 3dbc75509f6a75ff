"""``PrimeApp``: the dashboard shell (screens by key and palette, help, themes, keymap, alerts).

Screens hold no HTTP code of their own beyond starting workers on ``app.client``; everything
they learn goes into ``app.state`` (last good data + connection health), so when the platform
is unreachable the last good data stays up with a staleness marker and polling recovers alone.
"""

from __future__ import annotations

import contextvars
import os
from collections.abc import Callable, Iterable
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.app import App
from textual.binding import Binding
from textual.reactive import var

from primetui.monitor_core.notify import RunEvent
from primetui.viewmodel.clipboard import refusal_reason
from primetui.ui import output_gate, textual_fixes
from primetui.ui.app_health import HealthReports
from primetui.ui.app_leaving import ScreenSettling
from primetui.ui.app_navigation import Navigation
from primetui.ui.app_watching import Watching
from primetui.ui.editor.keyorder import KeysToDialogs
from primetui.ui.palette import PrimeCommands
from primetui.viewmodel.compact import is_compact
from primetui.ui.focus import types_text
from primetui.viewmodel.remember import initial_watched
from primetui.ui.notify import announce, make_notifier
from primetui.ui.safe import ControlFilter
from primetui.ui.screens.models import ModelsScreen
from primetui.ui.screens.runs import RunsScreen
from primetui.ui.screens.volumes import VolumesScreen
from primetui.ui.styles import tcss
from primetui.viewmodel.state import DashboardState
from primetui.ui.terminal_colours import honour_no_color, pick_default_theme
from primetui.ui.themes import DEFAULT_THEME, load_themes, shipped_theme_dir

if TYPE_CHECKING:
    from primetui.api.models import VolumeSession
    from primetui.api.plainrun import Run
    from primetui.config.prefs import Prefs
    from primetui.config.settings import Settings


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


class PrimeApp(HealthReports, Watching, Navigation, ScreenSettling, KeysToDialogs, App):
    """The primetui dashboard."""

    TITLE = "primetui"
    CSS_PATH = [tcss("app.tcss"), tcss("compact.tcss")]
    MODES = {"runs": RunsScreen, "volumes": VolumesScreen, "models": ModelsScreen}
    COMMANDS = App.COMMANDS | {PrimeCommands}
    BINDINGS = [
        Binding("r", "show('runs')", "Runs", id="app.runs"),
        Binding("v", "show('volumes')", "Volumes", id="app.volumes"),
        Binding("m", "show('models')", "Models", id="app.models"),
        Binding("e", "open_editor", "Editor", id="app.editor"),
        Binding("f1,question_mark", "help", "Help", id="app.help"),
        Binding("ctrl+r,f5", "refresh", "Refresh", show=False, id="app.refresh"),
        Binding("t", "next_theme", "Theme", show=False, id="app.theme"),
        Binding("ctrl+o", "shells", "Shells", show=False, id="app.shells"),
        Binding("ctrl+t", "switch_team", "Account", show=False, id="app.switch_team"),
        Binding("q", "letter_quit", "Quit", id="app.quit"),
    ]

    # What every screen's header and lists show of the app, held where a change repaints them:
    # the header (ui/widgets.StatusBar) and the run screens watch these. Setting the same value
    # again (the usual case, at each poll and each tick) repaints nothing.
    health: var[tuple[str, str]] = var(("muted", "◌ connecting"), init=False)
    """(tone, text) of the link to the platform: live, stale 45s, unreachable, cached."""
    platform_label: var[str] = var("no platform", init=False)
    """What the header calls the platform (the base URL's host, or the local platform)."""
    team_label: var[str] = var("personal", init=False)
    """Whose runs and volumes are shown: ``personal`` or the team's name."""
    watched: var[frozenset[str]] = var(frozenset, init=False)
    """The runs being watched (``state.watched``, as the screens mark them)."""
    slow_link: var[str] = var("", init=False)
    """The header's ``⏸ slow link`` while the terminal drains slower than frames come (primetui.ui.output_gate)."""

    def __init__(
        self,
        client: Any,
        settings: Settings | None = None,
        prefs: Prefs | None = None,
        clock: Callable[[], datetime] | None = None,
        *,
        platform_label: str | None = None,
        start: str = "runs",
        run_id: str | None = None,
        edit_path: str | Path | None = None,
        connect: Any = None,
        poll_scale: float = 1.0,
        theme_dirs: list[Path] | None = None,
        cache: bool = False,
        prefs_file: Path | None = None,
        on_event: str | None = None,
        mistake: Any = None,
    ) -> None:
        """
        Args:
            client: a ``PrimeClient`` (or None: the first screen then asks for a key or the local platform).
            settings: ``primetui.config.settings.Settings`` (base_url, team_id, ...); never displayed whole.
            prefs: ``primetui.config.prefs`` preferences (theme, refresh intervals, keymap).
            clock: returns "now" (UTC); fixed in snapshot tests.
            platform_label: what the header calls the platform (default: the base URL's host).
            start: first screen: runs, volumes or models.
            run_id: open this run's screen on start.
            edit_path: open this file in the editor on start.
            connect: a ``launch.Connector`` used by the first-run screen to connect.
            poll_scale: multiplies every refresh interval; 0 turns periodic polling off (tests).
            theme_dirs: where theme files are (default: shipped themes/ and the user's themes dir).
            cache: paint the last-known runs list from disk first, and keep it updated.
            prefs_file: where watched runs and the theme are kept for the next start (None: not kept).
            on_event: a command run for each watched-run event (``--on-event``; see primetui.monitor_core.notify).
            mistake: a setting that cannot work (``primetui.config.mistakes.SettingsMistake``): the status
                line names it, its sentence is a toast and what each screen says, and nothing is asked.
        """
        from primetui.ui.terminal.altkeys import install as keep_alt_keys

        keep_alt_keys()  # the shell pane gets Alt+key as the terminal sent it (before the driver starts)
        textual_fixes.install()  # a widget laid out twice takes its new size; call_later reads no signature
        output_gate.install()  # frames wait while the terminal is behind (before the driver starts its writer)
        super().__init__()
        self._filters.append(ControlFilter())  # backstop: no control char from data reaches the terminal
        self._filters = honour_no_color(self._filters, self.no_color)
        self.client = client
        self.settings = settings
        self.prefs = prefs
        self.state = DashboardState(clock=clock or utc_now)
        self.prefs_file = Path(prefs_file) if prefs_file else None
        self.state.watched |= initial_watched(prefs)
        self.watched = frozenset(self.state.watched)
        self._remembering = False
        self._said_notes: set[str] = set()
        self.crash_report: Any = None
        """After a bug: the report's path (False when none could be written); see primetui.ui.crashguard."""
        self.crash_shells = 0
        self._crash_tasks: list[Any] = []
        self.platform_label = platform_label or self._label_from_settings(settings)
        self._follow_moves(client)
        team = (settings.team_name or settings.team_id) if settings is not None else None
        self.team_label = str(team) if team else "personal"
        self.start = start if start in self.MODES else "runs"
        self.start_run = run_id
        self.edit_path = Path(edit_path) if edit_path else None
        self.connector = connect
        self.poll_scale = poll_scale
        self.use_cache = cache
        self.theme_warnings: list[str] = []
        self._theme_dirs = theme_dirs
        self._register_themes()
        self.theme_chosen = bool(prefs.theme) if prefs is not None else False
        """True once the user picked a theme (saved then); until then the terminal decides each start."""
        self.notifier = make_notifier(self, on_event)
        self.mistake = mistake
        self.update_health()

    # ---- set-up -----------------------------------------------------------------------------
    @staticmethod
    def _label_from_settings(settings: Settings | None) -> str:
        from primetui.config.mistakes import shown_url

        url = settings.base_url if settings is not None else ""
        if not url:
            return "no platform"
        host = shown_url(url).split("://", 1)[-1].split("/", 1)[0][:80]  # never a URL's user name or password
        return "local platform " + host if host.startswith(("127.0.0.1", "localhost")) else host

    def _register_themes(self) -> None:
        dirs: list[Path | None] = (
            list(self._theme_dirs) if self._theme_dirs is not None else [shipped_theme_dir(), self._user_theme_dir()]
        )
        themes, warnings = load_themes(*dirs)
        for theme in themes:
            self.register_theme(theme)
        self.theme_warnings = warnings
        wanted = (self.prefs.theme if self.prefs is not None else "") or pick_default_theme()
        self.theme = (
            wanted
            if wanted in self.available_themes
            else (DEFAULT_THEME if DEFAULT_THEME in self.available_themes else "textual-dark")
        )
        if wanted and wanted not in self.available_themes:
            self.theme_warnings.append(
                f"Theme {wanted!r} is not installed; using {self.theme}. Pick one with ctrl+p → theme."
            )

    @staticmethod
    def _user_theme_dir() -> Path | None:
        base = os.environ.get("PRIMETUI_CONFIG_DIR")
        if base:
            return Path(base) / "themes"
        try:
            import platformdirs

            return Path(platformdirs.user_config_dir("primetui")) / "themes"
        except Exception:  # noqa: BLE001
            return None

    def on_mount(self) -> None:
        keymap = self.prefs.keymap if self.prefs is not None else {}
        if keymap:
            self.set_keymap(dict(keymap))
        for problem in self.settings.problems if self.settings is not None else ():
            self.theme_warnings.append(str(problem))
        for warning in self.theme_warnings:
            self.notify(warning, severity="warning", timeout=8)
        self._remembering = True
        # The context the shared followers' loops run in (primetui.api.hub): the app's, not the
        # context of whichever screen subscribed first, which such a loop would keep alive.
        self._loop_context = contextvars.copy_context()
        # The one clock tick: staleness counts seconds, so the header's connection text changes
        # with time alone ("stale 21s"). An unchanged text sets the same value: nothing repaints.
        self.set_interval(1.0, self.tick)
        if self.mistake is not None:
            # Not the welcome screen: a key is configured, or a URL, team or deadline is wrong.
            self.report_mistake(str(self.mistake), str(getattr(self.mistake, "short", "bad setting")))
        elif self.client is None and self.connector is not None:
            from primetui.ui.screens.welcome import WelcomeScreen

            self.push_screen(WelcomeScreen(self.connector))
            if self.edit_path:
                # Editing and validating need no platform: open the file now, over the welcome
                # screen; dispatch asks for a platform once the editor closes.
                path, self.edit_path = self.edit_path, None
                self.open_editor(path)
            return
        self.begin()

    def begin(self) -> None:
        """Show the first screen (after a client exists)."""
        from primetui.api.hub import hub_for

        if self.client is not None:
            hub_for(self.client).context = self._loop_context
        self.switch_mode(self.start)
        if self.start_run:
            self.open_run(self.start_run)
        if self.edit_path:
            self.open_editor(self.edit_path)

    def connected(self, client: Any, settings: Settings | None, label: str | None = None) -> None:
        """Called by the first-run screen once a client exists."""
        self.client = client
        self.settings = settings
        self.platform_label = label or self._label_from_settings(settings)
        self._follow_moves(client)
        self.begin()

    def _follow_moves(self, client: Any) -> None:
        """The header's address follows a local platform restarted on another port (the client moves there)."""
        if client is not None and hasattr(client, "on_moved"):
            client.on_moved = self._platform_moved

    def _platform_moved(self, old_url: str, new_url: str) -> None:
        old, new = (url.split("://", 1)[-1].split("/", 1)[0] for url in (old_url, new_url))
        self.platform_label = self.platform_label.replace(old, new) if old in self.platform_label else new

    def interval(self, seconds: float, key: str | None = None) -> float:
        """A refresh interval: the preference ``[refresh] key`` if set, times ``poll_scale`` (0 = off)."""
        # ``key`` names a field of the [refresh] table (RefreshIntervals), as the screens ask for it
        preferred = getattr(self.prefs.refresh, key, None) if key and self.prefs is not None else None
        if isinstance(preferred, (int, float)) and preferred > 0:
            seconds = float(preferred)
        return seconds * self.poll_scale

    def on_cursor_position(self, _event: Any) -> None:
        """The terminal answered the output gate's question: what it drew is confirmed."""
        output_gate.on_answer(self)

    # ---- run status ---------------------------------------------------------------------------

    def observe_runs(self, runs: Iterable[Run]) -> None:
        """:meth:`observe_run` for each of many runs (a page of the list, thousands of runs): the
        watch list is looked up on disk once, not once a run."""
        self.sync_watched()
        for run in runs:
            self.observe_run(run, synced=True)

    def observe_run(self, run: Run, synced: bool = False) -> None:
        if not synced:
            self.sync_watched()
        change = self.state.observe_run(run)
        if change:
            old, new = change
            error = run.error_message if new == "FAILED" else None
            run_id = run.id
            event = RunEvent.status_change(run_id, run.name, old, new, error)
            self.sync_watched(exact=True)  # unwatched in another dashboard a moment ago: stay quiet
            if run_id in self.state.watched:
                announce(self, event, key=f"status:{new}")  # once per run, whichever dashboard sees it first

    # Letters that mean something everywhere; they stay quiet while a widget takes typed text or
    # while a screen keeps its letters for itself (the editor), so typing never lands elsewhere.
    LETTER_ACTIONS = frozenset({"show", "open_editor", "next_theme", "letter_quit"})

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in self.LETTER_ACTIONS:
            screen = self.screen
            if getattr(screen, "OWNS_LETTERS", False) or types_text(self.focused):
                return False
        return True

    def on_resize(self, event: Any) -> None:
        self.set_class(is_compact(event.size.width, event.size.height), "-compact")

    def _handle_exception(self, error: Exception) -> None:
        """A bug: report file, shells told and hung up, non-zero exit (primetui.ui.crashguard)."""
        from primetui.ui.crashguard import on_crash

        on_crash(self, error)
        super()._handle_exception(error)

    def _fatal_error(self) -> None:
        # Textual would print a traceback with local variables (the API key among them): the
        # redacted report file replaces it, and run_app prints where it is.
        self.bell()
        self._close_messages_no_wait()

    async def action_letter_quit(self) -> None:
        """`q`: quit (ctrl+q always quits; `q` is a letter, so text entry and the editor keep it)."""
        await self.action_quit()

    # ---- editor, shell, clipboard -----------------------------------------------------------
    def action_open_editor(self) -> None:
        if self.client is None:
            return
        self.open_editor(self.edit_path or self.default_config_path())

    def default_config_path(self) -> Path:
        """The demo sft.toml of the local platform if there is one, else ./sft.toml."""
        demo = self.connector.demo_config if self.connector else None
        if demo and Path(demo).exists():
            return Path(demo)
        return Path.cwd() / "sft.toml"

    def open_editor(self, path: Path) -> None:
        try:
            from primetui.ui.editor import EditorScreen
        except ImportError:
            self.notify(
                "The config editor is not installed in this build; use `primetui validate FILE` meanwhile.",
                severity="warning",
            )
            return
        try:
            screen = EditorScreen(path, client=self.client)
        except Exception as exc:  # noqa: BLE001 - a bad path must not take the app down
            self.notify(f"Could not open {path}: {exc}. Check the path and try again.", severity="error")
            return
        self.push_screen(screen, self._editor_closed)

    def _editor_closed(self, run_id: str | None) -> None:
        """The editor closes with the id of the run it dispatched, or None."""
        if run_id:
            self.run_dispatched(run_id)

    def run_dispatched(self, run_id: str) -> None:
        """A run was dispatched (by the editor): watch it and show its screen."""
        self.watch_run(run_id)
        self.notify(f"Dispatched run {run_id}; watching it.")
        self.open_run(run_id)

    def open_shell(self, session: VolumeSession) -> None:
        """Open the shell pane on a ready session (primetui.ui.terminal)."""
        try:
            from primetui.ui import terminal
        except ImportError:
            conn = session.ssh_connection or ""
            self.notify(f"The shell pane is not installed in this build; connect with ssh {conn}.", severity="warning")
            return
        opener = getattr(terminal, "open_shell", None)
        if opener is None:
            self.notify("The shell pane does not offer open_shell yet.", severity="warning")
            return
        try:
            opener(self, self.client, session, self.settings)
        except Exception as exc:  # noqa: BLE001
            self.notify(f"Could not open a shell: {exc}.", severity="error")

    def action_shells(self) -> None:
        """Bring back the shell tabs (they keep running while you use the dashboard)."""
        try:
            from primetui.ui.terminal import show_shells
        except ImportError:
            self.notify("The shell pane is not installed in this build.", severity="warning")
            return
        if not show_shells(self):
            self.notify("No shell is open: on the Volumes screen, select a ready session and press enter.")

    def copy_text(self, text: str, what: str) -> None:
        """OSC 52 copy with a visible message, including when the terminal will refuse it."""
        self.copy_to_clipboard(text)
        reason = refusal_reason()
        if reason:
            self.notify(f"Could not copy the {what}: {reason}. Select it here: {text}", severity="warning", timeout=12)
        else:
            self.notify(f"Copied {what}: {text}", timeout=4)
