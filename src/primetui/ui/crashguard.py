"""The dashboard's last word on a bug: a report file, open shells told, a non-zero exit.

Textual ends the app on an unhandled exception and prints a traceback with local variables (which
can hold the API key). :class:`PrimeApp` hands such an exception here instead: the report goes to
a file with secrets redacted (:mod:`primetui.config.crash`), each open shell tab writes a closing line on
its own screen and hangs up its program (so nothing is left running on the volume), and
``run_app`` prints one sentence with the report's path and exits with ``EXIT_CRASH``.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from primetui.config import crash

if TYPE_CHECKING:
    from primetui.config.settings import Settings

CLOSING = "primetui stopped on an unexpected error; this shell tab is closing."


def open_shells(app: Any) -> list[Any]:
    """Every running terminal view on any screen of ``app``."""
    try:
        from primetui.ui.terminal.view import TerminalView
    except ImportError:  # a build without the shell pane
        return []
    views: list[Any] = []
    for screen in list(app.screen_stack) + list(getattr(app, "_installed_screens", {}).values()):
        query = getattr(screen, "query", None)
        if query is None:
            continue
        try:
            views += [v for v in query(TerminalView) if getattr(v, "running", False) and v not in views]
        except Exception:  # noqa: BLE001 - a screen being torn down has no widgets to ask
            continue
    return views


def close_shells(app: Any) -> int:
    """Let each open shell say it is closing, then hang up its program; how many there were."""
    views = open_shells(app)
    loop = asyncio.get_running_loop()
    for view in views:
        try:
            view.term.feed_text(f"\x1b[0m\r\n\x1b[7m {CLOSING} \x1b[0m\r\n")
            view.refresh()  # kept by hand: the line was fed to the emulator directly, past the view's own feed
        except Exception:  # noqa: BLE001 - the hangup below matters more than the line
            pass
        app._crash_tasks.append(loop.create_task(view.stop()))
    return len(views)


def on_crash(app: Any, error: BaseException) -> None:
    """Write the report (once) and close the shells; ``run_app`` reads ``app.crash_report``."""
    if app.crash_report is not None:
        return
    settings: Settings | None = getattr(app, "settings", None)  # the app may crash before it has them
    key = settings.api_key if settings is not None else None
    app.crash_report = crash.write_report(error, context="the dashboard", secrets=[key]) or False
    try:
        app.crash_shells = close_shells(app)
    except Exception:  # noqa: BLE001 - never a second crash while reporting the first
        app.crash_shells = 0


def exit_code(app: Any) -> int:
    """What ``primetui`` exits with after ``app.run()``; prints the crash sentence when there was one."""
    import sys

    if app.crash_report is None:
        return int(getattr(app, "return_code", 0) or 0)
    shells = getattr(app, "crash_shells", 0)
    if shells:
        print(f"primetui: closed {shells} open shell tab(s); their programs got a hangup.", file=sys.stderr)
    print(crash.crash_sentence(app.crash_report or None), file=sys.stderr)
    return crash.EXIT_CRASH
