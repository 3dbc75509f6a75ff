"""A spare dashboard process for ``primetui serve``: started and imported before a tab asks for it.

A browser tab's app process spends most of its start importing (Textual, rich, httpx, pydantic and
the dashboard: about 0.6 s of CPU on a 2-core machine), and it can only begin once the page has
loaded and opened its websocket. ``primetui serve`` therefore keeps one process ready: it runs
``python -m primetui …`` with :data:`MARKER` set in its environment, imports the modules of
:data:`WARM`, and then waits on its standard input for the line

    go <width> <height>

which the server writes when a tab opens its websocket. Everything the app reads about the user
(the prime config, the API key, preferences, the runs cache, the terminal size) is read after that
line, exactly as in a process started for the tab, so a spare may wait for hours without going
stale. End of input instead of the line (the server stopped, or retired the spare) ends the
process with status 0 and no output.

While it waits, nothing has been written to its standard output: textual-serve reads the app's
``__GANGLION__`` prelude there once the tab owns it. On Linux the process names itself
``primetui`` (``/proc/PID/comm``) when it becomes a tab's, so a spare and a tab tell apart in
``ps``.
"""

from __future__ import annotations

import importlib
import os
import sys

MARKER = "PRIMETUI_SERVE_SPARE"
"""Set to ``1`` in a spare's environment by the server; removed once a tab takes it."""

WARM = (
    "textual.app",
    "textual.drivers.web_driver",
    "primetui.commands.cli",
    "primetui.commands.launch",
    "primetui.config.settings",
    "primetui.config.prefs",
    "primetui.api.prefetch",
    "primetui.api.client",
    "primetui.ui.app",
    "primetui.ui.crashguard",
    "primetui.sft.sweep",
)
"""What the dashboard imports before its first frame (``python -X importtime -m primetui``)."""

WARM_LOCAL = ("primetui.local.launcher", "primetui.local.teams")
"""For ``--local``, when the local extra is installed."""

LINE_MAX = 64


class BadStart(ValueError):
    """The server sent something other than ``go <width> <height>``."""


def parse_go(line: bytes) -> tuple[int, int]:
    """``b"go 120 36"`` -> ``(120, 36)``; sizes are clamped as the server clamps a tab's (10 to 1000)."""
    parts = line.strip().split()
    if len(parts) != 3 or parts[0] != b"go" or not all(p.isdigit() for p in parts[1:]):
        raise BadStart(f"a spare expects 'go <width> <height>', got {line[:LINE_MAX]!r}")
    width, height = (max(10, min(1000, int(p))) for p in parts[1:])
    return width, height


def read_line(fd: int = 0) -> bytes:
    """One line from ``fd``, a byte at a time: what follows the newline is the tab's, not ours."""
    line = bytearray()
    while len(line) < LINE_MAX:
        byte = os.read(fd, 1)
        if not byte:
            break
        if byte == b"\n":
            return bytes(line)
        line += byte
    return bytes(line)


def warm(local: bool) -> None:
    """Import what the first frame needs; an import that fails here fails again, and is reported, later."""
    for name in WARM + (WARM_LOCAL if local else ()):
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - the app's own start reports it in its place
            pass


def name_process(name: bytes = b"primetui") -> None:
    """Linux: set ``/proc/self/comm``; elsewhere nothing."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(15, ctypes.c_char_p(name), 0, 0, 0)  # PR_SET_NAME
    except (OSError, AttributeError):
        pass


def hold(argv: list[str] | None = None) -> None:
    """Warm up, then wait for the server's ``go``; returns in a process ready to run as that tab's app."""
    argv = sys.argv[1:] if argv is None else argv
    warm("--local" in argv)
    line = read_line(0)
    if not line:
        os._exit(0)  # the server went away (or retired this spare) before any tab took it
    try:
        width, height = parse_go(line)
    except BadStart as exc:
        print(f"primetui: {exc}", file=sys.stderr, flush=True)
        os._exit(2)
    os.environ["COLUMNS"] = str(width)  # read by textual's web driver when the app starts
    os.environ["ROWS"] = str(height)
    os.environ.pop(MARKER, None)  # not for the app's own children (hooks, $EDITOR, shells)
    name_process()


__all__ = [
    "BadStart",
    "LINE_MAX",
    "MARKER",
    "WARM",
    "WARM_LOCAL",
    "hold",
    "name_process",
    "parse_go",
    "read_line",
    "warm",
]
