"""What a program started on a terminal gets of its parent's signal handling: nothing.

A dashboard or a platform may have been started with signals ignored or blocked: ``cmd &`` in a
script ignores SIGINT and SIGQUIT, ``nohup`` ignores SIGHUP, and a program inherits ignored signals
across ``exec``. A shell on a terminal (the pane's local pty, a session's shell served over SSH) must
get each with its default action, as a terminal emulator and sshd give them: else ^C does not stop its
foreground program, and its background jobs outlive a hangup. Stdlib only: it runs in the child
between fork and exec.
"""

from __future__ import annotations

import signal

DEFAULT_SIGNALS = tuple(
    getattr(signal, name)
    for name in (
        "SIGHUP",
        "SIGINT",
        "SIGQUIT",
        "SIGTERM",
        "SIGPIPE",
        "SIGTSTP",
        "SIGTTIN",
        "SIGTTOU",
        "SIGCHLD",
        "SIGALRM",
        "SIGUSR1",
        "SIGUSR2",
    )
    if hasattr(signal, name)
)


def default_signals() -> None:
    """Every signal of :data:`DEFAULT_SIGNALS` to its default action, and none blocked (in the child)."""
    for sig in DEFAULT_SIGNALS:
        signal.signal(sig, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
