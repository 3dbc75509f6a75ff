"""How the dashboard tells a person about a watched run: toast, bell, desktop escape, hook.

The core (:mod:`primetui.monitor_core.notify`) makes the event and runs the hook; this module wires it to the
app: the toast (markup off: run names are outside text), the bell, the OSC 777/9 escape written to
the terminal when ``[notify] desktop`` asks for it, and a hook failure shown as a warning toast.

An event given a ``key`` (``status:COMPLETED``, ``anomaly:nan:3:``) is announced once per run: the
first dashboard to claim it in the shared ``announced.json`` (beside the preferences file) tells
it, every other dashboard on the machine and every later start stays quiet
(:class:`primetui.config.shared.Announced`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from primetui.config.shared import ANNOUNCED_FILE, Announced
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


def announced(app: Any) -> Announced:
    """The app's "already told" set: shared through the file beside its preferences file, if any."""
    store = getattr(app, "_announced", None)
    if store is None:
        prefs_file = getattr(app, "prefs_file", None)
        store = app._announced = Announced(Path(prefs_file).parent / ANNOUNCED_FILE if prefs_file else None)
    return store


def announce(app: Any, event: RunEvent, key: str | None = None) -> bool:
    """Tell the person: toast and bell as always, then the desktop escape and the hook (never blocking).

    With a ``key``, only when no dashboard told this run's ``key`` before; True when it was told.
    """
    if key is not None:
        store = announced(app)
        if not store.claim(event.run_id, key):
            return False
        if store.problem and not getattr(app, "_announced_problem_said", False):
            app._announced_problem_said = True
            app.notify(store.problem, severity="warning", timeout=10, markup=False)
    message = event.title + (f"\n{event.detail}" if event.detail else "")
    app.notify(message, title="Watched run", severity=event.severity, timeout=10, markup=False)
    app.bell()
    app.notifier.emit(event)
    return True
