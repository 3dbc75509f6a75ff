"""How the dashboard tells a person about a watched run: toast, bell, desktop escape, hook.

The core (:mod:`primetui.monitor_core.notify`) makes the event and runs the hook; this module wires it to the
app: the toast (markup off: run names are outside text), the bell, the OSC 777/9 escape written to
the terminal when ``[notify] desktop`` asks for it, and a hook failure shown as a warning toast.
"""

from __future__ import annotations

from typing import Any

from primetui.monitor_core.notify import Notifier, RunEvent


def make_notifier(app: Any, hook: str | None = None) -> Notifier:
    """A notifier for ``app``: ``--on-event`` (``hook``) wins over ``[notify] on_event``."""

    def write(sequence: str) -> None:
        driver = getattr(app, "_driver", None)
        if driver is not None and not app.is_headless:
            driver.write(sequence)
            driver.flush()

    def report(message: str) -> None:
        app.call_later(app.notify, message, title="on-event hook", severity="warning", timeout=10, markup=False)

    return Notifier.from_prefs(app.prefs, hook, write=write, report=report)


def announce(app: Any, event: RunEvent) -> None:
    """Tell the person: toast and bell as always, then the desktop escape and the hook (never blocking)."""
    message = event.title + (f"\n{event.detail}" if event.detail else "")
    app.notify(message, title="Watched run", severity=event.severity, timeout=10, markup=False)
    app.bell()
    app.notifier.emit(event)
