"""The shell pane: real terminals inside the dashboard, one tab per volume session.

For the dashboard::

    from primetui.ui.terminal import open_shell
    open_shell(app, client, session, settings)   # session: a ready VolumeSession

opens (or focuses) a tab labelled ``volume · session id · RW/RO`` on the app's shell screen,
connected with :mod:`primetui.shell` (gateway or direct, certificate and host key pinned, the
key from ``settings.ssh_key_path``). Leaving a read-write shell offers to stop the session and
shows the final sync until it is stopped. The screen stays installed while you go back to the
dashboard, so shells keep running; :func:`show_shells` brings it back.

Pieces: :class:`TerminalView` (the terminal widget, any transport), :class:`ShellScreen` /
:class:`ShellSpec` (tabs, keys, leave flow, reconnect), ``fullterm.run_full_terminal`` (hands the
real terminal to the shell). ``python -m primetui.ui.terminal`` runs local shells in the same
screen, without a platform.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from textual.widgets import TabbedContent

    from primetui.ui.terminal.screen import ShellPane, ShellScreen, ShellSpec
    from primetui.ui.terminal.view import TerminalView
    from primetui.api.models import VolumeSession
    from primetui.config.settings import Settings


def __getattr__(name: str) -> Any:
    # The pieces load on first use: the dashboard imports this package at start only for its
    # Alt-key hook (altkeys), long before anyone opens a shell.
    if name in ("ShellPane", "ShellScreen", "ShellSpec"):
        from primetui.ui.terminal import screen

        return getattr(screen, name)
    if name == "TerminalView":
        from primetui.ui.terminal.view import TerminalView

        return TerminalView
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["ShellPane", "ShellScreen", "ShellSpec", "TerminalView", "open_shell", "session_spec", "show_shells"]

_SCREEN_NAME = "primetui-shells"
_screens: "weakref.WeakKeyDictionary[Any, ShellScreen]" = weakref.WeakKeyDictionary()


def _is_local(settings: Settings | None, client: Any) -> bool:
    url = (settings.base_url if settings is not None else "") or str(getattr(client, "base_url", "") or "")
    host = url.split("://", 1)[-1].split("/", 1)[0].split(":", 1)[0]
    return host in ("127.0.0.1", "localhost", "::1")


def session_spec(
    client: Any, session: VolumeSession, settings: Settings | None = None, *, direct: bool = False
) -> ShellSpec:
    """The tab for a ready volume session (label, mode, how to connect again)."""
    from primetui.shell import resolve_key_path
    from primetui.shell.term.transport import SessionTransport
    from primetui.ui.terminal.screen import ShellSpec

    volume = session.volume_name or "?"
    sid = session.id or "?"
    read_only = session.read_only
    key_path = resolve_key_path(
        settings.ssh_key_path if settings is not None else None, local_platform=_is_local(settings, client)
    )
    label = f"{volume} · {sid} · {'RO' if read_only else 'RW'}"
    return ShellSpec(
        label=label,
        make_transport=lambda: SessionTransport(session, key_path, direct=direct),
        read_only=read_only,
        volume=volume,
        session_id=sid,
        client=client,
        local=_is_local(settings, client),
    )


def shell_screen(app: Any) -> ShellScreen:
    """The app's shell screen (created and installed on first use, so shells outlive a pop)."""
    from primetui.ui.terminal.screen import ShellScreen

    screen = _screens.get(app)
    if screen is None:
        screen = ShellScreen()
        _screens[app] = screen
        app.install_screen(screen, name=_SCREEN_NAME)
    return screen


def show_shells(app: Any) -> bool:
    """Bring the shell screen back; False when no shell is open."""
    screen = _screens.get(app)
    if screen is None or not screen.panes:
        return False
    if app.screen is not screen:
        app.push_screen(_SCREEN_NAME)
    return True


def open_shell(
    app: Any, client: Any, session: VolumeSession, settings: Settings | None = None, *, direct: bool = False
) -> None:
    """Open a shell tab on a ready session (or focus its tab if one is open)."""
    spec = session_spec(client, session, settings, direct=direct)
    open_spec(app, spec)


def open_spec(app: Any, spec: ShellSpec) -> None:
    """Open a tab for any shell spec (local shells use this too).

    The shell screen is pushed at once and holds what is typed from this moment, so the keys
    typed right after Enter go to the new shell when it is ready, never to dashboard bindings.
    """
    screen = shell_screen(app)
    pushed = app.push_screen(_SCREEN_NAME) if app.screen is not screen else None
    screen.hold_keys()

    async def _open() -> None:
        try:
            if pushed is not None:
                await pushed
            existing = screen.find(spec.session_id) if spec.session_id else None
            if existing is not None and existing.view.running:
                tab_id = (existing.id or "").removesuffix("-shell")
                cast("TabbedContent", screen.query_one("#shell-tabs")).active = tab_id
                screen.hand_keys_to(existing.view)
                existing.view.focus()
                return
            await screen.add_shell(spec)
        except Exception as exc:  # noqa: BLE001 - say it, never die silently in a worker
            screen.hand_keys_to(None)
            app.notify(f"Could not open the shell for {spec.label}: {exc}.", severity="error", timeout=10)

    app.run_worker(_open(), group="shell-open", exit_on_error=False)
