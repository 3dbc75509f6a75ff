"""A fast xterm-256color screen model in pure Python (no textual, no rich).

``Terminal(cols, rows, scrollback)`` is fed the bytes a program writes (``feed``) and keeps:

- ``lines``: the visible rows (:class:`Line`: ``chars`` one str per cell, ``attrs`` one interned
  ``(fg, bg, flags)`` per cell, see :mod:`.attrs`), ``scrollback`` (a bounded deque of ``Line``
  or plain ``str``), the cursor (``x``, ``y``, ``cursor_visible``) and ``dirty`` rows;
- the modes a front end needs: ``app_cursor``, ``app_keypad``, ``alt_screen``, ``mouse_mode`` /
  ``mouse_encoding``, ``bracketed_paste``, ``focus_events``;
- ``replies`` to send back to the program (device attributes, cursor reports) and
  ``clipboard`` texts the program copied with OSC 52.

:mod:`.keys` turns key names, pastes and mouse events into the bytes programs expect, and
:mod:`.transport` connects a terminal to a local pty or a volume session over SSH.
"""

from primetui.shell.term.screen import Line, Screen, entry_runs, entry_text
from primetui.shell.term.terminal import Terminal

__all__ = ["Line", "Screen", "Terminal", "entry_runs", "entry_text"]
